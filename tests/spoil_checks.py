"""The checks the depth and output tests share: a task's gold scores 1.0 and a spoiled chat scores below it."""

from __future__ import annotations

import toolgym
from toolgym.envs.gold import gold_messages
from toolgym.envs.task import Task
from toolgym.verifiers import verify


def gold_passes_and_spoil_fails(name: str, task: Task, spoil, *, fails: bool = True) -> list[dict]:
    """The gold scores 1.0 and the spoiled chat below it (`fails`: and does not pass either)."""
    messages, verification = gold_messages(toolgym.load_domain(name), task)
    assert verification.passed and verification.value == 1.0, verification
    spoiled = spoil(task, messages)
    assert spoiled is not None, f"{spoil.__name__} did not apply to {task.id}"
    score = verify(task, spoiled)
    assert score.value < 1.0 and not (fails and score.passed), (spoil.__name__, score.components)
    return messages


def spoil_fails_wherever_it_applies(name: str, kind: str, spoil, count: int = 40, seed: int = 3) -> int:
    """Of `count` tasks of a kind, each one `spoil` applies to: the gold passes and the spoiled chat
    neither passes nor scores 1.0. Returns how many it applied to."""
    domain = toolgym.load_domain(name)
    applied = 0
    for task in domain.generate_tasks(count, seed=seed, kinds=[kind]):
        messages = gold_messages(domain, task)[0]
        spoiled = spoil(task, messages)
        if spoiled is None:
            continue
        applied += 1
        assert verify(task, messages).passed
        score = verify(task, spoiled)
        assert not score.passed and score.value < 1.0, (task.id, spoiled[-1]["content"])
    return applied
