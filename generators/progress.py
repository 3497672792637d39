"""Live progress of a job (tasks done, pass rate, rows per second, ETA) and its final table."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.table import Table

from .stats import merge

_MEMORY_EVERY = 500  # tasks between two readings of resident memory


def resident_mb() -> float:
    """This process's resident memory (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class JobStats:
    """Counts kept while a job runs; what the progress line and the summary show."""

    def __init__(self, planned: int, already_done: int, asked: dict[tuple[str, str], int] | None = None):
        self.planned = planned
        self.asked = dict(asked or {})  # tasks the config asks for per (domain, kind)
        self.planned_by = Counter[tuple[str, str]]()  # tasks the generators gave, duplicates dropped
        self.plan_complete = False  # the whole plan was walked: shortfalls are known
        self.already_done = already_done
        self.done = 0
        self.episodes = Counter[tuple[str, str]]()
        self.passed = Counter[tuple[str, str]]()
        self.failures = Counter[tuple[str, str]]()
        self.rows = Counter[str]()
        self.difficulty = Counter[tuple[str, int]]()  # tasks run per (domain, difficulty level)
        self.started = time.perf_counter()
        self.counts: dict[str, Any] = {}  # per-task extras summed (rewrite: rewritten, kept, dropped by reason)
        self.memory_mb: dict[int, int] = {}  # resident memory by tasks done: it should stay flat

    def record(self, outcome: dict[str, Any], rows: dict[str, list]) -> None:
        """One task finished (a worker's outcome: domain, kind, episodes passed, failure, counts) and the rows written."""
        key = (outcome["domain"], outcome["kind"])
        if outcome.get("counts"):
            merge(self.counts, outcome["counts"])
        self.done += 1
        if outcome.get("level") is not None:
            self.difficulty[(outcome["domain"], outcome["level"])] += 1
        for passed in outcome.get("passed", ()):
            self.episodes[key] += 1
            self.passed[key] += passed
        if outcome.get("failure"):
            self.failures[key] += 1
        for split, items in rows.items():
            self.rows[split] += len(items)
        if self.done % _MEMORY_EVERY == 0:
            self.memory_mb[self.done] = round(resident_mb())

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    @property
    def pass_rate(self) -> float:
        total = sum(self.episodes.values())
        return sum(self.passed.values()) / total if total else 0.0

    def short_of_asked(self) -> dict[str, dict[str, int]]:
        """Kinds whose generators gave fewer distinct tasks than asked (known once the plan is walked)."""
        if not self.plan_complete:
            return {}
        return {
            f"{d}/{k}": {"asked": n, "planned": self.planned_by[(d, k)]}
            for (d, k), n in sorted(self.asked.items())
            if self.planned_by[(d, k)] < n
        }

    def difficulty_by_domain(self) -> dict[str, dict[str, int]]:
        """Tasks run per difficulty level ("1".."5", zeros included), per domain."""
        from toolgym.envs.difficulty import LEVELS

        domains = sorted({d for d, _ in self.difficulty})
        return {d: {str(level): self.difficulty[(d, level)] for level in LEVELS} for d in domains}

    def to_dict(self) -> dict[str, Any]:
        return {
            "tasks_planned": self.planned,
            "tasks_resumed": self.already_done,
            "tasks_run": self.done,
            "task_failures": sum(self.failures.values()),
            "episodes": sum(self.episodes.values()),
            "pass_rate": round(self.pass_rate, 4),
            "rows": dict(self.rows),
            "seconds": round(self.elapsed, 2),
            "resident_mb_by_tasks_done": dict(self.memory_mb),
            "short_of_asked": self.short_of_asked(),
            "difficulty_by_domain": self.difficulty_by_domain(),
            **self.counts,
            "by_domain_kind": {
                f"{d}/{k}": {
                    "episodes": self.episodes[(d, k)],
                    "passed": self.passed[(d, k)],
                    "failures": self.failures[(d, k)],
                }
                for d, k in sorted(set(self.episodes) | set(self.failures))
            },
        }


class JobProgress:
    """The live bar: tasks done of planned, pass rate, `unit` per second (rows; an eval counts trials), ETA."""

    def __init__(self, stats: JobStats, enabled: bool, console: Console | None = None, *,
                 label: str = "generating", unit: str = "rows"):
        self.stats = stats
        self.label = label
        self.console = console or Console(stderr=True)
        self.progress = (
            Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total} tasks"),
                TextColumn("pass {task.fields[pass_rate]:.1%}"),
                TextColumn("{task.fields[rows_per_s]:.0f} " + unit + "/s"),
                TimeRemainingColumn(),
                console=self.console,
                transient=False,
            )
            if enabled
            else None
        )
        self._bar: TaskID | None = None

    def __enter__(self) -> JobProgress:
        if self.progress:
            self.progress.start()
            self._bar = self.progress.add_task(
                self.label, total=self.stats.planned - self.stats.already_done, pass_rate=0.0, rows_per_s=0.0
            )
        return self

    def update(self) -> None:
        if self.progress and self._bar is not None:
            rows = sum(self.stats.rows.values())
            self.progress.update(
                self._bar,
                completed=self.stats.done,
                pass_rate=self.stats.pass_rate,
                rows_per_s=rows / max(self.stats.elapsed, 1e-9),
            )

    def __exit__(self, *exc: Any) -> None:
        if self.progress:
            self.update()
            self.progress.stop()

    def summary(self, out_dir: Any) -> None:
        table = Table(title=f"toolgym: {out_dir}")
        for column in ("domain/kind", "episodes", "passed", "pass rate", "failures"):
            table.add_column(column, justify="left" if column == "domain/kind" else "right")
        for name, row in self.stats.to_dict()["by_domain_kind"].items():
            rate = row["passed"] / row["episodes"] if row["episodes"] else 0.0
            table.add_row(name, str(row["episodes"]), str(row["passed"]), f"{rate:.1%}", str(row["failures"]))
        self.console.print(table)
        for name, short in self.stats.short_of_asked().items():
            self.console.print(
                f"[yellow]{name}: {short['planned']} of {short['asked']} tasks asked for[/yellow] "
                "(its generator gave no more distinct tasks)"
            )
        for domain, levels in self.stats.difficulty_by_domain().items():
            self.console.print(f"difficulty {domain}: " + ", ".join(f"level {level}: {n}" for level, n in levels.items()))
        rewrite = self.stats.counts.get("rewrite")
        if rewrite:
            dropped = ", ".join(f"{n} {reason}" for reason, n in sorted(rewrite.get("dropped", {}).items()))
            self.console.print(f"rewrite: {rewrite.get('rewritten', 0)} chats rewritten, {rewrite.get('kept', 0)} kept"
                               + (f", dropped: {dropped}" if dropped else ""))
        rows = ", ".join(f"{k}: {v}" for k, v in sorted(self.stats.rows.items())) or "none"
        self.console.print(
            f"{self.stats.done} tasks in {self.stats.elapsed:.1f}s ({self.stats.already_done} resumed); rows written: {rows}"
        )
