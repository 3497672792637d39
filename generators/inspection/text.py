"""Text helpers the language figures share: turns of a row, sentences, normalized openings, shingles."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from toolgym.envs.user_turns import NOT_AFTER_TITLE

_SENTENCE_END = re.compile(rf"(?<=[.!?]){NOT_AFTER_TITLE}[\"')\]]*\s+(?=\S)")
_ID_LIKE = re.compile(r"\S*[\d@]\S*")  # any token with a digit or an @: ids, amounts, dates, emails
_PUNCTUATION = re.compile(r"[^\w\s#]|_")
_SPACES = re.compile(r"\s+")

Row = dict[str, Any]


def texts(row: Row, role: str) -> Iterator[str]:
    """The non-empty text turns of one role in a chat row (tool-call turns with no words are skipped)."""
    for message in row.get("messages") or ():
        content = message.get("content")
        if message.get("role") == role and isinstance(content, str) and content.strip():
            yield content.strip()


def split_sentences(text: str) -> list[str]:
    """Sentences of a text: split at line breaks and after . ! ? followed by a space."""
    sentences: list[str] = []
    for line in text.splitlines():
        sentences.extend(part.strip() for part in _SENTENCE_END.split(line) if part.strip())
    return sentences


def first_user_text(row: Row) -> str | None:
    return next(texts(row, "user"), None)


def normalize(text: str) -> str:
    """Lowercase, ids/numbers/emails masked as '#', punctuation stripped, spaces collapsed."""
    masked = _ID_LIKE.sub(" # ", text.lower())
    return _SPACES.sub(" ", _PUNCTUATION.sub(" ", masked)).strip()


def shingles(normalized: str, size: int = 5) -> set[str]:
    """Word n-grams of a normalized text; a text shorter than n words is one shingle."""
    words = normalized.split()
    if len(words) <= size:
        return {" ".join(words)}
    return {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def schema_name(schema: Any) -> str | None:
    """The function name of a tool schema (OpenAI or flat; a dict or its JSON text)."""
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError:
            return None
    if not isinstance(schema, dict):
        return None
    name = (schema.get("function") or schema).get("name")
    return name if isinstance(name, str) else None
