"""All figures of one dataset directory, gathered once for the terminal, the HTML report and the card."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgym.envs.task import ACTION_KINDS

from . import metrics
from .augmentation import AugmentFigures, augmentation
from .coherence import CoherenceTally, Knowledge, coherence_findings
from .collect import Corpus, iter_raw_rows, read_corpus, slim
from .grammar import GrammarTally, grammar_findings
from .headline import CARD_SPLITS, headline

# The bars a corpus is held to (issue #9's language figures, issue #22's traces); `gate` checks them.
BARS = {
    "top20_sentence_share": 0.15,  # at most
    "max_sentence_share": 0.01,  # at most
    "repeated_turn_share": 0.10,  # at most
    "acting_distinct_openings": 0.80,  # at least, per acting kind
    "reasoning_distinct_share": 0.50,  # at least
    "top50_trace_pattern_share": 0.15,  # at most
}


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
    coherence: dict[str, CoherenceTally]
    trace_patterns: metrics.TracePatterns
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

    def acting_openings_low(self, bar: float = BARS["acting_distinct_openings"]) -> list[metrics.Group]:
        """Acting kinds whose distinct openings are below the bar (issue #9 asks for 80%)."""
        return [g for g, o in self.openings.items() if g[1] in ACTION_KINDS and o.distinct_share < bar]

    def gate_failures(self) -> list[str]:
        """What keeps the corpus from the bars: every figure past its bar, every class of slip or
        incoherence found at least once, every coherence class the corpus could not measure."""
        failures = []
        figures = {
            "top20_sentence_share": self.sentences.top_share,
            "max_sentence_share": self.sentences.max_share,
            "repeated_turn_share": self.repeated_turn_share,
            "top50_trace_pattern_share": self.trace_patterns.top_share if self.trace_patterns.traces else None,
        }
        for name, value in figures.items():
            if value is not None and value > BARS[name]:
                failures.append(f"{name} {value:.1%} is over {BARS[name]:.0%}")
        distinct = self.reasoning_distinct_share
        if distinct is not None and distinct < BARS["reasoning_distinct_share"]:
            failures.append(f"reasoning_distinct_share {distinct:.1%} is under {BARS['reasoning_distinct_share']:.0%}")
        failures += [f"acting openings of {d}/{k} under {BARS['acting_distinct_openings']:.0%} distinct" for d, k in self.acting_openings_low()]
        failures += [f"grammar {name}: {t.turns} turn(s)" for name, t in self.grammar.items() if t.turns]
        for name, tally in self.coherence.items():
            if not tally.measured:
                failures.append(f"coherence {name}: not measured (the corpus lacks what it needs: write rl_tasks, install the domain)")
            elif tally.rows:
                failures.append(f"coherence {name}: {tally.rows} row(s)")
        return failures


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


def knowledge_of(corpus: Corpus) -> Knowledge:
    """What the coherence detectors may know: the installed domains' tools and hand-offs, the tasks."""
    from toolgym.envs.registry import load_domain
    from toolgym.errors import ToolgymError

    def domain(name: str) -> Any:
        try:
            return load_domain(name)
        except ToolgymError:
            return None

    def writes(name: str, tool: str) -> bool:
        found = domain(name)
        return bool(found is not None and tool in found.tools and found.tools[tool].writes)

    def handoff(name: str) -> bool:
        found = domain(name)
        return bool(found is not None and found.refusal_handoff)

    def asides(name: str) -> frozenset[str]:
        found = domain(name)
        return found.phrasebook.asides if found is not None else frozenset()

    installed = all(domain(str(row.get("domain"))) is not None for row in corpus.rows[:1])
    return Knowledge(
        writes=writes if installed else None,
        handoff=handoff if installed else None,
        task=corpus.task if corpus.task_json else None,
        asides=asides if installed else None,
    )


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
        coherence=coherence_findings(rows, knowledge_of(corpus)),
        trace_patterns=metrics.trace_patterns(rows),
        grounding=grounding,
        ungrounded_examples=corpus.ungrounded_examples,
        short_kinds=short_of_asked(corpus),
        augment=augmentation(rows),
    )


def inspect_dir(out_dir: str | Path, top: int = 20) -> Inspection:
    return inspect_corpus(read_corpus(out_dir), top)



def card_figures(out_dir: str | Path) -> dict[str, Any]:
    """The dataset card's language figures over the written sft and no_tool rows."""
    rows = (slim(row) for split in CARD_SPLITS for row in iter_raw_rows(out_dir, split, ("domain", "kind", "messages")))
    return headline(rows)
