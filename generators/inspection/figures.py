"""All figures of one dataset directory, gathered once for the terminal, the HTML report and the card."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgym.envs.task import ACTION_KINDS

from . import metrics
from .augmentation import AugmentFigures, augmentation
from .collect import Corpus, iter_raw_rows, read_corpus, slim
from .grammar import GrammarTally, grammar_findings


@dataclass
class ShortKind:
    domain: str
    kind: str
    asked: int
    written: int  # tasks of the kind with at least one written chat (sft, no_tool or rejected)


@dataclass
class Inspection:
    out_dir: Path
    split_rows: dict[str, int]
    shapes: dict[metrics.Group, metrics.ShapeFigures]
    tools: dict[str, tuple[list[str], list[str]]]
    sentences: metrics.SentenceFigures
    repeated_turns: tuple[int, int]
    reasoning: tuple[int, int]
    openings: dict[metrics.Group, metrics.OpeningFigures]
    grammar: dict[str, GrammarTally]
    grounding: dict[metrics.Group, tuple[int, int]] | None  # (rows with no unseen fact, rows); None: unavailable
    ungrounded_examples: list[str] = field(default_factory=list)
    short_kinds: list[ShortKind] | None = None  # None: the asked counts are unknown (no config recorded)
    augment: AugmentFigures = field(default_factory=AugmentFigures)  # tool-set augmentation (inactive: none recorded)

    @property
    def repeated_turn_share(self) -> float:
        repeated, turns = self.repeated_turns
        return repeated / turns if turns else 0.0

    @property
    def reasoning_distinct_share(self) -> float | None:
        distinct, traces = self.reasoning
        return distinct / traces if traces else None

    def acting_openings_low(self, bar: float = 0.8) -> list[metrics.Group]:
        """Acting kinds whose distinct openings are below the bar (issue #9 asks for 80%)."""
        return [g for g, o in self.openings.items() if g[1] in ACTION_KINDS and o.distinct_share < bar]


def short_of_asked(corpus: Corpus) -> list[ShortKind] | None:
    """Kinds whose written tasks fall short of the counts the job's config asked for."""
    if not corpus.config:
        return None
    from toolgym.config import load_config
    from toolgym.envs.registry import load_domain
    from toolgym.errors import ToolgymError

    from ..planning import kind_counts, selected_domains

    try:
        config = load_config(corpus.config)
        asked = {(d, k): n for d in selected_domains(config) for k, n in kind_counts(config, load_domain(d).kinds).items()}
    except ToolgymError:
        return None  # a config this build cannot read (other version, a domain not installed)
    return [
        ShortKind(d, k, n, len(corpus.tasks.get((d, k), ())))
        for (d, k), n in sorted(asked.items())
        if len(corpus.tasks.get((d, k), ())) < n
    ]


def inspect_corpus(corpus: Corpus, top: int = 20) -> Inspection:
    rows = corpus.rows
    shapes = metrics.shapes(rows)
    grounding = None
    if corpus.grounding_available:
        grounding = {g: (corpus.grounded_rows.get(g, 0), s.rows) for g, s in shapes.items()}
    return Inspection(
        out_dir=corpus.out_dir,
        split_rows=dict(corpus.split_rows),
        shapes=shapes,
        tools=metrics.tool_coverage(rows),
        sentences=metrics.top_sentences(rows, top),
        repeated_turns=metrics.repeated_turn_share(rows),
        reasoning=metrics.reasoning_traces(rows),
        openings=metrics.openings(rows),
        grammar=grammar_findings(rows),
        grounding=grounding,
        ungrounded_examples=corpus.ungrounded_examples,
        short_kinds=short_of_asked(corpus),
        augment=augmentation(rows),
    )


def inspect_dir(out_dir: str | Path, top: int = 20) -> Inspection:
    return inspect_corpus(read_corpus(out_dir), top)



def card_figures(out_dir: str | Path) -> dict[str, Any]:
    """The dataset card's language figures over the written sft and no_tool rows."""
    rows = [
        slim(row)
        for split in ("sft", "no_tool")
        for row in iter_raw_rows(out_dir, split, ("domain", "kind", "messages"))
    ]
    return metrics.headline(rows)
