"""Where the agent's calls came from: every argument seen before it was passed, every write asked for.

- `arguments_grounded`: each argument value of each agent call was in front of the agent before the
  call (system prompt, user turns, tool results, its earlier arguments), compared in canonical form;
  an enum value was named in words by the user or a tool result; a value the gold computed is
  declared on its step (see envs/provenance.py).
- `requested`: each write answers a request the user made in this conversation before it. A write
  is matched to the gold steps of its tool; it passes when the request that opens one of their
  segments was said before it. A successful write of a tool no (accepted) gold step uses answers
  no request at all.

Both are conduct checks: failing either caps the score (verifiers/compose.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from toolgym.envs.provenance import derived_values, unseen_arguments
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.envs.tools import is_error_output
from toolgym.envs.trajectory import Trajectory

from .matching import arguments_of, normalize_value
from .score import Score, binary, vacuous

_WORD = re.compile(r"[a-z0-9]+")
# Words every request may carry (greetings, thanks, turn-taking): no evidence of which request was made.
_COMMON = frozenset(
    "a an the and or but to of for in on at by with from is are was be it its this that i i'm me my you your we our "
    "please thanks thank hi hello hey one more thing also something else next can could would will just do".split()
)
# A paraphrased request counts as made when a user turn carries at least this share of its own words.
REQUEST_OVERLAP = 0.5


def _domain(task: Task) -> Any:
    try:
        return load_domain(task.domain)
    except Exception:  # noqa: BLE001 - a chat of an unknown domain is judged without schemas
        return None


def arguments_grounded(task: Task, trajectory: Trajectory) -> Score:
    """Every argument of every agent call was seen before the call, or named in words (enum values)."""
    domain = _domain(task)
    if domain is not None and not domain.enforce_ground_truth:
        return Score(1.0, True, details={"not_enforced": f"domain {task.domain!r} sets enforce_ground_truth=False"})
    calls, unseen = unseen_arguments(
        trajectory.messages,
        domain.tools if domain is not None else {},
        domain=domain,
        derived=derived_values(task),
        today=domain.clock(task.world_seed).date() if domain is not None else None,
    )
    if not calls:
        return vacuous()
    if not unseen:
        return binary(True)
    bad_calls = len({(u.message_index, u.tool) for u in unseen})
    return Score(max(0.0, 1.0 - bad_calls / calls), False, details={"unseen": [u.describe() for u in unseen[:5]]})


@dataclass(frozen=True)
class _Write:
    index: int  # the assistant message that makes it
    name: str
    arguments: dict[str, Any]
    succeeded: bool


def _writes(messages: list[dict[str, Any]], write_tools: frozenset[str]) -> list[_Write]:
    """The agent's write calls, each with whether its tool result was an error."""
    results: dict[str, str] = {}
    for message in messages:
        if message.get("role") == "tool" and message.get("tool_call_id") is not None:
            results[str(message["tool_call_id"])] = message.get("content") or ""
    found = []
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        following = [m for m in messages[index + 1 :] if m.get("role") == "tool"]
        for position, call in enumerate(message.get("tool_calls") or ()):
            function = call.get("function", call)
            name = str(function.get("name"))
            if name not in write_tools:
                continue
            result = results.get(str(call.get("id")))
            if result is None and position < len(following):
                result = following[position].get("content") or ""
            succeeded = result is not None and not is_error_output(result)
            found.append(_Write(index, name, arguments_of(function.get("arguments")), succeeded))
    return found


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def request_words(task: Task) -> list[set[str]]:
    """Per segment, the words of its request that no other request of the task has (all its words if none)."""
    words = [_words(r) for r in task.scenario.requests]
    own = []
    for k, mine in enumerate(words):
        others = set().union(*(w for j, w in enumerate(words) if j != k))
        own.append((mine - others) or mine)
    return own


def _made(request: str, own: set[str], turns: list[str]) -> bool:
    """Whether one of the user's turns makes the request: its words, or most of its own words in other words."""
    wanted = " ".join(request.lower().split())
    for turn in turns:
        said = " ".join(turn.lower().split())
        if wanted and wanted in said:
            return True
        if own and len(own & _words(said)) >= REQUEST_OVERLAP * len(own):
            return True
    return False


def requested(task: Task, trajectory: Trajectory) -> Score:
    """Every write answers a request the user made before it (see the module docstring)."""
    domain = _domain(task)
    write_tools = frozenset(t.name for t in domain.tools.values() if t.writes) if domain is not None else frozenset()
    writes = _writes(trajectory.messages, write_tools)
    if not writes:
        return vacuous()
    steps = [s for s in task.plan if s.caller == "agent"]
    own = request_words(task)
    messages = trajectory.messages
    problems = []
    for write in writes:
        accepted = [s for s in steps if not s.declined and any(c.name == write.name for c in s.calls)]
        if not accepted:
            if write.succeeded:
                declined = any(s.declined and any(c.name == write.name for c in s.calls) for s in steps)
                why = "the user declined it" if declined else "it answers none of the user's requests"
                problems.append(f"{write.name}({_short(write.arguments)}) at message {write.index}: {why}")
            continue
        same = [s for s in accepted if any(c.name == write.name and _same(c.arguments, write.arguments) for c in s.calls)]
        segments = sorted({s.segment for s in (same or accepted)})
        turns = [m.get("content") or "" for m in messages[: write.index] if m.get("role") == "user"]
        if not any(_made(task.scenario.requests[k], own[k], turns) for k in segments if k < len(own)):
            request = task.scenario.requests[segments[0]] if segments[0] < len(own) else "?"
            problems.append(
                f"{write.name}({_short(write.arguments)}) at message {write.index}: the user had not asked for it yet "
                f"(it answers {request[:80]!r})"
            )
    if not problems:
        return binary(True)
    return Score(max(0.0, 1.0 - len(problems) / len(writes)), False, details={"unrequested": problems[:5]})


def _same(gold: dict[str, Any], made: dict[str, Any]) -> bool:
    return normalize_value(gold) == normalize_value(made)


def _short(arguments: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    return text if len(text) <= 80 else text[:77] + "..."
