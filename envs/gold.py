"""The gold conversation of a task, proven at generation: it must pass its own verifier.

The oracle teacher and the scripted user play the task; a gold turn that states a fact it had
not seen, a guarded write without consent, a fix before its fault was shown, or a final reply
that does not report the outcome is a generator bug, raised like a gold call that errors.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from toolgym.errors import GeneratorBug

from .task import ACTION_KINDS, Task

if TYPE_CHECKING:
    from .domain import Domain


def gold_messages(domain: Domain, task: Task) -> tuple[list[dict[str, Any]], Any]:
    """The chat the oracle teacher and the scripted user have on the task, and its verification."""
    # Imported here: the generators and verifiers build on the engine, not the other way round.
    from toolgym.generators.oracle import OracleTeacher
    from toolgym.generators.rollout import rollout

    from .env import ToolEnv

    env = ToolEnv(domain)
    try:
        trajectory = asyncio.run(rollout(env, OracleTeacher(), task=task)) if _no_loop() else _run_sync(env, task)
    finally:
        env.close()
    return trajectory.messages, trajectory.verification


def _no_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False


def _run_sync(env: Any, task: Task) -> Any:
    """Inside a running event loop: drive the episode by hand (the oracle and scripted user are synchronous)."""
    from toolgym.generators.oracle import OracleTeacher

    teacher = OracleTeacher()
    _, info = env.reset(options={"task": task})
    done = env.verification is not None
    while not done:
        _, _, terminated, truncated, _ = env.step(teacher.act_sync(env.messages, info["tools"], task))
        done = terminated or truncated
    return env.trajectory()


def check_gold(domain: Domain, task: Task) -> None:
    """Raise GeneratorBug, naming what is wrong, unless the task's gold conversation is sound."""
    where = f"{domain.name} {task.kind} (seed {task.seed})"
    if task.kind in ACTION_KINDS and not task.required_outputs:
        raise GeneratorBug(f"{where}: an acting task has no required outputs (what the final reply must state)")
    messages, verification = gold_messages(domain, task)
    if verification is None or not verification.passed or verification.value < 1.0:
        failed = {k: v for k, v in (verification.details if verification else {}).items() if k != "end_state"}
        components = [k for k, v in (verification.components if verification else {}).items() if "." not in k and v < 1.0]
        raise GeneratorBug(f"{where}: the gold conversation fails its verifier on {components}: {failed}")
