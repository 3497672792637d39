"""Telecom: mobile support with two sides in control.

The agent holds the account (customers, lines, plans, bills, outages); the customer holds the
phone, whose settings only the customer's own tools (caller="user") can change. Tasks set
faults into the world and are solved when both sides are right: the account as the policy
allows, and a phone whose speed test passes.
"""

from pathlib import Path

from toolgym.envs import Domain

from .tables import ALL_TABLES
from .tasks import GENERATORS
from .tools import ALL_TOOLS
from .world import build_world, clock

DOMAIN = Domain(
    enforce_ground_truth=True,
    name="telecom",
    version=0,
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
