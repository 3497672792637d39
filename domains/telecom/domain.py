"""The telecom Domain: its tables, world, tools, policy, phrasings and task generators (built on first use)."""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import Domain

from . import NAME, VERSION
from .tables import ALL_TABLES
from .tasks import GENERATORS
from .tools import ALL_TOOLS
from .world import build_world, clock

DOMAIN = Domain(
    enforce_ground_truth=True,
    name=NAME,
    version=VERSION,
    description="Nimbus Mobile telecom support",
    scope="your mobile lines, plans, data, roaming, bills and payments, and getting your phone connected",
    folder=Path(__file__).parent,
    tables=ALL_TABLES,
    build_world=build_world,
    tools=ALL_TOOLS,
    generators=GENERATORS,
    now=clock,
    sizes=("small", "default"),
)
