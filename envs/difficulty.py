"""How hard a task is: a score from its structure, banded into levels 1-5.

Measured on the task and the outputs of its gold plan's calls (replayed when the task is proven):

    calls            gold calls, agent and user side
    dependent_steps  steps that wait on an earlier one's result: the plan's steps after the first
                     (a declined step makes no call and is not counted)
    questions        questions the agent must ask besides identity: a request for a missing
                     value, a question naming candidates (a no-tool reply that asks for a missing
                     or a valid value counts one)
    candidates       records to tell apart: for each choice, its options beyond the one chosen
    revisions        requests that revise or correct an earlier one, and confirmations the user
                     turns down with no revision after them
    distractors      records the gold's reads show that it neither acts on nor reports (items
                     of a listed result whose identifying value no later step's call or
                     confirmation, no choice, no reply and no required output uses); counted up
                     to DISTRACTOR_CAP

    score = 1.0 calls + 1.0 dependent_steps + 2.0 questions + 1.5 candidates
            + 3.0 revisions + 0.25 distractors

    level = 1 + the number of LEVEL_BOUNDS at or below the score (score < 4: level 1; 4 to 7: 2;
            8 to 12: 3; 13 to 18: 4; 19 or more: 5)

A one-call lookup after identifying the user is level 1; a confirmed change after reading the
policy's facts, level 2; a choice among candidates or a chain of six calls, level 3; a long
chain with a question or a revision, 4 to 5. Sort by `score` for a fine curriculum; filter or mix
by `level` (`mix.difficulty` in a job config).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from .conversation import oracle_moves
from .task import Difficulty, Task

WEIGHTS = {
    "calls": 1.0,
    "dependent_steps": 1.0,
    "questions": 2.0,
    "candidates": 1.5,
    "revisions": 3.0,
    "distractors": 0.25,
}
DISTRACTOR_CAP = 12
LEVEL_BOUNDS = (4.0, 8.0, 13.0, 19.0)
LEVELS = tuple(range(1, len(LEVEL_BOUNDS) + 2))


def level_of(score: float) -> int:
    return 1 + sum(1 for bound in LEVEL_BOUNDS if score >= bound)


def difficulty_of(task: Task, results: Sequence[tuple[int, str]]) -> Difficulty:
    """The task's difficulty, from its plan, its scenario and its calls' outputs: (step number, output)."""
    taken = [s for s in task.plan if not s.declined]
    identity = set(task.scenario.identity)
    questions = sum(1 for m in oracle_moves(task) if m.kind == "ask" and any(f.key not in identity for f in m.facts))
    if task.no_tool is not None and (task.no_tool.missing or task.no_tool.invalid):
        questions += 1  # the reply itself asks for the missing or a valid value
    revised = task.scenario.revising_segments()
    lone_declines = sum(1 for s in task.plan if s.declined and s.segment + 1 not in revised)
    parts = {
        "calls": sum(len(s.calls) for s in taken),
        "dependent_steps": max(0, len(taken) - 1),
        "questions": questions,
        "candidates": sum(len(s.choice.options) - 1 for s in taken if s.choice is not None),
        "revisions": len(task.scenario.revisions) + lone_declines,
        "distractors": min(DISTRACTOR_CAP, distractors(task, results)),
    }
    score = round(sum(WEIGHTS[name] * value for name, value in parts.items()), 2)
    return Difficulty(level=level_of(score), score=score, **parts)


def distractors(task: Task, results: Sequence[tuple[int, str]]) -> int:
    """Listed records (items of an output's lists) whose identifying value nothing after their step uses."""
    reported = " ".join(
        [*task.required_outputs, *(json.dumps(r.vars, default=str) for r in task.replies)]
    ).lower()
    count = 0
    for number, output in results:
        items = list(_listed(_decoded(output)))
        if len(items) < 2:
            continue
        later = _used_after(task, number) + " " + reported
        count += sum(1 for item in items if (tag := _identifying(item)) is not None and tag.lower() not in later)
    return count


def _used_after(task: Task, number: int) -> str:
    """What the steps after step `number` pass, confirm and offer to choose from, lowered."""
    parts = []
    for step in task.plan[number + 1 :]:
        parts += [json.dumps(c.arguments, default=str) for c in step.calls]
        parts += [step.confirm or "", *(step.choice.options if step.choice is not None else ())]
    return " ".join(parts).lower()


def _decoded(content: Any) -> Any:
    if not isinstance(content, str):
        return None
    try:
        return json.loads(content)
    except ValueError:
        return None


def _listed(value: Any) -> Iterator[dict[str, Any]]:
    """The records of a result: dicts inside its lists, at any depth."""
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item
            else:
                yield from _listed(item)
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _listed(inner)


def _identifying(item: dict[str, Any]) -> str | None:
    """The value that names a record: its id (a key ending in 'id'), else its name or number, else its first text."""
    for key in sorted(item, key=lambda k: (not k.endswith("id"), k not in ("name", "number", "title", "subject"))):
        value = item[key]
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None
