"""Stale answers: a reply that states what an earlier read showed, when a later read of the same
call shows otherwise.

A task of several requests is drawn from the world as it was before the chat: a second request
("which plan am I on?") answered from that snapshot states the plan the first request has just
changed. Grounding finds the old plan seen (the first read showed it) and the verifier passes it;
the gold would teach a model to report what it read before a change instead of what it read last.
`stale_outputs` finds such answers in a played chat, so generation can refuse the task.
"""

from __future__ import annotations

import json
from typing import Any

from toolgym.verifiers.matching import normalize_text, output_stated

from .grounding import SeenFacts, extract_facts


def stale_outputs(outputs: list[str], messages: list[dict[str, Any]]) -> list[str]:
    """The required outputs an assistant reply states that some call's earlier result showed while
    that call's latest result (same name and arguments) no longer does, and no result since has
    shown them again (a write's result that confirms the new value keeps it fresh); each described."""
    signature_of: dict[Any, str] = {}  # a call's id -> its name and arguments
    calls = [call for m in messages if m.get("role") == "assistant" for call in m.get("tool_calls") or ()]
    for call in calls:
        function = call.get("function") or {}
        signature_of[call.get("id")] = _signature(function.get("name"), function.get("arguments"))
    if len(set(signature_of.values())) == len(signature_of):
        return []  # no call made twice: nothing was read again
    results: list[tuple[str, str]] = []  # (signature, text) of every result so far, in order
    found: list[str] = []
    for message in messages:
        role, content = message.get("role"), message.get("content")
        if role == "assistant":
            if isinstance(content, str) and content:
                found += [f"{output!r}: {where}" for output in outputs
                          if output_stated(output, content) and (where := _outdated(output, results))]
        elif role == "tool" and isinstance(content, str) and (signature := signature_of.get(message.get("tool_call_id"))):
            results.append((signature, content))
    return list(dict.fromkeys(found))


def _outdated(output: str, results: list[tuple[str, str]]) -> str:
    shown = [i for i, (_, text) in enumerate(results) if _shows(text, output)]
    if not shown:
        return ""
    latest = {signature: i for i, (signature, _) in enumerate(results)}  # each call's latest result
    for signature, last in latest.items():
        if last > shown[-1] and any(results[i][0] == signature for i in shown):
            return f"{signature.split('(', 1)[0]} showed it before, and its latest result does not"
    return ""


def _shows(text: str, output: str) -> bool:
    facts = extract_facts(output)
    if facts:  # amounts, dates, ids: as grounding compares them ("$95.60" is 95.6)
        seen = SeenFacts()
        seen.add(text)
        return all(seen.has(fact) for fact in facts)
    return normalize_text(output) in normalize_text(text)


def _signature(name: Any, arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass
    return f"{name}({json.dumps(arguments, sort_keys=True, default=str)})"
