"""Composing named checks into a task's score, with a preset per task kind."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from toolgym.envs.task import NO_TOOL_KINDS, Task
from toolgym.envs.trajectory import Trajectory
from toolgym.errors import UnknownNameError

from .checks import CHECKS
from .score import Score

Verifier = Callable[[Task, Trajectory], Score]


@dataclass(frozen=True)
class Composite:
    """A weighted sum of checks; gates zero the score; `required` checks must pass to pass."""

    weights: Mapping[str, float]
    gates: Sequence[str] = ("minefield",)
    required: Sequence[str] = ()

    def __post_init__(self) -> None:
        for name in (*self.weights, *self.gates, *self.required):
            if name not in CHECKS:
                raise UnknownNameError("verifier", name, CHECKS)
        if not self.weights or min(self.weights.values()) < 0 or sum(self.weights.values()) <= 0:
            raise ValueError(f"verifier weights must be non-negative and not all zero, got {dict(self.weights)}")

    def __call__(self, task: Task, trajectory: Trajectory) -> Score:
        results = {name: CHECKS[name](task, trajectory) for name in {*self.weights, *self.gates, *self.required}}
        total = sum(self.weights.values())
        value = sum(results[n].value * w for n, w in self.weights.items()) / total
        gated = [g for g in self.gates if not results[g].passed]
        if gated:
            value = 0.0
        passed = not gated and all(results[n].passed for n in self.required)
        components = {n: r.value for n, r in sorted(results.items())}
        for name, result in results.items():
            components.update({f"{name}.{k}": v for k, v in result.components.items()})
        details = {n: r.details for n, r in results.items() if r.details}
        if value >= 1.0 - 1e-12 and passed:
            value = 1.0
        return Score(min(max(value, 0.0), 1.0), passed, components, details)

    def spec(self) -> dict:
        return {"weights": dict(self.weights), "gates": list(self.gates), "required": list(self.required)}


# How the agent got there (grounded, consent, diagnosis, final answer, no repeats) weighs in the
# score and must pass for `passed`: a rash write or an invented fact is never a training row.
ACTION_PRESET = Composite(
    weights={
        "end_state": 0.3,
        "required_outputs": 0.1,
        "final_answer": 0.1,
        "tool_calls": 0.1,
        "milestones": 0.05,
        "format": 0.05,
        "grounded": 0.1,
        "consent": 0.1,
        "diagnosis": 0.05,
        "repeats": 0.05,
    },
    required=("end_state", "required_outputs", "final_answer", "format", "grounded", "consent", "diagnosis", "repeats"),
)
NO_TOOL_PRESET = Composite(
    weights={
        "no_tool": 0.3,
        "reply_content": 0.3,
        "end_state": 0.1,
        "tool_calls": 0.05,
        "required_outputs": 0.05,
        "format": 0.05,
        "grounded": 0.15,
    },
    required=("no_tool", "reply_content", "end_state", "format", "grounded"),
)


def preset_for(task: Task) -> Composite:
    return NO_TOOL_PRESET if task.kind in NO_TOOL_KINDS else ACTION_PRESET


def score_trajectory(task: Task, trajectory: Trajectory, composite: Composite | None = None) -> Score:
    """Grade a finished episode with the task kind's preset (or the composite given)."""
    return (composite or preset_for(task))(task, trajectory)
