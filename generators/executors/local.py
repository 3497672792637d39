"""Local executor: the job's own process makes the draws and finishes those the plan takes, several
batches of episodes in flight on one asyncio loop."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Collection
from typing import Any

from toolgym.config import JobConfig

from ..finishing import FinishOrder
from ..http_client import close_endpoints, endpoint_stats
from ..resolver import PlanResolver
from ..worker import Outcome, TaskWorker


class LocalExecutor:
    """Runs the job's TaskWorker in this process. A batch is made (CPU) while the episodes of earlier
    ones wait on served teachers, so `executor.concurrency` episodes stay in flight across batches."""

    name = "local"

    def __init__(self, config: JobConfig):
        self.config = config
        self.endpoint_stats: dict[str, Any] = {}
        settings = config.executor
        self.slots = math.ceil(settings.concurrency / settings.batch_size) + 1
        self.ahead = 4 * self.slots * settings.batch_size  # draws asked for ahead of the plan's head

    def start(self) -> None:
        """Nothing to start: the worker is made in this process when the run begins."""

    async def run(self, resolver: PlanResolver, finished: Collection[str] = ()) -> AsyncIterator[list[Outcome]]:
        """The plan's tasks, finished, in plan order, a batch at a time, until its plan is walked."""
        worker = TaskWorker(self.config)
        order = FinishOrder(resolver, finished)
        size = self.config.executor.batch_size
        running: set[asyncio.Task[list[Outcome]]] = set()
        try:
            while not order.complete:
                while len(running) < self.slots and (batch := resolver.next_batch()):
                    todo = [outcome["draw"] for outcome in order.made(worker.make(batch))]
                    for start in range(0, len(todo), size):
                        running.add(asyncio.create_task(worker.finish(todo[start:start + size])))
                    if ready := order.finished([]):  # tasks written by an earlier run: nothing to finish
                        yield ready
                if order.complete:
                    break
                if not running:
                    raise RuntimeError(f"the plan waits for draws nobody makes ({resolver.waiting} asked for)")
                done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    if ready := order.finished(future.result()):
                        yield ready  # the job writes them before this resumes
        finally:
            for future in running:
                future.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            worker.close()
            self.endpoint_stats = endpoint_stats()  # calls, retries, failures: for the dataset card
            await close_endpoints()  # HTTP connections of this run's teachers and users

    def close(self) -> None:
        pass
