"""The vehicle domain: an in-car assistant controlling one car of a fleet, within the car's own
limits (the tools refuse what the car cannot do) and the policy's rules (what it must not do)."""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import ActingUser, Domain

from .rules import POLICY_VALUES
from .tables import ALL_TABLES, SESSION_ID
from .tasks import GENERATORS
from .tools import TOOLS
from .world import build_world, clock

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
    # the car the assistant runs in: its profiles and the places listed for it are the driver's
    acting_user=ActingUser(signed_in=("cabin_session", SESSION_ID, "vehicle_id"), scoped_reads=True),
)
