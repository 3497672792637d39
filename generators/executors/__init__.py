"""Executors make the draws a PlanResolver asks for and yield the outcomes, a batch at a time.

`local` runs a TaskWorker in the job's process (batches interleaved on one asyncio loop); `ray`
runs one in each actor and hands them batches. Both run the same worker, and the resolver puts
outcomes in plan order, so the same config gives the same rows.
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
