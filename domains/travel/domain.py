"""The travel Domain: its tables, world, tools, policy, phrasings and task generators (built on first use)."""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import Domain

from . import NAME, VERSION
from .catalogue import CLOCK, POLICY_VALUES
from .tables import ALL_TABLES
from .tasks import GENERATORS
from .tools import TOOLS
from .world import build_world

DOMAIN = Domain(
    enforce_ground_truth=True,
    name=NAME,
    version=VERSION,
    description="Skyward travel desk: flights, hotels, fare rules, loyalty points",
    scope="your flights, hotel stays, bookings, seats, bags, insurance and loyalty points",
    handoff="a human travel agent",  # transfer_to_human: what the tools do not cover
    folder=Path(__file__).parent,
    tables=ALL_TABLES,
    build_world=build_world,
    tools=TOOLS,
    generators=GENERATORS,
    now=CLOCK,
    sizes=("small", "default"),
    policy_values=POLICY_VALUES,
)
