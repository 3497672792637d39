"""Judgement checks: a choice left to the user is the user's, and an id a tool can find is not asked for.

- `chosen` (conduct): where the user's words fit several records (`Step.choice`), the agent acts
  on one only after the user picked it: the user named their pick (the choice's fact) before the
  act, or the agent asked a question naming two candidates or more and the user's answer named one
  (an option, or a telling word of the pick: its date, its last four). Acting first is a guess,
  right or wrong, and caps the score.
- `looked_up` (multiplier): the agent never asks the user for what the user cannot tell but a
  tool finds (`Scenario.lookups`: an order number for "my last order"). Asking halves the score.
"""

from __future__ import annotations

import re
from typing import Any

from toolgym.envs.conversation import mentions, request_text, said_before
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Step, Task
from toolgym.envs.trajectory import Trajectory

from .matching import arguments_of, normalize_value
from .score import Score, binary, vacuous

ASKED_FOR_LOOKUP = 0.5  # the multiplier when the agent asked for what it should have looked up


def chosen(task: Task, trajectory: Trajectory) -> Score:
    """Every act on one of several candidates comes after the user picked it (see the module docstring)."""
    steps = [s for s in task.plan if s.choice is not None and not s.declined and s.caller == "agent"]
    if not steps:
        return vacuous()
    writes = _write_tools(task)
    messages = trajectory.messages
    problems = []
    for step in steps:
        at = _first_act(step, messages, writes, _request_index(task, step, messages))
        if at is not None and not _picked_before(task, step, messages, at):
            choice = step.choice
            assert choice is not None
            problems.append(f"message {at} acts on one of {choice.options} before the user said which {choice.label}")
    return binary(not problems, **({"guessed": problems} if problems else {}))


def looked_up(task: Task, trajectory: Trajectory) -> Score:
    """No assistant turn asks the user for what a tool finds (the task's lookups)."""
    facts = task.scenario.lookups
    if not facts:
        return vacuous()
    problems = []
    for message in trajectory.agent_messages:
        asking = request_text(message.get("content") or "")
        for fact in facts:
            if asking and mentions(asking, fact.keywords or [fact.label]):
                problems.append(f"asked the user for the {fact.label}, which a lookup finds: {asking[:80]!r}")
    if not problems:
        return binary(True)
    return Score(ASKED_FOR_LOOKUP, False, details={"asked": list(dict.fromkeys(problems))[:3]})


def _write_tools(task: Task) -> frozenset[str]:
    try:
        return load_domain(task.domain).write_tools
    except Exception:  # noqa: BLE001 - a chat of an unknown domain: only exact gold calls count as acts
        return frozenset()


def _request_index(task: Task, step: Step, messages: list[dict[str, Any]]) -> int:
    """Where the user made the request the step answers (0 if it cannot be found)."""
    request = " ".join(task.scenario.requests[step.segment].lower().split()) if step.segment < task.segments else ""
    for index, message in enumerate(messages):
        if message.get("role") == "user" and request and request in " ".join((message.get("content") or "").lower().split()):
            return index
    return 0


def _first_act(step: Step, messages: list[dict[str, Any]], writes: frozenset[str], start: int) -> int | None:
    """The first assistant message after `start` that makes the step's act: a call of its tool with
    the gold arguments, or any call of its tool when that tool writes (a guess at another candidate)."""
    gold = {(c.name, _key(c.arguments)) for c in step.calls}
    names = {c.name for c in step.calls}
    for index in range(start, len(messages)):
        message = messages[index]
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or ():
            function = call.get("function", call)
            name = function.get("name")
            if name in names and (name in writes or (name, _key(arguments_of(function.get("arguments")))) in gold):
                return index
    return None


def _key(arguments: dict[str, Any]) -> str:
    return repr(normalize_value(arguments))


def _picked_before(task: Task, step: Step, messages: list[dict[str, Any]], at: int) -> bool:
    choice = step.choice
    assert choice is not None
    fact = task.scenario.fact(choice.fact)
    asked = False
    for message in messages[:at]:
        role, text = message.get("role"), message.get("content") or ""
        if role == "user" and fact is not None and said_before(fact.value, text):
            return True  # the user named the pick (a withheld fact is said only when asked)
        if role == "assistant" and request_text(text):  # a turn that asks, naming the candidates anywhere in it
            asked = asked or sum(1 for option in choice.options if mentions(text, [option])) >= 2
        elif role == "user" and asked and _names_pick(text, choice.options, fact.value if fact is not None else ""):
            return True  # a question naming the candidates, then an answer that names one
    return False


# Words of a pick's description that do not tell candidates apart.
_PLAIN = frozenset("the one a an that this which placed on in at with ending from for and of my is it i mean".split())


def _names_pick(text: str, options: list[str], answer: str) -> bool:
    """Whether a user turn names a candidate: an option, or a telling word of the pick ("2025-05-19", "0544")."""
    if mentions(text, options):
        return True
    telling = [w for w in re.findall(r"[a-z0-9][a-z0-9-]*", answer.lower()) if w not in _PLAIN and len(w) >= 3]
    said = set(re.findall(r"[a-z0-9][a-z0-9-]*", text.lower()))
    return any(w in said for w in telling)
