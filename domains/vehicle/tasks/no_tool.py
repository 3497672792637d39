"""The no-tool kinds the domain writes itself: a missing value, a value the car does not accept, and
a request the policy forbids (mostly while the car is moving). Irrelevant and unavailable come from
the engine."""

from __future__ import annotations

from toolgym.envs import Forbidden, GenContext, Piece, Task, call, pieces
from toolgym.envs.valid_values import nearest_bound, said

from .. import rules
from .index import Car
from .kinds import draw_on_car
from .parts import ZONE_NAMES, agent, on_car, slot

ZONES = tuple(ZONE_NAMES)


def _missing_cruise(ctx: GenContext, car: Car) -> Piece | None:
    if not car.moving:
        return None
    return pieces.missing_info(ctx.say("req_missing_cruise"), "Turn on cruise control; you have not decided on a speed.", ["cruise speed"],
                                chosen=True)


def _missing_limit(ctx: GenContext, car: Car) -> Piece | None:
    if not car.electric:
        return None
    return pieces.missing_info(ctx.say("req_missing_limit"), "Change the charge limit; you have not said to what.", ["charge limit"],
                                chosen=True)


def _missing_temp(ctx: GenContext, car: Car) -> Piece | None:
    zone = ctx.pick(ZONES)
    return pieces.missing_info(
        ctx.say("req_missing_temp", zone=slot(ctx, f"say_zone_{zone}")),
        f"Change the temperature of {ZONE_NAMES[zone]}; you have not said to what.",
        ["target temperature"],
        chosen=True,
    )


def _missing_window(ctx: GenContext, car: Car) -> Piece | None:
    which = ctx.pick(("front_left", "front_right", "rear_left", "rear_right", "all"))
    return pieces.missing_info(
        ctx.say("req_missing_window", window=slot(ctx, f"say_window_{which}")),
        "Open a window part way; you have not said how far.",
        ["opening percentage"],
        chosen=True,
    )


def missing_info(ctx: GenContext) -> Task:
    """The driver asks for a setting without its value: the agent asks for it and changes nothing."""
    car, piece = draw_on_car(ctx, [_missing_cruise, _missing_limit, _missing_temp, _missing_window])
    return on_car(ctx, car, [piece])


def _bad_temp(ctx: GenContext, car: Car) -> Piece | None:
    value = ctx.pick((10, 12, 14, 15, 15.5, 30.5, 31, 32, 35, 40, 21.3, 22.7, 19.2, 24.8))
    zone = ctx.pick(ZONES)
    return pieces.invalid_value(
        ctx.say("req_temperature", zone=slot(ctx, f"say_zone_{zone}"), temp=slot(ctx, "temp_c", t=f"{value:g}")),
        f"Set {ZONE_NAMES[zone]} to {value:g} °C.",
        parameter="temperature_c", value=value, label="temperature",
        valid=said(nearest_bound(value, rules.TEMP_MIN_C, rules.TEMP_MAX_C), " °C"),
        problem=slot(ctx, "problem_temp", low=f"{rules.TEMP_MIN_C:g}", high=f"{rules.TEMP_MAX_C:g}", step=f"{rules.TEMP_STEP_C:g}"),
    )


def _bad_cruise(ctx: GenContext, car: Car) -> Piece | None:
    if not car.moving:
        return None
    value = ctx.pick((15, 20, 25, 28, 42, 57, 63, 77, 88, 93, 102, 117, 165, 170, 180, 200))
    return pieces.invalid_value(
        ctx.say("req_cruise", speed=f"{value} km/h"),
        f"Set cruise control to {value} km/h.",
        parameter="speed_kmh", value=value, label="cruise speed",
        # too fast: the car's top cruise speed is above what the policy allows, so nothing is offered
        valid=said(rules.CRUISE_MIN_KMH if value < rules.CRUISE_MIN_KMH else None, " km/h"),
        problem=slot(ctx, "problem_cruise", low=rules.CRUISE_MIN_KMH, high=rules.CRUISE_MAX_KMH, step=rules.CRUISE_STEP_KMH),
    )


def _bad_limit(ctx: GenContext, car: Car) -> Piece | None:
    if not car.electric:
        return None
    value = ctx.pick((20, 30, 40, 45, 48, 72, 83, 88, 97, 105, 110, 120))
    return pieces.invalid_value(
        ctx.say("req_charge_limit", percent=value),
        f"Set the charge limit to {value}%.",
        parameter="percent", value=value, label="charge limit",
        valid=said(nearest_bound(value, rules.CHARGE_LIMIT_MIN, rules.CHARGE_LIMIT_MAX), "%"),
        problem=slot(ctx, "problem_limit", low=rules.CHARGE_LIMIT_MIN, high=rules.CHARGE_LIMIT_MAX, step=rules.CHARGE_LIMIT_STEP),
    )


def _bad_volume(ctx: GenContext, car: Car) -> Piece | None:
    if car.moving:
        return None
    value = ctx.pick((45, 50, 55, 60, 75, 80, 99, 100))
    return pieces.invalid_value(
        ctx.say("req_volume", level=value, way="up"),
        f"Set the volume to {value}.",
        parameter="level", value=value, label="volume",
        valid=said(nearest_bound(value, 0, rules.VOLUME_MAX)),
        problem=slot(ctx, "problem_volume", high=rules.VOLUME_MAX),
    )


def invalid_value(ctx: GenContext) -> Task:
    """A value the car does not accept: the agent names it and what is allowed, and calls nothing."""
    car, piece = draw_on_car(ctx, [_bad_temp, _bad_cruise, _bad_limit, _bad_volume])
    return on_car(ctx, car, [piece])


def _status_read() -> list:  # type: ignore[type-arg]
    return [agent(call("get_vehicle_status"))]


def _refuse(ctx: GenContext, request: str, goal: str, rule: str, tool: str, arguments: dict, read: bool,  # type: ignore[type-arg]
            instead: str = "") -> Piece:
    """`instead`: the intent of what the rule leaves open, offered in the request's place."""
    return pieces.policy_refusal(
        request, goal, rule=slot(ctx, rule),
        forbidden=[Forbidden(reason=f"broke the policy: {rule}", tool=tool, arguments=arguments)],
        steps=_status_read() if read else [],
        instead=slot(ctx, instead, speed=rules.CRUISE_POLICY_MAX_KMH) if instead else "",
    )


def _moving_unlock(ctx: GenContext, car: Car) -> Piece | None:
    if not car.moving:
        return None
    return _refuse(ctx, ctx.say("req_unlock", door=slot(ctx, "say_door_all")), "Unlock the doors while driving.",
                   "rule_unlock_moving", "unlock_doors", {}, True)


def _moving_stop(ctx: GenContext, car: Car) -> Piece | None:
    if not car.moving:
        return None
    return _refuse(ctx, ctx.say("req_stop"), "Turn the engine off while driving.", "rule_stop_moving", "stop_engine", {}, True)


def _moving_headlights(ctx: GenContext, car: Car) -> Piece | None:
    if not car.moving:
        return None
    return _refuse(ctx, ctx.say("req_headlights_off"), "Turn the headlights off while driving.", "rule_headlights",
                   "set_lights", {"light": "headlights", "mode": "off"}, True,
                   instead="instead_headlights" if car.v.headlights == "on" else "")


def _moving_loud(ctx: GenContext, car: Car) -> Piece | None:
    if not car.moving:
        return None
    level = ctx.pick(range(rules.VOLUME_MOVING_MAX + 1, rules.VOLUME_MAX + 1))
    return _refuse(ctx, ctx.say("req_volume", level=level, way="up"), f"Set the volume to {level} while driving.",
                   "rule_volume_moving", "set_volume", {"level": level}, True)


def _too_fast(ctx: GenContext, car: Car) -> Piece | None:
    if not car.moving:
        return None
    speed = ctx.pick(range(rules.CRUISE_POLICY_MAX_KMH + rules.CRUISE_STEP_KMH, rules.CRUISE_MAX_KMH + 1, rules.CRUISE_STEP_KMH))
    return _refuse(ctx, ctx.say("req_cruise", speed=f"{speed} km/h"), f"Set cruise control to {speed} km/h.",
                   "rule_cruise_max", "set_cruise_control", {"speed_kmh": speed}, False, instead="instead_cruise")


def _moving_video(ctx: GenContext, car: Car) -> Piece | None:
    if not car.moving:
        return None
    return _refuse(ctx, ctx.say("req_play_video", title=ctx.pick(("the cartoon episode", "the nature documentary", "the cooking show"))),
                   "Play a video while driving.", "rule_video", "play_media", {"source": "video"}, True, instead="instead_video")


def _no_charger(ctx: GenContext, car: Car) -> Piece | None:
    if not car.electric or car.v.at_charger or car.moving:
        return None
    return _refuse(ctx, ctx.say("req_charge_start"), "Start charging (the car is not at a charger).", "rule_charger",
                   "start_charging", {}, True, instead="instead_charger")


def _moving_trunk(ctx: GenContext, car: Car) -> Piece | None:
    if car.v.speed_kmh <= rules.TRUNK_MAX_KMH:
        return None
    return _refuse(ctx, ctx.say("req_trunk_open"), "Open the trunk while driving.", "rule_trunk", "set_trunk", {"action": "open"}, True)


def policy_refusal(ctx: GenContext) -> Task:
    """What the policy (or the car) forbids in this state: the agent reads, says the rule, does nothing."""
    builders = [_moving_unlock, _moving_stop, _moving_headlights, _moving_loud, _too_fast, _moving_video, _no_charger, _moving_trunk]
    car, piece = draw_on_car(ctx, builders)
    return on_car(ctx, car, [piece])



