"""The work of a job: draws of the plan made into tasks and proven, then, once the plan takes them,
rolled out and turned into rows.

A draw is (stream, index, attempt): the `index`-th task of one of the job's streams (see
planning.plan_streams) at one attempt. It depends on nothing else, so any process holding the
job's config makes the same task from it: the job's own process (local executor) and every Ray
actor run a TaskWorker. The work has two phases so that nothing is played for a draw the plan
drops (a repeated lesson, a kind or difficulty level already full): `make` generates and proves
draws and reports their ids and levels; the driver puts them in plan order (resolver.py) and
hands back the draws it takes to `finish`, which rolls them out and builds their rows. An
outcome is plain data: small to send, and what the writer and the stats need.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs import caches
from toolgym.envs.generation import draw
from toolgym.envs.gold import gold_chat
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.envs.world import World

from . import collector
from .episodes import Gold, run_task
from .features import RowError
from .planning import Stream, plan_streams
from .rewrite import rewrite_counts
from .roles import Roles
from .rows import rows_for
from .writer import prepare_rows

Draw = tuple[int, int, int]  # (stream number, index, attempt)
Outcome = dict[str, Any]
# Tasks made and not finished yet, at most (or 16 batches, if more): those the plan drops are never
# finished and leave by age (a task and its gold chat: tens of KB). Twice the draws an executor asks
# for ahead of the plan (executors: `ahead`, 1,024 with the defaults), so a task the plan takes is
# still here; one asked for after it left (a spare of a difficulty level, a worker restarted) is made
# again: a draw gives the same task wherever and whenever it is made.
HELD = 2048


class TaskWorker:
    """Makes and finishes the draws it is handed; keeps its worlds, teachers and their connections between batches."""

    def __init__(self, config: JobConfig):
        caches.configure(**config.caches.model_dump())
        collector.start()
        self.config = config
        self.streams: list[Stream] = plan_streams(config)
        self.roles = Roles.from_config(config)
        self._worlds: OrderedDict[tuple[str, int, str], World] = OrderedDict()
        self._slots: asyncio.Semaphore | None = None
        # made and proven, waiting to be finished: the task and its gold chat (from its proof to its episode)
        self._held: OrderedDict[Draw, tuple[Task, Gold | None]] = OrderedDict()
        self._held_max = max(HELD, 16 * config.executor.batch_size)
        self.made = 0  # draws made (again, for one that had left `_held`, counted again)
        self.finished = 0  # tasks rolled out

    # ---- phase one: making and proving -----------------------------------------------------------
    def make(self, draws: list[Draw]) -> list[Outcome]:
        """Outcomes of the draws, in their order: the task's id, lesson and difficulty level, or the error
        that made it fail (raised by the job when the plan reaches the draw, as a plain run would)."""
        outcomes = []
        for spec in draws:
            outcome, task, gold = self._make(spec)
            if task is not None:
                self._hold(spec, task, gold)
            outcomes.append(outcome)
        return outcomes

    def _make(self, spec: Draw) -> tuple[Outcome, Task | None, Gold | None]:
        number, index, attempt = spec
        stream = self.streams[number]
        outcome: Outcome = {"draw": spec, "domain": stream.domain, "kind": stream.kind}
        domain = load_domain(stream.domain)
        world = self._world(stream)
        self.made += 1
        try:
            task = draw(domain, world, stream.seed, stream.kind, index, attempt)
        except Exception as exc:
            outcome["error"] = exc
            self._drop_world(stream)  # a failed generator may have left the world changed
            return outcome, None, None
        outcome.update(task_id=task.id, lesson=task.lesson_key(),
                       level=task.difficulty.level if task.difficulty is not None else None)
        gold = None
        if self.roles.reuse_gold and domain.enforce_ground_truth:  # proven just now: held until its episode is made
            try:
                gold = gold_chat(domain, task)
            except Exception:  # noqa: BLE001 - not held: the episode plays it and records the error as the task's
                pass
        return outcome, task, gold

    def _hold(self, spec: Draw, task: Task, gold: Gold | None) -> None:
        self._held[spec] = (task, gold)
        while len(self._held) > self._held_max:
            self._held.popitem(last=False)

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

    # ---- phase two: finishing the draws the plan takes -------------------------------------------
    async def finish(self, draws: list[Draw]) -> list[Outcome]:
        """Rolled out draws, in their order: episodes passed, rows, failure, counts. Episodes run
        concurrently, at most `executor.concurrency` at a time over every batch this worker runs."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.config.executor.concurrency)
        outcomes = list(await asyncio.gather(*(self._finish(spec) for spec in draws)))
        collector.settle()
        return outcomes

    async def _finish(self, spec: Draw) -> Outcome:
        held = self._held.pop(spec, None)
        if held is None:  # left the worker (or made by another): made again, the same task
            made, task, gold = self._make(spec)
            if task is None:
                raise made["error"]
        else:
            task, gold = held
        assert self._slots is not None
        config = self.config
        outcome: Outcome = {"draw": spec, "task_id": task.id}
        async with self._slots:
            result = await run_task(task, self.roles, config.samples_per_task, config.max_turns, gold)
        self.finished += 1
        outcome["passed"] = [bool(e["verification"]["passed"]) for e in result["episodes"]]
        if result.get("error"):  # an unfinished task writes no rows, so a retry cannot duplicate any
            outcome["rows"] = {}
            outcome["failure"] = {"task_id": task.id, "domain": task.domain, "kind": task.kind, "error": result["error"]}
            return outcome
        try:  # encoded here: with Ray, on the worker rather than in the job's process
            outcome["rows"] = prepare_rows(task.id, rows_for(task, result, config))
        except RowError as exc:  # one unstorable chat fails its task, not the job
            outcome["rows"] = {}
            outcome["failure"] = {"task_id": task.id, "domain": task.domain, "kind": task.kind,
                                  "error": f"row not storable: {exc}"}
            return outcome
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
        self._held.clear()
