"""Two eval runs side by side: each figure of A and B, the difference B - A, and its bootstrap interval.

The runs are paired by task: only tasks both have finished count (and both runs should use one eval
set; another set's tasks do not pair and a warning says so). A figure is a mean over tasks of a
per-task value (pass@1: c/n; pass^k: C(c, k)/C(n, k); score: the mean score of its trials), so its
difference is the mean of the per-task differences. The interval is the percentile bootstrap over
tasks: `samples` resamples of the paired tasks with replacement (numpy, seeded), the difference's
mean in each, and the (1 - confidence)/2 and (1 + confidence)/2 quantiles of those means. An
interval that leaves out 0 is marked `*`: on these tasks, the difference is unlikely to be chance.
Trials within a task are not resampled, so the interval speaks of this set's tasks, not of new trials.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from toolgym.errors import ConfigError

from .metrics import GROUPINGS, TaskOutcome, task_outcomes
from .report import Table, render_template
from .results import read_results


@dataclass
class Row:
    group: str
    metric: str
    tasks: int
    a: float
    b: float
    low: float
    high: float

    @property
    def difference(self) -> float:
        return self.b - self.a

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0


@dataclass
class Comparison:
    a: dict[str, Any]  # run.json of each
    b: dict[str, Any]
    rows: list[Row]
    paired_tasks: int
    confidence: float
    samples: int
    warnings: list[str] = field(default_factory=list)


def bootstrap_interval(differences: np.ndarray, samples: int, confidence: float, rng: np.random.Generator) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of per-task differences."""
    picks = rng.integers(0, len(differences), size=(samples, len(differences)))
    means = differences[picks].mean(axis=1)
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def compare(a_dir: str | Path, b_dir: str | Path, *, samples: int = 2000, confidence: float = 0.95,
            seed: int = 0, groupings: tuple[str, ...] = ("domain", "kind")) -> Comparison:
    if samples < 1 or not 0 < confidence < 1:
        raise ConfigError(f"bootstrap samples must be >= 1 and confidence in (0, 1), got {samples} and {confidence}")
    run_a, trials_a, _ = read_results(a_dir)
    run_b, trials_b, _ = read_results(b_dir)
    warnings = []
    if run_a["eval_set"] != run_b["eval_set"]:
        warnings.append(f"the runs used different eval sets ({run_a['eval_set']['set_id']} "
                        f"{run_a['eval_set']['content_hash'][:12]}, {run_b['eval_set']['set_id']} "
                        f"{run_b['eval_set']['content_hash'][:12]}): only tasks in both are compared")
    outcomes_a, outcomes_b = task_outcomes(trials_a), task_outcomes(trials_b)
    paired = sorted(set(outcomes_a) & set(outcomes_b))
    if not paired:
        raise ConfigError(f"{a_dir} and {b_dir} have no finished task in common: nothing to compare")
    unpaired = len(set(outcomes_a) ^ set(outcomes_b))
    if unpaired:
        warnings.append(f"{unpaired} tasks finished in only one of the runs are left out")
    max_k = min(run_a["fingerprint"]["trials"], run_b["fingerprint"]["trials"])
    metrics = ["pass@1", *(f"pass^{k}" for k in range(2, max_k + 1)), "score"]
    rng = np.random.default_rng(seed)
    groups: list[tuple[str, list[str]]] = [("all", paired)]
    for grouping in groupings:
        key_of = GROUPINGS[grouping]
        keys: dict[str, list[str]] = {}
        for task_id in paired:
            keys.setdefault(key_of(vars(outcomes_a[task_id])), []).append(task_id)
        groups += [(f"{grouping}: {key}", ids) for key, ids in sorted(keys.items())]
    rows = []
    for name, ids in groups:
        for metric in metrics:
            a = np.array([_value(outcomes_a[i], metric, max_k) for i in ids])
            b = np.array([_value(outcomes_b[i], metric, max_k) for i in ids])
            low, high = bootstrap_interval(b - a, samples, confidence, rng)
            rows.append(Row(name, metric, len(ids), float(a.mean()), float(b.mean()), low, high))
    return Comparison(run_a, run_b, rows, len(paired), confidence, samples, warnings)


def _value(outcome: TaskOutcome, metric: str, max_k: int) -> float:
    """A per-task value over the first `max_k` trials, so runs with different k compare alike."""
    cut = TaskOutcome(outcome.task_id, outcome.domain, outcome.kind, outcome.difficulty,
                      outcome.passed[:max_k], outcome.scores[:max_k])
    return cut.value(metric)


def comparison_table(comparison: Comparison) -> Table:
    a, b = comparison.a["policy_label"], comparison.b["policy_label"]
    percent = round(100 * comparison.confidence)
    return Table(
        f"{b} (B) against {a} (A)",
        ["group", "metric", "tasks", "A", "B", "B - A", f"{percent}% interval", ""],
        [[r.group, r.metric, str(r.tasks), f"{r.a:.3f}", f"{r.b:.3f}", f"{r.difference:+.3f}",
          f"[{r.low:+.3f}, {r.high:+.3f}]", "*" if r.significant else ""] for r in comparison.rows],
        f"{comparison.paired_tasks} paired tasks; intervals: percentile bootstrap over tasks, "
        f"{comparison.samples} resamples; * the interval leaves out 0.",
    )


def render_markdown(comparison: Comparison) -> str:
    parts = [f"# toolgym eval: compare {comparison.a['policy_label']} and {comparison.b['policy_label']}"]
    if comparison.warnings:
        parts.append("\n".join(f"- warning: {w}" for w in comparison.warnings))
    parts.append(comparison_table(comparison).markdown())
    return "\n\n".join(parts) + "\n"


def render_html(comparison: Comparison) -> str:
    from .plots import comparison_plot

    return render_template("eval_compare.html.j2", comparison=comparison, table=comparison_table(comparison),
                           plot=comparison_plot(comparison))
