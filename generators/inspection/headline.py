"""The dataset card's headline figures, counted one row at a time.

A job's writer feeds every chat row it buffers (`HeadlineTally.add`), so the card is ready when
the last row is written: closing a job does not read its shards back, and the per-row work is
spent while the workers are still generating rather than after them: the openings too are
normalized and signed for near-duplicates a chunk at a time (`OpeningTally`), which left for the
close took ~1.7 s of a 14,000-task job, now ~0.1 s. `headline` counts the same
way over rows in memory, so a card and `toolgym inspect` agree.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from .metrics import Group, OpeningTally, repeated_turns, row_traces, sentence_figures
from .text import Row, first_user_text, split_sentences, texts

CARD_SPLITS = ("sft", "no_tool")  # the chat splits a card's language figures are over


class HeadlineTally:
    """Assistant sentences and turns, reasoning traces and openings per (domain, kind), so far."""

    def __init__(self) -> None:
        self.sentences: Counter[str] = Counter()
        self.turns: Counter[str] = Counter()
        self.traces: set[str] = set()
        self.trace_count = 0
        self.openings: defaultdict[Group, OpeningTally] = defaultdict(OpeningTally)

    def add(self, row: Row) -> None:
        for text in texts(row, "assistant"):
            self.turns[text] += 1
            self.sentences.update(split_sentences(text))
        for trace in row_traces(row):
            self.traces.add(trace)
            self.trace_count += 1
        opening = first_user_text(row)
        if opening is not None:
            self.openings[(str(row.get("domain")), str(row.get("kind")))].add(opening)

    def add_all(self, rows: Iterable[Row]) -> HeadlineTally:
        for row in rows:
            self.add(row)
        return self

    def figures(self) -> dict[str, Any]:
        sentences = sentence_figures(self.sentences, 20)
        repeated, turns = repeated_turns(self.turns)
        openings = {}
        for (domain, kind), tally in sorted(self.openings.items()):
            group = tally.figures()
            openings[f"{domain}/{kind}"] = {"rows": group.rows, "distinct": group.distinct,
                                            "near_duplicate_rate": round(group.near_duplicate_rate, 4)}
        return {
            "assistant_sentences": sentences.total,
            "top20_sentence_share": round(sentences.top_share, 4),
            "max_sentence_share": round(sentences.max_share, 4),
            "top_sentence": sentences.top[0][0] if sentences.top else None,
            "repeated_turn_share": round(repeated / turns, 4) if turns else 0.0,
            "reasoning_distinct_share": round(len(self.traces) / self.trace_count, 4) if self.trace_count else None,
            "openings": openings,
        }


def headline(rows: Iterable[Row]) -> dict[str, Any]:
    """The figures the dataset card shows, over rows in memory."""
    return HeadlineTally().add_all(rows).figures()
