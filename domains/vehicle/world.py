"""Building a vehicle world (a fleet): once per (seed, size), then kept as a SQLite image.

Cars are built in one of three situations: parked (engine off), idling in park, or driving
in D. Distances to places are from the car. The world's `clock(seed)` is after dark, so headlights matter.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from toolgym.envs.clock import seeded_clock
from toolgym.envs.fakes import seeded_faker, undoubled

from .tables import ClimateZone, Door, DriverProfile, Place, ServiceRecord, Tyre, Vehicle

if TYPE_CHECKING:
    from faker import Faker

# After dark in every world: seed 0 is 2025-11-14 18:40; other seeds an evening (20:00 to 22:45)
# within 60 days of it, between mid-September and mid-January, when it is dark by 20:00.
clock = seeded_clock(dt.datetime(2025, 11, 14, 18, 40), spread_days=60, hours=(20, 23))
VEHICLES = {"small": 12, "default": 300}
POSITIONS = ("front_left", "front_right", "rear_left", "rear_right")
ZONES = ("driver", "passenger", "rear_left", "rear_right")
FUEL_MODELS = (
    ("Toyota", "Corolla"), ("Volkswagen", "Golf"), ("Ford", "Focus"), ("Honda", "Civic"), ("Mazda", "CX-5"),
    ("Skoda", "Octavia"), ("Peugeot", "308"), ("Subaru", "Outback"), ("BMW", "320i"), ("Volvo", "XC60"),
)
ELECTRIC_MODELS = (
    ("Tesla", "Model 3"), ("Hyundai", "Ioniq 5"), ("Kia", "EV6"), ("Volkswagen", "ID.4"), ("Polestar", "2"),
    ("Nissan", "Leaf"), ("Renault", "Megane E-Tech"), ("BMW", "i4"),
)
# the first model year of the newer models: a car is never older than its model
FIRST_YEAR = {"Model 3": 2017, "Ioniq 5": 2021, "EV6": 2021, "ID.4": 2020, "2": 2020, "Leaf": 2011, "Megane E-Tech": 2022, "i4": 2021}
KM_PER_YEAR = (4_000, 20_000)  # a car's odometer grows with its age
AIRPORTS = (
    "City International Airport", "North Field Airport", "Harbour Regional Airport", "Lakeside Airport",
    "Westgate Airfield", "Riverside International Airport",
)
# category -> (how many near each car, name suffixes, distance range in km)
PLACES: dict[str, tuple[tuple[int, int], tuple[str, ...], tuple[float, float]]] = {
    "office": ((1, 1), ("Offices", "Business Park", "Tower", "Headquarters"), (3, 30)),
    "hotel": ((1, 2), ("Hotel", "Inn", "Suites", "Lodge"), (2, 40)),
    "restaurant": ((1, 2), ("Bistro", "Grill", "Kitchen", "Trattoria", "Diner"), (1, 20)),
    "mall": ((0, 1), ("Mall", "Shopping Centre", "Market Hall"), (2, 25)),
    "charger": ((2, 3), ("Fast Charge", "EV Hub", "Supercharger", "Charging Park"), (0.5, 25)),
    "tyre_shop": ((1, 2), ("Tyres", "Tyre Centre", "Wheel & Tyre", "Auto Tyres"), (1, 30)),
    "fuel_station": ((1, 2), ("Fuel", "Petrol", "Service Station", "Gas"), (0.5, 15)),
}
SERVICE_WORK = (
    "oil and filter change", "brake pads replaced", "tyre rotation", "annual inspection", "wiper blades replaced",
    "cabin air filter replaced", "battery check", "wheel alignment", "brake fluid flush", "software update",
    "coolant top-up", "air conditioning service",
)
# an electric motor takes no engine oil: an electric car's visit drawn as an oil change is a battery check
NO_OIL = {"oil and filter change": "battery check"}


def build_world(seed: int, size: str) -> Iterator[tuple[type, dict[str, Any]]]:
    now = clock(seed)  # the service log counts back from the world's own date
    fake = seeded_faker(seed)
    rng = random.Random(seed)
    place_number = profile_number = service_number = 0
    for number in range(1, VEHICLES[size] + 1):
        vid = f"V{number:04d}"
        car, new_on = _vehicle(rng, vid, now)
        yield from _cabin(rng, vid, car)
        for category, ((low, high), suffixes, (near, far)) in PLACES.items():
            if category == "fuel_station" and car["powertrain"] == "electric":
                continue
            for _ in range(rng.randint(low, high)):
                place_number += 1
                distance = round(rng.uniform(near, far), 1)
                name = f"{fake.last_name()} {rng.choice(suffixes)}"
                yield Place, _place(place_number, vid, name, category, _street(fake), distance, rng)
        for airport in rng.sample(AIRPORTS, rng.randint(1, 2)):
            place_number += 1
            distance = round(rng.uniform(12, 60), 1)
            yield Place, _place(place_number, vid, airport, "airport", _street(fake), distance, rng)
        profiles = []
        for _ in range(rng.randint(1, 3)):
            profile_number += 1
            profiles.append(f"D{profile_number:05d}")
            yield DriverProfile, {
                "id": profiles[-1], "vehicle_id": vid, "name": fake.first_name(),
                "units": "imperial" if rng.random() < 0.4 else "metric",
                "seat_position": rng.randint(1, 10), "mirror_position": rng.randint(1, 10),
            }
        car["profile_id"] = profiles[0]
        for day, odometer in _visits(rng, now.date(), new_on, car["odometer_km"]):
            service_number += 1
            work = rng.choice(SERVICE_WORK)
            yield ServiceRecord, {
                "id": f"S{service_number:05d}", "vehicle_id": vid, "date": day.isoformat(), "odometer_km": odometer,
                "work": NO_OIL.get(work, work) if car["powertrain"] == "electric" else work,
            }
        yield Vehicle, car


def first_sold(year: int) -> dt.date:
    """The first day a car of model `year` can be on the road: model years go on sale mid-year before."""
    return dt.date(year - 1, 7, 1)


def _visits(rng: random.Random, today: dt.date, new_on: dt.date, odometer: int) -> Iterator[tuple[dt.date, int]]:
    """A car's workshop visits, newest first, each at least three months after the car was new, and its
    odometer then: lower the further back, by about the distance the car drives a day (a young car may
    have no visit yet)."""
    per_day = odometer / max(1, (today - new_on).days)
    later_day, later_km = today, odometer
    for visit in range(rng.randint(2, 5)):
        day = today - dt.timedelta(days=60 + 150 * visit + rng.randint(0, 90))
        if (day - new_on).days < 90:
            return
        driven = per_day * (later_day - day).days * rng.uniform(0.7, 1.3)
        # never below half the car's own pace since new, which keeps every reading under the later one
        km = int(max(later_km - driven, per_day * (day - new_on).days / 2))
        yield day, km
        later_day, later_km = day, km


def _vehicle(rng: random.Random, vid: str, now: dt.datetime) -> tuple[dict[str, Any], dt.date]:
    """A car as it stands now, and the day it was new: within its model year's sales (from mid-year
    before to the year's end), at least a month ago; its odometer is what it drove since, at its own pace."""
    electric = rng.random() < 0.4
    make, model = rng.choice(ELECTRIC_MODELS if electric else FUEL_MODELS)
    situation = rng.choices(("parked", "idling", "driving"), weights=(45, 15, 40))[0]
    driving = situation == "driving"
    year = rng.randint(max(now.year - 9, FIRST_YEAR.get(model, 0)), now.year)
    latest = min(dt.date(year, 12, 31), now.date() - dt.timedelta(days=30))
    new_on = first_sold(year) + dt.timedelta(days=rng.randint(0, (latest - first_sold(year)).days))
    car: dict[str, Any] = {
        "id": vid, "make": make, "model": model, "year": year, "powertrain": "electric" if electric else "fuel",
        "odometer_km": rng.randint(*KM_PER_YEAR) * (now.date() - new_on).days // 365,
        "engine_on": situation != "parked", "gear": "D" if driving else "P",
        "speed_kmh": rng.randrange(30, 125, 5) if driving else 0, "parking_brake": not driving,
        "headlights": rng.choice(("on", "auto")) if driving else rng.choice(("off", "auto")),
        "fan_level": rng.randint(1, 5), "ac_on": rng.random() < 0.3,
        "media_source": rng.choice(("off", "radio", "bluetooth", "podcast")), "volume": rng.randint(4, 24),
        "seat_position": rng.randint(1, 10), "mirror_position": rng.randint(1, 10),
        "cruise_on": driving and rng.random() < 0.3,
    }
    if car["cruise_on"]:
        car["cruise_speed_kmh"] = car["speed_kmh"]
    if electric:
        kwh = rng.choice((58, 64, 77, 82))
        pct = rng.randint(12, 95)
        at_charger = situation == "parked" and rng.random() < 0.4
        car.update(battery_kwh=kwh, battery_pct=pct, range_km=int(kwh * pct * 0.06), at_charger=at_charger,
                   charging=at_charger and rng.random() < 0.4, charge_limit_pct=rng.choice((70, 80, 90)))
    else:
        tank = rng.choice((45, 50, 55, 60, 70))
        pct = rng.randint(8, 100)
        car.update(tank_litres=tank, fuel_level_pct=pct, range_km=int(tank * pct * 0.16))
    return car, new_on


def _cabin(rng: random.Random, vid: str, car: dict[str, Any]) -> Iterator[tuple[type, dict[str, Any]]]:
    unlocked = car["gear"] == "P" and not car["engine_on"] and rng.random() < 0.5
    for position in POSITIONS:
        yield Door, {
            "id": f"{vid}-{position}", "vehicle_id": vid, "position": position,
            "locked": not (unlocked and (position == "front_left" or rng.random() < 0.3)),
            "window_open_pct": rng.choice((0, 0, 0, 0, 20, 50, 100)),
        }
    base = rng.randrange(36, 50) / 2
    for zone in ZONES:
        yield ClimateZone, {
            "id": f"{vid}-{zone}", "vehicle_id": vid, "zone": zone,
            "temperature_c": min(30.0, base + rng.choice((0, 0, 0.5, 1.0, -0.5))),
            "seat_heat": rng.choice((0, 0, 0, 1, 2)),
        }
    recommended = float(rng.choice((32, 33, 35, 36, 38)))
    low = rng.choice(POSITIONS) if rng.random() < 0.35 else None
    for wheel in POSITIONS:
        drop = rng.randint(5, 9) if wheel == low else rng.choice((0, 0, 1, -1))
        yield Tyre, {"id": f"{vid}-{wheel}", "vehicle_id": vid, "wheel": wheel, "pressure_psi": recommended - drop,
                     "recommended_psi": recommended}


def _street(fake: Faker) -> str:
    """A place's address: a building number and a street ("59414 Andrew Spring"); Faker's
    street_address adds apartments and suites ("... Apt. 714"), which no airfield or charger has."""
    return undoubled(lambda: f"{int(fake.building_number()) or 1} {fake.street_name()}")  # "0063" is number 63


def _place(number: int, vid: str, name: str, category: str, address: str, km: float, rng: random.Random) -> dict[str, Any]:
    minutes = max(2, round(km / rng.uniform(0.5, 0.9)))
    return {"id": f"L{number:05d}", "vehicle_id": vid, "name": name, "category": category, "address": address,
            "distance_km": km, "drive_min": minutes}
