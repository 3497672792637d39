"""Running counts for the dataset card, kept as nested dicts of numbers so deltas just add up.

Each flush records the counts of the rows it published in its manifest line; resume sums the
lines, so the card after a kill and a rerun counts exactly the published rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def merge(into: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """Add a delta into a total, key by key, at any depth."""
    for key, value in delta.items():
        if isinstance(value, dict):
            merge(into.setdefault(key, {}), value)
        else:
            into[key] = into.get(key, 0) + value
    return into


def _bump(counts: dict[str, Any], *keys: str, by: int = 1) -> None:
    for key in keys[:-1]:
        counts = counts.setdefault(key, {})
    counts[keys[-1]] = counts.get(keys[-1], 0) + by


def _tool_names(messages: Iterable[dict[str, Any] | None]) -> Iterable[str]:
    for message in messages:
        for call in (message or {}).get("tool_calls") or ():
            name = (call.get("function") or {}).get("name")
            if isinstance(name, str):
                yield name


class RunStats:
    """Counts of rows, tasks and failures; `data` is what the manifest and the card hold.

    data = {"tasks": n, "failures": n, "failures_by": {domain: {kind: n}},
            "splits": {split: {"rows": n, "by": {domain: {kind: {"rows": n, "passed": n}}},
                               "tool_calls": {tool: n}, "calls_per_row": {n_calls: rows},
                               "usage": {key: total}, "usage_rows": n, "item_types": {type: n}}}}
    """

    def __init__(self, data: dict[str, Any] | None = None):
        self.data: dict[str, Any] = data if data is not None else {}

    def add_row(self, split: str, row: dict[str, Any]) -> None:
        counts = self.data.setdefault("splits", {}).setdefault(split, {})
        _bump(counts, "rows")
        group = counts.setdefault("by", {}).setdefault(row["domain"], {}).setdefault(row["kind"], {})
        _bump(group, "rows")
        if split == "rl_tasks":
            _bump(counts, "item_types", row["item_type"])
            messages = [row.get("target")]
        else:
            verification = row.get("verification") or {}
            if verification.get("passed"):
                _bump(group, "passed")
            components = verification.get("components") or {}
            for check in ("grounded", "consent"):  # the ground-truth checks, counted where they apply
                if check in components:
                    _bump(counts, "ground_truth", check, "rows")
                    if components[check] >= 1.0:
                        _bump(counts, "ground_truth", check, "passed")
            messages = row["messages"]
            for key, value in (row.get("usage") or {}).items():
                if isinstance(value, int):
                    _bump(counts, "usage", key, by=value)
            if row.get("usage"):
                _bump(counts, "usage_rows")
        calls = 0
        for name in _tool_names(messages):
            _bump(counts, "tool_calls", name)
            calls += 1
        _bump(counts, "calls_per_row", str(calls))

    def add_task(self, failure: dict[str, Any] | None) -> None:
        _bump(self.data, "tasks")
        if failure is not None:
            _bump(self.data, "failures")
            _bump(self.data, "failures_by", str(failure.get("domain")), str(failure.get("kind")))

    def retract_failure(self, failure: dict[str, Any]) -> None:
        """Undo the count of an earlier failed attempt of a task that is being run again."""
        _bump(self.data, "tasks", by=-1)
        _bump(self.data, "failures", by=-1)
        _bump(self.data, "failures_by", str(failure.get("domain")), str(failure.get("kind")), by=-1)

    def merge(self, delta: dict[str, Any]) -> None:
        merge(self.data, delta)

    def rows(self) -> dict[str, int]:
        return {split: c.get("rows", 0) for split, c in sorted(self.data.get("splits", {}).items())}
