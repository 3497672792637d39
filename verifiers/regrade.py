"""Re-grading a stored chat: its calls are replayed on a fresh world, then scored."""

from __future__ import annotations

from typing import Any

from toolgym.envs.augment import ToolTransform
from toolgym.envs.authz import accesses
from toolgym.envs.parsing import parse_action
from toolgym.envs.registry import load_domain
from toolgym.envs.replay import replay_messages
from toolgym.envs.task import Task
from toolgym.envs.trajectory import Trajectory

from .compose import Composite, score_trajectory
from .score import Score


def verify(
    task: Task | dict | str,
    messages: list[dict[str, Any]],
    composite: Composite | None = None,
    augment: ToolTransform | dict[str, Any] | str | None = None,
) -> Score:
    """Score a trajectory given only the task and its messages (as stored in a dataset row).

    augment: the row's tool transform (its `augment` column) when the chat was played on an
    augmented tool set: its calls are mapped back to the real tools before they are replayed.
    """
    if isinstance(task, str):
        task = Task.model_validate_json(task)
    elif isinstance(task, dict):
        task = Task.model_validate(task)
    domain = load_domain(task.domain)
    read = [parse_action(m) if not isinstance(m, dict) or m.get("role") == "assistant" else None for m in messages]
    problems = [r.problems for r in read if r is not None]  # anything a model wrote is read as the env reads it
    messages = [r.message if r is not None else m for r, m in zip(read, messages, strict=True)]
    if augment is not None:
        policy = domain.policy(task.world_seed, task.world_size, variant=task.seed)
        messages = ToolTransform.from_dict(augment).real_messages(messages, policy)
    world = replay_messages(domain, task, messages)
    try:
        trajectory = Trajectory(
            task=task,
            messages=messages,
            state_hash=world.state_hash(),
            diff=world.diff(),
            format_problems=problems,
            terminated=True,
            acted_on=accesses(world),
        )
        return score_trajectory(task, trajectory, composite)
    finally:
        world.close()
