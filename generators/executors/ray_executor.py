"""Ray executor: rollout actors each running a batch of tasks concurrently.

Actors get batches, never single steps (a Ray call costs ~1–2 ms). A dead actor is restarted
by Ray and its batch retried; a batch that still fails has its tasks recorded as failures with
the reason, and a fresh actor takes the slot, so no task is silently lost.

On a small machine the actors share the cores with the driver and Ray's own processes, so every
bit of work outside the actors costs rollouts. Hence: actors are started once per executor (a
second `run` reuses them and the worlds they built), each batch and each batch of results
travels as one compressed blob small enough to ride inside Ray's RPC messages (anything over
100 KB goes through the object store and costs the raylet ~1.5 ms and the actor a wait), and
the last tasks of a run go out in shrinking batches so the actors finish together.
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import pickle
import zlib
from collections import deque
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from pydantic import TypeAdapter

from toolgym.config import JobConfig
from toolgym.envs.task import Task

from .local import run_tasks_concurrently

_TASK_LIST = TypeAdapter(list[Task])
_DEPTH = 2  # batches queued per actor: one running, one waiting, so it never waits for the driver
_SMALLEST = 4  # a call costs ~1 ms: below this many episodes a batch is mostly overhead


def _codec() -> Any:
    try:
        import pyarrow

        if pyarrow.Codec.is_available("zstd"):
            return pyarrow.Codec("zstd", compression_level=1)
    except ImportError:
        pass
    return None


# zstd level 1 (through pyarrow, already a dependency) shrinks task JSON ~8x and pickled
# results ~6x for 3–7 µs per task (a retail batch stays inline up to ~120 tasks); zlib, the
# fallback, costs ~3x more CPU, much of it the driver's.
_ZSTD = _codec()


def _pack(data: bytes) -> bytes:
    if _ZSTD is not None:
        return b"Z" + len(data).to_bytes(8, "little") + _ZSTD.compress(data, asbytes=True)
    return b"z" + zlib.compress(data, 1)


def _unpack(blob: bytes) -> bytes:
    if blob[:1] == b"Z":
        if _ZSTD is None:
            raise RuntimeError("a batch compressed with zstd reached a process whose pyarrow lacks zstd")
        size = int.from_bytes(blob[1:9], "little")
        data: bytes = _ZSTD.decompress(memoryview(blob)[9:], size, asbytes=True)
        return data
    return zlib.decompress(memoryview(blob)[1:])


def encode_tasks(tasks: list[Task]) -> bytes:
    return _pack(_TASK_LIST.dump_json(tasks))


def decode_results(blob: bytes) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = pickle.loads(_unpack(blob))
    return results


class RolloutActor:
    """Runs batches of tasks inside one Ray worker process."""

    def __init__(self, config: JobConfig):
        from ..roles import Roles

        self.config = config
        self.roles = Roles.from_config(config)
        self._loop = asyncio.new_event_loop()
        self._frozen = False

    def run_batch(self, blob: bytes) -> bytes:
        # A plain method (a class with any `async def` becomes an async actor, whose event-loop
        # thread fights Ray's own threads for the GIL): the batch runs on a loop this actor keeps,
        # so endpoints and their connections live from one batch to the next.
        tasks = _TASK_LIST.validate_json(_unpack(blob))  # one parse for the whole batch
        results = self._loop.run_until_complete(_run_batch(tasks, self.roles, self.config))
        if not self._frozen:
            # The first batch built the worlds (~180k objects): every full collection would walk
            # them again (~70 ms each), so what lives now is moved out of the collector's sight.
            gc.collect()
            gc.freeze()
            self._frozen = True
        return _pack(pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL))

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


class _Batches:
    """Draws tasks lazily into batches; once the plan runs dry, batches shrink so no actor is
    left with a full batch while the others idle."""

    def __init__(self, tasks: Iterable[Task], size: int, slots: int):
        self._source: Iterator[Task] | None = iter(tasks)
        self._size = size
        self._slots = slots
        self._ahead: deque[Task] = deque()  # bounded look-ahead: the plan is never held whole

    def next(self) -> list[Task]:
        want = self._size * self._slots
        while self._source is not None and len(self._ahead) < want:
            task = next(self._source, None)
            if task is None:
                self._source = None
            else:
                self._ahead.append(task)
        size = self._size
        if self._source is None:  # the end is in sight: split what is left over every slot
            size = min(size, max(_SMALLEST, math.ceil(len(self._ahead) / self._slots)))
        return [self._ahead.popleft() for _ in range(min(size, len(self._ahead)))]


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

        if not self.actors:  # a second run reuses the actors (and the worlds they built)
            self._start()
        batches = _Batches(tasks, self.config.executor.batch_size, len(self.actors) * _DEPTH)
        running: dict[asyncio.Future, tuple[int, Any, dict[str, Task]]] = {}

        def submit(slot: int) -> None:
            batch = batches.next()
            if batch:
                actor = self.actors[slot]
                ref = actor.run_batch.remote(encode_tasks(batch))
                running[asyncio.ensure_future(_await_ref(ref))] = (slot, actor, {t.id: t for t in batch})

        for slot in range(len(self.actors)):
            for _ in range(_DEPTH):
                submit(slot)
        while running:
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                slot, actor, batch = running.pop(future)
                try:
                    results = decode_results(future.result())
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                    reason = f"rollout worker died and retries were exhausted: {type(exc).__name__}"
                    results = [{"task_id": t, "episodes": [], "error": reason} for t in batch]
                    if self.actors[slot] is actor:  # its other queued batch fails too: replace once
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
