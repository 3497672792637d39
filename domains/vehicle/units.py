"""Unit conversion, shared by the `convert_units` tool and the generators that predict its result."""

from __future__ import annotations

from typing import Literal

from toolgym.errors import ToolError

Unit = Literal["km", "miles", "litres", "gallons", "C", "F", "km/h", "mph"]
_KM_PER_MILE = 1.609344
_LITRES_PER_GALLON = 3.785411784
_LINEAR: dict[tuple[str, str], float] = {
    ("miles", "km"): _KM_PER_MILE,
    ("mph", "km/h"): _KM_PER_MILE,
    ("gallons", "litres"): _LITRES_PER_GALLON,
}
UNIT_WORDS = {"km": "km", "miles": "miles", "litres": "litres", "gallons": "gallons", "C": "°C", "F": "°F",
              "km/h": "km/h", "mph": "mph"}


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """`value` in `to_unit`, rounded to one decimal; a pair of different quantities is a ToolError."""
    if from_unit == to_unit:
        return round(float(value), 1)
    if (from_unit, to_unit) == ("C", "F"):
        return round(value * 9 / 5 + 32, 1)
    if (from_unit, to_unit) == ("F", "C"):
        return round((value - 32) * 5 / 9, 1)
    if (from_unit, to_unit) in _LINEAR:
        return round(value * _LINEAR[from_unit, to_unit], 1)
    if (to_unit, from_unit) in _LINEAR:
        return round(value / _LINEAR[to_unit, from_unit], 1)
    pairs = "km/miles, km/h/mph, litres/gallons, C/F"
    raise ToolError(f"cannot convert {from_unit} to {to_unit}: they measure different things; convert within {pairs}")


def number(value: float) -> str:
    """A result as said: 72.0 -> '72', 72.5 -> '72.5'."""
    return f"{value:g}"
