"""Calendar: list events, find free slots for several people, create, reschedule, cancel, respond."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from toolgym.envs import Record, World, tool
from toolgym.errors import ToolError

from ..catalogue import SLOT_MINUTES, WORK_END, WORK_START
from ..tables import Attendee, Employee, EmployeeBase, Event, EventBase
from .common import colleague_by_email, local_text, me, parse_day, parse_local, zone

Duration = Literal[15, 30, 45, 60, 90]
_ORGANISED = Record("event_id", "event", owner="organizer_id")
# An invitee answers an invitation to someone else's event: the tool refuses anyone not invited.
_INVITATION = Record("event_id", "event", owner="organizer_id", allowed="an invitee answers an invitation to another's event")


class Guest(BaseModel):
    name: str
    email: str
    response: str


class EventView(BaseModel):
    event_id: str
    title: str
    start: str  # the signed-in person's local time
    end: str
    time_zone: str
    location: str
    recurrence: str
    status: str
    organizer: str  # the organiser's email
    attendees: list[Guest]


def event_view(world: World, event: EventBase, time_zone: str) -> EventView:
    rows = world.query(  # attendees with their names in one statement
        "SELECT p.name, p.email, a.response FROM attendee a JOIN employee p ON p.id = a.employee_id WHERE a.event_id = ? ORDER BY a.id",
        (event.id,),
    )
    organizer = world.require(Employee, event.organizer_id, "employee")
    return EventView(
        event_id=event.id,
        title=event.title,
        start=local_text(event.start, time_zone),
        end=local_text(event.end, time_zone),
        time_zone=time_zone,
        location=event.location,
        recurrence=event.recurrence,
        status=event.status,
        organizer=organizer.email,
        attendees=[Guest(name=n, email=e, response=r) for n, e, r in rows],
    )


def _day_bounds(day: dt.date, time_zone: str) -> tuple[dt.datetime, dt.datetime]:
    start = (
        dt.datetime.combine(day, dt.time())
        .replace(tzinfo=zone(time_zone))
        .astimezone(dt.UTC)
        .replace(tzinfo=None)
    )
    return start, start + dt.timedelta(days=1)


@tool
def list_events(world: World, date: str) -> list[EventView]:
    """List the events on your calendar on one day (your local time), with attendees and their responses.

    Args:
        date: The day, as YYYY-MM-DD, such as '2025-03-12'.
    """
    who = me(world)
    start, end = _day_bounds(parse_day(date), who.time_zone)
    rows = world.query(
        "SELECT e.id FROM event e JOIN attendee a ON a.event_id = e.id WHERE a.employee_id = ? AND e.start < ? AND e.end > ? "
        "AND e.status = 'confirmed' ORDER BY e.start, e.id",
        (who.id, end.isoformat(), start.isoformat()),  # stored as ISO text: compare like with like
    )
    return [event_view(world, world.require(Event, r[0]), who.time_zone) for r in rows]


def busy_times(
    world: World, people: Sequence[str], start: dt.datetime, end: dt.datetime
) -> list[tuple[dt.datetime, dt.datetime]]:
    """The confirmed events (not declined) of these employees that overlap [start, end)."""
    marks = ",".join("?" * len(people))
    rows = world.query(
        f"SELECT e.start, e.end FROM event e JOIN attendee a ON a.event_id = e.id WHERE a.employee_id IN ({marks}) "
        "AND a.response != 'declined' AND e.status = 'confirmed' AND e.start < ? AND e.end > ?",
        (*people, end.isoformat(), start.isoformat()),
    )
    return [(_moment(s), _moment(e)) for s, e in rows]


def _moment(value: object) -> dt.datetime:
    return value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(str(value))


def working_window(person: EmployeeBase, day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """The person's working hours on a day of their own calendar, as naive UTC."""
    tz = zone(person.time_zone)
    begin = dt.datetime.combine(day, dt.time(WORK_START)).replace(tzinfo=tz).astimezone(dt.UTC)
    close = dt.datetime.combine(day, dt.time(WORK_END)).replace(tzinfo=tz).astimezone(dt.UTC)
    return begin.replace(tzinfo=None), close.replace(tzinfo=None)


def free_slots(
    world: World, people: Sequence[EmployeeBase], day: dt.date, minutes: int, time_zone: str
) -> list[dt.datetime]:
    """Starts (naive UTC, on the half hour) on `day` of `time_zone` when everyone is in working hours and free."""
    start, end = _day_bounds(day, time_zone)
    windows = [w for p in people for w in [working_window(p, day + dt.timedelta(days=d)) for d in (-1, 0, 1)]]
    busy = busy_times(world, [p.id for p in people], start, end + dt.timedelta(minutes=minutes))
    length = dt.timedelta(minutes=minutes)
    found = []
    moment = start
    while moment < end:
        finish = moment + length
        in_hours = all(
            any(b <= moment and finish <= c for b, c in windows[i * 3 : i * 3 + 3])
            for i in range(len(people))
        )
        if moment >= world.now and in_hours and not any(s < finish and moment < e for s, e in busy):
            found.append(moment)
        moment += dt.timedelta(minutes=SLOT_MINUTES)
    return found


class Slots(BaseModel):
    date: str
    time_zone: str
    duration_minutes: int
    people: list[str]
    free_starts: list[str]  # local times when everyone is free and in working hours


@tool
def find_free_slots(world: World, emails: list[str], date: str, duration_minutes: Duration) -> Slots:
    """Find when you and the given colleagues are all free and inside everyone's working hours (9:00-17:00 in each
    person's own time zone) on one day. Starts are on the hour or half hour, in your local time.

    Args:
        emails: The colleagues' email addresses (you are included without being listed).
        date: The day, as YYYY-MM-DD, in your time zone.
        duration_minutes: How long the meeting lasts, in minutes.
    """
    who = me(world)
    people = [who] + [colleague_by_email(world, e) for e in emails if e.strip().lower() != who.email]
    day = parse_day(date)
    starts = free_slots(world, people, day, duration_minutes, who.time_zone)
    return Slots(
        date=day.isoformat(),
        time_zone=who.time_zone,
        duration_minutes=duration_minutes,
        people=[p.email for p in people],
        free_starts=[local_text(s, who.time_zone) for s in starts],
    )


# A new meeting is "booked" or "scheduled" as often as "created".
@tool(writes=True, claims=("create", "schedule", "book", "invite", "set_up", "arrange"), area="calendar")
def create_event(
    world: World,
    title: str,
    start: str,
    duration_minutes: Duration,
    attendees: list[str],
    location: str = "Video call",
) -> EventView:
    """Create an event on your calendar and invite colleagues (you are the organiser).

    Args:
        title: The event's title.
        start: When it starts, in your local time, as 'YYYY-MM-DD HH:MM'.
        duration_minutes: How long it lasts, in minutes.
        attendees: The invited colleagues' email addresses.
        location: A room name or 'Video call'.
    """
    who = me(world)
    begin = parse_local(start, who.time_zone, "start")
    if begin < world.now:
        raise ToolError(
            f"start {start!r} is in the past; it is {local_text(world.now, who.time_zone)} now in {who.time_zone}"
        )
    if not title.strip():
        raise ToolError("the title is empty; give the event a title")
    guests = {g.id: g for g in (colleague_by_email(world, e) for e in attendees) if g.id != who.id}
    number = world.new_id("event", table="event")
    event = world.insert(
        Event,
        {
            "id": f"EV{number:05d}",
            "organizer_id": who.id,
            "title": title.strip(),
            "start": begin,
            "end": begin + dt.timedelta(minutes=duration_minutes),
            "location": location.strip() or "Video call",
        },
    )
    world.insert(
        Attendee,
        {"id": f"{event.id}/{who.id}", "event_id": event.id, "employee_id": who.id, "response": "accepted"},
    )
    for guest in guests.values():
        world.insert(
            Attendee, {"id": f"{event.id}/{guest.id}", "event_id": event.id, "employee_id": guest.id}
        )
    return event_view(world, event, who.time_zone)


def _organised_event(world: World, event_id: str, action: str) -> EventBase:
    event = world.require(Event, event_id.strip(), "event")
    if event.status == "cancelled":
        raise ToolError(f"event {event_id} is already cancelled")
    if event.organizer_id != me(world).id:
        raise ToolError(
            f"you do not organise event {event_id}; only its organiser can {action} it (you may respond to it)"
        )
    return event


@tool(writes=True, acts_on=_ORGANISED, area="calendar")
def reschedule_event(world: World, event_id: str, start: str) -> EventView:
    """Move an event you organise to a new start time; it keeps its length and attendees.

    Args:
        event_id: The event id, such as 'EV00042'.
        start: The new start, in your local time, as 'YYYY-MM-DD HH:MM'.
    """
    who = me(world)
    event = _organised_event(world, event_id, "reschedule")
    begin = parse_local(start, who.time_zone, "start")
    if begin < world.now:
        raise ToolError(
            f"start {start!r} is in the past; it is {local_text(world.now, who.time_zone)} now in {who.time_zone}"
        )
    moved = world.update(Event, event.id, start=begin, end=begin + (event.end - event.start))
    return event_view(world, moved, who.time_zone)


@tool(writes=True, acts_on=_ORGANISED, area="calendar")
def cancel_event(world: World, event_id: str) -> EventView:
    """Cancel an event you organise; its attendees are told.

    Args:
        event_id: The event id, such as 'EV00042'.
    """
    event = _organised_event(world, event_id, "cancel")
    return event_view(world, world.update(Event, event.id, status="cancelled"), me(world).time_zone)


@tool(writes=True, acts_on=_INVITATION, area="calendar")
def respond_to_event(
    world: World, event_id: str, response: Literal["accepted", "tentative", "declined"]
) -> EventView:
    """Answer an invitation to an event you attend.

    Args:
        event_id: The event id, such as 'EV00042'.
        response: Your answer: 'accepted', 'tentative' or 'declined'.
    """
    who = me(world)
    event = world.require(Event, event_id.strip(), "event")
    mine = world.get(Attendee, f"{event.id}/{who.id}")
    if mine is None:
        raise ToolError(f"you are not invited to event {event_id}; list_events shows the events you attend")
    if mine.response == response:
        raise ToolError(f"you have already {response} event {event_id}")
    world.update(Attendee, mine.id, response=response)
    return event_view(world, event, who.time_zone)


CALENDAR_TOOLS = [
    list_events,
    find_free_slots,
    create_event,
    reschedule_event,
    cancel_event,
    respond_to_event,
]
