"""What every vehicle tool needs: the car of this episode, its driver's units, and the value types."""

from __future__ import annotations

from typing import Literal

from toolgym.envs import World
from toolgym.errors import ToolError

from ..tables import SESSION_ID, CabinSession, DriverProfile, Place, PlaceBase, Vehicle, VehicleBase

Position = Literal["front_left", "front_right", "rear_left", "rear_right"]
Zone = Literal["driver", "passenger", "rear_left", "rear_right"]
POSITIONS: tuple[str, ...] = ("front_left", "front_right", "rear_left", "rear_right")
ZONES: tuple[str, ...] = ("driver", "passenger", "rear_left", "rear_right")


def this_car(world: World) -> VehicleBase:
    """The car the assistant is running in (the episode's session names it)."""
    session = world.get(CabinSession, SESSION_ID)
    if session is None:
        raise ToolError("no vehicle is connected to this assistant session; nothing can be read or changed")
    return world.require(Vehicle, session.vehicle_id, "vehicle")


def driver_units(world: World, car: VehicleBase) -> str:
    """'metric' or 'imperial': the units of the driver profile loaded in the car."""
    profile = world.get(DriverProfile, car.profile_id) if car.profile_id else None
    return profile.units if profile else "metric"


def moving(car: VehicleBase) -> bool:
    return car.speed_kmh > 0


def place_near(world: World, car: VehicleBase, place_id: str) -> PlaceBase:
    """A place known near this car (places are listed per car, with distances from it)."""
    place = world.require(Place, place_id, "place")
    if place.vehicle_id != car.id:
        raise ToolError(f"place {place_id} is not near this car; search_places lists the places that are")
    return place
