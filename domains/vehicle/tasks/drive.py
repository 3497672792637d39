"""Pieces about driving and the car at rest: doors, trunk, engine (the brake-and-locks chain),
cruise control, navigation, charging and driver profiles. Guarded writes carry `confirm`."""

from __future__ import annotations

from dataclasses import replace

from toolgym.envs import Forbidden, GenContext, Piece, Step, Utterance, WorldEdit, call, shown_as

from .. import rules
from ..units import convert
from .comfort import TEMPS_C
from .index import Car
from .parts import agent, asked, car_edit, convert_step, distances, slot, temp

DOOR_WORDS = {"front_left": "the driver's door", "front_right": "the front passenger door", "rear_left": "the rear left door",
              "rear_right": "the rear right door", "all": "all the doors"}
DESTINATIONS = ("airport", "hotel", "restaurant", "office", "mall")


def destinations(car: Car) -> tuple[str, ...]:
    """The kinds of place a driver asks to be taken to: where anyone goes, and where this car refuels
    (a charger for an electric car, a fuel station for a car that burns fuel)."""
    return (*DESTINATIONS, "charger" if car.electric else "fuel_station")


DECLINE_SHARE = 0.15  # of guarded actions, the driver hears what will happen and says no


def _declined(ctx: GenContext, piece: Piece, reply: Utterance, outputs: list[str]) -> Piece:
    """Sometimes the driver says no once told what will happen: no call, and the reply says what stays."""
    if ctx.rng.random() >= DECLINE_SHARE:
        return piece
    steps = [*piece.steps[:-1], piece.steps[-1].model_copy(update={"declined": True})]
    return replace(piece, steps=steps, reply=reply, outputs=outputs)


def unlock(ctx: GenContext, car: Car) -> Piece | None:
    if car.moving:
        return None
    door = ctx.pick(("all", "all", "front_left", "front_right", "rear_left", "rear_right"))
    if door != "all" and door in car.unlocked():
        return None
    piece = Piece(
        request=ctx.say("req_unlock", door=slot(ctx, f"say_door_{door}")),
        goal=f"Unlock {DOOR_WORDS[door]}.",
        steps=[agent(call("get_vehicle_status"), because="no door is unlocked while the car is moving"),
               agent(call("unlock_doors", door=door), confirm=f"unlock {DOOR_WORDS[door]}")],
        reply=Utterance(intent="reply_unlocked", vars={"door": DOOR_WORDS[door]}),
        outputs=["unlocked"],
        keys=frozenset({"doors"}),
        forbidden=[] if door == "all" else [Forbidden(reason="unlocked more doors than the driver asked", tool="unlock_doors", arguments={"door": "all"})],
    )
    return _declined(ctx, piece, Utterance(intent="reply_unlock_declined", vars={"door": DOOR_WORDS[door]}), ["locked"])


def trunk(ctx: GenContext, car: Car) -> Piece | None:
    """Open the trunk (guarded) when stopped, or close one left open."""
    if ctx.rng.random() < 0.35:
        return Piece(
            request=ctx.say("req_trunk_close"),
            goal="Close the trunk.",
            steps=[agent(call("set_trunk", action="close"))],
            reply=Utterance(intent="reply_trunk", vars={"state": "closed"}),
            outputs=["closed"],
            keys=frozenset({"trunk"}),
            setup=[car_edit(car, trunk_open=True)],
        )
    if car.v.speed_kmh > rules.TRUNK_MAX_KMH:
        return None
    return Piece(
        request=ctx.say("req_trunk_open"),
        goal="Open the trunk.",
        steps=[agent(call("get_vehicle_status"), because=f"the trunk does not open above {rules.TRUNK_MAX_KMH} km/h"),
               agent(call("set_trunk", action="open"), confirm="open the trunk")],
        reply=Utterance(intent="reply_trunk", vars={"state": "open"}),
        outputs=["open"],
        keys=frozenset({"trunk"}),
    )


def start_steps(car: Car) -> list[Step]:
    """Read the doors, lock any unlocked one, press the brake, then start (guarded)."""
    doors = "the engine starts only with every door locked"
    steps = [agent(call("get_doors_and_windows"), because=doors)]
    if car.unlocked():
        # the door the read shows unlocked is the reason to lock (the trace cites it; `diagnosis` wants it seen first)
        unlocked = shown_as(position=car.unlocked()[0], locked=False)
        steps.append(agent(call("lock_doors", door="all"), because=doors, evidence=(unlocked,)))
    steps += [agent(call("press_brake", pressed=True), because="the engine starts only with the brake pressed"),
              agent(call("start_engine"), confirm="start the engine")]
    return steps


# A start readies the car to drive off: never while it charges at a charger, nor in a chat that
# starts or stops charging (the key keeps the charging pieces out of its task).
STARTING_KEYS = frozenset({"doors", "engine", "brake", "charging"})


def start_engine(ctx: GenContext, car: Car) -> Piece | None:
    if car.v.engine_on or car.v.charging:
        return None
    return Piece(
        request=ctx.say("req_start"),
        goal="Start the engine.",
        steps=start_steps(car),
        reply=Utterance(intent="reply_started", vars={"locked": bool(car.unlocked())}),
        outputs=["running"],
        keys=STARTING_KEYS,
    )


def stop_engine(ctx: GenContext, car: Car) -> Piece | None:
    """The engine off on a car at rest (started before the episode when it was off)."""
    if car.moving or car.v.gear != "P":
        return None
    setup = [] if car.v.engine_on else [car_edit(car, engine_on=True)]
    piece = Piece(
        request=ctx.say("req_stop"),
        goal="Turn the engine off.",
        steps=[agent(call("get_vehicle_status"), because="the engine is never stopped while the car is moving"),
               agent(call("stop_engine"), confirm="turn the engine off")],
        reply=Utterance(intent="reply_stopped", vars={}),
        outputs=["off"],
        keys=frozenset({"engine"}),
        setup=setup,
    )
    return _declined(ctx, piece, Utterance(intent="reply_stop_declined", vars={}), ["running"])


def cruise(ctx: GenContext, car: Car, ask: bool = False) -> Piece | None:
    """Set cruise in the driver's units: km/h as said, mph converted and rounded to the car's step.
    `ask`: the driver asks for cruise control and gives the speed when asked."""
    if not car.moving:
        return None
    if car.imperial:
        mph = ctx.pick(range(25, 81))
        kmh = int(rules.nearest_step(convert(mph, "mph", "km/h"), rules.CRUISE_STEP_KMH))
        if not rules.CRUISE_MIN_KMH <= kmh <= rules.CRUISE_POLICY_MAX_KMH:
            return None
        steps = [convert_step(call("convert_units", value=mph, from_unit="mph", to_unit="km/h")),
                 agent(call("set_cruise_control", speed_kmh=kmh),
                       derived={"speed_kmh": f"the convert_units result rounded to the nearest {rules.CRUISE_STEP_KMH} km/h, the car's step"})]
        said, stated = f"{mph} mph", f"{kmh} km/h"
    else:
        kmh = ctx.pick(range(rules.CRUISE_MIN_KMH, rules.CRUISE_POLICY_MAX_KMH + 1, rules.CRUISE_STEP_KMH))
        steps = [agent(call("set_cruise_control", speed_kmh=kmh))]
        said = stated = f"{kmh} km/h"
    piece = Piece(
        request=ctx.say("req_cruise", speed=said),
        goal=f"Set cruise control to {said}.",
        steps=steps,
        reply=Utterance(intent="reply_cruise", vars={"speed": stated, "said": said}),
        outputs=[stated],
        keys=frozenset({"cruise", "units"}),
    )
    if not ask:
        return piece
    return asked(piece, ctx.say("req_cruise_unsaid"), key="cruise_speed", label="preferred cruise speed", value=said, keywords=["speed"])


def cancel_cruise(ctx: GenContext, car: Car) -> Piece | None:
    """Cruise off: on where it is on, or set on (at a legal speed) before the episode on a moving car."""
    if not car.v.cruise_on and not car.moving:
        return None
    speed = max(rules.CRUISE_MIN_KMH, min(rules.CRUISE_POLICY_MAX_KMH, car.v.speed_kmh))
    speed -= (speed - rules.CRUISE_MIN_KMH) % rules.CRUISE_STEP_KMH
    setup = [] if car.v.cruise_on else [car_edit(car, cruise_on=True, cruise_speed_kmh=speed)]
    return Piece(
        request=ctx.say("req_cruise_off"),
        goal="Turn cruise control off.",
        steps=[agent(call("cancel_cruise_control"))],
        reply=Utterance(intent="reply_cruise_off", vars={}),
        outputs=["cruise control"],
        keys=frozenset({"cruise"}),
        setup=setup,
    )


def navigate(ctx: GenContext, car: Car) -> Piece | None:
    """Search a category, route to the place the driver named (or the nearest when they said 'the nearest')."""
    category = ctx.pick(destinations(car))
    named = car.named_places(category)
    if not named:
        return None
    place = ctx.pick(named)
    nearest = place.id == car.places[category][0].id and ctx.rng.random() < 0.5
    request = ctx.say(f"req_nav_nearest_{category}") if nearest else ctx.say("req_nav_named", name=place.name)
    return Piece(
        request=request,
        goal=f"Navigate to {place.name}.",
        steps=[agent(call("search_places", category=category), derived={} if nearest else kind_by_name(place.name)),
               agent(call("set_navigation", place_id=place.id))],
        reply=Utterance(intent="reply_navigation", vars={"name": place.name, "eta": place.drive_min}),
        outputs=[place.name, f"{place.drive_min} minutes"],
        keys=frozenset({"nav"}),
    )


def kind_by_name(name: str) -> dict[str, str]:
    """The category a search for a place the driver named takes: its kind, read off the name's ending
    ("Haley Business Park" is an office), which the trace says (Step.derived)."""
    return {"category": f"the kind of place {name} is, going by its name"}


def trip_range(ctx: GenContext, car: Car) -> Piece | None:
    """Can I make it to X? Search, estimate, and say trip and range in the driver's units."""
    category = ctx.pick(("airport", "hotel", "office", "mall", "restaurant"))
    named = car.named_places(category)
    if not named:
        return None
    place = ctx.pick(named)
    margin = car.v.range_km - place.distance_km
    convert_steps, (trip, reach) = distances(car, place.distance_km, float(car.v.range_km))
    return Piece(
        request=ctx.say("req_range_to", name=place.name, energy="charge" if car.electric else "fuel"),
        goal=f"Find out whether the car reaches {place.name} without stopping.",
        steps=[agent(call("search_places", category=category), derived=kind_by_name(place.name)),
               agent(call("estimate_trip_range", place_id=place.id)), *convert_steps],
        reply=Utterance(intent="reply_range_ok" if margin >= 0 else "reply_range_short",
                        vars={"name": place.name, "trip": trip, "range": reach}),
        outputs=[trip, reach],
        keys=frozenset({"range", "units"}),
    )


def _plugged_in(car: Car, *, charging: bool) -> list[WorldEdit] | None:
    """The edits that park an electric car at a charger (charging or not), or None when it cannot be."""
    v = car.v
    if not car.electric or v.gear != "P" or car.moving or v.battery_pct >= v.charge_limit_pct:
        return None
    if v.at_charger and v.charging == charging:
        return []
    if v.charging and not charging:
        return None
    return [car_edit(car, at_charger=True, charging=charging)]


def start_charging(ctx: GenContext, car: Car) -> Piece | None:
    """Start charging a car parked at a charger (plugged in before the episode when it was not)."""
    v = car.v
    setup = _plugged_in(car, charging=False)
    if setup is None:
        return None
    piece = Piece(
        request=ctx.say("req_charge_start"),
        goal="Start charging.",
        steps=[agent(call("get_vehicle_status"), because="charging needs the car parked at a charger"),
               agent(call("start_charging"), confirm=f"start charging the battery from {v.battery_pct}% up to {v.charge_limit_pct}%")],
        reply=Utterance(intent="reply_charging", vars={"battery": v.battery_pct, "limit": v.charge_limit_pct}),
        outputs=[f"{v.charge_limit_pct}%"],
        keys=frozenset({"charging", "charge_limit"}),
        setup=setup,
    )
    return _declined(ctx, piece, Utterance(intent="reply_charge_declined", vars={"battery": v.battery_pct}), [f"{v.battery_pct}%"])


def stop_charging(ctx: GenContext, car: Car) -> Piece | None:
    """Stop charging a car that charges (set charging before the episode when it was not)."""
    setup = [] if car.v.charging else _plugged_in(car, charging=True)
    if setup is None:
        return None
    return Piece(
        request=ctx.say("req_charge_stop"),
        goal="Stop charging.",
        steps=[agent(call("get_vehicle_status")), agent(call("stop_charging"), confirm="stop charging the battery")],
        reply=Utterance(intent="reply_charge_stopped", vars={"battery": car.v.battery_pct}),
        outputs=[f"{car.v.battery_pct}%"],
        keys=frozenset({"charging"}),
        setup=setup,
    )


def charge_limit(ctx: GenContext, car: Car, ask: bool = False) -> Piece | None:
    """`ask`: the driver wants the limit changed and says the new one when asked."""
    if not car.electric:
        return None
    options = range(rules.CHARGE_LIMIT_MIN, rules.CHARGE_LIMIT_MAX + 1, rules.CHARGE_LIMIT_STEP)
    percent = ctx.pick([p for p in options if p != car.v.charge_limit_pct])
    piece = Piece(
        request=ctx.say("req_charge_limit", percent=percent),
        goal=f"Set the charge limit to {percent}%.",
        steps=[agent(call("set_charge_limit", percent=percent), confirm=f"set the charge limit to {percent}%")],
        reply=Utterance(intent="reply_charge_limit", vars={"percent": percent}),
        outputs=[f"{percent}%"],
        keys=frozenset({"charge_limit", "charging"}),
    )
    if not ask:
        return piece
    return asked(piece, ctx.say("req_charge_limit_unsaid"), key="charge_limit", label="preferred charge limit", value=f"{percent}%",
                 keywords=["limit", "percent"])  # fmt: skip


def load_profile(ctx: GenContext, car: Car) -> Piece | None:
    if car.moving:
        return None
    choices = [p for p in car.profiles if p.id != car.v.profile_id and [q.name for q in car.profiles].count(p.name) == 1]
    if not choices:
        return None
    profile = ctx.pick(choices)
    return Piece(
        request=ctx.say("req_profile", name=profile.name),
        goal=f"Load {profile.name}'s driver profile.",
        steps=[agent(call("list_driver_profiles")),
               agent(call("load_driver_profile", profile_id=profile.id), confirm=f"load {profile.name}'s profile and move the seat and mirrors")],
        reply=Utterance(intent="reply_profile", vars={"name": profile.name, "seat": profile.seat_position, "units": profile.units}),
        outputs=[profile.name],
        keys=frozenset({"profile", "units"}),
    )


def airport_ready(ctx: GenContext, car: Car) -> Piece | None:
    """'Get me ready for the airport': doors, brake, engine, route, and a cabin temperature."""
    if car.v.engine_on or car.v.charging or not car.named_places("airport") or car.imperial:
        return None
    place = ctx.pick(car.named_places("airport"))
    value = ctx.pick([t for t in TEMPS_C if t != car.zones["driver"].temperature_c])
    steps = [*start_steps(car), agent(call("search_places", category="airport")),
             agent(call("set_navigation", place_id=place.id)), agent(call("set_climate", zone="driver", temperature_c=value))]
    return Piece(
        request=ctx.say("req_airport_ready", name=place.name, temp=slot(ctx, "temp_c", t=temp(value))),
        goal=f"Get the car ready to drive to {place.name}, your side at {temp(value)} °C.",
        steps=steps,
        reply=Utterance(intent="reply_ready", vars={"name": place.name, "eta": place.drive_min, "temp": f"{temp(value)} °C"}),
        outputs=["running", place.name, f"{place.drive_min} minutes"],
        keys=STARTING_KEYS | {"nav", "zone:driver"},
    )


DRIVE = [unlock, trunk, start_engine, stop_engine, cruise, cancel_cruise, navigate, start_charging, stop_charging,
         charge_limit, load_profile]
