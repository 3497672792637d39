"""The dataset card's headline figures, counted one row at a time.

A job's writer feeds every chat row it buffers (`HeadlineTally.add`), so the card is ready when
the last row is written: closing a job does not read its shards back, and the per-row work is
spent while the workers are still generating rather than after them. `headline` counts the same
way over rows in memory, so a card and `toolgym inspect` agree.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from .metrics import REPEATED_AT_LEAST, Group, opening_figures
from .text import Row, first_user_text, split_sentences, texts

CARD_SPLITS = ("sft", "no_tool")  # the chat splits a card's language figures are over


class HeadlineTally:
    """Assistant sentences and turns, reasoning traces and openings per (domain, kind), so far."""

    def __init__(self) -> None:
        self.sentences: Counter[str] = Counter()
        self.turns: Counter[str] = Counter()
        self.traces: set[str] = set()
        self.trace_count = 0
        self.openings: defaultdict[Group, list[str]] = defaultdict(list)

    def add(self, row: Row) -> None:
        for text in texts(row, "assistant"):
            self.turns[text] += 1
            self.sentences.update(split_sentences(text))
        for message in row.get("messages") or ():
            trace = message.get("reasoning_content") if message.get("role") == "assistant" else None
            if isinstance(trace, str) and (trace := trace.strip()):
                self.traces.add(trace)
                self.trace_count += 1
        opening = first_user_text(row)
        if opening is not None:
            self.openings[(str(row.get("domain")), str(row.get("kind")))].append(opening)

    def add_all(self, rows: Iterable[Row]) -> HeadlineTally:
        for row in rows:
            self.add(row)
        return self

    def figures(self) -> dict[str, Any]:
        total = sum(self.sentences.values())
        top = self.sentences.most_common(20)
        turns = sum(self.turns.values())
        repeated = sum(c for c in self.turns.values() if c >= REPEATED_AT_LEAST)
        openings = {}
        for (domain, kind), found in sorted(self.openings.items()):
            group = opening_figures(found)
            openings[f"{domain}/{kind}"] = {"rows": group.rows, "distinct": group.distinct,
                                            "near_duplicate_rate": round(group.near_duplicate_rate, 4)}
        return {
            "assistant_sentences": total,
            "top20_sentence_share": round(sum(c for _, c in top) / total, 4) if total else 0.0,
            "max_sentence_share": round(top[0][1] / total, 4) if total else 0.0,
            "top_sentence": top[0][0] if top else None,
            "repeated_turn_share": round(repeated / turns, 4) if turns else 0.0,
            "reasoning_distinct_share": round(len(self.traces) / self.trace_count, 4) if self.trace_count else None,
            "openings": openings,
        }


def headline(rows: Iterable[Row]) -> dict[str, Any]:
    """The figures the dataset card shows, over rows in memory."""
    return HeadlineTally().add_all(rows).figures()
