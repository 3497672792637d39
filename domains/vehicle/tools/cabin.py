"""Tools for comfort: climate per zone, seat heating, defrost, fan, media and volume."""

from __future__ import annotations

from typing import Any, Literal

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from .. import rules
from ..tables import ClimateZone, ClimateZoneBase, Vehicle, VehicleBase
from .common import Zone, moving, this_car


@tool(writes=True)
def set_climate(world: World, zone: Zone, temperature_c: float) -> ClimateZoneBase:
    """Set one climate zone's temperature in °C (16 to 30, in steps of 0.5).

    Args:
        zone: 'driver', 'passenger', 'rear_left' or 'rear_right'.
        temperature_c: The temperature in degrees Celsius, such as 21.5.
    """
    car = this_car(world)
    low, high, step = rules.TEMP_MIN_C, rules.TEMP_MAX_C, rules.TEMP_STEP_C
    if not low <= temperature_c <= high or (temperature_c / step) % 1:
        raise ToolError(f"temperature {temperature_c} °C is not allowed; give {low:g} to {high:g} °C in steps of {step:g}")
    return world.update(ClimateZone, f"{car.id}-{zone}", temperature_c=float(temperature_c))


@tool(writes=True, area="climate")
def set_seat_heating(world: World, seat: Zone, level: Literal[0, 1, 2, 3]) -> ClimateZoneBase:
    """Set a seat's heating level: 0 (off) to 3 (warmest).

    Args:
        seat: 'driver', 'passenger', 'rear_left' or 'rear_right'.
        level: 0 (off), 1, 2 or 3.
    """
    car = this_car(world)
    return world.update(ClimateZone, f"{car.id}-{seat}", seat_heat=level)


@tool(writes=True, area="climate")
def set_defrost(world: World, window: Literal["front", "rear"], on: bool) -> VehicleBase:
    """Turn the front (windscreen) or rear window defrost on or off.

    Args:
        window: 'front' or 'rear'.
        on: True to turn it on, False to turn it off.
    """
    car = this_car(world)
    return world.update(Vehicle, car.id, **{f"defrost_{window}": on})


@tool(writes=True, area="climate")
def set_fan(world: World, level: Literal[0, 1, 2, 3, 4, 5, 6, 7], ac_on: bool) -> VehicleBase:
    """Set the fan level (0 off to 7) and switch the A/C on or off.

    Args:
        level: The fan level, 0 (off) to 7.
        ac_on: True for A/C on, False for off.
    """
    car = this_car(world)
    return world.update(Vehicle, car.id, fan_level=level, ac_on=ac_on)


@tool(writes=True)
def play_media(world: World, source: Literal["radio", "bluetooth", "usb", "podcast", "video"], title: str = "") -> dict[str, Any]:
    """Play the radio, a podcast, Bluetooth or USB audio or a video. Video plays only while the car is stopped.

    Args:
        source: 'radio', 'bluetooth', 'usb', 'podcast' or 'video'.
        title: A station, show or track to play; empty for whatever the source plays next.
    """
    car = this_car(world)
    if source == "video" and moving(car):
        raise ToolError(f"video does not play while the car is moving ({car.speed_kmh} km/h); choose an audio source or stop first")
    world.update(Vehicle, car.id, media_source=source, media_title=title)
    return {"source": source, "title": title, "volume": car.volume}


@tool(writes=True, area="media")
def set_volume(world: World, level: int) -> VehicleBase:
    """Set the media volume.

    Args:
        level: The volume, 0 (mute) to 40.
    """
    car = this_car(world)
    if not 0 <= level <= rules.VOLUME_MAX:
        raise ToolError(f"volume {level} is out of range; give 0 to {rules.VOLUME_MAX}")
    return world.update(Vehicle, car.id, volume=level)


CABIN_TOOLS = [set_climate, set_seat_heating, set_defrost, set_fan, play_media, set_volume]
