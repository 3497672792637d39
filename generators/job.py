"""The main job: plan tasks -> roll out -> verify -> filter -> write, resumable at any point."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs.task import Task

from .executors import make_executor
from .features import RowError
from .planning import asked_counts, iter_planned
from .progress import JobProgress, JobStats
from .rows import rows_for
from .writer import DatasetWriter


async def run_job_async(
    config: JobConfig, out_dir: Path | None = None, progress: bool | None = None, summary: bool = False
) -> dict[str, Any]:
    """Run a job; `progress` shows a live line (default: when stderr is a terminal), `summary` a final table."""
    out = Path(out_dir) if out_dir is not None else config.output_dir()
    writer = DatasetWriter(out, config=config.public_dict(), shard_rows=config.output.shard_rows, resume=True)
    finished = writer.finished_task_ids()
    asked = asked_counts(config)
    stats = JobStats(planned=sum(asked.values()), already_done=len(finished), asked=asked)
    planned = 0

    def pending() -> Iterator[Task]:
        nonlocal planned
        for task in iter_planned(config):
            planned += 1
            stats.planned_by[(task.domain, task.kind)] += 1
            if task.id not in finished:
                yield task

    executor = make_executor(config)
    show = sys.stderr.isatty() if progress is None else progress
    display = JobProgress(stats, enabled=show)
    try:
        with display:
            async for task, result in executor.run(pending()):
                rows = rows_for(task, result, config)
                failure = None
                if result.get("error"):
                    failure = {"task_id": task.id, "domain": task.domain, "kind": task.kind, "error": result["error"]}
                try:
                    writer.add(task.id, rows, failure)
                except RowError as exc:  # one unstorable chat must not stop the job
                    rows = {}
                    failure = {"task_id": task.id, "domain": task.domain, "kind": task.kind, "error": f"row not storable: {exc}"}
                    writer.add(task.id, rows, failure)
                stats.record(task, result, rows)
                display.update()
        stats.planned = planned  # the plan after duplicates were dropped
        stats.plan_complete = True
    finally:
        executor.close()
        report = stats.to_dict()
        if getattr(executor, "endpoint_stats", None):
            report["endpoints"] = executor.endpoint_stats
        written = writer.close(report)
    if summary:
        display.summary(out)
    return {"out_dir": str(out), "stats": report, "writer": written}


def run_job(
    config: JobConfig, out_dir: Path | None = None, progress: bool | None = None, summary: bool = False
) -> dict[str, Any]:
    return asyncio.run(run_job_async(config, out_dir, progress, summary))
