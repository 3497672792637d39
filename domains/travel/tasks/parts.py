"""How a travel task is put together: identifying the traveller, wording flights, and the
opening and lead-ins around the engine's `assemble`."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from toolgym.envs import Fact, GenContext, Identity, Piece, Step, Task, ToolCall, lookup_identity, pieces
from toolgym.envs import assemble as engine_assemble
from toolgym.envs.phrasing import month_day, register_of

from ..catalogue import AIRPORT_BY_CODE, FARE_RULE_BY_CABIN
from .index import FlightInfo, TravellerInfo, index_of


def agent(
    *calls: ToolCall, confirm: str | None = None, needs: tuple[str, ...] = (), derived: dict[str, str] | None = None,
    disclose: tuple[str, ...] = (),
) -> Step:
    """A step of the agent's; `derived` names the arguments it computes from what it read (see Step.derived);
    `disclose`, what its confirmation must state (a price the yes agrees to)."""
    return Step(calls=list(calls), confirm=confirm, needs=list(needs), derived=derived or {}, disclose=list(disclose))


LEAVE_OUT_SHARE = 0.45  # requests that leave out a value only the traveller knows (a date, a seat): the agent asks


def leaves_out(ctx: GenContext) -> bool:
    """Whether this request leaves out the value its call needs, for the agent to ask."""
    return ctx.rng.random() < LEAVE_OUT_SHARE


day_text = month_day  # "March 15"


def clock(local: str) -> tuple[str, str]:
    """'2026-03-15 18:05 America/New_York' -> ('18:05', 'March 15')."""
    stamp = dt.datetime.strptime(local[:16], "%Y-%m-%d %H:%M")
    return f"{stamp:%H:%M}", day_text(stamp.date())


def leaving(local: str) -> str:
    """'2026-03-06 16:25 America/Denver' -> 'leaving March 6 at 16:25 local time': a flight as a question names it."""
    time, day = clock(local)
    return f"leaving {day} at {time} local time"


def city(code: str) -> str:
    return AIRPORT_BY_CODE[code].city


def cabin_label(cabin: str) -> str:
    return FARE_RULE_BY_CABIN[cabin].label


# how a reply tells that the times it gives are a delayed flight's new ones
_LATE = (" (running {} minutes late)", " (delayed {} minutes)", " ({} minutes behind schedule)")


def flight_vars(flight: FlightInfo) -> dict[str, Any]:
    """What replies say of a flight: number, local departure and arrival, duration, cities. A delayed
    flight's times are the expected ones, with `late` telling so ("18:55 local time (delayed 25
    minutes)"), and `due_time` the departure it had; "departs at 18:30" would send the traveller to a
    gate 25 minutes early and tell them nothing of the delay the tool showed."""
    view = flight.view
    delayed = view.get("status") == "delayed"
    dep_time, dep_day = clock(view["expected_departure_local" if delayed else "departs_local"])
    arr_time, arr_day = clock(view["expected_arrival_local" if delayed else "arrives_local"])
    minutes = flight.row.delay_minutes
    return {
        "number": flight.row.flight_number,
        "flight_id": flight.flight_id,
        "dep_time": dep_time,
        "dep_day": dep_day,
        "due_time": clock(view["departs_local"])[0],
        "late": _LATE[minutes // 5 % len(_LATE)].format(minutes) if delayed else "",
        "arr_time": arr_time,
        "arr_day": arr_day,
        "duration": flight.view["duration"],
        "origin": city(flight.row.origin),
        "destination": city(flight.row.destination),
        "via": city(flight.row.via) if flight.row.via else "",
    }


def email_fact(t: TravellerInfo) -> Fact:
    return Fact(key="email", value=t.email, label="email address", keywords=["email", "e-mail"])


def loyalty_fact(t: TravellerInfo) -> Fact:
    return Fact(key="loyalty", value=t.loyalty_number, label="loyalty number", keywords=["loyalty", "membership", "frequent"])


def identify(ctx: GenContext, traveller_id: str) -> Identity:
    """The traveller gives their email or their loyalty number; the agent looks them up by it."""
    t = index_of(ctx.world).travellers[traveller_id]
    goal = f"You are {t.full_name}."
    if ctx.rng.random() < 0.5:
        return lookup_identity([email_fact(t)], "find_traveller_by_email", {"email": t.email},
                               fragment=ctx.say("give_email", email=t.email), goal=goal)  # fmt: skip
    return lookup_identity([loyalty_fact(t)], "find_traveller_by_loyalty_number", {"loyalty_number": t.loyalty_number},
                           fragment=ctx.say("give_loyalty", number=t.loyalty_number), goal=goal)  # fmt: skip


# ids a traveller never knows: the agent finds them (a flight by route and date, a hotel by city)
FOUND_IDS = {"flight_id": ("flight id", ["flight id"]), "hotel_id": ("hotel id", ["hotel id"]),
             "booking_id": ("booking id", ["booking id", "booking reference"])}  # fmt: skip


def assemble(ctx: GenContext, parts: list[Piece], *, withhold: float = 0.3, **options: Any) -> Task:
    """The task of `parts`: the traveller (the first piece's subject) identified first, later
    requests led in, and the first request opened in the persona's register."""
    persona = ctx.persona()
    parts = [replace(p, request=f"{ctx.say('next_request')} {p.request}") if i else p for i, p in enumerate(parts)]
    parts = pieces.without_repeated_reads(ctx, parts)
    task = engine_assemble(ctx, parts, identify=identify, withhold_identity=ctx.rng.random() < withhold,
                           found_ids=FOUND_IDS, goal_joiner=" Then ", closing="", **options)  # fmt: skip
    opening = ctx.say(ctx.domain.phrasebook.voiced("opening", register_of(persona)))
    requests = list(task.scenario.requests)
    requests[0] = f"{opening} {requests[0]}".strip()
    scenario = task.scenario.model_copy(update={"persona": persona, "requests": requests})
    return task.model_copy(update={"scenario": scenario})


def clause(ctx: GenContext, intent: str, **values: Any) -> str:
    """A phrase said inside another sentence (an action to confirm, a rule, a problem): rendered
    text opens with a capital, which mid-sentence it must not."""
    text = ctx.say(intent, **values)
    word = text.split(" ", 1)[0]
    if word == "A" or (len(word) > 1 and word[1:].islower()):  # 'Book' -> 'book'; 'I', ids like 'SW214' stay
        return text[:1].lower() + text[1:]
    return text
