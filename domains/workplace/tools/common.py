"""What every workplace tool needs: the signed-in person, times in their zone, and result views."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from toolgym.envs import World
from toolgym.errors import ToolError

from ..tables import Employee, EmployeeBase, Session

TIME_FORMAT = "%Y-%m-%d %H:%M"


def me(world: World) -> EmployeeBase:
    """The signed-in employee: every mailbox, calendar and task list tool acts for them."""
    session = world.require(Session, 1, "session")
    return world.require(Employee, session.employee_id, "employee")


@lru_cache(maxsize=16)
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def local_text(moment: dt.datetime, time_zone: str) -> str:
    """A stored UTC time as 'YYYY-MM-DD HH:MM' in `time_zone`."""
    return moment.replace(tzinfo=dt.UTC).astimezone(zone(time_zone)).strftime(TIME_FORMAT)


def parse_local(text: str, time_zone: str, what: str) -> dt.datetime:
    """'YYYY-MM-DD HH:MM' in `time_zone` as naive UTC; a ToolError that shows the format otherwise."""
    try:
        local = dt.datetime.strptime(text.strip(), TIME_FORMAT)
    except ValueError:
        raise ToolError(
            f"{what} {text!r} is not a time like '2025-03-12 14:30' (YYYY-MM-DD HH:MM, your local time)"
        ) from None
    return local.replace(tzinfo=zone(time_zone)).astimezone(dt.UTC).replace(tzinfo=None)


def parse_day(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ToolError(f"date {text!r} is not a calendar date like '2025-03-12' (YYYY-MM-DD)") from None


def colleague_by_email(world: World, email: str) -> EmployeeBase:
    """An employee by their work address; a ToolError that says how to find one otherwise."""
    found = world.select(Employee, {"email": email.strip().lower()})
    if not found:
        raise ToolError(
            f"no one in the organisation has the address {email!r}; use lookup_colleague to find the right one"
        )
    return found[0]


class Person(BaseModel):
    name: str
    email: str


def person(employee: EmployeeBase) -> Person:
    return Person(name=employee.name, email=employee.email)
