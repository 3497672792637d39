"""What one episode leaves behind: the chat, the end state, and what went wrong on the way."""

from __future__ import annotations

import dataclasses
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
    transform: Any = None  # the row's envs.augment.ToolTransform when its tools were augmented; messages use its names
    # What each agent write acted on (envs/authz.py), logged as the calls ran; None: not recorded
    # (a trajectory built by hand), and a verifier that needs it replays the calls.
    acted_on: list[Access] | None = None
    # Values several verifiers derive from the chat (its calls, their canonical forms), made once.
    derived: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def agent_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("role") == "assistant"]

    def in_real_names(self, policy: str | None = None) -> Trajectory:
        """The trajectory as the verifiers read it: calls in the real tools' names, and the system prompt
        back to `policy` (the domain's own) when it is that prompt renamed (itself if not augmented)."""
        if self.transform is None or self.transform.untouched:
            return self
        messages = self.transform.real_messages(self.messages, policy)
        return dataclasses.replace(self, messages=messages, transform=None, derived={})
