"""Figures of tool-set augmentation: what share of rows each transform touched, and how varied the names are.

A row's `augment` column records its transform; `slim_augment` keeps what these figures need
(the naming convention, the real -> offered names, distractors, paraphrases). Names are counted
per real tool: a model that reads schemas should see no one name for a tool in most of the rows
that offer it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .text import Row, schema_name


def slim_augment(raw: Any) -> dict[str, Any] | None:
    """The parts of a row's transform the figures read (the column as JSON text or a dict; None: no transform)."""
    if raw is None:
        return None
    data = json.loads(raw) if isinstance(raw, str) else raw
    if not isinstance(data, dict):
        return None
    return {
        "untouched": bool(data.get("untouched")),
        "convention": data.get("convention") or "original",
        "names": dict(data.get("names") or {}),
        "paraphrased": len(data.get("descriptions") or {}),
        "distractors": [((d.get("schema") or {}).get("function") or {}).get("name") for d in data.get("distractors") or ()],
        "near_misses": sum(1 for d in data.get("distractors") or () if str(d.get("origin", "")).startswith("near_miss/")),
        "shuffled": bool(data.get("shuffled")),
    }


def real_tool_names(row: Row) -> dict[str, str]:
    """offered name -> real tool name for the tools a row offers (distractors left out)."""
    augment = row.get("augment")
    offered = [n for n in (schema_name(s) for s in row.get("tools") or ()) if n]
    if not augment or augment["untouched"]:
        return {n: n for n in offered}
    real_of = {o: r for r, o in augment["names"].items()}
    return {n: real_of[n] for n in offered if n in real_of}


@dataclass
class AugmentFigures:
    rows: int = 0
    recorded: int = 0  # rows that carry a transform (an augmented job's rows, untouched ones included)
    untouched: int = 0
    conventions: Counter[str] = field(default_factory=Counter)  # augmented rows per naming convention
    paraphrased: int = 0  # rows with at least one description variant
    with_distractors: int = 0
    with_near_misses: int = 0
    shuffled: int = 0
    distinct_names: int = 0  # distinct tool names offered across the corpus, distractors included
    real_tools: int = 0  # distinct (domain, real tool) offered
    top_name: tuple[str, str, float] | None = None  # (domain/tool, its most frequent name, share of rows offering it)
    tools_over: dict[float, int] = field(default_factory=dict)  # share bar -> tools whose top name is above it

    def share(self, count: int) -> float:
        return count / self.rows if self.rows else 0.0

    @property
    def active(self) -> bool:
        return self.recorded > 0


def augmentation(rows: Iterable[Row], bars: tuple[float, ...] = (0.3, 0.5)) -> AugmentFigures:
    figures = AugmentFigures()
    names: set[str] = set()
    per_tool: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for row in rows:
        figures.rows += 1
        augment = row.get("augment")
        offered = [n for n in (schema_name(s) for s in row.get("tools") or ()) if n]
        names.update(offered)
        for name, real in real_tool_names(row).items():
            per_tool[(str(row.get("domain")), real)][name] += 1
        if augment is None:
            continue
        figures.recorded += 1
        if augment["untouched"]:
            figures.untouched += 1
            continue
        figures.conventions[augment["convention"]] += 1
        figures.paraphrased += augment["paraphrased"] > 0
        figures.with_distractors += bool(augment["distractors"])
        figures.with_near_misses += augment["near_misses"] > 0
        figures.shuffled += augment["shuffled"]
    figures.distinct_names = len(names)
    figures.real_tools = len(per_tool)
    tops = [(f"{d}/{t}", *counts.most_common(1)[0], sum(counts.values())) for (d, t), counts in per_tool.items()]
    shares = [(tool, name, count / offered) for tool, name, count, offered in tops]
    if shares:
        figures.top_name = max(shares, key=lambda s: (s[2], s[0]))
    figures.tools_over = {bar: sum(1 for *_, share in shares if share > bar) for bar in bars}
    return figures


def summary_lines(figures: AugmentFigures) -> list[str]:
    if not figures.active:
        return []
    pct = figures.share
    conventions = ", ".join(f"{c} {100 * pct(n):.1f}%" for c, n in figures.conventions.most_common())
    lines = [
        f"tool-set augmentation: {100 * pct(figures.recorded - figures.untouched):.1f}% of rows augmented, "
        f"{100 * pct(figures.untouched):.1f}% untouched; names: {conventions or 'none'}",
        f"described in other words: {100 * pct(figures.paraphrased):.1f}% of rows; distractors: "
        f"{100 * pct(figures.with_distractors):.1f}% (near misses {100 * pct(figures.with_near_misses):.1f}%); "
        f"shuffled: {100 * pct(figures.shuffled):.1f}%",
        f"distinct tool names across the corpus: {figures.distinct_names} (for {figures.real_tools} real tools)",
    ]
    if figures.top_name is not None:
        tool, name, share = figures.top_name
        over = ", ".join(f"{n} above {bar:.0%}" for bar, n in figures.tools_over.items())
        lines.append(f"most frequent name of one tool: {name!r} for {tool} in {100 * share:.1f}% of the rows "
                     f"offering it; tools whose top name is in more rows: {over}")
    return lines
