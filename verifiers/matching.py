"""Comparing calls: normalised values, partial credit per call, matching without order."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from toolgym.envs.grounding import StatedFact, extract_facts

_SPACES = re.compile(r"\s+")
_NUMBER_COMMAS = re.compile(r"(?<=\d),(?=\d{3}\b)")


def normalize_text(text: str) -> str:
    """Lower case, single spaces, no thousands separators: '$1,234.50' -> '$1234.50'."""
    return _SPACES.sub(" ", _NUMBER_COMMAS.sub("", text.lower())).strip()


CALENDAR_KINDS = ("date", "month")  # facts people write in many formats: "3 May 2019" is "2019-05-03"


def calendar_fact(output: str) -> StatedFact | None:
    """The date or month `output` is, and nothing else (None: it is something else)."""
    facts = extract_facts(output)
    if len(facts) == 1 and facts[0].kind in CALENDAR_KINDS and facts[0].text == output.strip():
        return facts[0]
    return None


YEARLESS = len("03-27")  # the value grounding gives a day written without its year ("March 27")


def states_day(said: StatedFact, output: StatedFact) -> bool:
    """Whether a calendar fact said states an output's day (or month). An output written without its
    year ("March 27": the task's author says the year goes without saying) is stated by that day of any
    year; a dated output only by a day of its own year, so a reply that leaves out a year that tells
    something ("opened on August 3" for 2018-08-03) does not state it."""
    if said.kind != output.kind:
        return False
    return said.value == output.value or (output.kind == "date" and len(output.value) == YEARLESS
                                          and said.value[-YEARLESS:] == output.value)


def same_date_stated(output: str, said: str) -> bool:
    """Whether `output` is one date (or month) and `said` states it, in any format ("3 May 2019",
    "2019-05-03"; "March 2025", "2025-03"; "March 27" states the yearless output "March 27")."""
    fact = calendar_fact(output)
    return fact is not None and any(states_day(f, fact) for f in extract_facts(said))


def output_stated(output: str, said: str, normalized: str | None = None) -> bool:
    """Whether `said` states a required output: its words (case, spaces and thousands separators
    aside), or the same date or month in any format. `normalized`: `normalize_text(said)`, when the caller
    checks many outputs against one text."""
    return normalize_text(output) in (normalize_text(said) if normalized is None else normalized) or same_date_stated(output, said)


MAX_DEPTH = 32  # deeper values are compared by their text, never recursed into


def normalize_value(value: Any, depth: int = 0) -> Any:
    """A value as compared: strings trimmed and case-folded, 3 == 3.0, containers recursively."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:  # beyond any float: compared exactly, by its digits in hex
            return f"int:{value:x}"
    if isinstance(value, float):
        return value
    if isinstance(value, str):
        return " ".join(value.split()).lower()
    if depth >= MAX_DEPTH:
        return f"<nested deeper than {MAX_DEPTH}>"
    if isinstance(value, dict):
        return {str(k): normalize_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalize_value(v, depth + 1) for v in value]
    return value


def canonical_call(name: Any, arguments: Any) -> str:
    args = arguments if isinstance(arguments, dict) else {"__raw__": arguments}
    try:
        return json.dumps([name, normalize_value(args)], sort_keys=True, default=repr)
    except (TypeError, ValueError):  # keys of mixed types, or a value repr cannot show
        return repr([name, sorted(map(str, args))])


def arguments_of(raw: Any) -> dict[str, Any]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, too deep, or a 4,300-digit integer
            return {}
    return raw if isinstance(raw, dict) else {}


def call_credit(gold: tuple[str, dict], predicted: tuple[str, dict]) -> tuple[float, float, float]:
    """(name, parameter names, parameter values) credit of one predicted call against one gold."""
    if gold[0] != predicted[0]:
        return 0.0, 0.0, 0.0
    gold_args, pred_args = gold[1], predicted[1]
    keys = set(gold_args) | set(pred_args)
    names = len(set(gold_args) & set(pred_args)) / len(keys) if keys else 1.0
    if gold_args:
        same = sum(
            1 for k, v in gold_args.items() if k in pred_args and normalize_value(pred_args[k]) == normalize_value(v)
        )
        values = same / len(gold_args)
    else:
        values = 1.0 if not pred_args else 0.0
    return 1.0, names, values


def match_calls(
    gold: list[tuple[str, dict]], predicted: list[tuple[str, dict]]
) -> tuple[float, dict[str, float], list[tuple[int, int]]]:
    """Best one-to-one pairing (greedy on credit), regardless of order.

    Returns the overall credit (matched credit over the larger count), the mean of each
    credit part over the larger count, and the pairs made.
    """
    if not gold and not predicted:
        return 1.0, {"name": 1.0, "param_names": 1.0, "param_values": 1.0}, []
    candidates = []
    for gi, g in enumerate(gold):
        for pi, p in enumerate(predicted):
            parts = call_credit(g, p)
            if parts[0]:
                candidates.append((sum(parts) / 3, gi, pi, parts))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used_gold: set[int] = set()
    used_pred: set[int] = set()
    totals = [0.0, 0.0, 0.0]
    credit = 0.0
    pairs = []
    for value, gi, pi, parts in candidates:
        if gi in used_gold or pi in used_pred:
            continue
        used_gold.add(gi)
        used_pred.add(pi)
        pairs.append((gi, pi))
        credit += value
        totals = [t + p for t, p in zip(totals, parts, strict=True)]
    denominator = max(len(gold), len(predicted))
    parts_mean = dict(zip(("name", "param_names", "param_values"), (t / denominator for t in totals), strict=True))
    return credit / denominator, parts_mean, pairs


def in_order_matches(gold: list[str], predicted: list[str]) -> int:
    """Length of the longest common subsequence of two call sequences (canonical forms)."""
    if not gold or not predicted:
        return 0
    previous = [0] * (len(predicted) + 1)
    for g in gold:
        current = [0]
        for j, p in enumerate(predicted):
            current.append(previous[j] + 1 if g == p else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def subset_matches(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    return all(k in actual and normalize_value(actual[k]) == normalize_value(v) for k, v in expected.items())


def flatten(items: Iterable[Any]) -> list[Any]:
    return [x for item in items for x in item]
