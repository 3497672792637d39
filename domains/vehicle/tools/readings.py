"""Tools that read the car: status, doors, climate, tyres, places, range, service log, profiles, units."""

from __future__ import annotations

from typing import Any, Literal

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from ..tables import (
    ClimateZone,
    Door,
    DoorBase,
    DriverProfile,
    DriverProfileBase,
    Place,
    PlaceBase,
    ServiceRecord,
    ServiceRecordBase,
    Tyre,
)
from ..units import Unit, convert
from .common import driver_units, place_near, this_car

PlaceCategory = Literal["airport", "office", "hotel", "restaurant", "mall", "charger", "tyre_shop", "fuel_station"]


@tool
def get_vehicle_status(world: World) -> dict[str, Any]:
    """Read the car's state: engine, gear, speed, brakes, trunk, lights, energy and range, charging,
    cruise control, navigation, media, and the loaded driver profile with its units."""
    car = this_car(world)
    status = car.model_dump()
    status["driver_units"] = driver_units(world, car)
    if car.powertrain == "electric":
        for name in ("fuel_level_pct", "tank_litres"):
            status.pop(name)
    else:
        for name in ("battery_pct", "battery_kwh", "at_charger", "charging", "charge_limit_pct"):
            status.pop(name)
    return status


@tool
def get_doors_and_windows(world: World) -> list[DoorBase]:
    """Read each door: whether it is locked and how far its window is open (percent)."""
    return world.select(Door, {"vehicle_id": this_car(world).id}, order_by="id")


@tool
def get_climate(world: World) -> dict[str, Any]:
    """Read the climate: each zone's temperature (°C) and seat heating level, the fan, A/C and defrost,
    and the units the driver's profile uses."""
    car = this_car(world)
    zones = world.select(ClimateZone, {"vehicle_id": car.id}, order_by="id")
    return {
        "zones": [{"zone": z.zone, "temperature_c": z.temperature_c, "seat_heat": z.seat_heat} for z in zones],
        "fan_level": car.fan_level,
        "ac_on": car.ac_on,
        "defrost_front": car.defrost_front,
        "defrost_rear": car.defrost_rear,
        "driver_units": driver_units(world, car),
    }


@tool
def check_tyre_pressure(world: World) -> list[dict[str, Any]]:
    """Read each tyre's pressure and the pressure recommended for it, in psi."""
    car = this_car(world)
    return [
        {"wheel": t.wheel, "pressure_psi": t.pressure_psi, "recommended_psi": t.recommended_psi}
        for t in world.select(Tyre, {"vehicle_id": car.id}, order_by="id")
    ]


@tool
def find_nearest(world: World, category: Literal["charger", "tyre_shop", "fuel_station"]) -> dict[str, Any]:
    """Find the nearest charger, tyre shop or fuel station: its id, name, address, distance (km) and drive time.

    Args:
        category: What to find: 'charger', 'tyre_shop' or 'fuel_station'.
    """
    car = this_car(world)
    found = world.select(Place, {"vehicle_id": car.id, "category": category}, order_by=["distance_km", "id"], limit=1)
    if not found:
        raise ToolError(f"no {category.replace('_', ' ')} is known near this car; try another category")
    return {**found[0].model_dump(exclude={"vehicle_id"}), "driver_units": driver_units(world, car)}


@tool
def search_places(world: World, category: PlaceCategory) -> list[PlaceBase]:
    """List the places of a category near the car, nearest first, with distance (km) and drive time (minutes).

    Args:
        category: The kind of place, such as 'airport', 'hotel' or 'charger'.
    """
    car = this_car(world)
    return world.select(Place, {"vehicle_id": car.id, "category": category}, order_by=["distance_km", "id"])


@tool
def estimate_trip_range(world: World, place_id: str) -> dict[str, Any]:
    """Estimate whether the car reaches a place on its current fuel or charge: trip distance, range and margin in km.

    Args:
        place_id: The place id from search_places or find_nearest, such as 'L00042'.
    """
    car = this_car(world)
    place = place_near(world, car, place_id)
    margin = round(car.range_km - place.distance_km, 1)
    return {
        "place_id": place.id,
        "name": place.name,
        "trip_km": place.distance_km,
        "range_km": car.range_km,
        "margin_km": margin,
        "reachable": margin >= 0,
        "driver_units": driver_units(world, car),
    }


@tool
def read_service_log(world: World) -> list[ServiceRecordBase]:
    """Read the car's service log, newest visit first: date, odometer (km), work done, and the workshop's note."""
    car = this_car(world)
    return sorted(world.select(ServiceRecord, {"vehicle_id": car.id}), key=lambda r: r.date, reverse=True)


@tool
def list_driver_profiles(world: World) -> list[DriverProfileBase]:
    """List the driver profiles saved in the car: name, units, and saved seat and mirror positions."""
    return world.select(DriverProfile, {"vehicle_id": this_car(world).id}, order_by="id")


@tool(computes=True)
def convert_units(world: World, value: float, from_unit: Unit, to_unit: Unit) -> dict[str, Any]:
    """Convert a value between units: km and miles, km/h and mph, litres and gallons, or °C and °F (one decimal).

    Args:
        value: The number to convert.
        from_unit: The unit of the value: 'km', 'miles', 'km/h', 'mph', 'litres', 'gallons', 'C' or 'F'.
        to_unit: The unit wanted, of the same quantity as from_unit.
    """
    return {"value": value, "from_unit": from_unit, "to_unit": to_unit, "result": convert(value, from_unit, to_unit)}


READ_TOOLS = [
    get_vehicle_status,
    get_doors_and_windows,
    get_climate,
    check_tyre_pressure,
    find_nearest,
    search_places,
    estimate_trip_range,
    read_service_log,
    list_driver_profiles,
    convert_units,
]
