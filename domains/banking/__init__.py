"""Banking: identity first, limits and consent before money moves, answers from the bank's own articles.

The agent verifies the caller (`verify_identity`) before any account data is shown; tools show
masked card and account numbers only; fees and product terms come from the knowledge base.
"""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import ActingUser, Domain

from .rules import CLOCK, POLICY_VALUES
from .tables import ALL_TABLES
from .tasks import GENERATORS
from .tools import ALL_TOOLS
from .world import build_world

DOMAIN = Domain(
    enforce_ground_truth=True,
    name="banking",
    version=0,
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
