"""The gold conversation of a task, proven at generation: it must pass its own verifier.

The oracle teacher and the scripted user play the task; a gold turn that states a fact it had
not seen, a guarded write without consent, a fix before its fault was shown, or a final reply
that does not report the outcome is a generator bug, raised like a gold call that errors.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from toolgym.errors import GeneratorBug

from .task import ACTION_KINDS, Task

if TYPE_CHECKING:
    from .domain import Domain


_local = threading.local()  # one env per thread and domain, reused: building one costs more than an episode


def _env(domain: Domain) -> Any:
    from .env import ToolEnv

    envs = _local.__dict__.setdefault("envs", {})
    env = envs.get(id(domain))
    if env is None or env.domain is not domain:
        env = envs[id(domain)] = ToolEnv(domain)
    return env


def gold_messages(domain: Domain, task: Task) -> tuple[list[dict[str, Any]], Any]:
    """The chat the oracle teacher and the scripted user have on the task, and its verification.

    Driven step by step without an event loop (both play synchronously), so it also runs inside one.
    """
    # Imported here: the generators build on the engine, not the other way round.
    from toolgym.generators.oracle import OracleTeacher
    from toolgym.generators.user import ScriptedUser

    env = _env(domain)
    env.user = ScriptedUser()
    teacher = OracleTeacher()
    _, info = env.reset(options={"task": task})
    done = env.verification is not None
    while not done:
        _, _, terminated, truncated, _ = env.step(teacher.act_sync(env.messages, info["tools"], task))
        done = terminated or truncated
    trajectory = env.trajectory()
    return trajectory.messages, trajectory.verification


def check_gold(domain: Domain, task: Task) -> None:
    """Raise GeneratorBug, naming what is wrong, unless the task's gold conversation is sound."""
    where = f"{domain.name} {task.kind} (seed {task.seed})"
    if task.kind in ACTION_KINDS and not task.required_outputs:
        raise GeneratorBug(f"{where}: an acting task has no required outputs (what the final reply must state)")
    messages, verification = gold_messages(domain, task)
    if verification is None or not verification.passed or verification.value < 1.0:
        components = [k for k, v in (verification.components if verification else {}).items() if "." not in k and v < 1.0]
        details = verification.details if verification else {}
        failed = {k: details[k] for k in components if k in details and k != "end_state"}
        raise GeneratorBug(f"{where}: the gold conversation fails its verifier on {components}: {failed}")
