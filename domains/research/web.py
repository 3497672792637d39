"""How a page's text is cut into parts, and how its sentences are found: one rule for the world,
which records the part holding each fact, and for the tools that show the parts."""

from __future__ import annotations

import re

PART_CHARS = 500  # a part ends at the first paragraph break past this many characters
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def paragraphs(body: str) -> list[str]:
    return [p for p in body.split("\n\n") if p.strip()]


def parts(body: str) -> list[str]:
    """The page's parts: whole paragraphs, each part about PART_CHARS long (the last may be shorter)."""
    found: list[str] = []
    current: list[str] = []
    for paragraph in paragraphs(body):
        current.append(paragraph)
        if sum(len(p) + 2 for p in current) >= PART_CHARS:
            found.append("\n\n".join(current))
            current = []
    if current:
        found.append("\n\n".join(current))
    return found or [""]


def part_of(body: str, sentence: str) -> int:
    """The number (from 1) of the part that holds `sentence`."""
    for number, text in enumerate(parts(body), 1):
        if sentence in text:
            return number
    raise ValueError(f"the sentence {sentence!r} is not on the page")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]
