"""Ray executor: actors that make and prove draws, and roll out and build the rows of those the plan takes.

The driver sends draws (three integers each: stream, index, attempt) and gets back outcomes, so
everything a task costs is spent on the workers and adding workers adds throughput; the driver
only puts outcomes in plan order and writes (resolver.py, finishing.py, job.py). A call to an
actor carries both phases of the work (worker.py): the draws it made earlier that the plan took,
to finish, and new draws to make; it returns both kinds of outcome. So a draw the plan drops is
never rolled out, and the two phases cost no extra round trip.
Actors get batches, never single steps (a Ray call costs ~1–2 ms). A dead actor is restarted
by Ray and its batch retried (`executor.max_task_retries`); a batch whose call failed anyway
(retries off or spent) goes to a fresh actor that replaces the dead one (which makes again the
draws it is to finish), and a batch that kills every actor it meets stops the job, naming its
draws, so no task is lost.

On a small machine the actors share the cores with the driver and Ray's own processes, so every
bit of work outside the actors costs rollouts. Hence: actors are started once per executor (a
second `run` reuses them and the worlds they built), each batch of outcomes travels as one
compressed blob small enough to ride inside Ray's RPC messages (anything over 100 KB goes
through the object store and costs the raylet ~1.5 ms and the actor a wait), and the last draws
of a run go out in shrinking batches so the actors finish together.
"""

from __future__ import annotations

import asyncio
import math
import os
import pickle
import zlib
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from toolgym.config import JobConfig
from toolgym.errors import GeneratorBug

from ..finishing import FinishOrder
from ..planning import Stream
from ..resolver import PlanResolver
from ..worker import Draw, Outcome, TaskWorker

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


# zstd level 1 (through pyarrow, already a dependency) shrinks pickled outcomes ~6x for a few µs
# per task (a batch of 64 stays inline); zlib, the fallback, costs ~3x more CPU, much of it the driver's.
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


def encode_outcomes(groups: list[list[Outcome]]) -> bytes:
    try:
        data = pickle.dumps(groups, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a generator's error that does not pickle travels as its text
        groups = [[{**o, "error": GeneratorBug(f"{type(o['error']).__name__}: {o['error']}")} if o.get("error") else o
                   for o in outcomes] for outcomes in groups]
        data = pickle.dumps(groups, protocol=pickle.HIGHEST_PROTOCOL)
    return _pack(data)


def decode_outcomes(blob: bytes) -> list[list[Outcome]]:
    groups: list[list[Outcome]] = pickle.loads(_unpack(blob))
    return groups


class WorkerActor:
    """A TaskWorker inside one Ray worker process."""

    def __init__(self, config: JobConfig):
        self.worker = TaskWorker(config)
        self._loop = asyncio.new_event_loop()

    def run_batch(self, finish: list[Draw], make: list[Draw]) -> bytes:
        """Finishes the draws it made that the plan took, then makes new ones: (finished, made) outcomes."""
        # A plain method (a class with any `async def` becomes an async actor, whose event-loop
        # thread fights Ray's own threads for the GIL): the batch runs on a loop this actor keeps,
        # so endpoints and their connections live from one batch to the next.
        finished = self._loop.run_until_complete(self.worker.finish(finish)) if finish else []
        return encode_outcomes([finished, self.worker.make(make)])

    def pid(self) -> int:
        return os.getpid()

    def worlds(self) -> list[str]:
        """The worlds this worker has drawn tasks from (and so built)."""
        return [f"{domain}/{seed}/{size}" for domain, seed, size in self.worker.worlds()]

    def node_id(self) -> str:
        import ray

        return str(ray.get_runtime_context().get_node_id())


class RayExecutor:
    name = "ray"

    def __init__(self, config: JobConfig):
        self.config = config
        self.actors: list[Any] = []
        self._started_ray = False
        self.worker_stats: list[dict[str, Any]] = []  # per actor slot: its node and the draws it made
        settings = config.executor
        self.ahead = 4 * settings.workers * _DEPTH * settings.batch_size  # draws asked for ahead of the plan's head

    def start(self) -> None:
        """Start Ray (unless it is up) and the actors; they import and build their domains meanwhile."""
        if not self.actors:
            self._start()

    def _start(self) -> None:
        import ray

        settings = self.config.executor
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
            if settings.address:
                kwargs["address"] = settings.address
            if settings.runtime_env:
                kwargs["runtime_env"] = settings.runtime_env
            ray.init(**kwargs)
            self._started_ray = True
        cpus = max(ray.cluster_resources().get("CPU", 1.0), 1.0)
        self._actor_class = ray.remote(WorkerActor).options(
            num_cpus=min(1.0, cpus / settings.workers),
            max_restarts=settings.max_restarts,
            max_task_retries=settings.max_task_retries,
        )
        self.actors = [self._actor_class.remote(self.config) for _ in range(settings.workers)]

    async def run(self, resolver: PlanResolver, finished: frozenset[str] = frozenset()) -> AsyncIterator[list[Outcome]]:
        """The plan's tasks, finished, in plan order, a batch per actor call, until its plan is walked."""
        import ray

        self.start()  # a second run reuses the actors (and the worlds they built)
        order = FinishOrder(resolver, finished)
        # asked first, answered once the actors are up: their first batches are queued meanwhile
        node_refs = [actor.node_id.remote() for actor in self.actors]
        slots = len(self.actors) * _DEPTH
        running: dict[asyncio.Future, tuple[int, Any, list[Draw], list[Draw], int]] = {}
        # per actor slot: draws it made that the plan took, to finish with its next call (it holds their tasks)
        to_finish: list[list[Draw]] = [[] for _ in self.actors]
        retry: deque[tuple[list[Draw], list[Draw], int]] = deque()  # calls whose actor died for good, with their tries
        # Which actor builds which world: a new world goes to an actor owning the fewest, and its draws
        # go to its owner when the owner asks, so each world and its index (~0.5 s) is built by one worker.
        owner: dict[tuple[str, int, str], int] = {}
        owned = [0] * len(self.actors)

        def world(stream: Stream) -> tuple[str, int, str]:
            return stream.domain, stream.world_seed, stream.size

        def mine(slot: int, stream: Stream) -> bool:
            found = owner.get(world(stream))
            if found is None and owned[slot] == min(owned):
                found = owner[world(stream)] = slot
                owned[slot] += 1
            return found == slot

        def submit(slot: int) -> bool:
            if retry:
                finish, make, tries = retry.popleft()
            else:
                size = self.config.executor.batch_size
                if resolver.left_to_ask < size * slots:  # the end is in sight: split what is left over every slot
                    size = max(_SMALLEST, math.ceil(resolver.left_to_ask / slots))
                finish, to_finish[slot] = to_finish[slot], []
                make = resolver.next_batch(size, prefer=lambda stream: mine(slot, stream))
                tries = 0
            if not finish and not make:
                return False
            actor = self.actors[slot]
            future = asyncio.ensure_future(_await_ref(actor.run_batch.remote(finish, make)))
            running[future] = (slot, actor, finish, make, tries)
            return True

        idle: set[int] = set()  # slots with nothing queued: the resolver had nothing to ask for
        for slot in range(len(self.actors)):
            for _ in range(_DEPTH):
                if not submit(slot):
                    idle.add(slot)
        try:
            self.worker_stats = [{"node": await _await_ref(ref), "batches": 0, "draws": 0} for ref in node_refs]
            while not order.complete:
                for slot in list(idle):  # the resolver may have more to ask for now, or the plan more to finish
                    if submit(slot):
                        idle.discard(slot)
                if not running:
                    raise RuntimeError(f"the plan waits for draws nobody makes ({resolver.waiting} asked for, "
                                       f"{order.unfinished} to finish)")
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    slot, actor, finish, make, tries = running.pop(future)
                    try:
                        finished_outcomes, made = decode_outcomes(future.result())
                        self.worker_stats[slot]["batches"] += 1
                        self.worker_stats[slot]["draws"] += len(make)
                    except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                        if tries >= self.config.executor.max_restarts:
                            raise RuntimeError(
                                f"a batch of draws killed {tries + 1} rollout workers ({type(exc).__name__}); "
                                f"its draws (stream, index, attempt): {(finish + make)[:8]}"
                            ) from None
                        retry.append((finish, make, tries + 1))
                        if self.actors[slot] is actor:  # its other queued batch fails too: replace once
                            # Ray may be restarting it (its batches not retried): that restart holds the CPU
                            # the fresh actor needs, so it is stopped for good first.
                            ray.kill(actor, no_restart=True)
                            self.actors[slot] = self._actor_class.remote(self.config)
                        finished_outcomes, made = [], []
                    except ray.exceptions.RayTaskError as exc:
                        raise exc.as_instanceof_cause() from None
                    for outcome in made:
                        outcome["made_by"] = slot
                    for outcome in order.made(made):
                        to_finish[outcome["made_by"]].append(outcome["draw"])
                    if not submit(slot):  # before handing outcomes on, so the actor's queue never runs dry
                        idle.add(slot)
                    if ready := order.finished(finished_outcomes):
                        yield ready
        finally:
            for future in running:  # extra draws of a walked plan: not waited for
                future.cancel()
        for stats, actor in zip(self.worker_stats, self.actors, strict=True):
            try:
                stats["worlds"] = await _await_ref(actor.worlds.remote())
            except ray.exceptions.RayActorError as exc:
                # died after its last batch (its draws were all taken): a restarted actor built none of
                # them, so which worlds it built is lost, not the job
                stats["worlds"] = None
                stats["lost"] = type(exc).__name__

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
