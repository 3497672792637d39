"""The work of a job: draws of the plan made into tasks, proven, rolled out and turned into rows.

A draw is (stream, index, attempt): the `index`-th task of one of the job's streams (see
planning.plan_streams) at one attempt. It depends on nothing else, so any process holding the
job's config makes the same task from it: the job's own process (local executor) and every Ray
actor run a TaskWorker, and the driver only puts the outcomes in plan order (resolver.py) and
writes them. An outcome is plain data: small to send, and what the writer and the stats need.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Collection
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs import caches
from toolgym.envs.generation import draw
from toolgym.envs.gold import gold_chat
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.envs.world import World

from . import collector
from .episodes import run_task
from .planning import Stream, plan_streams
from .rewrite import rewrite_counts
from .roles import Roles
from .rows import rows_for

Draw = tuple[int, int, int]  # (stream number, index, attempt)
Outcome = dict[str, Any]


class TaskWorker:
    """Makes and finishes the draws it is handed; keeps its worlds, teachers and their connections between batches."""

    def __init__(self, config: JobConfig):
        caches.configure(**config.caches.model_dump())
        self.config = config
        self.streams: list[Stream] = plan_streams(config)
        self.roles = Roles.from_config(config)
        self.finished: Collection[str] = frozenset()  # tasks already written: made (for their ids), not rolled out
        self._worlds: OrderedDict[tuple[str, int, str], World] = OrderedDict()
        self._slots: asyncio.Semaphore | None = None
        self._gold: dict[str, Any] = {}  # gold chats of the batch's tasks, from their proof to their episode

    async def run(self, draws: list[Draw]) -> list[Outcome]:
        """Outcomes of the draws, in their order. Tasks are made one after another (CPU), then rolled
        out concurrently, at most `executor.concurrency` at a time over every batch this worker runs."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.config.executor.concurrency)
        made = [self._make(d) for d in draws]
        outcomes = list(await asyncio.gather(*(self._finish(outcome, task) for outcome, task in made)))
        collector.settle()
        return outcomes

    # ---- making a task ---------------------------------------------------------------------------
    def _make(self, spec: Draw) -> tuple[Outcome, Task | None]:
        number, index, attempt = spec
        stream = self.streams[number]
        outcome: Outcome = {"draw": spec, "domain": stream.domain, "kind": stream.kind}
        domain = load_domain(stream.domain)
        world = self._world(stream)
        try:
            task = draw(domain, world, stream.seed, stream.kind, index, attempt)
        except Exception as exc:  # raised by the job when the plan reaches this draw, as a plain run would
            outcome["error"] = exc
            self._drop_world(stream)  # a failed generator may have left the world changed
            return outcome, None
        outcome.update(task_id=task.id, lesson=task.lesson_key(),
                       level=task.difficulty.level if task.difficulty is not None else None)
        if self.roles.reuse_gold and domain.enforce_ground_truth:  # proven just now: held until its episode is made
            try:
                self._gold[task.id] = gold_chat(domain, task)
            except Exception:  # noqa: BLE001 - not held: the episode plays it and records the error as the task's
                pass
        return outcome, task

    def _world(self, stream: Stream) -> World:
        """The read-only world a stream's tasks are drawn from, kept for the streams to come."""
        key = (stream.domain, stream.world_seed, stream.size)
        world = self._worlds.get(key)
        if world is None:
            world = self._worlds[key] = World(load_domain(stream.domain).template(stream.world_seed, stream.size))
            while len(self._worlds) > caches.SIZES["world_templates"]:
                self._worlds.popitem(last=False)[1].close()
        self._worlds.move_to_end(key)
        return world

    def _drop_world(self, stream: Stream) -> None:
        world = self._worlds.pop((stream.domain, stream.world_seed, stream.size), None)
        if world is not None:
            world.close()

    # ---- finishing it ----------------------------------------------------------------------------
    async def _finish(self, outcome: Outcome, task: Task | None) -> Outcome:
        if task is None:
            return outcome
        if task.id in self.finished:
            self._gold.pop(task.id, None)
            outcome["skipped"] = True  # written by an earlier run of the job
            return outcome
        assert self._slots is not None
        config = self.config
        async with self._slots:
            gold = self._gold.pop(task.id, None)
            result = await run_task(task, self.roles, config.samples_per_task, config.max_turns, gold)
        outcome["passed"] = [bool(e["verification"]["passed"]) for e in result["episodes"]]
        if result.get("error"):  # an unfinished task writes no rows, so a retry cannot duplicate any
            outcome["rows"] = {}
            outcome["failure"] = {"task_id": task.id, "domain": task.domain, "kind": task.kind, "error": result["error"]}
            return outcome
        outcome["rows"] = rows_for(task, result, config)
        if config.rewrite is not None:
            outcome["counts"] = {"rewrite": rewrite_counts(result)}
        return outcome

    def worlds(self) -> list[tuple[str, int, str]]:
        """(domain, world seed, size) of the worlds this worker draws from."""
        return list(self._worlds)

    def close(self) -> None:
        for world in self._worlds.values():
            world.close()
        self._worlds.clear()
