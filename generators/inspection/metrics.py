"""Language and shape figures of a corpus: pure functions over chat rows (dicts with `messages`).

`toolgym inspect`, the dataset card and `toolgym check` share these. Rows are grouped by
(domain, kind); "acting" kinds are those whose gold plan calls tools.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .augmentation import real_tool_names
from .text import Row, first_user_text, normalize, schema_name, split_sentences, texts

if TYPE_CHECKING:
    from .neardup import NearDuplicates

Group = tuple[str, str]  # (domain, kind)
REPEATED_AT_LEAST = 10  # an assistant turn is "stock" when its exact text occurs this often


def group_of(row: Row) -> Group:
    return (str(row.get("domain")), str(row.get("kind")))


@dataclass
class SentenceFigures:
    total: int  # assistant sentences
    top: list[tuple[str, int]]  # the most frequent, with counts
    top_share: float  # share of all assistant sentences covered by `top`
    max_share: float  # share of the single most frequent sentence


def top_sentences(rows: Iterable[Row], n: int = 20) -> SentenceFigures:
    counts: Counter[str] = Counter()
    for row in rows:
        for text in texts(row, "assistant"):
            counts.update(split_sentences(text))
    return sentence_figures(counts, n)


def sentence_figures(counts: Counter[str], n: int = 20) -> SentenceFigures:
    """The figures of counted assistant sentences: the `n` most frequent and their shares."""
    total = sum(counts.values())
    top = counts.most_common(n)
    covered = sum(c for _, c in top)
    return SentenceFigures(
        total=total,
        top=top,
        top_share=covered / total if total else 0.0,
        max_share=top[0][1] / total if total else 0.0,
    )


def repeated_turn_share(rows: Iterable[Row], at_least: int = REPEATED_AT_LEAST) -> tuple[int, int]:
    """(assistant text turns whose exact text occurs `at_least` times or more, all assistant text turns)."""
    return repeated_turns(Counter(text for row in rows for text in texts(row, "assistant")), at_least)


def repeated_turns(counts: Counter[str], at_least: int = REPEATED_AT_LEAST) -> tuple[int, int]:
    """(turns whose text was counted `at_least` times or more, all turns counted)."""
    return sum(c for c in counts.values() if c >= at_least), sum(counts.values())


@dataclass
class OpeningFigures:
    rows: int
    distinct: int  # distinct normalized first user messages
    near_duplicates: int  # rows whose opening has a 5-gram Jaccard >= 0.8 partner in the group

    @property
    def distinct_share(self) -> float:
        return self.distinct / self.rows if self.rows else 0.0

    @property
    def near_duplicate_rate(self) -> float:
        return self.near_duplicates / self.rows if self.rows else 0.0


def openings(rows: Iterable[Row], threshold: float = 0.8) -> dict[Group, OpeningFigures]:
    """Per (domain, kind): how varied the first user messages are."""
    by_group: dict[Group, list[str]] = defaultdict(list)
    for row in rows:
        opening = first_user_text(row)
        if opening is not None:
            by_group[group_of(row)].append(opening)
    return {group: opening_figures(found, threshold) for group, found in sorted(by_group.items())}


def opening_figures(found: Sequence[str], threshold: float = 0.8) -> OpeningFigures:
    """How varied one group's openings are: distinct after normalizing, and near-duplicates."""
    tally = OpeningTally(threshold)
    for text in found:
        tally.add(text)
    return tally.figures()


class OpeningTally:
    """One group's openings as they come: normalized and signed for near-duplicates a chunk at a
    time, so the figures at the end cost little more than the LSH's buckets (see neardup)."""

    CHUNK = 32  # a job's groups fill slowly (a few hundred openings each): small chunks keep little for the end

    def __init__(self, threshold: float = 0.8) -> None:
        self.rows = 0
        self.distinct: set[str] = set()
        self._threshold = threshold
        self._pending: list[str] = []
        self._near: NearDuplicates | None = None

    def add(self, text: str) -> None:
        self.rows += 1
        self._pending.append(text)
        if len(self._pending) >= self.CHUNK:
            self._sign()

    def _sign(self) -> None:
        if not self._pending:
            return
        if self._near is None:
            # numpy and datasketch (which imports scipy, ~0.5 s): only once there are openings
            from .neardup import NearDuplicates

            self._near = NearDuplicates(self._threshold)
        normalized = [normalize(text) for text in self._pending]
        self.distinct.update(normalized)
        self._near.add(normalized)
        self._pending = []

    def figures(self) -> OpeningFigures:
        self._sign()
        return OpeningFigures(self.rows, len(self.distinct), sum(self._near.flags()) if self._near else 0)


def _traces(rows: Iterable[Row]) -> list[str]:
    return [trace for row in rows for trace in row_traces(row)]


def row_traces(row: Row) -> Iterator[str]:
    """The non-empty reasoning traces of a row's assistant turns, stripped."""
    for m in row.get("messages") or ():
        if m.get("role") == "assistant" and isinstance(m.get("reasoning_content"), str) and m["reasoning_content"].strip():
            yield m["reasoning_content"].strip()


def reasoning_traces(rows: Iterable[Row]) -> tuple[int, int]:
    """(distinct reasoning traces, all reasoning traces) over assistant turns."""
    traces = _traces(rows)
    return len(set(traces)), len(traces)


_QUOTE = re.compile(r"\"[^\"]*\"|“[^”]*”")
_TOOL_NAME = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][\w'-]*(?: [A-Z][\w'-]*)*")


def trace_pattern(trace: str) -> str:
    """A trace with what it cites masked (quotes, tool names, ids, numbers, names): its wording alone."""
    masked = _QUOTE.sub(" Q ", trace)
    masked = _TOOL_NAME.sub(" T ", masked)
    masked = _NAME.sub(" N ", masked)
    return normalize(masked)


@dataclass
class TracePatterns:
    traces: int
    patterns: int  # distinct wordings
    top_share: float  # share of traces whose wording is one of the `top` most frequent
    top: list[tuple[str, int]]


def trace_patterns(rows: Iterable[Row], n: int = 50) -> TracePatterns:
    """How much of the reasoning is the same few wordings with other facts in them."""
    counts = Counter(trace_pattern(t) for t in _traces(rows))
    total = sum(counts.values())
    top = counts.most_common(n)
    return TracePatterns(total, len(counts), sum(c for _, c in top) / total if total else 0.0, top[:10])


@dataclass
class ShapeFigures:
    rows: int = 0
    turns: int = 0  # user + assistant messages
    calls: int = 0  # assistant tool calls
    user_calls: int = 0  # calls the user made on their device
    calls_histogram: Counter[int] = field(default_factory=Counter)

    @property
    def turns_per_row(self) -> float:
        return self.turns / self.rows if self.rows else 0.0

    @property
    def calls_per_row(self) -> float:
        return self.calls / self.rows if self.rows else 0.0


def shapes(rows: Iterable[Row]) -> dict[Group, ShapeFigures]:
    """Per (domain, kind): rows, turns and calls."""
    figures: dict[Group, ShapeFigures] = defaultdict(ShapeFigures)
    for row in rows:
        shape = figures[group_of(row)]
        messages = row.get("messages") or ()
        calls = sum(len(m.get("tool_calls") or ()) for m in messages if m.get("role") == "assistant")
        shape.rows += 1
        shape.turns += sum(1 for m in messages if m.get("role") in ("user", "assistant"))
        shape.calls += calls
        shape.user_calls += sum(len(m.get("user_tool_calls") or ()) for m in messages if m.get("role") == "user")
        shape.calls_histogram[calls] += 1
    return dict(sorted(figures.items()))


def tool_coverage(rows: Iterable[Row]) -> dict[str, tuple[list[str], list[str]]]:
    """Per domain: (tools called at least once, tools offered but never called), agent and user side.

    In the real tools' names: a row on an augmented tool set counts its renamed tools as the real
    ones (its distractors, and calls that name no offered tool, are left out).
    """
    offered: dict[str, set[str]] = defaultdict(set)
    used: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        domain = str(row.get("domain"))
        augmented = bool(row.get("augment")) and not row["augment"]["untouched"]
        real = real_tool_names(row)
        offered[domain].update(real.values())
        for schema in row.get("user_tools") or ():
            name = schema_name(schema)
            if name:
                offered[domain].add(name)
        for message in row.get("messages") or ():
            for call in message.get("tool_calls") or ():
                name = (call.get("function") or {}).get("name")
                if isinstance(name, str) and (name in real or not augmented):
                    used[domain].add(real.get(name, name))
            for call in message.get("user_tool_calls") or ():
                if isinstance(call.get("name"), str):
                    used[domain].add(call["name"])
    return {d: (sorted(used[d]), sorted(offered[d] - used[d])) for d in sorted(offered | used)}
