"""The unit of work of every executor: all samples of one task, as plain data."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from toolgym.envs.env import ToolEnv
from toolgym.envs.task import Task

from .roles import Roles
from .rollout import rollout


class JobStop(Exception):
    """An error that must stop the whole job (an endpoint that is down), not just one task."""


def _fatal(exc: BaseException) -> bool:
    return isinstance(exc, JobStop) or type(exc).__name__ == "EndpointDown"


async def run_task(task: Task, roles: Roles, samples: int, max_turns: int) -> dict[str, Any]:
    """Roll a task out `samples` times; an error of this task is recorded, not raised."""
    teacher_name, policy = roles.teacher_for(task)
    episodes: list[dict[str, Any]] = []
    try:
        for sample in range(samples):
            env = ToolEnv(task.domain, user=roles.user, max_turns=max_turns, world_size=task.world_size, augment=roles.augment)
            trajectory = await rollout(env, policy, None, task)
            usage = getattr(policy, "pop_usage", lambda _task_id: None)(task.id)
            episode: dict[str, Any] = {
                "sample": sample,
                "messages": trajectory.messages,
                "verification": trajectory.verification.to_dict(),
                "teacher": {"route": teacher_name, **policy.describe()},
                "user": roles.user.describe(),
                "usage": usage,
                "truncated": trajectory.truncated,
                # the tool transform the chat was played under (its messages use its names), or None
                "augment": trajectory.transform.to_dict() if trajectory.transform is not None else None,
            }
            env.close()
            if roles.rewriter is not None:  # a chat that will be kept gets its text rewritten and verified again
                await roles.rewriter.run(task, episode)
            episodes.append(episode)
    except Exception as exc:
        if _fatal(exc):
            raise
        return {"task_id": task.id, "episodes": episodes, "error": f"{type(exc).__name__}: {exc}"}
    return {"task_id": task.id, "episodes": episodes, "error": None}


def messages_key(messages: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, default=str).encode()).hexdigest()
