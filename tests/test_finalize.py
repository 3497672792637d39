"""Finishing a drawn task: one gold play records its end state and proves it, as a replay of the
plan followed by a play would, and hands back to the replay wherever the play cannot stand for it."""

from __future__ import annotations

import pytest

from tests.conftest import builtin_domains
from toolgym.envs import generation
from toolgym.envs.generation import _finished, draw, finalize
from toolgym.envs.gold import gold_chat
from toolgym.envs.registry import load_domain
from toolgym.envs.replay import replay_plan
from toolgym.envs.task import ToolCall
from toolgym.envs.world import World
from toolgym.errors import GeneratorBug


def _draws(domain, count: int) -> list[tuple[str, int]]:
    return [(domain.kinds[index % len(domain.kinds)], index) for index in range(count)]


@pytest.mark.parametrize("name", builtin_domains())
def test_one_play_finishes_each_task_as_the_replay_and_the_play_did(name, monkeypatch):
    domain = load_domain(name)
    world = World(domain.template(domain.world_seed, domain.default_size))
    try:
        played = [draw(domain, world, 11, kind, index, 0) for kind, index in _draws(domain, 2 * len(domain.kinds))]
        chats = [gold_chat(domain, task) for task in played]
        # the same draws with the end state found by a replay of the plan, then the chat played
        monkeypatch.setattr(generation, "prove_unfinished", lambda *_: None)
        replayed = [draw(domain, world, 11, kind, index, 0) for kind, index in _draws(domain, 2 * len(domain.kinds))]
    finally:
        world.close()
    assert [t.model_dump() for t in played] == [t.model_dump() for t in replayed]
    for task, (messages, verification) in zip(replayed, chats, strict=True):
        again, graded = gold_chat(domain, task)  # remembered from the replayed draw's own play
        assert again == messages
        assert graded.passed and graded.value == 1.0 and graded.to_dict() == verification.to_dict()


def test_a_gold_call_that_errs_is_named_by_the_replay():
    domain = load_domain("retail")
    world = World(domain.template(domain.world_seed, domain.default_size))
    try:
        task = next(t for t in (draw(domain, world, 5, "single", i, 0) for i in range(20)) if t.plan and t.plan[0].calls)
    finally:
        world.close()
    step = task.plan[0]
    call = step.calls[0]
    broken_call = ToolCall(name=call.name, arguments={key: "nowhere-0000" for key in call.arguments})
    broken = task.model_copy(update={"plan": [step.model_copy(update={"calls": [broken_call]}), *task.plan[1:]]})
    with pytest.raises(GeneratorBug, match=rf"gold step 0 {call.name}\(.*nowhere-0000.*\) failed"):
        finalize(domain, broken)


def test_a_play_is_no_replay_when_it_wrote_where_the_chat_assumed_no_writes():
    domain = load_domain("banking")
    world = World(domain.template(domain.world_seed, domain.default_size))
    try:
        task = next(t for t in (draw(domain, world, 3, "single", i, 0) for i in range(40)) if t.expected_writes)
    finally:
        world.close()
    messages, _ = gold_chat(domain, task)
    end = replay_plan(domain, task)
    try:
        assert _finished(task, task, end, messages).model_dump() == task.model_dump()
        # the chat closes as if nothing was written: it is not the gold of a task that writes
        assert _finished(task, task.model_copy(update={"expected_writes": 0}), end, messages) is None
        # a plan with a call the chat does not make
        acting = next(s for s in task.plan if s.calls and not s.declined)
        longer = task.model_copy(update={"plan": [*task.plan, acting]})
        assert _finished(longer, task, end, messages) is None
    finally:
        end.close()
