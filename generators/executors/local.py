"""Local executor: many episodes in flight on one asyncio loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs.task import Task

from ..episodes import run_task
from ..roles import Roles


async def run_tasks_concurrently(
    tasks: Sequence[Task], roles: Roles, concurrency: int, samples: int, max_turns: int
) -> AsyncIterator[dict[str, Any]]:
    """Yield each task's result as it finishes, with at most `concurrency` tasks running."""
    queue: asyncio.Queue[dict[str, Any] | BaseException] = asyncio.Queue()
    pending = iter(tasks)

    async def worker() -> None:
        for task in pending:  # workers share one iterator: each task is taken once
            try:
                await queue.put(await run_task(task, roles, samples, max_turns))
            except BaseException as exc:  # a job-stopping error: hand it to the consumer
                await queue.put(exc)
                return

    workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, len(tasks)) or 1)]
    try:
        for _ in range(len(tasks)):
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


class LocalExecutor:
    name = "local"

    def __init__(self, config: JobConfig):
        self.config = config

    async def run(self, tasks: Sequence[Task]) -> AsyncIterator[dict[str, Any]]:
        roles = Roles.from_config(self.config)
        async for result in run_tasks_concurrently(
            tasks, roles, self.config.executor.concurrency, self.config.samples_per_task, self.config.max_turns
        ):
            yield result

    def close(self) -> None:
        pass
