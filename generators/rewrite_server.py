"""The reference server's rewrite mode: a deterministic stand-in for a rewriting model.

A request is a rewrite request when its model name starts with `toolgym-rewrite` or its
`X-Toolgym-Role` header is `rewriter`. The texts come from the prompt as a model would read
them: the JSON list between `<texts>` and `</texts>` in the last user message
(templates/rewrite.md.j2). Each text gets word swaps that keep its facts and its acts (no
number, id, yes/no or confirmation word is touched), drawn from a seed and the text, so the same
request always gets the same answer and a test can predict it.

With break_rate > 0, that share of chats (chosen by a hash of their texts, so independent of
request order) come back with an unseen amount added to the last assistant text: a rewrite that
breaks a fact, which the job must drop.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

from .chat_client import ROLE_HEADER as CLIENT_ROLE_HEADER

REWRITE_MODEL = "toolgym-rewrite"
ROLE_HEADER = CLIENT_ROLE_HEADER.lower()
BROKEN_FACT = " That comes to $912.37 in total."  # an amount no chat has shown: grounding must catch it
# (pattern, replacement): wording only; affirmatives, negatives, confirmation and request words stay
SWAPS: tuple[tuple[str, str], ...] = (
    (r"\bI'll\b", "I will"),
    (r"\bI will\b", "I'll"),
    (r"\bI've\b", "I have"),
    (r"\bI'm\b", "I am"),
    (r"\byou're\b", "you are"),
    (r"\bThanks\b", "Thank you"),
    (r"\bthank you\b", "thanks"),
    (r"\bHi\b", "Hello"),
    (r"\bHello\b", "Hi"),
    (r"\bCould you\b", "Can you"),
    (r"\bCan you\b", "Could you"),
    (r"\bright away\b", "straight away"),
    (r"\ba moment\b", "a second"),
    (r"\bcurrently\b", "at the moment"),
    (r"\bLet me\b", "I'll"),
)
_COMPILED = tuple((re.compile(pattern), replacement) for pattern, replacement in SWAPS)
_TEXTS = re.compile(r"<texts>\s*(.*?)\s*</texts>", re.S)


class BadRewriteRequest(ValueError):
    """The request has no `<texts>` list to rewrite."""


def is_rewrite_request(body: dict[str, Any], headers: dict[str, str]) -> bool:
    model = body.get("model")
    return (isinstance(model, str) and model.startswith(REWRITE_MODEL)) or headers.get(ROLE_HEADER) == "rewriter"


def rewrite_text(text: str, seed: int) -> str:
    """Seeded word swaps: each applicable swap is taken or not by a draw from (seed, text)."""
    rng = random.Random(f"{seed}:{text}")
    out = text
    for pattern, replacement in _COMPILED:
        if pattern.search(out) and rng.random() < 0.7:
            out = pattern.sub(replacement, out)
    return out


def breaks(texts: list[dict[str, Any]], seed: int, break_rate: float) -> bool:
    """Whether this chat's rewrite is broken on purpose (a hash of its texts, so order-independent)."""
    if break_rate <= 0:
        return False
    digest = hashlib.sha256(f"{seed}:{json.dumps(texts, sort_keys=True)}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < break_rate


class RewriteResponder:
    """Answers rewrite requests with `{"texts": [...]}`; counts what it broke."""

    def __init__(self, seed: int = 0, break_rate: float = 0.0):
        if not 0.0 <= break_rate <= 1.0:
            raise ValueError(f"rewrite break_rate={break_rate} must be a share between 0 and 1")
        self.seed, self.break_rate = seed, break_rate
        self.rewritten = 0
        self.broken = 0

    def texts_of(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        messages = body.get("messages") or []
        last = next((m for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), None)
        found = _TEXTS.search(str((last or {}).get("content") or ""))
        if found is None:
            raise BadRewriteRequest("a rewrite request's last user message must hold the texts as a JSON list "
                                    "between <texts> and </texts> (see templates/rewrite.md.j2)")
        try:
            texts = json.loads(found.group(1))
        except ValueError as exc:
            raise BadRewriteRequest(f"the list between <texts> and </texts> is not JSON: {exc}") from None
        if not isinstance(texts, list) or not all(isinstance(t, dict) and isinstance(t.get("text"), str) for t in texts):
            raise BadRewriteRequest('<texts> must hold a list of {"role": ..., "text": ...} objects')
        return texts

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = self.texts_of(body)
        out = [rewrite_text(t["text"], self.seed) for t in texts]
        self.rewritten += 1
        assistant = [i for i, t in enumerate(texts) if t.get("role") == "assistant"]
        if assistant and breaks(texts, self.seed, self.break_rate):
            self.broken += 1
            out[assistant[-1]] = out[assistant[-1]].rstrip() + BROKEN_FACT
        return {"role": "assistant", "content": json.dumps({"texts": out}, ensure_ascii=False)}
