"""The retail Domain: its tables, world, tools, policy, phrasings and task generators (built on first use)."""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import Domain

from . import NAME, VERSION
from .rules import CLOCK
from .tables import TABLES
from .tasks import GENERATORS
from .tools import TOOLS
from .world import build_world

DOMAIN = Domain(
    name=NAME,
    version=VERSION,
    description="an online shop selling clothing, electronics, home goods and more",
    scope="orders, returns, exchanges, payments, your account and our product catalog",
    handoff="a human agent",  # transfer_to_human_agent: the policy says when
    folder=Path(__file__).parent,
    tables=TABLES,
    build_world=build_world,
    tools=TOOLS,
    generators=GENERATORS,
    now=CLOCK,
    sizes=("small", "default"),
)
