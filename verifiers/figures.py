"""Figures in a reply and values in tool results, as the output checks read them (recital.py,
attribution.py, states.py, figure_fields.py): a figure with its kind (money, a percentage, a plain
number), the forms a result's raw JSON would show it in, and a result read as JSON and walked."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .matching import normalize_text

MIN_CHARACTERS = 3  # a value shorter than this is too common in text to say which record was meant
# a figure as written: its currency sign or percent sign say what it is; one inside a time, a date or
# a phone number (15:00, 2025-03-19, 303-481-1018) is none
_FIGURE = re.compile(r"(?<![\w.:/-])([$€£]?)(\d[\d,]*(?:\.\d+)?)(%?)(?![\w:/-]|\.\d)")


def figures_in(text: str) -> list[tuple[str, float]]:
    """The figures of a text, each with its kind: '$' (money), '%' or '' (a plain number)."""
    found = []
    for sign, digits, percent in _FIGURE.findall(normalize_text(text)):
        kind = "$" if sign else percent
        if kind or len(digits) >= MIN_CHARACTERS:
            found.append((kind, float(digits.replace(",", ""))))
    return found


def figure_in(text: str) -> tuple[str, float] | None:
    """The one figure a text states, whatever its unit ('3.65 GB', '$26.04'); None for none or several."""
    found = figures_in(text)
    return found[0] if len(found) == 1 else None


def number_of(text: str) -> tuple[str, float] | None:
    """The one figure a text is ('$26.04', '4.35%', '1,227,052'), with its kind; None for anything else."""
    found = figures_in(text)
    if len(found) != 1 or re.search(r"[a-z]", normalize_text(text)):
        return None
    return found[0]


PROSE_WORDS = 6  # a text value of this many words is prose (a page, a mail's body), not a field's value


def needles(output: str, number: tuple[str, float] | None) -> tuple[str, ...]:
    """How a result's raw text would hold `output` (lower case): its words, or its figure as JSON
    writes it (26.04 for "$26.04", 1227052 for "1,227,052") and with thousands separators."""
    if number is None:
        return (normalize_text(output),)
    value = number[1]
    plain = str(int(value)) if value.is_integer() else repr(value)
    return (plain, f"{value:,}".removesuffix(".0"))


def read_json(content: str) -> Any:
    try:
        return json.loads(content)
    except (TypeError, ValueError, RecursionError):
        return None


def objects_of(data: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object of a result, nested ones too, each before those inside it (no recursion:
    a result nested a thousand deep is walked like any other)."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            yield value
            children = list(value.values())
        elif isinstance(value, list):
            children = value
        else:
            continue
        stack.extend(child for child in reversed(children) if isinstance(child, dict | list))


def result_fields(results: Iterable[str]) -> Iterator[tuple[str, Any]]:
    """Every plain field of some tool results, at any depth, a list's items one by one: (its name, its
    value), the value a text or a number."""
    for content in results:
        for record in objects_of(read_json(content)):
            for key, value in record.items():
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str | int | float) and not isinstance(item, bool):
                        yield key, item
