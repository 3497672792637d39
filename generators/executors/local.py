"""Local executor: many episodes in flight on one asyncio loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs.task import Task

from ..episodes import run_task
from ..http_client import close_endpoints, endpoint_stats
from ..roles import Roles


async def run_tasks_concurrently(
    tasks: Iterable[Task], roles: Roles, concurrency: int, samples: int, max_turns: int
) -> AsyncIterator[tuple[Task, dict[str, Any]]]:
    """Yield (task, result) as each task finishes, with at most `concurrency` tasks running.

    Tasks are drawn from the iterable only when a worker is free, so a lazily generated plan
    is never held whole.
    """
    queue: asyncio.Queue[Any] = asyncio.Queue()
    source = iter(tasks)
    finished = object()

    async def worker() -> None:
        try:
            for task in source:  # workers share one iterator: each task is taken once
                await queue.put((task, await run_task(task, roles, samples, max_turns)))
        except BaseException as exc:  # a job-stopping error: hand it to the consumer
            await queue.put(exc)
        finally:
            await queue.put(finished)

    workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
    running = len(workers)
    try:
        while running:
            item = await queue.get()
            if item is finished:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


class LocalExecutor:
    name = "local"

    def __init__(self, config: JobConfig):
        self.config = config
        self.endpoint_stats: dict[str, Any] = {}

    async def run(self, tasks: Iterable[Task]) -> AsyncIterator[tuple[Task, dict[str, Any]]]:
        roles = Roles.from_config(self.config)
        try:
            async for item in run_tasks_concurrently(
                tasks, roles, self.config.executor.concurrency, self.config.samples_per_task, self.config.max_turns
            ):
                yield item
        finally:
            self.endpoint_stats = endpoint_stats()  # calls, retries, failures: for the dataset card
            await close_endpoints()  # HTTP connections of this run's teachers and users

    def close(self) -> None:
        pass
