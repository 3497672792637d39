"""Travel: flights, hotels, fare rules, loyalty points, time zones and currencies.

A traveller books, changes and cancels flights and hotels; fare rules decide what is allowed and
what it costs (basic economy cannot change; cancelling within 24 hours of booking is free;
insurance only at booking). Times are stored in UTC and shown in each airport's zone by the
tools; amounts in other currencies come only from the conversion tool.
"""

from pathlib import Path

from toolgym.envs import Domain

from .catalogue import CLOCK, POLICY_VALUES
from .tables import ALL_TABLES
from .tasks import GENERATORS
from .tools import TOOLS
from .world import build_world

DOMAIN = Domain(
    enforce_ground_truth=True,
    name="travel",
    version=0,
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
