"""The research domain: members and the items they hold.

Written by `toolgym new-domain research` as a working start: every kind has a tiny example and
the domain passes `toolgym check research`. Rename the tables, tools and phrasings to your
world, keep `toolgym check` green after each change, and bump `version` when tools, policy,
world or rewards change.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from toolgym.envs import Domain

from .tables import Item, Member
from .tasks import GENERATORS
from .tools import TOOLS
from .world import build_world

DOMAIN = Domain(
    name="research",
    version=0,
    description="Members and their items: look them up, pause and resume them.",
    scope="your membership and its items",  # said when declining a request no tool serves
    folder=Path(__file__).parent,
    tables=[Member, Item],
    build_world=build_world,
    tools=TOOLS,
    generators=GENERATORS,
    now=dt.datetime(2025, 3, 1, 9, 0),  # the world's fixed clock: world.now, {{ today }} in the policy
    sizes=("small", "default"),
    policy_values={"item_id_example": "I00042"},  # extra names for policy.md.j2
)
