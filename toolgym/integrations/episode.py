"""One episode driven from outside toolgym: the shared core of every served adapter.

OpenEnv, MCP, SkyRL, verl and verifiers all drive a toolgym world the same way: pick a task
(its JSON, an `rl_tasks` row, or a domain, kind and seed), then send assistant messages, tool
calls or words for the user, and read back the new messages, the reward and, once the episode
has ended, the verification. `Episode` is that, over a `ToolEnv` made by `make_env` (the one
place adapters get their environment from), with a lock so a server may call it from any thread.

A reset may carry a tool-set transform (`augment`, as `rl_tasks` rows record it): the episode then
offers the augmented tools and maps every call back to the real ones.

An episode always ends: the scripted user leaves when done or after five stalled text turns, or
`max_turns` actions truncate it; the step that ends it carries the score and the verification
(`passed`, `score`, `components`, `details`). `grade()` scores the conversation so far.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolgym.envs.env import ToolEnv
from toolgym.envs.registry import list_domains, load_domain
from toolgym.envs.task import Task
from toolgym.errors import ConfigError, ToolgymError, UnknownNameError
from toolgym.generators.chat_format import USER_CHANNEL, USER_CHANNEL_SCHEMA
from toolgym.verifiers.rewards import load_task
from toolgym.verifiers.score import Score

# Served agents often send each call of a turn as its own action (MCP, TRL-style tool loops):
# the gold of a long multi-turn task then takes ~40 actions, so the budget is wider than ToolEnv's 30.
MAX_TURNS = 60
LEFT = "(The customer has left the conversation.)"
ENDED = "the conversation has ended: nothing more can be done or said; start a new episode (reset)"
SELECTORS = ("task", "row", "task_id", "domain", "kind", "seed", "world_size", "augment")


def make_env(domain: str, *, max_turns: int = MAX_TURNS, violation_cap: float | None = None, user: Any = None) -> ToolEnv:
    """The environment every adapter runs an episode in (one place, so a tool-set transform can be added here)."""
    return ToolEnv(domain, user=user, max_turns=max_turns, violation_cap=violation_cap)


def user_channel_tool() -> dict[str, Any]:
    """The OpenAI schema of `send_message_to_user`, the channel to the simulated user for tool-only agents."""
    function = {k: v for k, v in USER_CHANNEL_SCHEMA["function"].items() if k != "return"}
    return {"type": "function", "function": function}


class TaskPool:
    """Tasks a server may start by id (`task_id=` on reset), from a list or an `rl_tasks` split on disk."""

    def __init__(self, tasks: list[Task] | None = None):
        self.tasks: dict[str, Task] = {t.id: t for t in tasks or ()}

    @classmethod
    def from_dir(cls, path: str) -> TaskPool:
        from toolgym.generators.reading import load_split

        rows = load_split(path, "rl_tasks")
        return cls([load_task(t) for t in dict.fromkeys(rows["task"])])

    def get(self, task_id: str) -> Task:
        if task_id not in self.tasks:
            raise UnknownNameError("task id (load tasks with --tasks DIR, or pass the task itself)", task_id, self.tasks)
        return self.tasks[task_id]


def resolve_augment(selector: Mapping[str, Any]) -> Any:
    """The tool transform a reset asks for (`augment`: a transform's dict or JSON, as in an rl_tasks row's
    `augment` column), else the one the `row` carries; None: the real tools."""
    if selector.get("augment") is not None:
        return selector["augment"]
    row = selector.get("row")
    return row.get("augment") if isinstance(row, Mapping) else None


def resolve_task(selector: Mapping[str, Any], pool: TaskPool | None = None) -> Task:
    """The task a reset asks for: `task` (Task, dict or JSON), `row` (an rl_tasks row), `task_id` (from the
    pool), or `domain` with optional `kind` and `seed` (a task generated on the spot, as `toolgym.make` draws)."""
    unknown = sorted(set(selector) - set(SELECTORS))
    if unknown:
        raise ConfigError(f"unknown reset arguments {unknown}; a task is chosen by one of {list(SELECTORS)}")
    if selector.get("task") is not None:
        return load_task(selector["task"])
    if selector.get("row") is not None:
        row = selector["row"]
        if not isinstance(row, Mapping) or row.get("task") is None:
            raise ConfigError("`row` must be an rl_tasks row with its `task` column (Task JSON)")
        return load_task(row["task"])
    if selector.get("task_id") is not None:
        return (pool or TaskPool()).get(str(selector["task_id"]))
    if selector.get("domain") is None:
        raise ConfigError(
            f"reset needs a task: pass task=<Task JSON>, row=<rl_tasks row>, task_id=<id>, or domain= (one of "
            f"{list_domains()}) with optional kind= and seed="
        )
    domain = load_domain(str(selector["domain"]))
    seed = int(selector.get("seed") or 0)
    kind = selector.get("kind") or domain.kinds[seed % len(domain.kinds)]
    if kind not in domain.kinds:
        raise UnknownNameError(f"kind of domain {domain.name!r}", str(kind), domain.kinds)
    return domain.generate_tasks(1, seed=seed, kinds=[kind], size=selector.get("world_size"))[0]


@dataclass
class Outcome:
    """What one action brought: the new messages, the reward, and how the episode stands."""

    messages: list[dict[str, Any]]
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    verification: dict[str, Any] | None = None
    is_error: bool = False  # a tool call the world refused (the message says why)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def reply(self) -> str:
        """The outcome as one tool result: the tool's output, or the user's reply (noting when they left)."""
        text = "\n".join(str(m.get("content") or "") for m in self.messages)
        if self.messages and self.messages[-1].get("role") == "user" and self.done:
            text = f"{text}\n{LEFT}".strip()
        return text


class Episode:
    """One episode at a time of any domain; start() again for the next. Thread-safe (one lock per episode)."""

    def __init__(
        self,
        *,
        max_turns: int = MAX_TURNS,
        violation_cap: float | None = None,
        user: Any = None,
        pool: TaskPool | None = None,
    ):
        if max_turns < 1:
            raise ConfigError(f"max_turns must be at least 1, got {max_turns}")
        if violation_cap is not None and not 0.0 <= violation_cap <= 1.0:
            raise ConfigError(f"violation_cap must lie in [0, 1], got {violation_cap}")
        self.max_turns, self.violation_cap, self.user, self.pool = max_turns, violation_cap, user, pool
        self.lock = threading.RLock()
        self.env: ToolEnv | None = None
        self.episode_id: str | None = None
        self.steps = 0
        self._envs: dict[str, ToolEnv] = {}

    # ---- starting ----------------------------------------------------------------------------
    def start(self, episode_id: str | None = None, **selector: Any) -> list[dict[str, Any]]:
        """Reset to the task the selector names (see `resolve_task`); returns the opening (system, then user).

        With `augment` (or a `row` whose `augment` column is set) the episode offers that tool set:
        renamed tools and parameters, distractors; calls are mapped back to the real tools."""
        task = resolve_task(selector, self.pool)
        augment = resolve_augment(selector)
        with self.lock:
            env = self._envs.get(task.domain)
            if env is None:
                env = self._envs[task.domain] = make_env(
                    task.domain, max_turns=self.max_turns, violation_cap=self.violation_cap, user=self.user
                )
            options: dict[str, Any] = {"task": task}
            if augment is not None:
                options["augment"] = augment
            observation, _ = env.reset(options=options)
            self.env, self.steps = env, 0
            self.episode_id = episode_id or str(uuid.uuid4())
            return observation

    @property
    def started(self) -> bool:
        return self.env is not None and self.env.task is not None

    def _require(self) -> ToolEnv:
        if self.env is None or self.env.task is None:
            raise ToolgymError("no episode yet: reset first (with task=, row=, task_id= or domain=)")
        return self.env

    @property
    def task(self) -> Task:
        task = self._require().task
        assert task is not None
        return task

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The OpenAI schemas of the agent tools this task offers."""
        return list(self._require().tools)

    @property
    def done(self) -> bool:
        return self._require().verification is not None

    # ---- acting ------------------------------------------------------------------------------
    def act(self, action: Any) -> Outcome:
        """An assistant message (OpenAI dict, or raw text read by the hermes parser) as one step."""
        with self.lock:
            env = self._require()
            if env.verification is not None:
                raise ToolgymError(ENDED)
            observation, reward, terminated, truncated, info = env.step(action)
            self.steps += 1
            errors = [m for m in observation if m.get("role") == "tool" and _is_error(m.get("content"))]
            return Outcome(
                observation, float(reward), terminated, truncated, info.get("verification"),
                is_error=bool(errors) and len(errors) == len(observation),
            )  # fmt: skip

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None) -> Outcome:
        """One call as its own step; `send_message_to_user` speaks to the user instead."""
        if name == USER_CHANNEL:
            message = (arguments or {}).get("message")
            if not isinstance(message, str):
                return Outcome([{"role": "tool", "content": json.dumps({"error": f"{USER_CHANNEL} needs `message` (text)"})}],
                               is_error=True)
            return self.act({"role": "assistant", "content": message})
        call = {"id": f"call_{self.steps}", "type": "function", "function": {"name": name, "arguments": dict(arguments or {})}}
        return self.act({"role": "assistant", "content": None, "tool_calls": [call]})

    def grade(self) -> Score:
        """The verifier's score of the conversation so far (the final one once the episode has ended)."""
        with self.lock:
            return self._require().grade()

    def messages(self) -> list[dict[str, Any]]:
        return [dict(m) for m in self._require().messages]

    def close(self) -> None:
        with self.lock:
            for env in self._envs.values():
                env.close()
            self._envs.clear()
            self.env = None


def _is_error(content: Any) -> bool:
    if not isinstance(content, str) or not content.startswith('{"error"'):
        return False
    try:
        parsed = json.loads(content)
    except json.JSONDecodeError:
        return False
    return isinstance(parsed, dict) and set(parsed) == {"error"}
