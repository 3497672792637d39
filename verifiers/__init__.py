"""Verifiers: pure scoring functions (task, trajectory) -> Score, and their composition."""

from .checks import CHECKS
from .compose import ACTION_PRESET, NO_TOOL_PRESET, Composite, preset_for, score_trajectory
from .regrade import verify
from .score import Score

__all__ = [
    "ACTION_PRESET",
    "CHECKS",
    "NO_TOOL_PRESET",
    "Composite",
    "Score",
    "preset_for",
    "score_trajectory",
    "verify",
]
