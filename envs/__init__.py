"""The engine: World, @tool, Domain, Task, ToolEnv, action parsing, registration."""

from . import pieces
from .authz import ActingUser, Record
from .clock import seeded_clock
from .compose import Identity, Segment, call, compose
from .diff import Diff
from .domain import Domain
from .env import ToolEnv
from .generation import GenContext, irrelevant_task, unavailable_task_from
from .phrasebook import money
from .pieces import Piece, assemble, draw, draw_many, independent, injected, lookup_identity
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
from .tools import Tool, tool
from .trajectory import Trajectory
from .world import World, WorldTemplate
from .world_index import world_index

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
    "independent",
    "injected",
    "lookup_identity",
    "pieces",
    "irrelevant_task",
    "list_domains",
    "load_domain",
    "money",
    "tool",
    "unavailable_task_from",
    "world_index",
]
