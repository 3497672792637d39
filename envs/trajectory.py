"""What one episode leaves behind: the chat, the end state, and what went wrong on the way."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .authz import Access
from .diff import Diff
from .task import Task


@dataclass
class Trajectory:
    task: Task
    messages: list[dict[str, Any]]
    state_hash: str
    diff: Diff
    format_problems: list[list[str]] = field(default_factory=list)  # one list per assistant message
    tool_errors: int = 0
    terminated: bool = False
    truncated: bool = False
    verification: Any = None  # a verifiers.Score once graded
    # What each agent write acted on (envs/authz.py), logged as the calls ran; None: not recorded
    # (a trajectory built by hand), and a verifier that needs it replays the calls.
    acted_on: list[Access] | None = None
    # Values several verifiers derive from the chat (its calls, their canonical forms), made once.
    derived: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def agent_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("role") == "assistant"]
