"""Language and shape figures of a generated corpus (`toolgym inspect`, the card, `toolgym check`).

Pure functions over chat rows live in `metrics` and `grammar`; `collect` reads a dataset
directory, `figures` gathers everything once, `report` prints it and writes the HTML file.
"""

from .grammar import GRAMMAR_CLASSES, GrammarMatch, find_grammar, grammar_findings
from .headline import headline
from .metrics import (
    openings,
    reasoning_traces,
    repeated_turn_share,
    shapes,
    tool_coverage,
    top_sentences,
)
from .text import normalize, split_sentences

__all__ = [
    "GRAMMAR_CLASSES",
    "GrammarMatch",
    "find_grammar",
    "grammar_findings",
    "headline",
    "near_duplicate_flags",
    "near_duplicate_rate",
    "normalize",
    "openings",
    "reasoning_traces",
    "repeated_turn_share",
    "shapes",
    "split_sentences",
    "tool_coverage",
    "top_sentences",
]


def __getattr__(name: str) -> object:
    # near-duplicates need numpy and datasketch (which imports scipy, ~0.5 s): loaded when first
    # asked for, so a job's writer can import the package at start for free
    if name in ("near_duplicate_flags", "near_duplicate_rate"):
        from . import neardup

        return getattr(neardup, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
