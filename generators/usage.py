"""Token usage per episode, without changing the Policy or UserSimulator interface.

A rollout runs inside `usage_scope()`; every call a teacher or LLM user makes while it runs
adds its tokens to that scope, under the caller's role ("teacher", "user"):

    with usage_scope() as usage:
        trajectory = await rollout(env, teacher, user, task)
    row["usage"] = usage_dict(usage)   # {"teacher": {"calls": 3, "prompt_tokens": ...}, ...}

The scope lives in a context variable, so concurrent episodes (asyncio tasks, each with its own
copy of the context) never mix their counts, and nothing extra travels in the messages. Calls
made outside any scope are still counted in the teacher's run totals (`teacher.usage`).

The job pipeline, which runs the samples of one task one after another, may instead ask the
teacher (or LLM user) itself: `policy.pop_usage(task.id)` gives the row's usage dict for the
calls made for that task since the last pop, and forgets them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    reasoning_tokens: int = 0
    retries: int = 0

    def add(self, usage: dict[str, Any] | None, retries: int = 0) -> None:
        self.retries += retries
        if retries:
            return
        self.calls += 1
        if isinstance(usage, dict):  # a server may send anything here: only counts are taken
            prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.total_tokens += _count(usage.get("total_tokens")) or prompt + completion
            details = usage.get("completion_tokens_details")
            self.reasoning_tokens += _count(details.get("reasoning_tokens")) if isinstance(details, dict) else 0

    def merge(self, other: Usage) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    def to_row(self) -> dict[str, int]:
        """The dataset row's `usage` column (generators/features.py USAGE_KEYS)."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens, "reasoning_tokens": self.reasoning_tokens, "requests": self.calls}


def _count(value: Any) -> int:
    """A token count as sent, or 0 when it is not a sane non-negative integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53 else 0


_SCOPE: ContextVar[dict[str, Usage] | None] = ContextVar("toolgym_usage", default=None)


@contextmanager
def usage_scope() -> Iterator[dict[str, Usage]]:
    """Collect the usage of every call made inside the block, by role."""
    found: dict[str, Usage] = {}
    token = _SCOPE.set(found)
    try:
        yield found
    finally:
        _SCOPE.reset(token)


def record_usage(role: str, usage: dict[str, Any] | None, retries: int = 0) -> None:
    scope = _SCOPE.get()
    if scope is not None:
        scope.setdefault(role, Usage()).add(usage, retries)


def usage_dict(scope: dict[str, Usage]) -> dict[str, dict[str, int]]:
    return {role: usage.to_dict() for role, usage in sorted(scope.items())}
