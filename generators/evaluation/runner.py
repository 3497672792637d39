"""`toolgym eval`: a model runs every task of an eval set k times; each trial is verified and recorded.

The unit of work is the generation job's own (`episodes.run_task`: k rollouts of one task with
the configured policy and user), so the OpenAI path is the same: native tools or text mode, the
endpoint's concurrency limit, retries with backoff, the circuit breaker, token accounting, an
LLM or scripted user. Tasks run `concurrency` at a time; each finished task's trials are written
at once (results.py), so a killed run continues where it stopped. A task whose requests fail for
good (retries used up) has no trials: it is recorded as a failure, left out of the figures (the
report counts it) and tried again by a rerun, up to `failures.max_attempts`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolgym.envs.task import Task
from toolgym.errors import ConfigError
from toolgym.eval_config import EvalConfig
from toolgym.verifiers.compose import preset_for
from toolgym.version import __version__

from ..episodes import run_task
from ..http_client import close_endpoints, endpoint_stats
from ..progress import JobProgress, JobStats
from ..redaction import scrub
from ..roles import Roles, make_teacher, make_user
from .eval_set import EvalSet, difficulty_of, load_eval_set
from .metrics import first_failure
from .report import write_reports
from .results import ResultStore


def select_tasks(eval_set: EvalSet, config: EvalConfig) -> list[Task]:
    """The set's tasks the config asks for (all by default); a domain or kind the set lacks is an error."""
    tasks = eval_set.tasks
    for field, wanted in (("domain", config.domains), ("kind", config.kinds)):
        if wanted is None:
            continue
        present = sorted({getattr(t, field) for t in tasks})
        missing = [w for w in wanted if w not in present]
        if missing:
            raise ConfigError(f"eval set {eval_set.set_id} has no {field} {missing}; it has: {', '.join(present)}")
        tasks = [t for t in tasks if getattr(t, field) in wanted]
    return tasks


def run_record(config: EvalConfig, eval_set: EvalSet, planned: int) -> dict[str, Any]:
    """run.json: what a rerun must match (`eval_set`, `fingerprint`) and what a reader wants to know."""
    return {
        "tasks_planned": planned,
        "eval_set": {"set_id": eval_set.set_id, "content_hash": eval_set.content_hash},
        "eval_set_path": str(eval_set.path),
        "fingerprint": config.fingerprint(),
        "policy_label": config.policy_label(),
        "config": config.public_dict(),
        "toolgym_version": __version__,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def trial_records(task: Task, result: dict[str, Any], attempt: int) -> list[dict[str, Any]]:
    """The records of one finished task: its trials, or one failure (no trial of a failed task counts)."""
    common = {"task_id": task.id, "domain": task.domain, "domain_version": task.domain_version, "kind": task.kind,
              "difficulty": difficulty_of(task), "world_seed": task.world_seed}
    if result.get("error"):
        return [{"type": "failure", **common, "attempt": attempt, "error": scrub(str(result["error"]))[:2000]}]
    spec = preset_for(task).spec()
    records = []
    for episode in result["episodes"]:
        verification = episode["verification"]
        assistant = [m for m in episode["messages"] if m.get("role") == "assistant"]
        records.append({
            "type": "trial", **common, "trial": episode["sample"],
            "passed": bool(verification["passed"]), "score": verification["score"],
            "first_failure": first_failure(verification, spec),
            "turns": len(assistant), "calls": sum(len(m.get("tool_calls") or ()) for m in assistant),
            "truncated": episode["truncated"], "usage": episode["usage"] or {},
            "policy": episode["teacher"], "user": episode["user"],
            "verification": verification, "messages": episode["messages"],
        })
    return records


async def _finished(tasks: Iterable[Task], roles: Roles, config: EvalConfig) -> AsyncIterator[tuple[Task, dict]]:
    """(task, run_task result) as each task finishes, `config.concurrency` at a time; an endpoint that is
    down stops them all (run_task raises it)."""
    limit = asyncio.Semaphore(config.concurrency)

    async def one(task: Task) -> tuple[Task, dict[str, Any]]:
        async with limit:
            return task, await run_task(task, roles, config.trials, config.max_turns)

    running = [asyncio.create_task(one(task)) for task in tasks]
    try:
        for next_one in asyncio.as_completed(running):
            yield await next_one
    finally:
        for future in running:
            future.cancel()
        await asyncio.gather(*running, return_exceptions=True)


async def run_eval_async(config: EvalConfig, out: Path | None = None, progress: bool | None = None) -> dict[str, Any]:
    """Run (or continue) an eval; write the trial records, then summary.json, report.md and report.html.

    The result's `ok` is False when more than `failures.max_rate` of the tasks have no trials.
    """
    eval_set = load_eval_set(config.eval_set)
    tasks = select_tasks(eval_set, config)
    out = Path(out) if out is not None else config.output_dir()
    store = ResultStore(out, run_record(config, eval_set, len(tasks)), trials=config.trials,
                        max_attempts=config.failures.max_attempts if config.failures.retry else 1)
    try:
        pending = [t for t in tasks if not store.done(t.id)]
        stats = JobStats(planned=len(tasks), already_done=len(tasks) - len(pending))
        roles = Roles([(config.policy, make_teacher(config.policy))], make_user(config.user))
        display = JobProgress(stats, enabled=sys.stderr.isatty() if progress is None else progress,
                              label="evaluating", unit="trials")
        endpoints: dict[str, Any] = {}
        try:
            with display:
                async for task, result in _finished(pending, roles, config):
                    records = trial_records(task, result, attempt=len(store.failures.get(task.id, ())) + 1)
                    store.add(records)
                    key = (task.domain, task.kind)  # the bar's counts: tasks done, trials and passes
                    stats.done += 1
                    stats.failures[key] += bool(result.get("error"))
                    for record in records:
                        if record["type"] == "trial":
                            stats.episodes[key] += 1
                            stats.passed[key] += record["passed"]
                            stats.rows["trials"] += 1
                    display.update()
        finally:
            endpoints = endpoint_stats()
            await close_endpoints()
        summary = write_reports(out, store.all_trials(), store.failed_tasks(), endpoints=endpoints)
    finally:
        store.close()
    failed = store.failed_tasks()
    rate = len(failed) / len(tasks) if tasks else 0.0
    verdict: dict[str, Any] = {"ok": rate <= config.failures.max_rate, "failed_tasks": len(failed)}
    if not verdict["ok"]:
        example = next(iter(failed.values()))["error"]
        verdict["verdict"] = (f"{len(failed)} of {len(tasks)} tasks have no trials ({rate:.1%}), above "
                              f"failures.max_rate={config.failures.max_rate:g}; e.g. {example[:200]}. "
                              "Fix the cause, then run the same command again to retry them")
    return {"out_dir": str(out), "summary": summary, "tasks_run": stats.done, **verdict}


def run_eval(config: EvalConfig, out: Path | None = None, progress: bool | None = None) -> dict[str, Any]:
    return asyncio.run(run_eval_async(config, out, progress))
