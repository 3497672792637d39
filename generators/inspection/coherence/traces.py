"""Slots and traces: what an empty slot leaves behind, and reasoning traces that cite the wrong thing."""

from __future__ import annotations

import json
import re

from toolgym.envs.user_turns import GREETING_ADDRESSEE, GREETING_LEAD, sentence_key

from ..text import Row
from .base import _QUOTED, Knowledge, Message, _quote

# ---- slots and traces ---------------------------------------------------------------------------

# What an empty or missing slot leaves behind: a mark straight after a colon or a bracket, "None",
# a word that needs a continuation right before a full stop ("because.", "the."), or a verb's slot
# missing between words ("it can a profile", "To I'd need", "Next I a profile", "to right now").
_EMPTY_SLOT = re.compile(
    r"[:;(]\s*[.,;:!?)]|\(\s*\)|\bNone\b(?! of)|\bnull\b|\{\{|\}\}|\b(?:to|To)\s+I\b|(?<!\d )\bto (?:right now|at the moment|today)\b|"
    r"\b(?:it|which|that|they) (?:can|could|will|would) (?:a|an|the|your|my)\b|\bI (?:a|an|the|your)\b|"
    r"\b(?:because|since|the|an|your|my|their)\s*[.,;:!?](?!\w)"
)


def empty_slot(row: Row, know: Knowledge) -> list[str]:
    found = []
    for message in row.get("messages") or ():
        if message.get("role") not in ("assistant", "user"):
            continue
        for text in (message.get("content"), message.get("reasoning_content")):
            match = _EMPTY_SLOT.search(_QUOTED.sub('"q"', text)) if isinstance(text, str) else None
            if match:
                found.append(_quote(_QUOTED.sub('"q"', text), match.start()))
    return found


_GREETING = re.compile(
    rf"^{GREETING_LEAD}(?:(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening|day)|morning|evening|greetings|dear [\w ]+|assistant)"
    rf"{GREETING_ADDRESSEE}|"
    r"hello (?:there|again|hello)|hi there|thanks|thank you|ok(?:ay)?|done|right|sure|yes|no|quick one|"
    r"before i forget|one more thing|no worries|of course|great|perfect|cool|got it|alright|all right|cheers|brilliant|"
    r"lovely|wonderful|please|sorry|excuse me|hey there|bye|goodbye|that's all|that's it)[.!?,]*$",
    re.IGNORECASE,
)


def _quotes(text: str) -> list[str]:
    return [a or b for a, b in _QUOTED.findall(text)]


def _quoted_words(text: str) -> list[str]:
    """The words a trace quotes, a cut quote without its closing '…'."""
    return [q.removesuffix("…").strip() for q in _quotes(text)]


def _marks_as_one(text: str) -> str:
    """Double quotation marks read as single: a trace quotes the user's quoted title with single marks."""
    return text.replace('"', "'")


def _traces(messages: list[Message]) -> list[tuple[int, str]]:
    return [
        (i, m["reasoning_content"].strip())
        for i, m in enumerate(messages)
        if m.get("role") == "assistant" and isinstance(m.get("reasoning_content"), str) and m["reasoning_content"].strip()
    ]


_RESULT_FIELD = re.compile(r'"[\w.-]+":(?:"[^"]*"|[^\s,;"]+)')  # '"status":"done"', '"engine_on":false'


def greeting_as_evidence(row: Row, know: Knowledge) -> list[str]:
    """A trace that quotes a greeting, a thanks, filler or an aside that frames the user's turn
    ("Please go slowly with me.") as what it acts on."""
    found = []
    messages = row.get("messages") or []
    asides = know.asides(str(row.get("domain"))) if know.asides is not None else frozenset()
    for index, trace in _traces(messages):
        # a word the turn's own call passes (a search for "morning") is what it acts on, not a greeting
        arguments = json.dumps([c.get("function", c).get("arguments") for c in messages[index].get("tool_calls") or ()]).lower()
        # a result's field cited as it reads ('"status":"done"') quotes no one's words
        weak = [q for q in _quotes(_RESULT_FIELD.sub(" ", trace))
                if (_GREETING.match(q.strip()) or sentence_key(q) in asides) and q.strip().lower() not in arguments]
        if weak:
            found.append(f"{trace[:160]} (cites {weak[0]!r})")
    return found


# a name may hold an acronym after its first word ("Moore EV Hub", "Blair USB Store"), and a word of
# it a capital inside ("Courtney McKinney")
_FACT_TOKEN = re.compile(r"[\w.+-]*\d[\w./:+-]*|[\w.+-]+@[\w.-]+|#\w+|\b(?:Mc)?[A-Z][a-z]+(?:\s+(?:(?:Mc)?[A-Z][a-z]+|[A-Z]{2,}\b))+\b")


def trace_facts(trace: str) -> list[str]:
    """What a trace names that the chat can show: quoted words, ids, numbers, dates, names."""
    facts = [q.strip() for q in _quoted_words(trace)]
    unquoted = _QUOTED.sub(" ", trace)
    facts += [t.strip(".,;:") for t in _FACT_TOKEN.findall(unquoted)]
    return [f for f in facts if f]


def _earlier_text(messages: list[Message], before: int) -> str:
    parts = []
    for message in messages[:before]:
        if message.get("role") == "system":
            continue
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        for call in message.get("user_tool_calls") or ():
            parts.append(str(call))
        for result in message.get("user_tool_results") or ():
            parts.append(str(result))
    return " ".join(parts).lower()


def trace_without_fact(row: Row, know: Knowledge) -> list[str]:
    """A trace that names nothing seen earlier in the chat (no quote, id, amount or name from it)."""
    messages = row.get("messages") or []
    found = []
    for index, trace in _traces(messages):
        earlier = _marks_as_one(_earlier_text(messages, index))
        facts = trace_facts(trace)
        if not any(_marks_as_one(f.lower()) in earlier for f in facts):
            found.append(trace[:160])
    return found
