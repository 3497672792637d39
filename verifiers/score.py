"""Score: what a verifier says about one trajectory."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Score:
    """A value in [0, 1], whether the trajectory passed, and the named parts behind it."""

    value: float
    passed: bool
    components: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    # Passed with nothing to judge (no calls expected, nothing to change): left out of a weighted mean.
    vacuous: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.value <= 1.0:
            raise ValueError(f"a score must lie in [0, 1], got {self.value}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "score": round(self.value, 6),
            "components": {k: round(v, 6) for k, v in self.components.items()},
            "details": self.details,
        }


def binary(ok: bool, **details: Any) -> Score:
    return Score(1.0 if ok else 0.0, ok, details=details)


def vacuous() -> Score:
    """A pass with nothing to judge: it neither earns nor costs credit."""
    return Score(1.0, True, vacuous=True)
