"""The banking Domain: its tables, world, tools, policy, phrasings and task generators (built on first use)."""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import ActingUser, Domain

from . import NAME, VERSION
from .rules import CLOCK, POLICY_VALUES
from .tables import ALL_TABLES
from .tasks import GENERATORS
from .tools import ALL_TOOLS
from .world import build_world

DOMAIN = Domain(
    enforce_ground_truth=True,
    name=NAME,
    version=VERSION,
    description="Retail banking support: identity, accounts, cards, transfers, disputes and the bank's own articles",
    scope="your bank accounts, cards, payments and transfers, loans, statements and our products and fees",
    folder=Path(__file__).parent,
    tables=ALL_TABLES,
    build_world=build_world,
    tools=ALL_TOOLS,
    generators=GENERATORS,
    now=CLOCK,
    sizes=("small", "default"),
    policy_values=POLICY_VALUES,
    # verify_identity names the customer; every read shows only the verified customer's records
    acting_user=ActingUser(scoped_reads=True),
)
