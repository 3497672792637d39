"""Spoils for the judgement structures (envs/structures.py): each must score below 1.0.

- `guessed_choice`: the question that names the candidates and the user's pick removed from a
  gold chat: the agent acts on one of several records without asking which.
- `abandoned_request`: the call of a request the user took back (a declined change, the booking
  a corrected date would have made) made just before the final reply.
- `asked_for_lookup`: the agent asks the user for an id a tool finds ("What's the order number?"),
  the user says they do not know it, and the gold chat goes on.
"""

from __future__ import annotations

import copy
from typing import Any

from toolgym.envs.conversation import said_before
from toolgym.envs.registry import load_domain
from toolgym.envs.replay import replay_messages, run_call
from toolgym.envs.task import Task, ToolCall

from .conduct import final_reply_index

Chat = list[dict[str, Any]]
ASK_FOR_LOOKUP = "Before I go on, could you give me the {label}?"
DO_NOT_KNOW = "Sorry, I don't know it."


def guessed_choice(task: Task, messages: Chat) -> Chat | None:
    """The first choice's question and the user's answer removed."""
    for step in task.plan:
        if step.choice is None or step.declined:
            continue
        fact = task.scenario.fact(step.choice.fact)
        answer = next(
            (i for i, m in enumerate(messages) if m.get("role") == "user" and fact is not None and said_before(fact.value, m.get("content") or "")),
            None,
        )
        if answer is None or answer == 0 or messages[answer - 1].get("role") != "assistant":
            continue
        return [copy.deepcopy(m) for i, m in enumerate(messages) if i not in (answer - 1, answer)]
    return None


def abandoned_request(task: Task, messages: Chat) -> Chat | None:
    """A call of a request taken back, with the result it gives, made right after the user took it back
    (after the revising request; before the final reply for a change declined with no revision)."""
    final = final_reply_index(messages)
    if final is None:
        return None
    places = [(_after_request(task, r.segment, messages), r.abandoned) for r in task.scenario.revisions]
    places.append((final, task.declined_calls()))
    domain = load_domain(task.domain)
    for at, calls in places:
        if at is None or not calls:
            continue
        world = replay_messages(domain, task, messages[:at])
        try:
            for call in calls:
                outcome = run_call(domain, world, set(task.tools), call.name, call.arguments)
                if not outcome.error:
                    return [*copy.deepcopy(messages[:at]), *_call_messages(call, outcome.content), *copy.deepcopy(messages[at:])]
        finally:
            world.close()
    return None


def _after_request(task: Task, segment: int, messages: Chat) -> int | None:
    request = task.scenario.requests[segment] if segment < task.segments else None
    at = next((i for i, m in enumerate(messages) if m.get("role") == "user" and m.get("content") == request), None)
    return None if at is None else at + 1


def asked_for_lookup(task: Task, messages: Chat) -> Chat | None:
    """A question for a looked-up id and the user's "I don't know" after the opening request."""
    if not task.scenario.lookups:
        return None
    first = next((i for i, m in enumerate(messages) if m.get("role") == "user"), None)
    if first is None:
        return None
    label = task.scenario.lookups[0].label
    asked = [
        {"role": "assistant", "content": ASK_FOR_LOOKUP.format(label=label)},
        {"role": "user", "content": DO_NOT_KNOW},
    ]
    return [*copy.deepcopy(messages[: first + 1]), *asked, *copy.deepcopy(messages[first + 1 :])]


def _call_messages(call: ToolCall, result: str) -> Chat:
    call_id = "call_taken_back"
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": call.name, "arguments": dict(call.arguments)}}],
        },
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]
