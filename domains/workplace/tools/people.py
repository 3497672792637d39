"""Who is who: the signed-in person's profile and the colleague directory."""

from __future__ import annotations

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from ..tables import Employee, EmployeeBase
from .common import me


@tool
def get_my_profile(world: World) -> EmployeeBase:
    """Get the signed-in person's own profile: name, email, team, office and time zone."""
    return me(world)


@tool
def lookup_colleague(world: World, query: str) -> list[EmployeeBase]:
    """Find a colleague: an exact full name or address finds that person; otherwise up to 5 colleagues whose name
    or email contains the query. Gives their email, team, title, office and time zone.

    Args:
        query: Part of a colleague's name or email address, such as 'Dana' or 'dana.ruiz'.
    """
    text = query.strip().lower()
    if len(text) < 2:
        raise ToolError(f"query {query!r} is too short; give at least 2 letters of a name or email")
    exact = world.select(Employee, {"email": text}) or world.select(Employee, {"name": query.strip()})
    if exact:  # a full address or name, the usual case: an indexed lookup instead of a scan
        return exact
    rows = world.query(
        "SELECT id FROM employee WHERE lower(name) LIKE ? OR email LIKE ? ORDER BY name LIMIT 5",
        (f"%{text}%", f"%{text}%"),
    )
    return [world.require(Employee, r[0], "employee") for r in rows]
