"""An eval run's results directory, and resuming it.

    run.json        the run: its config (secrets removed), the eval set (id, path, content hash), the toolgym version
    trials.jsonl    one JSON line per trial ({"type": "trial", ...}: task, trial number, conversation,
                    verification, first failure, turns, calls, usage) and per failed task attempt
                    ({"type": "failure", ...}: the error, after the client's retries)
    summary.json, report.md, report.html   the figures (report.py), written when the run ends

A task's trials are appended together in one write and fsynced, so after a kill the file holds
whole tasks, and at most a torn last line, which a rerun drops (with any trials of its task) before
running that task again. A rerun runs the tasks with no trials yet, and the failed ones again
up to `failures.max_attempts`. It must be the same run: the same eval set (content hash), policy,
user, trials and max_turns; a difference is an error naming it.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from toolgym.errors import ConfigError

from .. import manifest

RUN_FILE = "run.json"
TRIALS_FILE = "trials.jsonl"


class ResultStore:
    """Trial records on disk, the lock on the directory, and which tasks are done."""

    def __init__(self, out: Path, run: dict[str, Any], *, trials: int, max_attempts: int):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.trials_per_task = trials
        self.max_attempts = max_attempts
        self._lock = manifest.lock(self.out)
        try:
            self._check_run(run)
            self.trials, self.failures = self._read()
        except BaseException:
            manifest.unlock(self._lock)
            raise

    def _check_run(self, run: dict[str, Any]) -> None:
        path = self.out / RUN_FILE
        if not path.exists():
            if (self.out / TRIALS_FILE).exists():
                raise ConfigError(f"{self.out} holds {TRIALS_FILE} but no {RUN_FILE}: it is not a toolgym eval "
                                  "run this can continue; choose another --out")
            manifest.write_atomic(path, (json.dumps(run, indent=2) + "\n").encode())
            return
        recorded = json.loads(path.read_text())
        for key in ("eval_set", "fingerprint"):
            differences = _differences(recorded.get(key), run[key], key)
            if differences:
                shown = "; ".join(differences[:3])
                raise ConfigError(f"{self.out} holds results of another run ({shown}); continue with the same "
                                  "settings, or choose another --out for this one")

    def _read(self) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[dict[str, Any]]]]:
        path = self.out / TRIALS_FILE
        state = manifest.read(path)
        by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
        failures: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in state.records:
            (by_task if record["type"] == "trial" else failures)[record["task_id"]].append(record)
        complete = {task: found for task, found in by_task.items()
                    if sorted(r["trial"] for r in found) == list(range(self.trials_per_task))}
        if state.needs_rewrite or len(complete) != len(by_task):  # a torn tail, or a task cut short: run it again
            kept = [r for r in state.records if r["type"] != "trial" or r["task_id"] in complete]
            manifest.rewrite(path, kept)
        return complete, failures

    def done(self, task_id: str) -> bool:
        """Its trials are recorded, or it failed as many times as allowed."""
        return task_id in self.trials or len(self.failures.get(task_id, ())) >= self.max_attempts

    def add(self, records: list[dict[str, Any]]) -> None:
        """One task's trial records (or its failure record), appended together and made durable."""
        path = self.out / TRIALS_FILE
        new = not path.exists()
        with open(path, "ab") as handle:
            handle.write("".join(manifest.dumps(r) + "\n" for r in records).encode())
            handle.flush()
            os.fsync(handle.fileno())
        if new:
            manifest.fsync_dir(self.out)
        for record in records:
            if record["type"] == "trial":
                self.trials.setdefault(record["task_id"], []).append(record)
            else:
                self.failures[record["task_id"]].append(record)

    def all_trials(self) -> list[dict[str, Any]]:
        return [r for found in self.trials.values() for r in found]

    def failed_tasks(self) -> dict[str, dict[str, Any]]:
        """Tasks with no trials whose last attempt failed: task id -> that failure."""
        return {task: found[-1] for task, found in self.failures.items() if task not in self.trials}

    def close(self) -> None:
        manifest.unlock(self._lock)


def read_results(out: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """(run, trial records of complete tasks, failed tasks) of a results folder, read without locking it."""
    out = Path(out)
    if not (out / RUN_FILE).is_file():
        raise ConfigError(f"{out} is not a toolgym eval results folder (no {RUN_FILE}); run `toolgym eval` first")
    run = json.loads((out / RUN_FILE).read_text())
    trials_per_task = run["fingerprint"]["trials"]
    by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
    failures: dict[str, dict[str, Any]] = {}
    for record in manifest.read(out / TRIALS_FILE).records:
        if record["type"] == "trial":
            by_task[record["task_id"]].append(record)
        else:
            failures[record["task_id"]] = record
    complete = [r for found in by_task.values() if len(found) == trials_per_task for r in found]
    failed = {task: f for task, f in failures.items() if task not in by_task}
    return run, complete, failed


def _differences(old: Any, new: Any, where: str) -> list[str]:
    """`where.key: old here, new now` for each leaf that differs."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in sorted(set(old) | set(new)):
            found += _differences(old.get(key), new.get(key), f"{where}.{key}")
        return found
    return [] if old == new else [f"{where}: {old!r} here, {new!r} now"]
