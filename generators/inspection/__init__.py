"""Language and shape figures of a generated corpus (`toolgym inspect`, the card, `toolgym check`).

Pure functions over chat rows live in `metrics` and `grammar`; `collect` reads a dataset
directory, `figures` gathers everything once, `report` prints it and writes the HTML file.
"""

from .grammar import GRAMMAR_CLASSES, GrammarMatch, find_grammar, grammar_findings
from .metrics import (
    headline,
    openings,
    reasoning_traces,
    repeated_turn_share,
    shapes,
    tool_coverage,
    top_sentences,
)
from .neardup import near_duplicate_flags, near_duplicate_rate
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
