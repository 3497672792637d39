"""How the agent got there: grounded statements, consent before guarded writes, diagnosis before
fixes, a final answer that states the outcome, and no repeated calls.

Each is a pure check (task, trajectory) -> Score, registered in CHECKS beside the outcome checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from toolgym.envs.conversation import asks_confirmation
from toolgym.envs.grounding import StatedFact, extract_facts, ungrounded_facts
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Step, Task
from toolgym.envs.tools import is_error_output
from toolgym.envs.trajectory import Trajectory

from .matching import YEARLESS, arguments_of, canonical_call, normalize_text, output_stated, subset_matches
from .replies import content_words
from .score import Score, binary

_AFFIRMATIVE = re.compile(r"\b(yes|yeah|yep|sure|ok(ay)?|confirm(ed)?|go ahead|please do|proceed|do it|that's right|correct)\b", re.I)
_NEGATIVE = re.compile(r"\b(no|nope|don't|do not|not now|cancel that|never mind|rather not|stop)\b", re.I)
# Replies that say nothing a reader could check: what a lazy or hollow final answer looks like.
_GENERIC = re.compile(
    r"^\s*(ok(ay)?|done|sure|all set|all done|it'?s (all )?(done|taken care of)|"
    r"(done|ok(ay)?)[,.!]? (it'?s|all) (all )?(taken care of|set|done)|no problem|will do|got it)[.!]*\s*$",
    re.I,
)


@lru_cache(maxsize=4096)
def _schemas_text(domain: str, tools: tuple[str, ...]) -> str:
    import json

    return json.dumps(load_domain(domain).schemas(list(tools)))


def _seen_prefix(task: Task) -> list[dict[str, Any]]:
    """The tool schemas offered are in front of the model too (formats, examples)."""
    try:
        return [{"role": "system", "content": _schemas_text(task.domain, tuple(task.tools))}]
    except Exception:  # noqa: BLE001 - an unknown domain offers no schema text; the chat still counts
        return []


def grounded(task: Task, trajectory: Trajectory) -> Score:
    """Every fact an assistant turn states was seen earlier in the chat (or in the offered tools)."""
    if not _enforced(task.domain):
        return Score(1.0, True, details={"not_enforced": f"domain {task.domain!r} sets enforce_ground_truth=False"})
    prefix = _seen_prefix(task)
    bad = ungrounded_facts(prefix + trajectory.messages)
    if not bad:
        return binary(True)
    turns = {f.turn for f in bad}
    total = max(1, sum(1 for m in trajectory.messages if m.get("role") == "assistant" and m.get("content")))
    return Score(max(0.0, 1.0 - len(turns) / total), False, details={"ungrounded": [f.describe() for f in bad[:5]]})


def _enforced(domain: str) -> bool:
    try:
        return load_domain(domain).enforce_ground_truth
    except Exception:  # noqa: BLE001 - a chat of an unknown domain is still checked
        return True


def _writes(task: Task) -> frozenset[str]:
    return load_domain(task.domain).write_tools


def _call_positions(messages: list[dict[str, Any]]) -> list[tuple[int, str, str, dict[str, Any]]]:
    """(message index, caller, name, arguments) of every call in the chat."""
    found = []
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or ():
                function = call.get("function", call)
                found.append((index, "agent", str(function.get("name")), arguments_of(function.get("arguments"))))
        elif message.get("role") == "user":
            for call in message.get("user_tool_calls") or ():
                found.append((index, "user", str(call.get("name")), arguments_of(call.get("arguments"))))
    return found


def _named_values(step: Step) -> set[str]:
    """What could name this step in words: its argument values and the words of its confirmation."""
    values = {
        str(value).lower()
        for call in step.calls
        for value in call.arguments.values()
        if isinstance(value, str | int | float) and not isinstance(value, bool) and len(str(value)) >= 3
    }
    return values | set(content_words(step.confirm or ""))


def _names_action(text: str, step: Step, siblings: Sequence[Step] = ()) -> bool:
    """Whether a confirmation question names the step's action: an argument value or the action's words.

    Where other guarded steps use the same tool, the question must name a value of this step that
    they do not share ("cancel #W2", not just "cancel the order"): one yes answers one question.
    """
    lowered = text.lower()
    distinct = _named_values(step).difference(*(_named_values(s) for s in siblings))
    if siblings and distinct:
        return any(value in lowered for value in distinct)
    for call in step.calls:
        for value in call.arguments.values():
            if isinstance(value, str | int | float) and not isinstance(value, bool) and len(str(value)) >= 3:
                if str(value).lower() in lowered or _moment_named(str(value), text):
                    return True
    return any(len(w) >= 4 and w in lowered for call in step.calls for w in call.name.split("_"))


def _moment_named(value: str, text: str) -> bool:
    """Whether an argument that is a day or a time ("2025-03-13 09:00") is named in words ("Thursday,
    March 13 at 09:00"): each of its facts is said, a day with or without its year."""
    wanted = extract_facts(value)
    if not wanted or any(f.kind not in ("date", "time") for f in wanted):
        return False

    def named(fact: StatedFact) -> tuple[str, str]:  # a day by its month and day alone
        return fact.kind, fact.value[-YEARLESS:] if fact.kind == "date" else fact.value

    said = {named(f) for f in extract_facts(text)}
    return all(named(f) in said for f in wanted)


def consent(task: Task, trajectory: Trajectory) -> Score:
    """A write the policy asks to confirm follows a question naming it (and warning of what its step
    must disclose) and a user yes, with no other write between."""
    guarded = [s for s in task.plan if s.confirm and s.caller == "agent" and not s.declined]
    if not guarded:
        return binary(True)
    writes = _writes(task)
    messages = trajectory.messages
    calls = _call_positions(messages)
    by_tool: dict[str, list[Step]] = {}
    for step in guarded:
        for name in dict.fromkeys(c.name for c in step.calls):
            by_tool.setdefault(name, []).append(step)
    problems = []
    for index, caller, name, arguments in calls:
        if caller != "agent" or name not in by_tool:
            continue
        # A call answers to the step with its very arguments (two guarded writes of one tool in a
        # task each need their own yes); a call matching none must follow a yes to one of them.
        steps = by_tool[name]
        own = [s for s in steps if any(c.name == name and c.arguments == arguments for c in s.calls)]
        start = turn_start(messages, index)
        found = [
            _consent_before(messages, calls, start, step, writes, [s for s in steps if s is not step])
            for step in own or steps
        ]
        if all(found):
            problems.append(f"{name} at message {index}: {found[0]}")
    return binary(not problems, **({"problems": problems[:5]} if problems else {}))


def turn_start(messages: list[dict[str, Any]], index: int) -> int:
    """The first message of the agent turn holding message `index`.

    Consecutive tool calls with no words between them are one turn, whether they came in one
    message or one call per message with their results between (as TRL runs a turn's calls).
    """
    start = index
    at = index - 1
    while at >= 0:
        role = messages[at].get("role")
        if role == "tool":
            at -= 1
            continue
        if role == "assistant" and messages[at].get("tool_calls") and not (messages[at].get("content") or "").strip():
            start = at
            at -= 1
            continue
        break
    return start


def _consent_before(messages, calls, index: int, step: Step, writes: frozenset[str], siblings: list[Step]) -> str | None:
    """Why the call of the turn starting at `index` lacks consent (None if it has it)."""
    user_at = next((i for i in range(index - 1, -1, -1) if messages[i].get("role") == "user" and messages[i].get("content")), None)
    if user_at is None:
        return "no user reply before it"
    reply = messages[user_at]["content"] or ""
    if not _AFFIRMATIVE.search(reply) or _NEGATIVE.search(reply):
        return f"the user's last words were not a yes ({reply[:60]!r})"
    ask_at = next((i for i in range(user_at - 1, -1, -1) if messages[i].get("role") == "assistant"), None)
    asked = (messages[ask_at].get("content") or "") if ask_at is not None else ""
    if not asks_confirmation(asked) or not _names_action(asked, step, siblings):
        return "the user's yes did not answer a question naming this action"
    if untold := [value for value in step.disclose if not output_stated(value, asked)]:
        return f"the question the user said yes to did not state {untold[0]!r}"
    if any(ask_at < i < index and caller == "agent" and name in writes for i, caller, name, _ in calls):
        return "another write came between the confirmation and the call"
    return None


def diagnosis(task: Task, trajectory: Trajectory) -> Score:
    """Every fix follows a tool result or user message that shows the fault it fixes."""
    fixes = [s for s in task.plan if s.evidence and not s.declined]
    if not fixes:
        return binary(True)
    messages = trajectory.messages
    calls = _call_positions(messages)
    problems = []
    for step in fixes:
        evidence = [e.lower() for e in step.evidence]
        for call in step.calls:
            at = next(
                (i for i, caller, name, args in calls if caller == step.caller and name == call.name and subset_matches(call.arguments, args)),
                None,
            )
            if at is None:
                continue  # never made: the outcome checks see that
            decided = next((i for i in range(at, -1, -1) if messages[i].get("role") == "assistant"), at)
            shown = any(
                m.get("role") in ("tool", "user") and any(e in (m.get("content") or "").lower() for e in evidence)
                for m in messages[:decided]
            )
            if not shown:
                problems.append(f"{call.name} at message {at} before any sign of {step.evidence[:2]}")
    return binary(not problems, **({"problems": problems[:5]} if problems else {}))


def _texts_after_calls(trajectory: Trajectory) -> list[str]:
    """Assistant text messages that report (come after a tool result) and are not questions asking for a yes."""
    texts, acted = [], False
    for message in trajectory.messages:
        if message.get("role") in ("tool", "user") and (message.get("role") == "tool" or message.get("user_tool_results")):
            acted = True
        content = message.get("content") or ""
        if message.get("role") == "assistant" and content and acted and not asks_confirmation(content):
            texts.append(content)
    return texts


def final_reply_index(messages: list[dict[str, Any]]) -> int | None:
    """The assistant's last reply in words, not counting a closing line after the user's last words.

    A closer is a last assistant message that follows a user message, states no fact, and comes
    after an earlier reply; the report before it is the final reply.
    """
    texts = [i for i, m in enumerate(messages) if m.get("role") == "assistant" and not m.get("tool_calls")]
    if not texts:
        return None
    last = texts[-1]
    trailing = last == len(messages) - 1 and last > 0 and messages[last - 1].get("role") == "user"
    if trailing and len(texts) > 1 and not extract_facts(messages[last].get("content") or ""):
        return texts[-2]
    return last


def final_answer(task: Task, trajectory: Trajectory) -> Score:
    """An acting task's outputs are reported after acting, and its last reply is neither empty nor generic."""
    if task.no_tool is not None:
        return binary(True)
    at = final_reply_index(trajectory.messages)
    last = (trajectory.messages[at].get("content") or "") if at is not None else ""
    problems = []
    if not last.strip():
        problems.append("the final reply is empty")
    elif _GENERIC.match(last) or (not extract_facts(last) and len(last.split()) < 6):
        problems.append(f"the final reply says nothing checkable: {last[:60]!r}")
    if task.required_outputs:
        after = " ".join(_texts_after_calls(trajectory))
        reported = normalize_text(after)
        missing = [o for o in task.required_outputs if not output_stated(o, after, reported)]
        if missing:
            problems.append(f"not reported after acting: {missing}")
    return binary(not problems, **({"problems": problems} if problems else {}))


def repeats(task: Task, trajectory: Trajectory) -> Score:
    """No write made twice, and no read repeated with nothing changed in between.

    A multiplier: a repeated write (a second charge, a second message) zeroes the score, each
    repeated read costs a tenth of it (down to half).
    """
    problems = repeated_calls(task, trajectory.messages)
    if not problems:
        return binary(True)
    if any(p.startswith("write") for p in problems):
        value = 0.0
    else:
        value = max(0.5, 1.0 - 0.1 * len(problems))
    return Score(value, False, details={"problems": problems[:5]})


def repeated_calls(task: Task, messages: list[dict[str, Any]]) -> list[str]:
    """Writes made twice and reads repeated with no write (or device action) in between."""
    writes = _writes(task)
    seen_reads: set[str] = set()
    seen_writes: set[str] = set()
    problems = []
    for _, caller, name, args in _call_positions(messages):
        key = canonical_call(name, args)
        if caller == "user" or name in writes:
            seen_reads.clear()  # the world may have changed: reading again is fair
            if caller == "agent":
                if key in seen_writes:
                    problems.append(f"write {name} repeated")
                seen_writes.add(key)
            continue
        if key in seen_reads:
            problems.append(f"read {name} repeated with nothing changed")
        seen_reads.add(key)
    return problems


def failed_calls(messages: list[dict[str, Any]]) -> int:
    """Tool results that were errors (the env answers a bad call with {"error": ...})."""
    return sum(1 for m in messages if m.get("role") == "tool" and is_error_output(m.get("content")))
