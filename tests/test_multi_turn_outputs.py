"""Every answer of a multi-turn chat is required, not only the last: a policy that answers the first
request wrongly, or not at all, and the second rightly does not pass."""

from __future__ import annotations

import pytest

from toolgym.envs.gold import gold_messages
from toolgym.envs.registry import load_domain
from toolgym.verifiers.matching import output_stated
from toolgym.verifiers.regrade import verify

from .conftest import builtin_domains


def _first_reply(task, messages) -> str:
    """The assistant's last words before the user's second request: its reply to the first."""
    second = next(i for i, m in enumerate(messages) if m.get("role") == "user" and m.get("content") == task.scenario.requests[1])
    return next(m["content"] for m in reversed(messages[:second]) if m.get("role") == "assistant" and m.get("content"))


@pytest.mark.parametrize("name", builtin_domains())
def test_the_answer_to_an_earlier_request_is_a_required_output(name):
    """Four domains dropped the outputs of all but the last request: "The decision on the analytics
    tool was Metabase." (the thread settled on Mode) passed with a full score."""
    domain = load_domain(name)
    checked = 0
    for task in domain.generate_tasks(30, seed=4, kinds=["multi_turn"]):
        if len(task.scenario.requests) < 2 or task.scenario.revisions or task.replies[0].intent == "reply_left_as_is":
            continue  # a change turned down, or an answer the user corrects, brings nothing to require
        reply = _first_reply(task, gold_messages(domain, task)[0])
        assert any(output_stated(o, reply) for o in task.required_outputs), (task.id, reply, task.required_outputs)
        checked += 1
    assert checked >= 10, checked


def test_a_wrong_first_answer_fails_the_chat():
    domain = load_domain("workplace")
    task = next(t for t in domain.generate_tasks(150, seed=3, kinds=["multi_turn"]) if t.replies[0].intent == "reply_decision")
    messages = gold_messages(domain, task)[0]
    assert verify(task, messages).passed
    choice = task.replies[0].vars["choice"]
    reply = _first_reply(task, messages)
    spoiled = [{**m, "content": "I read the thread; nothing was decided yet."} if m.get("content") == reply else m for m in messages]
    score = verify(task, spoiled)
    assert not score.passed and score.components["required_outputs"] < 1.0, (choice, score.components)
