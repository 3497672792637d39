"""Ray executor: rollout actors each running a batch of tasks concurrently.

Actors get batches, never single steps (a Ray call costs ~1–2 ms). A dead actor is restarted
by Ray and its batch retried; a batch that still fails has its tasks recorded as failures with
the reason, and a fresh actor takes the slot, so no task is silently lost.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterable
from itertools import islice
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs.task import Task

from .local import run_tasks_concurrently


class RolloutActor:
    """Runs batches of tasks inside one Ray worker process."""

    def __init__(self, config: JobConfig):
        from ..roles import Roles

        self.config = config
        self.roles = Roles.from_config(config)
        self._loop = asyncio.new_event_loop()

    def run_batch(self, tasks_json: list[str]) -> list[dict[str, Any]]:
        # A plain method (a class with any `async def` becomes an async actor, whose event-loop
        # thread fights Ray's own threads for the GIL): the batch runs on a loop this actor keeps,
        # so endpoints and their connections live from one batch to the next.
        tasks = [Task.model_validate_json(t) for t in tasks_json]
        return self._loop.run_until_complete(_run_batch(tasks, self.roles, self.config))

    def pid(self) -> int:
        return os.getpid()


async def _run_batch(tasks: list[Task], roles: Any, config: JobConfig) -> list[dict[str, Any]]:
    settings = config.executor
    return [
        result
        async for _, result in run_tasks_concurrently(
            tasks, roles, settings.concurrency, config.samples_per_task, config.max_turns
        )
    ]


class RayExecutor:
    name = "ray"

    def __init__(self, config: JobConfig):
        self.config = config
        self.actors: list[Any] = []
        self._started_ray = False

    def _start(self) -> None:
        import ray

        settings = self.config.executor
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
            if settings.address:
                kwargs["address"] = settings.address
            ray.init(**kwargs)
            self._started_ray = True
        cpus = max(ray.cluster_resources().get("CPU", 1.0), 1.0)
        self._actor_class = ray.remote(RolloutActor).options(
            num_cpus=min(1.0, cpus / settings.workers),
            max_restarts=settings.max_restarts,
            max_task_retries=settings.max_task_retries,
        )
        self.actors = [self._actor_class.remote(self.config) for _ in range(settings.workers)]

    async def run(self, tasks: Iterable[Task]) -> AsyncIterator[tuple[Task, dict[str, Any]]]:
        import ray

        source = iter(tasks)
        size = self.config.executor.batch_size
        running: dict[asyncio.Future, tuple[int, dict[str, Task]]] = {}

        def submit(slot: int) -> None:
            batch = list(islice(source, size))  # drawn lazily: the plan is never held whole
            if batch:
                ref = self.actors[slot].run_batch.remote([t.model_dump_json() for t in batch])
                running[asyncio.ensure_future(_await_ref(ref))] = (slot, {t.id: t for t in batch})

        self._start()
        for slot in range(len(self.actors)):
            for _ in range(3):  # batches queued per actor, so it never waits for the driver
                submit(slot)
        while running:
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                slot, batch = running.pop(future)
                try:
                    results = future.result()
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                    reason = f"rollout worker died and retries were exhausted: {type(exc).__name__}"
                    results = [{"task_id": t, "episodes": [], "error": reason} for t in batch]
                    self.actors[slot] = self._actor_class.remote(self.config)
                except ray.exceptions.RayTaskError as exc:
                    raise exc.as_instanceof_cause() from None
                submit(slot)  # before handing results on, so the actor's queue never runs dry
                for result in results:
                    yield batch[result["task_id"]], result

    async def actor_pids(self) -> list[int]:
        return [await _await_ref(a.pid.remote()) for a in self.actors]

    def close(self) -> None:
        import ray

        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False


async def _await_ref(ref: Any) -> Any:
    return await ref
