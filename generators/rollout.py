"""One episode: a policy and a user simulator talking through a ToolEnv."""

from __future__ import annotations

from typing import Any

from toolgym.envs.env import ToolEnv, run_sync
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
        action = _in_offered_names(env, policy, await policy.act(env.messages, tools, env.task))
        _, _, terminated, truncated, _ = await env.astep(action)
        done = terminated or truncated
    return env.trajectory()


def _in_offered_names(env: ToolEnv, policy: Policy, action: Any) -> Any:
    """A gold-following policy's message in the names the row offers (calls, and tool names in its words)."""
    if env.transform is None or not policy.speaks_gold_names or not isinstance(action, dict):
        return action
    return env.transform.augment_message(action)


def _is_sync_policy(policy: Policy) -> bool:
    return type(policy).act is Policy.act and type(policy).act_sync is not Policy.act_sync


def rollout_sync(
    env: ToolEnv,
    policy: Policy,
    user: UserSimulator | None = None,
    task: Task | str | None = None,
    *,
    seed: int | None = None,
) -> Trajectory:
    """`rollout` for code without an event loop.

    A policy and a user that need no I/O (the oracle, the scripted user) run as plain calls;
    others run on this thread's own event loop, kept between calls.
    """
    if user is not None:
        env.user = user
    if not (_is_sync_policy(policy) and getattr(env.user, "is_sync", False)):
        return run_sync(rollout(env, policy, None, task, seed=seed))
    options: dict[str, Any] = {"task": task} if task is not None else {}
    _, info = env.reset(seed=seed, options=options)
    tools = info["tools"]
    done = env.verification is not None
    while not done:
        _, _, terminated, truncated, _ = env.step(_in_offered_names(env, policy, policy.act_sync(env.messages, tools, env.task)))
        done = terminated or truncated
    return env.trajectory()
