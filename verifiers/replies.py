"""What a no-tool reply must say, by kind, read from the task's spec (rule-based).

- irrelevant: declines and states the service's scope;
- missing_info: asks for the named missing facts (about the right person);
- unavailable: says the named action cannot be done;
- invalid_value: names the bad value and why it is bad;
- policy_refusal: declines and states the rule.

Where the spec leaves a field empty, the values the gold reply was rendered with (the task's
`replies[0].vars`: scope, action, value, problem, rule) stand in.
"""

from __future__ import annotations

import re
from typing import Any

from toolgym.envs.conversation import is_request, mentions
from toolgym.envs.task import Task
from toolgym.envs.trajectory import Trajectory

from .score import Score, binary, vacuous

DECLINE = re.compile(
    r"\b(can(no|')t|cannot|unable|not able|isn't possible|is not possible|not possible|outside|unfortunately|"
    r"sorry|decline|not allowed|won't be able|no tool|don't have a tool|not available|isn't available|only (help|assist))\b",
    re.I,
)
_WHY = re.compile(r"\b(invalid|not valid|isn't valid|not a valid|wrong|doesn't exist|does not exist|not found|format|must|should)\b", re.I)
_STOP = {
    "the", "a", "an", "and", "or", "of", "to", "for", "in", "on", "with", "your", "my", "is", "are", "be", "it", "that",
    "this", "can", "only", "not", "any", "from", "by", "at", "as", "we", "you", "i", "our", "their", "his", "her",
}  # fmt: skip
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")


def content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) >= 3]


def covers(said: str, phrase: str, share: float = 0.5) -> bool:
    """Whether `said` carries at least `share` of the content words of `phrase` (all, if it has one or two)."""
    words = content_words(phrase)
    if not words:
        return True
    lowered = said.lower()
    hits = sum(1 for w in words if w in lowered)
    return hits >= (len(words) if len(words) <= 2 else max(1, round(share * len(words))))


def _var(task: Task, name: str) -> Any:
    return task.replies[0].vars.get(name) if task.replies else None


def reply_content(task: Task, trajectory: Trajectory) -> Score:
    """The no-tool reply says what the kind requires (see the module docstring).

    Partial credit: the share of the kind's requirements met (a decline that forgets the scope
    earns half); `passed` needs all of them.
    """
    spec = task.no_tool
    if spec is None:
        return vacuous()
    said = " ".join(m.get("content") or "" for m in trajectory.agent_messages)
    checks: list[tuple[bool, str]] = []  # (met, what is missing if not)
    kind = task.kind
    if kind == "no_tool/irrelevant":
        scope = spec.scope or _var(task, "scope") or ""
        checks.append((bool(DECLINE.search(said)), "did not decline"))
        if scope:
            checks.append((covers(said, scope, share=0.3), f"did not state the scope ({scope})"))
    elif kind == "no_tool/missing_info":
        asking = " ".join(s for s in re.split(r"(?<=[.?!])\s+", said) if is_request(s))
        for label in spec.missing:
            checks.append((mentions(asking, [label]), f"did not ask for {label!r}"))
        if spec.about:
            checks.append((mentions(asking, [spec.about]), f"did not ask about the right person ({spec.about})"))
    elif kind == "no_tool/unavailable":
        action = spec.action or _var(task, "action") or " ".join(t.replace("_", " ") for t in spec.withheld_tools)
        checks.append((bool(DECLINE.search(said)), "did not say it cannot be done"))
        if action:
            checks.append((covers(said, str(action)), f"did not name the action ({action})"))
    elif kind == "no_tool/invalid_value":
        values = [str(v) for v in spec.invalid.values()] or ([str(_var(task, "value"))] if _var(task, "value") else [])
        named = bool(values) and all(v.lower() in said.lower() for v in values)
        checks.append((named, f"did not name the invalid value(s) {values}"))
        problem = spec.problem or _var(task, "problem") or ""
        checks.append((bool(_WHY.search(said) or (problem and covers(said, str(problem)))), "did not say why the value is invalid"))
    elif kind == "no_tool/policy_refusal":
        rule = spec.rule or _var(task, "rule") or spec.reason
        checks.append((bool(DECLINE.search(said)), "did not decline"))
        if rule:
            checks.append((covers(said, str(rule)), f"did not state the rule ({rule})"))
    if not said.strip():
        return binary(False, problems=["the agent never replied in words"])
    if not checks:
        return binary(True)
    problems = [what for met, what in checks if not met]
    value = sum(met for met, _ in checks) / len(checks)
    return Score(value, not problems, details={"problems": problems} if problems else {})
