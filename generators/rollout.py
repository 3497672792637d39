"""One episode: a policy and a user simulator talking through a ToolEnv."""

from __future__ import annotations

import asyncio
from typing import Any

from toolgym.envs.env import ToolEnv
from toolgym.envs.task import Task
from toolgym.envs.trajectory import Trajectory

from .base import Policy, UserSimulator


async def rollout(
    env: ToolEnv,
    policy: Policy,
    user: UserSimulator | None = None,
    task: Task | str | None = None,
    *,
    seed: int | None = None,
) -> Trajectory:
    """Run one episode to its end and return the graded trajectory."""
    if user is not None:
        env.user = user
    options: dict[str, Any] = {"task": task} if task is not None else {}
    _, info = await env.areset(seed=seed, options=options)
    tools = info["tools"]
    done = env.verification is not None
    while not done:
        action = await policy.act(env.messages, tools, env.task)
        _, _, terminated, truncated, _ = await env.astep(action)
        done = terminated or truncated
    return env.trajectory()


def rollout_sync(
    env: ToolEnv,
    policy: Policy,
    user: UserSimulator | None = None,
    task: Task | str | None = None,
    *,
    seed: int | None = None,
) -> Trajectory:
    """`rollout` for code without an event loop."""
    return asyncio.run(rollout(env, policy, user, task, seed=seed))
