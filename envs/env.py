"""ToolEnv: a domain as a Gymnasium environment.

An observation is the list of messages added since the last action (the first is the whole
prompt). An action is an assistant message (dict or raw text read by a parser). Tool calls
run against the episode's World; a text reply goes to the user simulator. The reward is 0
until the episode ends, then the task's verifier score with `info["verification"]` (passed,
score, components). Every episode ends: the user leaves when done (or when the agent talks in
circles), or the episode is truncated at `max_turns`; both last steps carry the score.
`grade()` scores the conversation so far at any point. `violation_cap` sets the most a
conduct violation may score (default: the preset's, 0).

Augmented tool sets (`augment=`, or a transform in `reset(options={"augment": ...})`): the model
sees the row's renamed tools and distractors, its calls are mapped back to the real tools before
they run (a call that cannot be is an error it sees), and the verifiers read the chat in real
names (see envs/augment).
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import gymnasium as gym

from toolgym.errors import ConfigError, ToolgymError, UnknownNameError

from .augment import AugmentConfig, ToolTransform, augment_config, draw_transform
from .authz import accesses
from .caches import Bounded
from .conversation import strip_stop
from .domain import Domain
from .parsing import PARSERS, parse_action, storable
from .registry import load_domain
from .replay import run_call
from .spaces import AssistantMessageSpace, ChatSpace
from .task import Task
from .trajectory import Trajectory
from .world import World

_USER_ROUNDS = 4  # device actions a user may take before it must say something
_T = TypeVar("_T")
_LOOPS = threading.local()


def run_sync(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run a coroutine from code without an event loop, on this thread's own loop, kept for its life.

    `asyncio.run` would start and close a loop per call (~0.5 ms); sync callers call this per step.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = getattr(_LOOPS, "loop", None)
        if loop is None or loop.is_closed():
            loop = _LOOPS.loop = asyncio.new_event_loop()
        return loop.run_until_complete(coroutine)
    coroutine.close()
    raise ToolgymError("a sync call was made inside a running event loop: use the async form (`await env.astep(...)`)")


class ToolEnv(gym.Env):
    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        domain: str | Domain = "retail",
        *,
        user: Any = None,
        parser: str = "hermes",
        max_turns: int = 30,
        kinds: list[str] | None = None,
        world_size: str | None = None,
        tasks: list[Task] | None = None,
        render_mode: str | None = None,
        violation_cap: float | None = None,
        augment: AugmentConfig | dict[str, Any] | bool | None = None,
    ):
        self.domain = load_domain(domain) if isinstance(domain, str) else domain
        if parser not in PARSERS:
            raise UnknownNameError("parser", parser, PARSERS)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ConfigError(f"render_mode {render_mode!r} is not supported; use one of {self.metadata['render_modes']}")
        if max_turns < 1:
            raise ConfigError(f"max_turns must be at least 1, got {max_turns}")
        if violation_cap is not None and not 0.0 <= violation_cap <= 1.0:
            raise ConfigError(f"violation_cap must lie in [0, 1] (the most a conduct violation may score), got {violation_cap}")
        self.violation_cap = violation_cap
        self.augment = augment_config(augment)  # each task's transform is drawn from it (None: real tools)
        if user is None:
            from toolgym.generators.user import ScriptedUser

            user = ScriptedUser()
        self.user = user
        self.parser = parser
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.kinds = list(kinds or self.domain.kinds)
        self.world_size = world_size
        self._given: dict[str, Task] = {t.id: t for t in tasks or ()}  # the caller's pool, kept whole
        self._tasks: Bounded[str, Task] = Bounded("env_tasks")  # tasks drawn or passed since: the recent ones
        all_tools = [t.schema for t in self.domain.agent_tools]
        self.action_space = AssistantMessageSpace(all_tools)
        self.observation_space = ChatSpace()
        self.task: Task | None = None
        self.transform: ToolTransform | None = None
        self._policy: str | None = None  # the task's system prompt in the domain's own names
        self.world: World | None = None
        self.messages: list[dict[str, Any]] = []
        self._done = True

    # ---- reset -----------------------------------------------------------------------------
    def _choose_task(self, options: dict[str, Any] | None) -> Task:
        chosen = (options or {}).get("task")
        if isinstance(chosen, Task):
            return chosen
        if isinstance(chosen, dict):
            return Task.model_validate(chosen)
        if isinstance(chosen, str):
            if chosen.lstrip().startswith("{"):
                return Task.model_validate_json(chosen)
            found = self._given.get(chosen) or self._tasks.get(chosen)
            if found is None:
                raise UnknownNameError("task id (pass the Task itself, or tasks=[...] to the env)", chosen,
                                       [*self._given, *self._tasks])
            return found
        if chosen is not None:
            raise ConfigError(f"options['task'] must be a Task, its dict or JSON, or a task id; got {type(chosen).__name__}")
        task_seed = int(self.np_random.integers(0, 2**31 - 1))
        kind = self.kinds[task_seed % len(self.kinds)]
        return self.domain.generate_tasks(1, seed=task_seed, kinds=[kind], size=self.world_size)[0]

    def _begin(self, seed: int | None, options: dict[str, Any] | None) -> None:
        super().reset(seed=seed)
        task = self._choose_task(options)
        if task.domain != self.domain.name:
            raise ConfigError(f"task {task.id} is for domain {task.domain!r}, but this env is {self.domain.name!r}")
        self._done = True  # until the new episode is ready: a failure below leaves no half-reset env
        transform = self._transform_for(task, (options or {}).get("augment"))
        world = self.domain.new_world(task)  # may raise (a bad setup edit): the old episode is ended first
        if task.id not in self._given:
            self._tasks[task.id] = task
        if self.world is not None:
            self.world.close()
        self.task = task
        self.world = world
        self.transform = transform
        real_tools = self.domain.schemas(task.tools)
        self.tools = transform.apply(real_tools) if transform is not None else real_tools
        self.user_tools = [t.schema for t in self.domain.user_tools]
        policy = self._policy = self.domain.policy(task.world_seed, task.world_size, variant=task.seed)
        self.messages = [{"role": "system", "content": transform.rename_text(policy) if transform is not None else policy}]
        self.format_problems: list[list[str]] = []
        self.tool_errors = 0
        self.turns = 0
        self._done = False
        self._verification = None

    def _transform_for(self, task: Task, given: Any) -> ToolTransform | None:
        """The row's transform: the one passed to reset, else one drawn from the env's `augment` config."""
        if given is not None:
            transform = ToolTransform.from_dict(given)
            if transform.domain != task.domain:
                raise ConfigError(f"the tool transform given is for domain {transform.domain!r}, but task {task.id} is {task.domain!r}")
            return transform
        return draw_transform(task, self.augment, self.domain) if self.augment is not None else None

    def _info(self) -> dict[str, Any]:
        assert self.task is not None
        return {
            "task_id": self.task.id,
            "kind": self.task.kind,
            "env_id": self.domain.env_id,
            "tools": self.tools,
            "user_tools": self.user_tools,
            "turn": self.turns,
            "tool_errors": self.tool_errors,
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._begin(seed, options)
        return self._deliver_opening(self._user_turn_sync())

    async def areset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._begin(seed, options)
        return self._deliver_opening(await self._user_turn_async())

    def _deliver_opening(self, opening: list[dict[str, Any]]):
        observation = [self.messages[0], *opening]
        if self._done:  # a user that leaves at once
            self._grade()
        info = self._info()
        info["augment"] = self.transform.to_dict() if self.transform is not None else None
        return [dict(m) for m in observation], info

    # ---- step ------------------------------------------------------------------------------
    def step(self, action: Any):
        observation = self._agent_turn(action)
        if observation is None:
            observation = self._user_turn_sync()
        return self._close_step(observation)

    async def astep(self, action: Any):
        observation = self._agent_turn(action)
        if observation is None:
            observation = await self._user_turn_async()
        return self._close_step(observation)

    def _agent_turn(self, action: Any) -> list[dict[str, Any]] | None:
        """Record the action and run its calls; None when it is the user's turn to speak."""
        if self._done or self.task is None or self.world is None:
            raise ToolgymError("the episode has ended: call reset() before step()")
        parsed = parse_action(action, self.parser)
        message = parsed.message
        self.turns += 1
        self.format_problems.append(parsed.problems)
        calls = message.get("tool_calls") or []
        for index, call in enumerate(calls):
            call["id"] = call.get("id") or f"call_{self.turns}_{index}"
        self.messages.append(message)
        if not calls:
            return None
        results = []
        for call in calls:
            function = call["function"]
            if self.transform is not None:  # the offered names are mapped back to the real tools first
                outcome = self.transform.run(self.domain, self.world, self.task.tools, function["name"], function["arguments"])
            else:
                outcome = run_call(self.domain, self.world, self.task.tools, function["name"], function["arguments"])
            self.tool_errors += outcome.error is not None
            results.append(
                {"role": "tool", "tool_call_id": call["id"], "name": str(function["name"]), "content": outcome.content}
            )
        self.messages.extend(results)
        return results

    def _close_step(self, observation: list[dict[str, Any]]):
        truncated = not self._done and self.turns >= self.max_turns
        reward = 0.0
        if self._done or truncated:
            self._done = True
            reward = self._grade(truncated=truncated).value
        info = self._info()
        if self._verification is not None:
            info["verification"] = self._verification.to_dict()
        return [dict(m) for m in observation], reward, self._done and not truncated, truncated, info

    # ---- the user's side -------------------------------------------------------------------
    # A user turn may take rounds: a reply with `user_tool_calls` and no text has those calls run
    # on the user's device, and the user is asked again, now seeing their results, to write
    # what it tells the agent. The agent sees only the text.
    def _user_turn_sync(self) -> list[dict[str, Any]]:
        message: dict[str, Any] = {"role": "user", "content": None}
        reply = self._ask_user_sync(self.messages)
        for _ in range(_USER_ROUNDS):
            if not self._absorb(message, reply):
                break
            reply = self._ask_user_sync([*self.messages, message])
        return self._accept_user(message)

    async def _user_turn_async(self) -> list[dict[str, Any]]:
        message: dict[str, Any] = {"role": "user", "content": None}
        reply = await self.user.reply(self.messages, self.task)
        for _ in range(_USER_ROUNDS):
            if not self._absorb(message, reply):
                break
            reply = await self.user.reply([*self.messages, message], self.task)
        return self._accept_user(message)

    def _ask_user_sync(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        if getattr(self.user, "is_sync", False):
            return self.user.reply_sync(messages, self.task)
        return run_sync(self.user.reply(messages, self.task))

    def _absorb(self, message: dict[str, Any], reply: dict[str, Any]) -> bool:
        """Fold one user reply into the turn's message; True if the user must be asked again."""
        # a user simulator's text and calls may come from a model, decoded from JSON like the agent's
        calls = [{**c, "name": storable(c.get("name")), "arguments": storable(c.get("arguments"))}
                 for c in reply.get("user_tool_calls") or [] if isinstance(c, dict)]
        if calls:
            assert self.world is not None  # user turns run only inside an episode
            message.setdefault("user_tool_calls", []).extend(calls)
            message.setdefault("user_tool_results", []).extend(
                run_call(self.domain, self.world, (), c.get("name"), c.get("arguments"), caller="user").content
                for c in calls
            )
        if reply.get("content") is not None:
            content = reply["content"]
            message["content"] = storable(content) if isinstance(content, str) else content
            return False
        return bool(calls)

    def _accept_user(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """Strip the stop marker and add the turn's message to the chat."""
        message["content"], stop = strip_stop(message["content"])
        self.messages.append(message)
        if stop:
            self._done = True
        return [message]

    # ---- the end ---------------------------------------------------------------------------
    def _grade(self, truncated: bool = False):
        trajectory = self.trajectory()
        trajectory.truncated = truncated
        self._verification = self._score(trajectory)
        return self._verification

    def _score(self, trajectory: Trajectory):
        from toolgym.verifiers import preset_for

        assert self.task is not None
        preset = preset_for(self.task)
        if self.violation_cap is not None:
            preset = dataclasses.replace(preset, violation_cap=self.violation_cap)
        return preset(self.task, trajectory.in_real_names(self._policy))

    def trajectory(self) -> Trajectory:
        assert self.task is not None and self.world is not None
        return Trajectory(
            task=self.task,
            messages=self.messages,
            state_hash=self.world.state_hash(),
            diff=self.world.diff(),
            format_problems=self.format_problems,
            tool_errors=self.tool_errors,
            terminated=self._done,
            verification=self._verification,
            transform=self.transform,
            acted_on=accesses(self.world),
        )

    @property
    def verification(self):
        """The final Score once the episode has ended (None before)."""
        return self._verification

    def grade(self):
        """The verifier's Score of the conversation so far; the final one once the episode has ended.

        Grading mid-episode changes nothing: the episode goes on, and its last step still carries
        the score of the whole conversation.
        """
        if self._verification is not None:
            return self._verification
        if self.task is None or self.world is None:
            raise ToolgymError("no episode to grade: call reset() first")
        return self._score(self.trajectory())

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        lines = []
        for m in self.messages[1:]:
            calls = ", ".join(f"{c['function']['name']}({c['function']['arguments']})" for c in m.get("tool_calls") or [])
            lines.append(f"[{m['role']}] {m.get('content') or ''}{' -> ' + calls if calls else ''}")
        return "\n".join(lines)

    def close(self) -> None:
        if self.world is not None:
            self.world.close()
            self.world = None
