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

from .score import Score, binary

_DECLINE = re.compile(
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
    """The no-tool reply says what the kind requires (see the module docstring)."""
    spec = task.no_tool
    if spec is None:
        return binary(True)
    said = " ".join(m.get("content") or "" for m in trajectory.agent_messages)
    problems: list[str] = []
    kind = task.kind
    if kind == "no_tool/irrelevant":
        scope = spec.scope or _var(task, "scope") or ""
        if not _DECLINE.search(said):
            problems.append("did not decline")
        if scope and not covers(said, scope, share=0.3):
            problems.append(f"did not state the scope ({scope})")
    elif kind == "no_tool/missing_info":
        asking = " ".join(s for s in re.split(r"(?<=[.?!])\s+", said) if is_request(s))
        missing = [label for label in spec.missing if not mentions(asking, [label])]
        if missing:
            problems.append(f"did not ask for {missing}")
        if spec.about and not mentions(asking, [spec.about]):
            problems.append(f"did not ask about the right person ({spec.about})")
    elif kind == "no_tool/unavailable":
        action = spec.action or _var(task, "action") or " ".join(t.replace("_", " ") for t in spec.withheld_tools)
        if not _DECLINE.search(said):
            problems.append("did not say it cannot be done")
        if action and not covers(said, str(action)):
            problems.append(f"did not name the action ({action})")
    elif kind == "no_tool/invalid_value":
        values = [str(v) for v in spec.invalid.values()] or ([str(_var(task, "value"))] if _var(task, "value") else [])
        if not values or not all(v.lower() in said.lower() for v in values):
            problems.append(f"did not name the invalid value(s) {values}")
        problem = spec.problem or _var(task, "problem") or ""
        if not (_WHY.search(said) or (problem and covers(said, str(problem)))):
            problems.append("did not say why the value is invalid")
    elif kind == "no_tool/policy_refusal":
        rule = spec.rule or _var(task, "rule") or spec.reason
        if not _DECLINE.search(said):
            problems.append("did not decline")
        if rule and not covers(said, str(rule)):
            problems.append(f"did not state the rule ({rule})")
    return binary(not problems, **({"problems": problems} if problems else {}))
