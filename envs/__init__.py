"""The engine: World, @tool, Domain, Task, ToolEnv, action parsing, registration.

Names are imported on first use (`toolgym.envs.Domain` loads SQLModel then), so finding domains
and registering their Gymnasium ids stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolgym.lazy import lazy_names

if TYPE_CHECKING:
    from . import pieces
    from .authz import ActingUser, Record
    from .clock import seeded_clock
    from .compose import Identity, Segment, call, compose
    from .diff import Diff
    from .domain import Domain
    from .env import ToolEnv
    from .generation import GenContext, irrelevant_task, unavailable_task_from, withholdable
    from .phrasebook import money, said_amount
    from .pieces import (
        Piece,
        assemble,
        draw,
        draw_many,
        handover_last,
        independent,
        injected,
        lookup_identity,
    )
    from .registry import list_domains, load_domain
    from .task import (
        ACTION_KINDS,
        ALL_KINDS,
        NO_TOOL_KINDS,
        Fact,
        Forbidden,
        NoToolSpec,
        Scenario,
        Step,
        Task,
        ToolCall,
        Utterance,
        WorldEdit,
    )
    from .tools import Tool, shown_as, tool
    from .trajectory import Trajectory
    from .world import World, WorldTemplate
    from .world_index import world_index

_WHERE = {
    ".authz": ["ActingUser", "Record"],
    ".clock": ["seeded_clock"],
    ".compose": ["Identity", "Segment", "call", "compose"],
    ".diff": ["Diff"],
    ".domain": ["Domain"],
    ".env": ["ToolEnv"],
    ".generation": ["GenContext", "irrelevant_task", "unavailable_task_from", "withholdable"],
    ".phrasebook": ["money", "said_amount"],
    ".pieces": ["Piece", "assemble", "draw", "draw_many", "handover_last", "independent", "injected", "lookup_identity", "pieces"],
    ".registry": ["list_domains", "load_domain"],
    ".task": ["ACTION_KINDS", "ALL_KINDS", "NO_TOOL_KINDS", "Fact", "Forbidden", "NoToolSpec", "Scenario", "Step",
              "Task", "ToolCall", "Utterance", "WorldEdit"],
    ".tools": ["Tool", "shown_as", "tool"],
    ".trajectory": ["Trajectory"],
    ".world": ["World", "WorldTemplate"],
    ".world_index": ["world_index"],
}
__getattr__ = lazy_names(__name__, {name: module for module, names in _WHERE.items() for name in names})
__all__ = [
    "ActingUser",
    "Record",
    "seeded_clock",
    "ACTION_KINDS",
    "ALL_KINDS",
    "NO_TOOL_KINDS",
    "Diff",
    "Domain",
    "Fact",
    "Forbidden",
    "GenContext",
    "Identity",
    "NoToolSpec",
    "Piece",
    "Scenario",
    "Segment",
    "Step",
    "shown_as",
    "Task",
    "Tool",
    "ToolCall",
    "ToolEnv",
    "Trajectory",
    "Utterance",
    "World",
    "WorldEdit",
    "WorldTemplate",
    "assemble",
    "call",
    "compose",
    "draw",
    "draw_many",
    "handover_last",
    "independent",
    "injected",
    "lookup_identity",
    "pieces",
    "irrelevant_task",
    "list_domains",
    "load_domain",
    "money",
    "said_amount",
    "tool",
    "unavailable_task_from",
    "withholdable",
    "world_index",
]
