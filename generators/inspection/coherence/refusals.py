"""Refusals: asking for a fact the user lacks, an invalid value answered without the valid one."""

from __future__ import annotations

import re
from typing import Any

from ..text import Row, split_sentences
from .base import Knowledge, _content, _quote, _said

# ---- refusals --------------------------------------------------------------------------------

_UNKNOWN = re.compile(
    r"\b(?:don't|do not|can't|cannot|didn't) (?:know|remember|recall|have|find|see)\b|\bnot sure\b|\bno idea\b|"
    r"\bhaven't (?:decided|got|picked|chosen)\b|\bforgot\b|\bdon't know\b|\bunsure\b|\bnot with me\b",
    re.IGNORECASE,
)
_ASKING = re.compile(r"\?|\b(?:could you|can you|please) (?:give|tell|share|send|provide|let)\b|\bwhat(?:'s| is) (?:your|the)\b", re.IGNORECASE)


def asked_what_user_lacks(row: Row, know: Knowledge) -> list[str] | None:
    """The user has just said they do not have a fact, and the next turn asks them for it anyway."""
    if know.task is None:
        return None
    task = know.task(row.get("task_id"))
    if task is None or not task.scenario.unknown:
        return []
    messages = row.get("messages") or []
    found = []
    for index, message in enumerate(messages[:-1]):
        text = _content(message)
        if message.get("role") != "user" or not _UNKNOWN.search(text):
            continue
        # what they say they lack: a label in the sentence that says so ("I don't have time for this."
        # before "Adjust the charge limit." lacks nothing)
        saying = " ".join(s for s in split_sentences(text) if _UNKNOWN.search(s)).lower()
        lacking = [label for label in task.scenario.unknown if label.lower() in saying]
        if not lacking and not any(w in saying for w in ("don't know", "not sure", "no idea")):
            continue
        labels = lacking or list(task.scenario.unknown)
        reply = next((m for m in messages[index + 1 :] if m.get("role") == "assistant"), None)
        answer = _content(reply) if reply else ""
        questions = [s for s in split_sentences(answer) if _ASKING.search(s)]
        if any(label.lower() in q.lower() for q in questions for label in labels):
            found.append(f"{_quote(text)} -> {_quote(answer)}")
    return found


def invalid_without_offer(row: Row, know: Knowledge) -> list[str] | None:
    """An invalid value whose nearest valid value exists, answered without offering it."""
    if know.task is None:
        return None
    if row.get("kind") != "no_tool/invalid_value":
        return []
    task = know.task(row.get("task_id"))
    if task is None:
        return []
    offer = _valid_value(task)
    if not offer:
        return []
    said = " ".join(text for _, text in _said(row.get("messages") or [], "assistant"))
    return [] if offer.lower() in said.lower() else [f"valid {offer!r} not offered: {_quote(said)}"]


def _valid_value(task: Any) -> str:
    """The valid value the task's reply offers ('3 bags', '25'), when it has one."""
    for reply in task.replies:
        value = reply.vars.get("valid")
        if value:
            return str(value)
    return ""
