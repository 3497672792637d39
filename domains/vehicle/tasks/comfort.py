"""Pieces about comfort: climate per zone (said in °C or °F, or vaguely), seat heating, defrost, fan,
windows, lights, media and volume. One builder per request; None when the car offers nothing for it."""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Step, Utterance, call, shown_as

from .. import rules
from ..units import convert, number
from .index import Car
from .parts import SEAT_NAMES, ZONE_NAMES, agent, asked, convert_step, slot, temp

ZONES = ("driver", "passenger", "rear_left", "rear_right")
TEMPS_C = [rules.TEMP_MIN_C + rules.TEMP_STEP_C * i for i in range(int((rules.TEMP_MAX_C - rules.TEMP_MIN_C) / rules.TEMP_STEP_C) + 1)]
TEMPS_F = list(range(61, 86))  # what an imperial driver asks for; each converts inside the car's range
MEDIA = {
    "radio": ("Jazz FM", "City Talk 98.4", "Classic Hits", "Morning News Hour", "Smooth Radio", "Rock 101", "BBC World Service", "Country Roads FM"),
    "podcast": ("The Daily Drive", "History Uncovered", "Science Weekly", "Startup Stories", "True Crime Tonight", "Football Weekly", "Mindful Minutes"),
    "bluetooth": ("my road trip playlist", "Discover Weekly", "the workout mix", "chill evening songs", "80s classics"),
    "usb": ("the audiobook", "album one", "kids' songs", "the Beatles folder"),
    "video": ("the cartoon episode", "the nature documentary", "the cooking show", "the movie from last night"),
}
LIGHT_WORDS = {"headlights": "headlights", "fog_lights": "fog lights", "hazard_lights": "hazard lights"}


def _speed_read(needed: bool, because: str) -> list[Step]:
    """The status read that shows the car is stopped, before what the policy allows only then (`because`)."""
    return [agent(call("get_vehicle_status"), because=because)] if needed else []


def _zone_said(ctx: GenContext, zone: str) -> str:
    return slot(ctx, f"say_zone_{zone}")


def set_temperature(ctx: GenContext, car: Car, ask: bool = False) -> Piece | None:
    """The driver names a zone and a temperature in their own units; °F goes through convert_units.
    `ask`: the driver names only the zone, and gives the temperature when asked."""
    zone = ctx.pick(ZONES)
    current = car.zones[zone].temperature_c
    if car.imperial:
        wanted_f = ctx.pick(TEMPS_F)
        value = rules.nearest_step(convert(wanted_f, "F", "C"), rules.TEMP_STEP_C)
        if value == current:
            return None
        steps = [
            convert_step(call("convert_units", value=wanted_f, from_unit="F", to_unit="C")),
            agent(call("set_climate", zone=zone, temperature_c=value),
                  derived={"temperature_c": f"the convert_units result rounded to the nearest {rules.TEMP_STEP_C:g} °C, the car's step"}),
        ]
        said, reply = slot(ctx, "temp_f", t=wanted_f), slot(ctx, "temp_set_f", f=wanted_f, c=temp(value))
        output = f"{wanted_f} °F"
    else:
        value = ctx.pick([t for t in TEMPS_C if t != current])
        steps = [agent(call("set_climate", zone=zone, temperature_c=value))]
        said = slot(ctx, "temp_c", t=temp(value))
        reply = output = f"{temp(value)} °C"
    piece = Piece(
        request=ctx.say("req_temperature", zone=_zone_said(ctx, zone), temp=said),
        goal=f"Set {ZONE_NAMES[zone]} to {said}.",
        steps=steps,
        reply=Utterance(intent="reply_temperature", vars={"zone": ZONE_NAMES[zone], "temp": reply}),
        # the zone set is part of the answer: "27 °C" alone does not say where, and a terse "The rear
        # left zone: 27 °C." read back in it is the answer, not an echo (verifiers/reply_acts.no_echo)
        outputs=[output, ZONE_NAMES[zone].removeprefix("the ")],
        keys=frozenset({f"zone:{zone}", "units"}),
    )
    if not ask:
        return piece
    request = ctx.say("req_temperature_unsaid", zone=_zone_said(ctx, zone))
    return asked(piece, request, key="temperature", label="preferred temperature", value=said, keywords=["temperature"])


def comfort_nudge(ctx: GenContext, car: Car) -> Piece | None:
    """'I'm cold' / 'it's hot back here': read the climate, move the zone by the policy's step."""
    zone = ctx.pick(("driver", "driver", "passenger", "rear_left", "rear_right"))
    current = car.zones[zone].temperature_c
    warmer = ctx.rng.random() < 0.5
    value = current + (rules.COMFORT_STEP_C if warmer else -rules.COMFORT_STEP_C)
    if not rules.TEMP_MIN_C <= value <= rules.TEMP_MAX_C:
        return None
    derived = {"temperature_c": f"the zone's temperature get_climate shows, moved by the policy's comfort step of {rules.COMFORT_STEP_C:g} °C"}
    if zone == "driver":  # "I'm cold": the policy says the speaker's zone is the driver's
        derived["zone"] = "the driver's zone, since the policy takes the person talking to be the driver"
    # the zone's reading is what the new temperature is computed from: the trace cites it, and a
    # policy that sets the zone without reading it has guessed
    reading = shown_as(zone=zone, temperature_c=current)
    steps = [agent(call("get_climate")),
             agent(call("set_climate", zone=zone, temperature_c=value), derived=derived, evidence=(reading,))]
    if car.imperial:
        steps.append(convert_step(call("convert_units", value=value, from_unit="C", to_unit="F")))
        said = f"{number(convert(value, 'C', 'F'))} °F"
    else:
        said = f"{temp(value)} °C"
    feeling = "cold" if warmer else "hot"
    return Piece(
        request=ctx.say(f"req_{feeling}_{'self' if zone == 'driver' else 'other'}", zone=_zone_said(ctx, zone)),
        goal=f"You feel {feeling} ({zone.replace('_', ' ')} seat); have the assistant adjust it.",
        steps=steps,
        reply=Utterance(intent=f"reply_{'warmer' if warmer else 'cooler'}", vars={"zone": ZONE_NAMES[zone], "temp": said}),
        outputs=[said],
        keys=frozenset({f"zone:{zone}", "units"}),
    )


def seat_heating(ctx: GenContext, car: Car, ask: bool = False) -> Piece | None:
    """`ask`: the driver wants the seat heated without saying how much, and gives the level when asked."""
    seat = ctx.pick(ZONES)
    level = ctx.pick([lv for lv in range(rules.SEAT_HEAT_MAX + 1) if lv != car.zones[seat].seat_heat and (lv or not ask)])
    intent = "req_seat_heat_off" if level == 0 else "req_seat_heat"
    piece = Piece(
        request=ctx.say(intent, seat=slot(ctx, f"say_seat_{seat}"), level=level),
        goal=f"Set seat heating of {SEAT_NAMES[seat]} to level {level}.",
        steps=[agent(call("set_seat_heating", seat=seat, level=level))],
        reply=Utterance(intent="reply_seat_heat", vars={"seat": SEAT_NAMES[seat], "state": _level(level)}),
        outputs=[_level(level)],
        keys=frozenset({f"seat:{seat}"}),
    )
    if not ask:
        return piece
    request = ctx.say("req_seat_heat_unsaid", seat=slot(ctx, f"say_seat_{seat}"))
    return asked(piece, request, key="heat_level", label="preferred heating level", value=_level(level), keywords=["level"])


def _level(level: int) -> str:
    return "off" if level == 0 else f"level {level}"


def defrost(ctx: GenContext, car: Car) -> Piece | None:
    window = ctx.pick(("front", "rear"))
    on = not getattr(car.v, f"defrost_{window}")
    state = "on" if on else "off"
    return Piece(
        request=ctx.say(f"req_defrost_{window}_{state}"),
        goal=f"Turn the {window} defrost {state}.",
        steps=[agent(call("set_defrost", window=window, on=on))],
        reply=Utterance(intent="reply_defrost", vars={"window": window, "state": state}),
        outputs=[f"{window} defrost"],
        keys=frozenset({f"defrost:{window}"}),
    )


def fan(ctx: GenContext, car: Car) -> Piece | None:
    level = ctx.pick([lv for lv in range(1, 8) if lv != car.v.fan_level])
    ac = ctx.rng.random() < 0.5
    return Piece(
        request=ctx.say("req_fan_ac" if ac else "req_fan_no_ac", level=level),
        goal=f"Set the fan to {level} with the A/C {'on' if ac else 'off'}.",
        steps=[agent(call("set_fan", level=level, ac_on=ac))],
        reply=Utterance(intent="reply_fan", vars={"level": level, "ac": "on" if ac else "off"}),
        outputs=[f"fan level {level}"],
        keys=frozenset({"fan"}),
    )


def window(ctx: GenContext, car: Car, ask: bool = False) -> Piece | None:
    """`ask`: the driver wants a window partly open without saying how far, and says it when asked."""
    which = ctx.pick(("front_left", "front_right", "rear_left", "rear_right", "all"))
    percent = ctx.pick((10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90) if ask else (0, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 100))
    if which != "all" and next(d for d in car.doors if d.position == which).window_open_pct == percent:
        return None
    state = "closed" if percent == 0 else "fully open" if percent == 100 else f"{percent}% open"
    where = slot(ctx, f"say_window_{which}")
    intent = "req_window_close" if percent == 0 else "req_window_full" if percent == 100 else "req_window_part"
    window = "every window" if which == "all" else f"the {which.replace('_', ' ')} window"
    piece = Piece(
        request=ctx.say(intent, window=where, percent=percent),
        goal=f"Set {window} to {state}.",
        steps=[agent(call("set_window", window=which, open_percent=percent))],
        reply=Utterance(intent="reply_window", vars={"window": window, "state": state}),
        outputs=[state],
        keys=frozenset({f"window:{which}", "windows"} if which != "all" else {"windows"}),
    )
    if not ask:
        return piece
    request = ctx.say("req_window_unsaid", window=where)
    return asked(piece, request, key="window_opening", label="preferred window opening", value=f"{percent}% open",
                 keywords=["how far", "opening", "percent"])  # fmt: skip


def lights(ctx: GenContext, car: Car) -> Piece | None:
    light = ctx.pick(("headlights", "fog_lights", "hazard_lights"))
    current = getattr(car.v, light)
    if light == "headlights":
        modes = [m for m in ("on", "auto") + (() if car.moving else ("off",)) if m != current]
    else:
        modes = ["off" if current else "on"]
    mode = ctx.pick(modes)
    return Piece(
        request=ctx.say(f"req_{light}_{mode}"),
        goal=f"Set the {LIGHT_WORDS[light]} to {mode}.",
        steps=[*_speed_read(light == "headlights" and mode == "off", "the headlights stay on while the car is moving after dark"), agent(call("set_lights", light=light, mode=mode))],
        reply=Utterance(intent="reply_lights", vars={"light": LIGHT_WORDS[light], "mode": mode}),
        outputs=[LIGHT_WORDS[light]],
        keys=frozenset({f"lights:{light}"}),
    )


ASKABLE_SOURCES = {"radio": "station", "podcast": "podcast"}  # what the driver picks when asked


def media(ctx: GenContext, car: Car, ask: bool = False) -> Piece | None:
    """`ask`: the driver wants the radio or a podcast on without saying which, and names it when asked."""
    sources = [s for s in MEDIA if (s != "video" or not car.moving) and (s in ASKABLE_SOURCES or not ask)]
    source = ctx.pick(sources)
    title = ctx.pick(MEDIA[source])
    piece = Piece(
        request=ctx.say(f"req_play_{source}", title=title),
        goal=f"Play {title} ({source}).",
        steps=[*_speed_read(source == "video", "video plays only while the car is stopped"), agent(call("play_media", source=source, title=title))],
        reply=Utterance(intent="reply_media", vars={"title": title, "source": source}),
        outputs=[title],
        keys=frozenset({"media"}),
    )
    if not ask:
        return piece
    thing = ASKABLE_SOURCES[source]
    return asked(piece, ctx.say(f"req_play_{source}_unsaid"), key="media_title", label=f"preferred {thing}", value=title, keywords=[thing])


def volume(ctx: GenContext, car: Car) -> Piece | None:
    top = rules.VOLUME_MOVING_MAX if car.moving else rules.VOLUME_MAX
    level = ctx.pick([lv for lv in range(10, top + 1) if lv != car.v.volume])
    louder = level > car.v.volume
    return Piece(
        request=ctx.say("req_volume", level=level, way="up" if louder else "down"),
        goal=f"Set the volume to {level}.",
        steps=[*_speed_read(level > rules.VOLUME_MOVING_MAX, f"the volume stays at {rules.VOLUME_MOVING_MAX} or below while the car is moving"), agent(call("set_volume", level=level))],
        reply=Utterance(intent="reply_volume", vars={"level": level}),
        outputs=[str(level)],
        keys=frozenset({"volume"}),
    )


def lock_all(ctx: GenContext, car: Car) -> Piece | None:
    if not car.unlocked():
        return None
    return Piece(
        request=ctx.say("req_lock"),
        goal="Lock the car.",
        steps=[agent(call("lock_doors", door="all"))],
        reply=Utterance(intent="reply_locked", vars={}),
        outputs=["locked"],
        keys=frozenset({"doors"}),
    )


COMFORT = [set_temperature, comfort_nudge, seat_heating, defrost, fan, window, lights, media, volume]
