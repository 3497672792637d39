"""The vehicle domain: an in-car assistant controlling one car of a fleet, within the car's own
limits (the tools refuse what the car cannot do) and the policy's rules (what it must not do)."""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import ActingUser, Domain

from .rules import POLICY_VALUES
from .tables import ALL_TABLES, SESSION_ID
from .tasks import GENERATORS
from .tools import TOOLS
from .world import AIRPORTS, PLACES, build_world, clock

# Words a driver (or a place's name) uses for the tools' enum values: a place's kind from its name's
# suffix ("Rivas Business Park" is an office), units as said in full.
VALUE_WORDS: dict[str, tuple[str, ...]] = {
    **{category: suffixes for category, (_, suffixes, _) in PLACES.items()},
    "airport": tuple(dict.fromkeys(name.split()[-1] for name in AIRPORTS)),
    "fuel_station": (*PLACES["fuel_station"][1], "petrol station", "gas station", "fuel station", "need fuel"),
    "charger": (*PLACES["charger"][1], "charging station", "need to charge"),
    "restaurant": (*PLACES["restaurant"][1], "place to eat"),
    "mall": (*PLACES["mall"][1], "shopping centre"),
    "km": ("kilometres", "kilometers"),
    "C": ("celsius",),
    "F": ("fahrenheit",),
    "km/h": ("kilometres per hour", "kph"),
    "mph": ("miles per hour",),
    "litres": ("liters",),
}

DOMAIN = Domain(
    enforce_ground_truth=True,
    name="vehicle",
    version=0,
    description="An in-car assistant: doors, engine, climate, lights, cruise, navigation, charging and media",
    scope="this car's doors, engine, climate, lights, cruise control, navigation, charging, media and driver profiles",
    folder=Path(__file__).parent,
    tables=ALL_TABLES,
    build_world=build_world,
    tools=TOOLS,
    generators=GENERATORS,
    now=clock,
    sizes=("small", "default"),
    policy_values=POLICY_VALUES,
    value_words=VALUE_WORDS,
    # the car the assistant runs in: its profiles and the places listed for it are the driver's
    acting_user=ActingUser(signed_in=("cabin_session", SESSION_ID, "vehicle_id"), scoped_reads=True),
)
