"""The nearest valid value to an invalid one, for refusals that help ("the most I can set is 30 °C").

Only a range's own end is offered: the policy states it, so the reply says nothing it has not seen.
A value between two steps of a range would round to a value nobody stated (24.8 -> 25 °C); the
agent asks for the value instead of computing one the chat cannot ground.
"""

from __future__ import annotations


def nearest_bound(value: float, low: float, high: float) -> float | None:
    """The end of [low, high] nearest `value` when it lies outside; None inside the range."""
    if value > high:
        return high
    if value < low:
        return low
    return None


def said(value: float | None, unit: str = "") -> str:
    """A bound as the reply says it ('30 °C', '100%', '40'); empty for no bound."""
    if value is None:
        return ""
    return f"{value:g}{unit}"


def nearest_allowed(value: float, allowed: list[float]) -> float:
    """The allowed value closest to `value` (the smaller on a tie): for a list the chat has shown,
    such as a catalogue a tool returned."""
    if not allowed:
        raise ValueError("nearest_allowed needs at least one allowed value")
    return min(sorted(allowed), key=lambda a: abs(a - value))
