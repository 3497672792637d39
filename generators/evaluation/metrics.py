"""The figures of an eval run, from its trial records: pass^k, pass@1, scores, components, costs, first failures.

pass^k (τ²-bench's reliability measure): for a task with c passing trials out of n, the chance that
k trials drawn without replacement all pass, C(c, k) / C(n, k); averaged over the tasks with at
least k trials. pass^1 is the mean per-task pass rate, which is also pass@1 (the chance that one
trial passes). With every trial passing it is 1.0 for every k; otherwise it falls with k.

Everything here is a plain function of the records, so a report can be made again from a results
folder, and two folders compared (compare.py).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import comb
from statistics import fmean
from typing import Any

GROUPINGS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "domain": lambda r: r["domain"],
    "kind": lambda r: r["kind"],
    "difficulty": lambda r: r["difficulty"],
    "domain/kind": lambda r: f"{r['domain']}/{r['kind']}",
}


DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}  # listed in this order, other labels after them


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """C(successes, k) / C(trials, k): the chance that k of the task's trials, drawn at random, all pass."""
    if not 0 <= successes <= trials or not 1 <= k <= trials:
        raise ValueError(f"pass^k needs 0 <= successes <= trials and 1 <= k <= trials, got c={successes}, n={trials}, k={k}")
    return comb(successes, k) / comb(trials, k)


def first_failure(verification: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """Why a trial failed, in one name: its first conduct violation, else the first required, multiplier
    or outcome component (in the verifier's own order) below 1. None for a passing trial."""
    if verification.get("passed"):
        return None
    violations = (verification.get("details") or {}).get("violations") or []
    if violations:
        return str(violations[0])
    components = verification.get("components") or {}
    order = dict.fromkeys([*spec.get("required", ()), *spec.get("multipliers", ()), *spec.get("weights", ())])
    for name in order:
        if name in components and components[name] < 1.0:
            return name
    return "unknown"


@dataclass
class TaskOutcome:
    """One task's trials, reduced to what the figures need."""

    task_id: str
    domain: str
    kind: str
    difficulty: str
    passed: list[bool] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)

    @property
    def successes(self) -> int:
        return sum(self.passed)

    @property
    def trials(self) -> int:
        return len(self.passed)

    def pass_hat(self, k: int) -> float:
        return pass_hat_k(self.successes, self.trials, k)

    def value(self, metric: str) -> float:
        """A per-task value whose mean over tasks is the group's figure: `pass^k`, `pass@1` or `score`."""
        if metric == "score":
            return fmean(self.scores)
        if metric == "pass@1":
            return self.successes / self.trials
        return self.pass_hat(int(metric.removeprefix("pass^")))


def task_outcomes(trials: Iterable[Mapping[str, Any]]) -> dict[str, TaskOutcome]:
    """Trial records grouped by task, in trial order."""
    outcomes: dict[str, TaskOutcome] = {}
    for record in sorted(trials, key=lambda r: (r["task_id"], r["trial"])):
        found = outcomes.get(record["task_id"])
        if found is None:
            found = outcomes[record["task_id"]] = TaskOutcome(
                record["task_id"], record["domain"], record["kind"], record["difficulty"])
        found.passed.append(bool(record["passed"]))
        found.scores.append(float(record["score"]))
    return outcomes


def pass_figures(outcomes: Iterable[TaskOutcome], max_k: int) -> dict[str, Any]:
    """Tasks, pass@1, pass^1..pass^max_k (each over the tasks with at least k trials) and the mean score."""
    tasks = list(outcomes)
    figures: dict[str, Any] = {"tasks": len(tasks), "trials": sum(t.trials for t in tasks)}
    if not tasks:
        return figures
    figures["pass@1"] = fmean(t.value("pass@1") for t in tasks)
    figures["pass^k"] = {
        str(k): fmean(t.pass_hat(k) for t in tasks if t.trials >= k)
        for k in range(1, max_k + 1) if any(t.trials >= k for t in tasks)
    }
    figures["score"] = fmean(t.value("score") for t in tasks)
    return figures


def trial_figures(trials: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Means over trials: each verifier component (over the trials that have it), turns, calls and tokens,
    and the failing trials counted by their first failing component."""
    if not trials:
        return {}
    sums: dict[str, float] = defaultdict(float)
    counts: Counter[str] = Counter()
    for record in trials:
        for name, value in record["verification"]["components"].items():
            sums[name] += value
            counts[name] += 1
    usage_keys = ("prompt_tokens", "completion_tokens", "total_tokens", "requests")
    return {
        "components": {name: sums[name] / counts[name] for name in sorted(sums)},
        "component_trials": dict(sorted(counts.items())),
        "turns": fmean(r["turns"] for r in trials),
        "calls": fmean(r["calls"] for r in trials),
        "tokens": {key: fmean((r.get("usage") or {}).get(key, 0) for r in trials) for key in usage_keys},
        "truncated": sum(bool(r.get("truncated")) for r in trials),
        "first_failures": dict(Counter(r["first_failure"] for r in trials if not r["passed"]).most_common()),
    }


def summarize(trials: Sequence[Mapping[str, Any]], max_k: int) -> dict[str, Any]:
    """Every figure, for the whole run and per domain, kind, difficulty and domain/kind."""
    outcomes = task_outcomes(trials)

    def group(chosen: list[Mapping[str, Any]]) -> dict[str, Any]:
        ids = sorted({r["task_id"] for r in chosen})
        return {**pass_figures((outcomes[i] for i in ids), max_k), **trial_figures(chosen)}

    summary: dict[str, Any] = {"all": group(list(trials))}
    for name, key_of in GROUPINGS.items():
        buckets: dict[str, list[Mapping[str, Any]]] = {}
        for record in trials:
            buckets.setdefault(key_of(record), []).append(record)
        ordered = sorted(buckets, key=lambda key: (DIFFICULTY_ORDER.get(key, len(DIFFICULTY_ORDER)), key))
        summary[name] = {key: group(buckets[key]) for key in ordered}
    return summary
