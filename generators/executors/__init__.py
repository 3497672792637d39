"""Executors run tasks and yield their results as plain dicts, in completion order.

`local` runs episodes concurrently on one asyncio loop; `ray` hands batches of tasks to
rollout actors. Both run the same `run_task`, so the same config gives the same rows.
"""

from __future__ import annotations

from toolgym.config import JobConfig

from .local import LocalExecutor


def make_executor(config: JobConfig):
    if config.executor.type == "ray":
        from .ray_executor import RayExecutor

        return RayExecutor(config)
    return LocalExecutor(config)


__all__ = ["LocalExecutor", "make_executor"]
