"""The user: delight at a refusal, a sentence said twice, a voice that does not fit the customer."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from toolgym.envs.user_turns import sentence_key

from ..text import Row, split_sentences
from .base import _QUOTED, REFUSING_KINDS, Knowledge, _content, _quote, _said

# ---- the user ---------------------------------------------------------------------------------

_DELIGHT = re.compile(
    r"\b(?:wonderful|great|perfect|amazing|brilliant|fantastic|excellent|lovely|awesome|made my day|thank you so much|"
    r"thanks so much|about time|finally|you're a star|that's a relief|appreciate it so much|really appreciate)\b",
    re.IGNORECASE,
)


def delight_after_refusal(row: Row, know: Knowledge) -> list[str]:
    """A user pleased by a refusal, a notice that their value is invalid, or a question back."""
    if row.get("kind") not in REFUSING_KINDS:
        return []
    messages = row.get("messages") or []
    found = []
    refused = False
    for message in messages:
        if message.get("role") == "assistant" and _content(message) and not message.get("tool_calls"):
            refused = True
        elif message.get("role") == "user" and refused:
            text = _content(message)
            match = _DELIGHT.search(text)
            if match:
                found.append(_quote(text, match.start()))
            break
    return found


def repeated_user_sentence(row: Row, know: Knowledge) -> list[str]:
    """The same user sentence twice in one chat (a message quoted for sending is the user's cargo, not
    their words; a request that takes back the one before restates what it changes)."""
    counts: Counter[str] = Counter()
    shown: dict[str, str] = {}
    task = know.task(row.get("task_id")) if know.task else None
    requests = task.scenario.requests if task is not None else []
    revised = {  # a revising request -> the sentences of the request it takes back
        requests[r.segment]: {sentence_key(s) for s in split_sentences(requests[r.segment - 1])}
        for r in (task.scenario.revisions if task is not None else ())
        if 0 < r.segment < len(requests)
    }
    for _, text in _said(row.get("messages") or [], "user"):
        for sentence in split_sentences(_QUOTED.sub('"q"', text)):
            key = sentence_key(sentence)
            if key in revised.get(text, ()) or key == "q":  # "q": a sentence that is only a quoted message
                continue
            if key:
                counts[key] += 1
                shown.setdefault(key, sentence)
    return [shown[k] for k, n in counts.items() if n > 1]


_DEAR = re.compile(r",\s*dear\b|\bdear\s*[.!?]", re.IGNORECASE)


def register_mismatch(row: Row, know: Knowledge) -> list[str] | None:
    """A voice that does not fit the customer: an elderly turn of phrase ('dear') from a persona who
    is not elderly, or an elderly persona for a customer whose birth date makes them younger."""
    if know.task is None:
        return None
    task = know.task(row.get("task_id"))
    if task is None:
        return []
    from toolgym.envs.phrasing import persona_fits, register_of

    age = customer_age(task)
    if not persona_fits(task.scenario.persona, age):
        return [f"an elderly persona for a customer aged {age}: {task.scenario.persona}"]
    if register_of(task.scenario.persona) == "elderly":
        return []
    found = []
    for _, text in _said(row.get("messages") or [], "user"):
        match = _DEAR.search(text)
        if match:
            found.append(f"{_quote(text, match.start())} (persona: {task.scenario.persona})")
    return found


def customer_age(task: Any) -> int | None:
    """The customer's age on the world's date, when the task's facts hold their birth date."""
    from toolgym.envs.phrasing import speaker_age
    from toolgym.envs.registry import load_domain

    return speaker_age(task.scenario.facts, load_domain(task.domain).clock(task.world_seed).date())
