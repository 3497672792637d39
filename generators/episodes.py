"""The unit of work of every executor: all samples of one task, as plain data."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from toolgym.envs.conversation import assistant_turns
from toolgym.envs.env import ToolEnv
from toolgym.envs.gold import GOLD_MAX_TURNS, gold_chat
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task

from .base import Policy
from .oracle import OracleTeacher
from .roles import Roles
from .rollout import rollout
from .user import ScriptedUser


class JobStop(Exception):
    """An error that must stop the whole job (an endpoint that is down), not just one task."""


def _fatal(exc: BaseException) -> bool:
    return isinstance(exc, JobStop) or type(exc).__name__ == "EndpointDown"


async def run_task(task: Task, roles: Roles, samples: int, max_turns: int, gold: Gold | None = None) -> dict[str, Any]:
    """Roll a task out `samples` times; an error of this task is recorded, not raised.

    gold: the task's gold chat and verification as proven when it was made (else looked up: see gold_copy).
    """
    teacher_name, policy = roles.teacher_for(task)
    episodes: list[dict[str, Any]] = []
    try:
        for sample in range(samples):
            # an augmented tool set is drawn by the env at reset: such a task is played, not copied
            reuse = roles.reuse_gold and roles.augment is None
            played = gold_copy(task, policy, roles, max_turns, gold) if reuse else None
            transform = None
            if played is None:
                env = ToolEnv(task.domain, user=roles.user, max_turns=max_turns, world_size=task.world_size,
                              augment=roles.augment)
                trajectory = await rollout(env, policy, None, task)
                env.close()
                played = (trajectory.messages, trajectory.verification.to_dict(), trajectory.truncated)
                transform = trajectory.transform
            messages, verification, truncated = played
            usage = getattr(policy, "pop_usage", lambda _task_id: None)(task.id)
            episode: dict[str, Any] = {
                "sample": sample,
                "messages": messages,
                "verification": verification,
                "teacher": {"route": teacher_name, **policy.describe()},
                "user": roles.user.describe(),
                "usage": usage,
                "truncated": truncated,
                # the tool transform the chat was played under (its messages use its names), or None
                "augment": transform.to_dict() if transform is not None else None,
            }
            if roles.rewriter is not None:  # a chat that will be kept gets its text rewritten and verified again
                await roles.rewriter.run(task, episode)
            episodes.append(episode)
    except Exception as exc:
        if _fatal(exc):
            raise
        return {"task_id": task.id, "episodes": episodes, "error": f"{type(exc).__name__}: {exc}"}
    return {"task_id": task.id, "episodes": episodes, "error": None}


Gold = tuple[list[dict[str, Any]], Any]  # a gold chat and its verification (envs.gold.gold_chat)


def gold_copy(
    task: Task, policy: Policy, roles: Roles, max_turns: int, gold: Gold | None = None
) -> tuple[list[dict[str, Any]], dict, bool] | None:
    """The episode the oracle teacher and the scripted user would play, taken from the gold chat proven
    when the task was made: (messages, verification, truncated), or None when it must be played.

    Both roles are deterministic and read only the chat, so playing again gives the same chat (with the
    teacher's reasoning traces, added here as it would add them) and the same verification. A chat longer
    than this job's `max_turns`, another teacher or user, or a subclass of them, is played.
    """
    if type(policy) is not OracleTeacher or type(roles.user) is not ScriptedUser:
        return None
    messages, verification = gold if gold is not None else gold_chat(load_domain(task.domain), task)
    turns = assistant_turns(messages)
    if verification is None or turns > max_turns or turns >= GOLD_MAX_TURNS:
        return None
    chat = policy.with_reasoning(task, messages)
    if chat is None:
        return None
    if roles.reverify:
        from toolgym.verifiers import verify

        return chat, verify(task, chat).to_dict(), False
    return chat, verification.to_dict(), False


def messages_key(messages: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, default=str).encode()).hexdigest()
