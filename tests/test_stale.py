"""A reply that states what an earlier read showed, when a later read of the same call shows otherwise."""

from __future__ import annotations

import json

from toolgym.envs.stale import stale_outputs


def _call(call_id: str, name: str, **arguments) -> dict:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def _result(call_id: str, **fields) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(fields)}


def test_a_plan_read_before_a_change_is_stale_once_the_same_read_shows_the_new_one():
    chat = [
        {"role": "user", "content": "Move me to Starter 2."},
        _call("c1", "get_line_details", line_id="L1"), _result("c1", plan_name="Plus 40"),
        _call("c2", "change_plan", line_id="L1", plan_id="starter_2"), _result("c2", line_id="L1", plan_id="starter_2"),
        {"role": "assistant", "content": "Your line is now on Starter 2."},
        {"role": "user", "content": "Which plan do I have, and what do I owe?"},
        _call("c3", "get_line_details", line_id="L1"), _result("c3", plan_name="Starter 2"),
        {"role": "assistant", "content": "Your plan is Plus 40."},
    ]
    assert stale_outputs(["Starter 2", "Plus 40"], chat) == ["'Plus 40': get_line_details showed it before, and its latest result does not"]
    chat[-1] = {"role": "assistant", "content": "Your plan is Starter 2."}
    assert stale_outputs(["Starter 2"], chat) == []


def test_a_value_a_later_write_shows_again_is_fresh():
    """A card listed active, frozen by the chat, listed again, then unfrozen: 'active' is what the
    unfreeze's own result shows, after the last listing."""
    chat = [
        _call("c1", "list_cards"), _result("c1", card="K1", status="active"),
        _call("c2", "freeze_card", card_id="K1"), _result("c2", card="K1", status="frozen"),
        _call("c3", "list_cards"), _result("c3", card="K1", status="frozen"),
        _call("c4", "unfreeze_card", card_id="K1"), _result("c4", card="K1", status="active"),
        {"role": "assistant", "content": "The card is active again."},
    ]
    assert stale_outputs(["active"], chat) == []


def test_amounts_are_compared_as_numbers():
    chat = [
        _call("c1", "list_bills", account_id="A1"), _result("c1", amount=95.6, status="open"),
        _call("c2", "make_payment", bill_id="B1"), _result("c2", status="paid"),
        _call("c3", "list_bills", account_id="A1"), _result("c3", amount=0.0, status="paid"),
        {"role": "assistant", "content": "You owe $95.60."},
    ]
    assert stale_outputs(["$95.60"], chat) != []
    chat[-3] = _result("c3", amount=95.6, status="paid")
    assert stale_outputs(["$95.60"], chat) == []
