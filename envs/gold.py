"""The gold conversation of a task, proven at generation: it must pass its own verifier.

The oracle teacher and the scripted user play the task; a gold turn that states a fact it had
not seen, a guarded write without consent, a fix before its fault was shown, or a final reply
that does not report the outcome is a generator bug, raised like a gold call that errors.
"""

from __future__ import annotations

import copy
import functools
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolgym.errors import GeneratorBug

from .caches import Bounded
from .task import ACTION_KINDS, Task

if TYPE_CHECKING:
    from .domain import Domain


_local = threading.local()  # one env per thread and domain, reused: building one costs more than an episode
GOLD_MAX_TURNS = 30  # assistant turns the gold play allows (the env's default)
# The gold chats of the tasks proven last: generation plays each task's gold conversation, and the
# spoil suite or a reader of a task just generated asks for the same chat again (a task's id is a
# hash of its content; the domain object and its enforce_ground_truth complete the key).
_RECENT_GOLD = 256
_played: Bounded[tuple[int, bool, str], tuple[Domain, list[dict[str, Any]], Any]] = Bounded(lambda: _RECENT_GOLD)
_played_lock = threading.Lock()


def _env(domain: Domain, deferred: bool = False) -> Any:
    from .env import ToolEnv

    envs = _local.__dict__.setdefault("envs", {})
    key = (id(domain), deferred)
    env = envs.get(key)
    if env is None or env.domain is not domain:
        env_class = _deferred_env_class() if deferred else ToolEnv
        env = envs[key] = env_class(domain, max_turns=GOLD_MAX_TURNS)
    return env


@functools.cache
def _deferred_env_class() -> type:
    from .env import ToolEnv

    class DeferredGradeEnv(ToolEnv):
        """An env whose episode ends ungraded, to be graded once its task is finished (`grade_now`)."""

        _truncated = False

        def _grade(self, truncated: bool = False) -> Any:
            self._truncated = truncated
            return _UNGRADED

        def grade_now(self) -> Any:
            return ToolEnv._grade(self, truncated=self._truncated)

    return DeferredGradeEnv


_UNGRADED = types.SimpleNamespace(value=0.0)  # the reward an episode ended ungraded reports


def gold_messages(domain: Domain, task: Task) -> tuple[list[dict[str, Any]], Any]:
    """The chat the oracle teacher and the scripted user have on the task, and its verification.

    The chats of the tasks played last are remembered; every caller gets its own copy.
    """
    messages, verification = _remembered(domain, task)
    return copy.deepcopy(messages), copy.deepcopy(verification)


def gold_chat(domain: Domain, task: Task) -> tuple[list[dict[str, Any]], Any]:
    """The gold chat and its verification as proven: remembered from a recent play (the task's
    generation) or played now. Shared with the cache: read them, copy before changing anything."""
    return _remembered(domain, task)


def _remembered(domain: Domain, task: Task) -> tuple[list[dict[str, Any]], Any]:
    """The gold chat, played now or remembered from a recent play (not to be changed by the caller)."""
    with _played_lock:
        found = _played.get(_key(domain, task)) if task.id else None
    if found is not None and found[0] is domain:
        return found[1], found[2]
    messages, verification = _play(domain, task)
    _remember(domain, task, messages, verification)
    return messages, verification


def _key(domain: Domain, task: Task) -> tuple[int, bool, str]:
    return id(domain), domain.enforce_ground_truth, task.id


def _remember(domain: Domain, task: Task, messages: list[dict[str, Any]], verification: Any) -> None:
    if task.id:
        with _played_lock:
            _played[_key(domain, task)] = (domain, messages, verification)


def _play(domain: Domain, task: Task) -> tuple[list[dict[str, Any]], Any]:
    env = _env(domain)
    _drive(env, task)
    trajectory = env.trajectory()
    return trajectory.messages, trajectory.verification


def _drive(env: Any, task: Task) -> None:
    """Play the task in `env` with the oracle teacher and the scripted user until the episode ends.

    Driven step by step without an event loop (both play synchronously), so it also runs inside one."""
    # Imported here: the generators build on the engine, not the other way round.
    from toolgym.generators.oracle import OracleTeacher
    from toolgym.generators.user import ScriptedUser

    env.user = ScriptedUser()
    teacher = OracleTeacher()
    _, info = env.reset(options={"task": task})
    done = env._done  # a user that leaves at once
    while not done:
        _, _, terminated, truncated, _ = env.step(teacher.act_sync(env.messages, info["tools"], task))
        done = terminated or truncated


def check_gold(domain: Domain, task: Task) -> None:
    """Raise GeneratorBug, naming what is wrong, unless the task's gold conversation is sound."""
    _check_outputs(domain, task)
    _check_handover(domain, task)
    messages, verification = _remembered(domain, task)
    _check_verification(domain, task, verification)
    _check_fresh(domain, task, messages)


def prove_unfinished(
    domain: Domain, task: Task, finish: Callable[[Task, Any, list[dict[str, Any]]], Task | None]
) -> Task | None:
    """Play the gold conversation of a task whose end state is not known yet, finish the task from
    the play, then grade and prove it (as check_gold): one play instead of a replay and a play.

    `finish(task, world, messages)` gives the finished task (end state, id) from the played world,
    or None when this play cannot stand for a replay of the plan; then nothing is remembered and
    None is returned. The chat played must not depend on what `finish` fills in.
    """
    _check_outputs(domain, task)
    _check_handover(domain, task)
    env = _env(domain, deferred=True)
    _drive(env, task)
    finished = finish(task, env.world, env.messages)
    if finished is None:
        return None
    env.task = finished
    verification = env.grade_now()
    _remember(domain, finished, env.messages, verification)
    _check_verification(domain, finished, verification)
    _check_fresh(domain, finished, env.messages)
    return finished


def _check_outputs(domain: Domain, task: Task) -> None:
    if task.kind in ACTION_KINDS and not task.required_outputs:
        where = f"{domain.name} {task.kind} (seed {task.seed})"
        raise GeneratorBug(f"{where}: an acting task has no required outputs (what the final reply must state)")


def _check_handover(domain: Domain, task: Task) -> None:
    """A call that hands the conversation to a person (`@tool(hands_over=True)`) is the last thing the
    agent does: no call follows it and the user asks for nothing more (a bot that adds bags after "a
    human agent will take over" teaches that a handover ends nothing)."""
    steps = [s for s in task.plan if not s.declined]
    at = next((i for i, s in enumerate(steps) if any(domain.tool(c.name).hands_over for c in s.calls if c.name in domain.tools)), None)
    if at is None:
        return
    after = [c.name for s in steps[at + 1:] for c in s.calls]
    if after or steps[at].segment < task.segments - 1:
        where = f"{domain.name} {task.kind} (seed {task.seed})"
        handover = next(c.name for c in steps[at].calls if domain.tool(c.name).hands_over)
        raise GeneratorBug(f"{where}: the gold plan goes on after {handover} hands the chat to a person "
                           f"(calls after it: {after}; request {steps[at].segment + 1} of {task.segments}); put the handover last")


def _check_fresh(domain: Domain, task: Task, messages: list[dict[str, Any]]) -> None:
    """A reply states what the latest read of a call shows, not what an earlier read showed
    (a second request answered from the world as it was before the first one changed it)."""
    from .stale import stale_outputs

    if task.segments > 1 and (stale := stale_outputs(task.required_outputs, messages)):
        where = f"{domain.name} {task.kind} (seed {task.seed})"
        raise GeneratorBug(f"{where}: the gold reply states outputs an earlier read showed and a later read of the same "
                           f"call does not (a request answered from the world before an earlier one changed it): {stale}")


def _check_verification(domain: Domain, task: Task, verification: Any) -> None:
    where = f"{domain.name} {task.kind} (seed {task.seed})"
    if verification is None or not verification.passed or verification.value < 1.0:
        components = [k for k, v in (verification.components if verification else {}).items() if "." not in k and v < 1.0]
        details = verification.details if verification else {}
        failed = {k: details[k] for k in components if k in details and k != "end_state"}
        raise GeneratorBug(f"{where}: the gold conversation fails its verifier on {components}: {failed}")
