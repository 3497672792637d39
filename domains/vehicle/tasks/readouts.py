"""Pieces that read and report: tyre pressure (and the nearest tyre shop for a low one), the service
log, the nearest charger or fuel station, and the range left, in the driver's units."""

from __future__ import annotations

import datetime as dt

from toolgym.envs import GenContext, Piece, Utterance, call

from .. import rules
from ..units import number
from .index import Car
from .parts import WHEEL_NAMES, agent, distance, distances


def tyres(ctx: GenContext, car: Car) -> Piece | None:
    low = [t for t in car.tyres if t.recommended_psi - t.pressure_psi > rules.LOW_TYRE_PSI]
    if not low:
        values = sorted({t.pressure_psi for t in car.tyres})
        pressures = ", ".join(number(v) for v in values[:-1]) + (" and " if len(values) > 1 else "") + number(values[-1])
        return Piece(
            request=ctx.say("req_tyres"),
            goal="Check the tyre pressure.",
            steps=[agent(call("check_tyre_pressure"))],
            reply=Utterance(intent="reply_tyres_ok", vars={"pressures": pressures}),
            outputs=[f"{pressures} psi"],
            keys=frozenset({"tyres"}),
        )
    tyre = low[0]
    shop = car.places.get("tyre_shop", ())
    if not shop:
        return None
    steps_to, said = distance(car, shop[0].distance_km)
    return Piece(
        request=ctx.say("req_tyres"),
        goal="Check the tyre pressure; if one is low, find where to get it fixed.",
        steps=[agent(call("check_tyre_pressure")), agent(call("find_nearest", category="tyre_shop")), *steps_to],
        reply=Utterance(intent="reply_tyre_low", vars={
            "wheel": WHEEL_NAMES[tyre.wheel], "psi": number(tyre.pressure_psi), "recommended": number(tyre.recommended_psi),
            "shop": shop[0].name, "distance": said}),
        outputs=[WHEEL_NAMES[tyre.wheel], f"{number(tyre.pressure_psi)} psi", shop[0].name],
        keys=frozenset({"tyres", "units"}),
    )


def service_log(ctx: GenContext, car: Car) -> Piece | None:
    if not car.service:
        return None
    last = car.service[0]
    day = dt.date.fromisoformat(last.date)
    said = f"{day:%B} {day.day}, {day.year}"
    return Piece(
        request=ctx.say("req_service"),
        goal="Find out when the car was last serviced and what was done.",
        steps=[agent(call("read_service_log"))],
        reply=Utterance(intent="reply_service", vars={"date": said, "work": last.work}),
        outputs=[said, last.work],
        keys=frozenset({"service"}),
    )


def nearest(ctx: GenContext, car: Car) -> Piece | None:
    category = "charger" if car.electric else "fuel_station"
    found = car.places.get(category, ())
    if not found:
        return None
    place = found[0]
    steps_to, said = distance(car, place.distance_km)
    return Piece(
        request=ctx.say(f"req_nearest_{category}"),
        goal=f"Find the nearest {category.replace('_', ' ')}.",
        steps=[agent(call("find_nearest", category=category)), *steps_to],
        reply=Utterance(intent="reply_nearest", vars={"name": place.name, "distance": said, "eta": place.drive_min}),
        outputs=[place.name, said],
        keys=frozenset({"nearest", "units"}),
    )


def range_left(ctx: GenContext, car: Car) -> Piece | None:
    steps_to, (said,) = distances(car, float(car.v.range_km))
    level = f"{car.v.battery_pct}%" if car.electric else f"{car.v.fuel_level_pct}%"
    return Piece(
        request=ctx.say("req_range_left", energy="battery" if car.electric else "fuel"),
        goal="Find out how far the car can go on what is left.",
        steps=[agent(call("get_vehicle_status")), *steps_to],
        reply=Utterance(intent="reply_range_left", vars={"range": said, "level": level,
                                                         "energy": "battery" if car.electric else "tank"}),
        outputs=[said, level],
        keys=frozenset({"range", "units"}),
    )


READOUTS = [tyres, service_log, nearest, range_left]
