"""Keeping a training corpus apart from its test: the tasks of named eval sets, by id and by lesson.

A generation job with `held_out.eval_sets` checks every task where the plan accepts it
(`resolver.PlanResolver`, and `planning.iter_planned` in one process): a task whose id, or whose lesson (`Task.lesson_key`: the same request and
gold calls in other words), is in one of the sets is dropped and its world draws another (counted
per set in `dropped`), or, with `on_overlap: refuse`, stops the job with an error naming the task
and the set. Plain sets of strings: cheap to check, and to send to a worker.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from toolgym.errors import ConfigError


class HeldOutOverlap(ConfigError):
    """A planned training task is in an eval set and the config says to refuse such a job."""


class HeldOut:
    def __init__(self, ids: dict[str, str], lessons: dict[str, str], on_overlap: str = "drop",
                 paths: dict[str, str] | None = None, hashes: dict[str, str] | None = None):
        self.ids = ids  # task id -> eval set id
        self.lessons = lessons  # lesson key -> eval set id
        self.on_overlap = on_overlap
        self.paths = dict(paths or {})  # eval set id -> its directory, for messages
        self.hashes = dict(hashes or {})  # eval set id -> its content hash, for the dataset card
        self.dropped: Counter[str] = Counter()  # eval set id -> planned tasks left out

    @classmethod
    def from_config(cls, config: Any) -> HeldOut | None:
        """From a job config's `held_out` section; None when it names no eval set."""
        if not config.eval_sets:
            return None
        from .eval_set import load_eval_set

        ids: dict[str, str] = {}
        lessons: dict[str, str] = {}
        paths: dict[str, str] = {}
        hashes: dict[str, str] = {}
        for path in config.eval_sets:
            found = load_eval_set(path, check_versions=False)  # a stale set still must not be trained on
            paths[found.set_id], hashes[found.set_id] = str(path), found.content_hash
            for task in found.tasks:
                ids.setdefault(task.id, found.set_id)
                lessons.setdefault(task.lesson_key(), found.set_id)
        return cls(ids, lessons, config.on_overlap, paths, hashes)

    def match(self, task_id: str, lesson: str) -> str | None:
        """The eval set holding a task with this id (else this lesson key), or None."""
        return self.ids.get(task_id) or self.lessons.get(lesson)

    def excludes(self, task: Any) -> bool:
        """True when the plan must leave the task out (counted); raises when the config refuses overlap."""
        where = f"task {task.id} ({task.domain}/{task.kind}, world {task.world_seed}, seed {task.seed})"
        return self.excludes_key(task.id, task.lesson_key(), where)

    def excludes_key(self, task_id: str, lesson: str, where: str = "") -> bool:
        """`excludes` for a task known by its id and lesson key only (a worker's outcome)."""
        found = self.match(task_id, lesson)
        if found is None:
            return False
        if self.on_overlap == "refuse":
            raise HeldOutOverlap(
                f"{where or 'task ' + task_id} is in eval set {found} ({self.paths.get(found, '?')}): a training "
                "corpus must not hold its own test. Change the job's seeds or world seeds, or set "
                "held_out.on_overlap: drop to leave such tasks out"
            )
        self.dropped[found] += 1
        return True

    def report(self) -> dict[str, Any]:
        """For the job summary and the dataset card: the sets held out and what each kept out."""
        return {"eval_sets": sorted(self.paths), "content_hashes": self.hashes, "on_overlap": self.on_overlap,
                "dropped": dict(self.dropped)}
