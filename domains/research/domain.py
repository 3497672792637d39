"""The research domain's `Domain`, built on first use (the package's __init__ only names it)."""

from __future__ import annotations

from pathlib import Path

from toolgym.envs import Domain

from . import NAME, VERSION
from .tables import Attribute, Entity, Link, Page
from .tasks import GENERATORS
from .tools import TOOLS
from .world import NOW, build_world

DOMAIN = Domain(
    name=NAME,
    version=VERSION,
    description="Search an offline web, read and combine its pages, and answer with sources.",
    scope="the organisations, people, cities, products and events described on the web",
    folder=Path(__file__).parent,
    tables=[Page, Link, Entity, Attribute],
    build_world=build_world,
    tools=TOOLS,
    generators=GENERATORS,
    now=NOW,
    sizes=("small", "default"),
    full_text={"page": ("title", "body")},
    policy_values={"brands": ["Atlas Research", "Scout", "the research desk"]},
)
