"""Composing named checks into a task's score, with a preset per task kind.

A score has three parts, so that a policy can raise it only by doing the task well:

- the **outcome** (`weights`): a weighted mean of partial-credit checks (end state, calls, required
  outputs, ...). A check that passed with nothing to judge (the end state of a read-only task that
  changed nothing, the calls of a task with none) is *vacuous* and left out of the mean, so doing
  nothing earns no credit for what it did not break;
- **multipliers**: checks whose value scales the score (well-formed messages, no repeated calls);
- **conduct**: checks whose failure is a violation (a false claim, an unseen fact or argument, a
  write without consent or on someone else's record, a minefield). A violation caps the score at
  `violation_cap` (default 0: the outcome credit is lost, below any honest partial attempt).

`passed` needs every conduct check, every multiplier and every `required` check to pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolgym.envs.task import NO_TOOL_KINDS, Task
from toolgym.envs.trajectory import Trajectory
from toolgym.errors import UnknownNameError

from .checks import CHECKS
from .score import Score

Verifier = Callable[[Task, Trajectory], Score]


@dataclass(frozen=True)
class Composite:
    """Outcome weights, multipliers and conduct checks (see the module docstring)."""

    weights: Mapping[str, float]
    conduct: Sequence[str] = ("minefield",)
    multipliers: Sequence[str] = ()
    required: Sequence[str] = ()
    violation_cap: float = 0.0

    def __post_init__(self) -> None:
        for name in self.checks():
            if name not in CHECKS:
                raise UnknownNameError("verifier", name, CHECKS)
        if not self.weights or min(self.weights.values()) < 0 or sum(self.weights.values()) <= 0:
            raise ValueError(f"verifier weights must be non-negative and not all zero, got {dict(self.weights)}")
        if not 0.0 <= self.violation_cap <= 1.0:
            raise ValueError(f"violation_cap must lie in [0, 1], got {self.violation_cap}")

    def checks(self) -> list[str]:
        return list(dict.fromkeys([*self.weights, *self.conduct, *self.multipliers, *self.required]))

    def __call__(self, task: Task, trajectory: Trajectory) -> Score:
        results = {name: CHECKS[name](task, trajectory) for name in self.checks()}
        counted = {n: w for n, w in self.weights.items() if not results[n].vacuous}
        total = sum(counted.values())
        value = sum(results[n].value * w for n, w in counted.items()) / total if total else 0.0
        for name in self.multipliers:
            value *= results[name].value
        violations = [n for n in self.conduct if not results[n].passed]
        if violations:
            value = min(value, self.violation_cap)
        passed = not violations and all(results[n].passed for n in (*self.multipliers, *self.required))
        components = {n: r.value for n, r in sorted(results.items())}
        for name, result in results.items():
            components.update({f"{name}.{k}": v for k, v in result.components.items()})
        details: dict[str, Any] = {n: r.details for n, r in results.items() if r.details}
        if violations:
            details["violations"] = violations
        if value >= 1.0 - 1e-12 and passed:
            value = 1.0
        elif value >= 1.0:  # a trajectory that did not pass never reads as perfect
            value = 1.0 - 1e-6
        return Score(min(max(value, 0.0), 1.0), passed, components, details)

    def spec(self) -> dict:
        return {
            "weights": dict(self.weights),
            "conduct": list(self.conduct),
            "multipliers": list(self.multipliers),
            "required": list(self.required),
            "violation_cap": self.violation_cap,
        }


# Conduct: what a careful reviewer would never let through, whatever the outcome.
ACTION_CONDUCT = (
    "minefield", "grounded", "consent", "diagnosis", "no_echo", "claims", "arguments_grounded", "requested", "authorized",
    "cited_sources", "chosen", "current_states", "figure_fields",
)  # fmt: skip
NO_TOOL_CONDUCT = (
    "minefield", "grounded", "no_tool", "end_state", "reply_acts", "no_echo", "claims", "arguments_grounded", "requested",
    "authorized", "cited_sources", "current_states", "figure_fields",
)  # fmt: skip

ACTION_PRESET = Composite(
    weights={
        "end_state": 0.3,
        "tool_calls": 0.25,
        "required_outputs": 0.2,
        "milestones": 0.15,
        "final_answer": 0.1,
    },
    conduct=ACTION_CONDUCT,
    multipliers=("format", "repeats", "looked_up"),
    required=("end_state", "required_outputs", "final_answer"),
)
NO_TOOL_PRESET = Composite(
    weights={"reply_content": 0.8, "tool_calls": 0.1, "required_outputs": 0.1},
    conduct=NO_TOOL_CONDUCT,
    multipliers=("format",),
    required=("reply_content",),
)


def preset_for(task: Task) -> Composite:
    return NO_TOOL_PRESET if task.kind in NO_TOOL_KINDS else ACTION_PRESET


def score_trajectory(task: Task, trajectory: Trajectory, composite: Composite | None = None) -> Score:
    """Grade a finished episode with the task kind's preset (or the composite given)."""
    return (composite or preset_for(task))(task, trajectory)
