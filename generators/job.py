"""The main job: plan draws -> workers make and prove them -> the plan takes some, in plan order ->
workers roll those out and build their rows -> write.

Resumable at any point: tasks whose rows were published are made again (for their ids) but not
rolled out or written.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs import caches

from . import collector
from .evaluation.held_out import HeldOut
from .executors import make_executor
from .features import RowError
from .manifest import dumps, write_atomic
from .planning import asked_counts, plan_streams
from .progress import JobProgress, JobStats
from .resolver import PlanResolver
from .writer import DatasetWriter, PreparedRows


async def run_job_async(
    config: JobConfig, out_dir: Path | None = None, progress: bool | None = None, summary: bool = False,
    repair: bool = False,
) -> dict[str, Any]:
    """Run a job; `progress` shows a live line (default: when stderr is a terminal), `summary` a final table.

    The result's `ok` is False when more than `failures.max_rate` of the planned tasks ended
    failed; `verdict` says why. Failed tasks run again when the job is resumed (`failures`).
    repair: drop the flushes of shards whose checksum no longer matches, and redo their tasks.
    """
    out = Path(out_dir) if out_dir is not None else config.output_dir()
    caches.configure(**config.caches.model_dump())
    policy = config.failures
    writer = DatasetWriter(out, config=config.public_dict(), shard_rows=config.output.shard_rows, resume=True,
                           max_attempts=policy.max_attempts if policy.retry else 1, repair=repair)
    finished = frozenset(writer.finished_task_ids())
    executor = make_executor(config)
    executor.start()  # Ray's actors start (a second or more) while this process makes the plan
    try:
        asked = asked_counts(config)
        held_out = HeldOut.from_config(config.held_out)  # eval sets' tasks are left out of the plan (or refused)
        resolver = PlanResolver(plan_streams(config), dedup=config.output.dedup, batch_size=config.executor.batch_size,
                                ahead=executor.ahead, held_out=held_out, skip_bugs=policy.generator_bugs == "skip")
    except BaseException:
        executor.close()
        raise
    stats = JobStats(planned=sum(asked.values()), already_done=len(finished), asked=asked)
    planned = 0
    show = sys.stderr.isatty() if progress is None else progress
    display = JobProgress(stats, enabled=show)
    try:
        with display:
            async for outcomes in executor.run(resolver, finished):  # the plan's tasks in plan order, finished
                for outcome in outcomes:
                    planned += 1
                    stats.planned_by[(outcome["domain"], outcome["kind"])] += 1
                    if outcome.get("skipped") or outcome["task_id"] in finished:
                        continue
                    _write(writer, stats, outcome)
                    display.update()
                collector.settle()  # the driver's rows and buffers: out of the cycle collector's way
        stats.planned = planned  # the plan after duplicates were dropped
        stats.plan_complete = True
    finally:
        executor.close()
        report = stats.to_dict()
        if held_out is not None:
            report["held_out"] = held_out.report()
        if resolver.skip_bugs and (bugs := skipped_bugs(out, resolver.bugs)):
            report["generator_bugs"] = bugs
        if getattr(executor, "endpoint_stats", None):
            report["endpoints"] = executor.endpoint_stats
        if getattr(executor, "worker_stats", None):
            report["workers"] = executor.worker_stats  # where the draws were made (Ray: node per actor)
        written: dict[str, Any] = {}
        try:
            if writer.healthy:
                collector.settle()  # the card reads every row back: keep the collector off the job's objects
                written = writer.close(report)
            else:  # a flush failed (disk full): its error is on its way up; the rerun redoes the unflushed tasks
                writer.abort()
        finally:
            collector.release()
    verdict = failure_verdict(writer.failed_tasks(), stats.planned, config, skipped=len(resolver.bugs))
    if summary:
        display.summary(out)
    return {"out_dir": str(out), "stats": report, "writer": written, **verdict}


def _write(writer: DatasetWriter, stats: JobStats, outcome: dict[str, Any]) -> None:
    """One task's rows (or its failure) to the writer; a chat the writer cannot store fails its task."""
    rows = outcome.get("rows", {})
    try:
        writer.add(outcome["task_id"], rows, outcome.get("failure"), outcome.get("counts"))
    except RowError as exc:  # one unstorable chat must not stop the job
        rows = {}
        failure = {"task_id": outcome["task_id"], "domain": outcome["domain"], "kind": outcome["kind"],
                   "error": f"row not storable: {exc}"}
        writer.add(outcome["task_id"], rows, failure)
        outcome = {**outcome, "counts": None}
    stats.record(outcome, rows.encoded if isinstance(rows, PreparedRows) else rows)


BUGS_FILE = "generator_bugs.jsonl"  # draws skipped for a generator bug (failures.generator_bugs: skip)


def skipped_bugs(out: Path, bugs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """generator_bugs.jsonl, rewritten by every session (a resumed job makes every draw again, so it
    meets the same bugs; none, once they are fixed, and the file goes), and the counts for the job's report."""
    path = out / BUGS_FILE
    if not bugs:
        path.unlink(missing_ok=True)
        return None
    write_atomic(path, "".join(dumps(bug) + "\n" for bug in bugs).encode())
    by = Counter(f"{bug['domain']}/{bug['kind']}" for bug in bugs)
    causes = Counter(str(bug["error"]).split(":")[0] for bug in bugs)
    return {"skipped": len(bugs), "by_kind": dict(sorted(by.items())), "causes": dict(causes.most_common(5)),
            "file": path.name}


def failure_verdict(failed: dict[str, dict[str, Any]], planned: int, config: JobConfig, skipped: int = 0) -> dict[str, Any]:
    """Whether the job succeeded, and a sentence saying why not: failed share, causes, what to do.
    Draws skipped for a generator bug (`failures.generator_bugs: skip`) count as failed."""
    policy = config.failures
    rate = (len(failed) + skipped) / planned if planned else 0.0
    causes = Counter(str(f.get("error", "")).split(":")[0][:60] for f in failed.values())
    if skipped:
        causes[f"generator bug (skipped draws, see {BUGS_FILE})"] = skipped
    verdict: dict[str, Any] = {"ok": rate <= policy.max_rate, "failed_tasks": len(failed), "failure_rate": round(rate, 4)}
    if skipped:
        verdict["skipped_draws"] = skipped
    if not verdict["ok"]:
        shown = ", ".join(f"{n} x {cause}" for cause, n in causes.most_common(3))
        example = next(iter(failed.values())).get("error", "") if failed else "a generator raised"
        retry = (f"run the same command again to retry them (up to {policy.max_attempts} attempts per task)"
                 if policy.retry else "failures.retry is off, so a rerun will not retry them")
        verdict["verdict"] = (
            f"{len(failed) + skipped} of {planned} tasks failed ({rate:.1%}), above failures.max_rate={policy.max_rate:g}: "
            f"{shown}; e.g. {str(example)[:200]}. See failures.jsonl; fix the cause, then {retry}"
        )
    return verdict


def run_job(
    config: JobConfig, out_dir: Path | None = None, progress: bool | None = None, summary: bool = False,
    repair: bool = False,
) -> dict[str, Any]:
    return asyncio.run(run_job_async(config, out_dir, progress, summary, repair))
