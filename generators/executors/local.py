"""Local executor: the job's own process makes the draws, several batches in flight on one asyncio loop."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Collection, Iterable
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs.task import Task

from ..episodes import run_task
from ..http_client import close_endpoints, endpoint_stats
from ..resolver import PlanResolver
from ..roles import Roles
from ..worker import Outcome, TaskWorker


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
    """Runs the job's TaskWorker in this process. A batch is made (CPU) while earlier ones wait on
    served teachers, so `executor.concurrency` episodes stay in flight across batches."""

    name = "local"

    def __init__(self, config: JobConfig):
        self.config = config
        self.endpoint_stats: dict[str, Any] = {}
        settings = config.executor
        self.slots = math.ceil(settings.concurrency / settings.batch_size) + 1
        self.ahead = 4 * self.slots * settings.batch_size  # draws asked for ahead of the plan's head

    async def run(self, resolver: PlanResolver, finished: Collection[str] = ()) -> AsyncIterator[list[Outcome]]:
        """Outcomes of the draws the resolver asks for, a batch at a time, until its plan is walked."""
        worker = TaskWorker(self.config)
        worker.finished = finished
        running: set[asyncio.Task[list[Outcome]]] = set()
        try:
            while not resolver.finished:
                while len(running) < self.slots and (batch := resolver.next_batch()):
                    running.add(asyncio.create_task(worker.run(batch)))
                if not running:
                    raise RuntimeError(f"the plan waits for draws nobody makes ({resolver.waiting} asked for)")
                done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    yield future.result()  # the job adds them to the resolver before this resumes
        finally:
            for future in running:
                future.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            worker.close()
            self.endpoint_stats = endpoint_stats()  # calls, retries, failures: for the dataset card
            await close_endpoints()  # HTTP connections of this run's teachers and users

    def close(self) -> None:
        pass
