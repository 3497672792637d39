"""Banking: what the customer agrees to names the accounts by their last four digits, and replies
say only what a tool showed."""

from __future__ import annotations

import json

import pytest

from toolgym.envs import load_domain
from toolgym.envs.gold import gold_messages


@pytest.fixture(scope="module")
def banking():
    return load_domain("banking")


def _ask_before(messages: list[dict], tool: str) -> str:
    """The assistant's last question before the call of `tool`: the consent it was made on."""
    at = next(i for i, m in enumerate(messages) if any(c["function"]["name"] == tool for c in m.get("tool_calls") or []))
    return next(m["content"] for m in reversed(messages[:at]) if m["role"] == "assistant" and "?" in (m["content"] or ""))


def test_a_consent_names_the_payee_account_and_the_source_of_a_planned_transfer(banking):
    """'save Marcus Serrano (First Coastal Bank) as a new payee' left out the account saved, and 'cancel the
    $100.00 transfer planned for December 12' the account it leaves: the policy names both by last four."""
    seen = set()
    for task in banking.generate_tasks(300, seed=7, kinds=["single", "parallel", "multi_step"], size="small"):
        names = {c.name for c in task.gold_calls()}
        if not names & {"add_payee", "cancel_scheduled_transfer"}:
            continue
        messages = gold_messages(banking, task)[0]
        for call in task.gold_calls():
            if call.name == "add_payee":
                assert call.arguments["account_number"][-4:] in _ask_before(messages, "add_payee")
                seen.add("payee")
            elif call.name == "cancel_scheduled_transfer":
                listed = next(json.loads(m["content"]) for m in messages if m["role"] == "tool" and '"schedule_id"' in (m["content"] or ""))
                sched = next(s for s in listed if s["schedule_id"] == call.arguments["schedule_id"])
                ask = _ask_before(messages, "cancel_scheduled_transfer")
                assert sched["from_account_number"][-4:] in ask and sched["to_account_number"][-4:] in ask, (sched, ask)
                seen.add("schedule")
    assert seen == {"payee", "schedule"}, seen


def test_a_card_reported_lost_is_said_replaced_not_sent_by_post(banking):
    """'It arrives by post.': report_card_lost says a replacement is ordered, not how it is delivered."""
    described = banking.tool("report_card_lost").description
    assert "ordered" in described and "post" not in described
    for seed in range(200):
        said = banking.phrasebook.say("done_report_lost", seed, last4="1234", brand="Visa", new_last4="9999")
        assert "9999" in said and "post" not in said and "on its way" not in said, said
