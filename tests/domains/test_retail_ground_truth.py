"""Retail's gold conversations as training data: every stated fact seen, ids as users say them,
declines honoured, no-tool replies that recite nothing."""

from __future__ import annotations

import json
import re

import pytest

import toolgym
from toolgym.envs.grounding import ungrounded_facts
from toolgym.verifiers import verify

INTERNAL_ID = re.compile(r"\b(credit_card|gift_card|paypal)_\d+|\bIT\d{6,}\b|\bV\d{6}\b")
PAYMENT_READS = {"list_payment_methods", "get_customer_details"}


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain("retail")


@pytest.fixture(scope="module")
def chats(domain):
    """Gold conversations of 20 tasks of every kind, in both world sizes."""
    found = {}
    for size in ("default", "small"):
        env = toolgym.make("retail", world_size=size)
        oracle, user = toolgym.OracleTeacher(), toolgym.ScriptedUser()
        for kind in domain.kinds:
            for task in domain.generate_tasks(20, seed=13, kinds=[kind], size=size):
                found[task.id] = (task, toolgym.rollout_sync(env, oracle, user, task).messages)
    return list(found.values())


def _said(messages, role):
    return [m.get("content") or "" for m in messages if m["role"] == role]


def test_gold_turns_state_only_what_was_seen(chats):
    bad = [(t.kind, f.describe()) for t, messages in chats for f in ungrounded_facts(messages)]
    assert not bad, bad[:5]


def test_a_payment_method_is_named_only_after_reading_the_methods(chats):
    for task, messages in chats:
        read = False
        for m in messages:
            calls = {c["function"]["name"] for c in m.get("tool_calls") or []}
            read = read or bool(calls & PAYMENT_READS)
            text = m.get("content") or ""
            if m["role"] == "assistant" and re.search(r"ending in \d{4}", text):
                assert read, f"{task.kind}: names a card before any payment read: {text[:120]}"


def test_no_internal_id_is_said_by_either_side(chats):
    for task, messages in chats:
        for text in _said(messages, "assistant") + _said(messages, "user"):
            assert not INTERNAL_ID.search(text), f"{task.kind}: {text[:160]}"


def test_cards_are_named_without_doubled_words(chats):
    texts = [text for _, messages in chats for text in _said(messages, "assistant")]
    assert any("ending in" in text for text in texts)
    assert not [text for text in texts if re.search(r"\bMastercard card\b", text)]


def test_unavailable_replies_recite_no_account_detail(chats):
    unavailable = [(t, m) for t, m in chats if t.kind == "no_tool/unavailable"]
    assert unavailable
    for task, messages in unavailable:
        (reply,) = _said(messages, "assistant")
        assert not re.search(r"\$\d|ending in|gift card|PayPal", reply), reply
        assert task.no_tool.action and task.no_tool.action in reply


def test_missing_info_users_never_claim_to_lack_their_own_detail(chats):
    missing = [(t, m) for t, m in chats if t.kind == "no_tool/missing_info"]
    assert missing
    for task, messages in missing:
        assert task.no_tool.about == "your"
        assert not any("don't have my" in text.lower() for text in _said(messages, "user"))


def test_every_acting_task_reports_its_outcome_last(chats):
    for task, messages in chats:
        assert messages[-1]["role"] in ("user", "assistant")
        if task.no_tool is None:
            assert task.required_outputs, task.kind
            final = [m for m in messages if m["role"] == "assistant" and not m.get("tool_calls")][-1]["content"]
            assert any(o.lower() in final.lower() for o in task.required_outputs), (task.kind, final)


@pytest.mark.parametrize("kind", ["multi_step", "multi_turn"])
def test_a_declined_change_is_not_made_and_making_it_fails(domain, kind):
    tasks = domain.generate_tasks(120, seed=4, kinds=[kind])  # enough for the share to be steady
    declined = [t for t in tasks if any(s.declined for s in t.plan)]
    # in multi_turn a third of the customers also change their mind (a change turned down, another asked for)
    most = 0.6 if kind == "multi_turn" else 0.3
    assert 0.05 * len(tasks) <= len(declined) <= most * len(tasks)
    task = declined[0]
    env = toolgym.make("retail")
    messages = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task).messages
    assert verify(task, messages).value == 1.0
    (call,) = task.declined_calls()
    refused = next(i for i, m in enumerate(messages) if m["role"] == "user" and m["content"].startswith(("No", "Actually")))
    made_anyway = messages[: refused + 1] + [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "x", "type": "function", "function": {"name": call.name, "arguments": call.arguments}}],
        },
        {"role": "tool", "tool_call_id": "x", "content": json.dumps({"ok": True})},
        *messages[refused + 1 :],
    ]
    score = verify(task, made_anyway)
    assert score.value < 1.0 and not score.passed
