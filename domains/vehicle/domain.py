"""The vehicle Domain: its tables, world, tools, policy, phrasings and task generators (built on first use)."""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import Domain

from . import NAME, VERSION
from .rules import POLICY_VALUES
from .tables import ALL_TABLES
from .tasks import GENERATORS
from .tools import TOOLS
from .world import build_world, clock

DOMAIN = Domain(
    enforce_ground_truth=True,
    name=NAME,
    version=VERSION,
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
)
