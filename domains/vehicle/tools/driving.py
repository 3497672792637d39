"""Tools that change how the car drives and rests: brake, engine, doors, trunk, lights, cruise,
navigation, charging and driver profiles. Each enforces the car's physical preconditions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from toolgym.envs import Record, World, tool
from toolgym.errors import ToolError

from .. import rules
from ..tables import Door, DoorBase, DriverProfile, Vehicle, VehicleBase
from .common import POSITIONS, Position, moving, place_near, this_car


@tool(writes=True)
def press_brake(world: World, pressed: bool) -> VehicleBase:
    """Press or release the brake pedal (the engine starts only with it pressed).

    Args:
        pressed: True to press the brake pedal, False to release it.
    """
    car = this_car(world)
    return world.update(Vehicle, car.id, brake_pressed=pressed)


@tool(writes=True)
def start_engine(world: World) -> VehicleBase:
    """Start the engine. The brake must be pressed and every door locked."""
    car = this_car(world)
    if car.engine_on:
        raise ToolError("the engine is already running; nothing to start")
    if not car.brake_pressed:
        raise ToolError("the engine starts only with the brake pressed; press the brake first (press_brake)")
    unlocked = [d.position for d in world.select(Door, {"vehicle_id": car.id, "locked": False})]
    if unlocked:
        raise ToolError(f"the engine starts only with every door locked; unlocked: {', '.join(unlocked)}; lock them first")
    return world.update(Vehicle, car.id, engine_on=True)


@tool(writes=True)
def stop_engine(world: World) -> VehicleBase:
    """Stop the engine."""
    car = this_car(world)
    if not car.engine_on:
        raise ToolError("the engine is already off; nothing to stop")
    return world.update(Vehicle, car.id, engine_on=False, cruise_on=False, cruise_speed_kmh=0)


def _doors(world: World, car: VehicleBase, door: str) -> list[str]:
    return [f"{car.id}-{p}" for p in (POSITIONS if door == "all" else (door,))]


@tool(writes=True)
def lock_doors(world: World, door: Annotated[Position | Literal["all"], Field(description="Which door to lock: one position or 'all'.")] = "all") -> list[DoorBase]:
    """Lock one door or all of them."""
    car = this_car(world)
    return [world.update(Door, key, locked=True) for key in _doors(world, car, door)]


@tool(writes=True)
def unlock_doors(world: World, door: Annotated[Position | Literal["all"], Field(description="Which door to unlock: one position or 'all'.")] = "all") -> list[DoorBase]:
    """Unlock one door or all of them."""
    car = this_car(world)
    return [world.update(Door, key, locked=False) for key in _doors(world, car, door)]


@tool(writes=True)
def set_window(
    world: World,
    window: Annotated[Position | Literal["all"], Field(description="Which window: one position or 'all'.")],
    open_percent: Annotated[int, Field(description="How far open, in percent: 0 (closed) to 100 (fully open).")],
) -> list[DoorBase]:
    """Open or close a window, or all of them, to a given percentage."""
    car = this_car(world)
    if not 0 <= open_percent <= 100:
        raise ToolError(f"open_percent {open_percent} is out of range; give 0 (closed) to 100 (fully open)")
    return [world.update(Door, key, window_open_pct=open_percent) for key in _doors(world, car, window)]


@tool(writes=True)
def set_trunk(world: World, action: Literal["open", "close"]) -> VehicleBase:
    """Open or close the trunk (it does not open while the car is moving faster than a walking pace).

    Args:
        action: 'open' or 'close'.
    """
    car = this_car(world)
    if action == "open" and car.speed_kmh > rules.TRUNK_MAX_KMH:
        raise ToolError(f"the trunk does not open above {rules.TRUNK_MAX_KMH} km/h (now {car.speed_kmh} km/h); stop the car first")
    return world.update(Vehicle, car.id, trunk_open=action == "open")


@tool(writes=True)
def set_lights(world: World, light: Literal["headlights", "fog_lights", "hazard_lights"], mode: Literal["on", "off", "auto"]) -> VehicleBase:
    """Switch the headlights (on, off or auto), the fog lights or the hazard lights (on or off).

    Args:
        light: 'headlights', 'fog_lights' or 'hazard_lights'.
        mode: 'on', 'off', or 'auto' (headlights only).
    """
    car = this_car(world)
    if light == "headlights":
        return world.update(Vehicle, car.id, headlights=mode)
    if mode == "auto":
        raise ToolError(f"{light.replace('_', ' ')} have no auto mode; use 'on' or 'off'")
    return world.update(Vehicle, car.id, **{light: mode == "on"})


@tool(writes=True)
def set_cruise_control(world: World, speed_kmh: int) -> VehicleBase:
    """Turn cruise control on at a set speed. Needs the engine on, the D gear, and a speed the car allows.

    Args:
        speed_kmh: The set speed in km/h, 30 to 160 in steps of 5.
    """
    car = this_car(world)
    if not car.engine_on or car.gear != "D":
        raise ToolError(f"cruise control needs the engine on and the D gear (engine {'on' if car.engine_on else 'off'}, gear {car.gear})")
    low, high, step = rules.CRUISE_MIN_KMH, rules.CRUISE_MAX_KMH, rules.CRUISE_STEP_KMH
    if not low <= speed_kmh <= high or speed_kmh % step:
        raise ToolError(f"cruise speed {speed_kmh} km/h is not allowed; give {low} to {high} km/h in steps of {step}")
    return world.update(Vehicle, car.id, cruise_on=True, cruise_speed_kmh=speed_kmh)


@tool(writes=True)
def cancel_cruise_control(world: World) -> VehicleBase:
    """Turn cruise control off."""
    car = this_car(world)
    if not car.cruise_on:
        raise ToolError("cruise control is not on; nothing to cancel")
    return world.update(Vehicle, car.id, cruise_on=False, cruise_speed_kmh=0)


@tool(writes=True)
def set_navigation(world: World, place_id: str) -> dict[str, Any]:
    """Route the navigation to a place; returns the destination, distance (km) and ETA in minutes.

    Args:
        place_id: The place id from search_places or find_nearest, such as 'L00042'.
    """
    car = this_car(world)
    place = place_near(world, car, place_id)
    world.update(Vehicle, car.id, nav_place_id=place.id)
    return {"destination": place.name, "address": place.address, "distance_km": place.distance_km, "eta_min": place.drive_min}


def _electric(car: VehicleBase) -> None:
    if car.powertrain != "electric":
        raise ToolError(f"this {car.make} {car.model} runs on fuel; it has no charging")


@tool(writes=True)
def start_charging(world: World) -> VehicleBase:
    """Start charging the battery. The car must be parked at a charger."""
    car = this_car(world)
    _electric(car)
    if not car.at_charger or car.gear != "P":
        raise ToolError("charging needs the car parked (gear P) at a charger; park at a charger first")
    if car.charging:
        raise ToolError("the car is already charging")
    if car.battery_pct >= car.charge_limit_pct:
        raise ToolError(f"the battery ({car.battery_pct}%) is already at its charge limit ({car.charge_limit_pct}%)")
    return world.update(Vehicle, car.id, charging=True)


@tool(writes=True)
def stop_charging(world: World) -> VehicleBase:
    """Stop charging the battery."""
    car = this_car(world)
    _electric(car)
    if not car.charging:
        raise ToolError("the car is not charging; nothing to stop")
    return world.update(Vehicle, car.id, charging=False)


@tool(writes=True)
def set_charge_limit(world: World, percent: int) -> VehicleBase:
    """Set the battery's charge limit.

    Args:
        percent: The limit in percent, 50 to 100 in steps of 5.
    """
    car = this_car(world)
    _electric(car)
    low, high, step = rules.CHARGE_LIMIT_MIN, rules.CHARGE_LIMIT_MAX, rules.CHARGE_LIMIT_STEP
    if not low <= percent <= high or percent % step:
        raise ToolError(f"charge limit {percent}% is not allowed; give {low} to {high} in steps of {step}")
    return world.update(Vehicle, car.id, charge_limit_pct=percent)


@tool(writes=True, acts_on=Record("profile_id", "driver_profile"))
def load_driver_profile(world: World, profile_id: str) -> VehicleBase:
    """Load a saved driver profile: its units, seat and mirror positions (the seat moves, so not while moving).

    Args:
        profile_id: The profile id from list_driver_profiles, such as 'D00042'.
    """
    car = this_car(world)
    profile = world.require(DriverProfile, profile_id, "driver profile")
    if profile.vehicle_id != car.id:
        raise ToolError(f"profile {profile_id} is not saved in this car; list_driver_profiles shows those that are")
    if moving(car):
        raise ToolError("the seat does not move while the car is moving; load the profile when stopped")
    return world.update(
        Vehicle, car.id, profile_id=profile.id, seat_position=profile.seat_position, mirror_position=profile.mirror_position
    )


DRIVING_TOOLS = [
    press_brake,
    start_engine,
    stop_engine,
    lock_doors,
    unlock_doors,
    set_window,
    set_trunk,
    set_lights,
    set_cruise_control,
    cancel_cruise_control,
    set_navigation,
    start_charging,
    stop_charging,
    set_charge_limit,
    load_driver_profile,
]
