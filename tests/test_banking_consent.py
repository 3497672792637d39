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


def test_a_look_alike_record_is_numbered_among_the_world_s_own_and_may_be_the_one_meant(banking):
    """Payees, planned transfers and charges added so the customer must say which they mean were all
    numbered 900001 (P900001, S900001, T900001), and a payee or planned transfer added was never the
    one meant: a model could learn that the odd id is never the answer."""
    world = banking.new_world(size="small")
    built = {table: sorted(int(i[1:]) for (i,) in world.query(f"SELECT {key} FROM {table}"))
             for table, key in (("payee", "payee_id"), ("scheduled_transfer", "schedule_id"), ("txn", "txn_id"))}  # fmt: skip
    world.close()
    meant: dict[str, set[bool]] = {}
    for task in banking.generate_tasks(400, seed=4, kinds=["single", "multi_step", "multi_turn"], size="small"):
        for edit in task.setup:
            if edit.table not in built or not edit.insert:
                continue
            added = next(v for k, v in edit.insert.items() if k.endswith("_id") and k != "customer_id" and k != "account_id")
            numbers = built[edit.table]
            assert numbers[0] < int(added[1:]) < numbers[-1] and int(added[1:]) not in numbers, added
            acted = {v for c in task.gold_calls() for v in c.arguments.values()}
            meant.setdefault(edit.table, set()).add(added in acted)
    assert meant.get("payee") == {True, False} and meant.get("scheduled_transfer") == {True, False}, meant


def test_a_customer_gives_a_reason_that_fits_the_request_and_a_month_as_people_type_it(banking):
    """'I'm planning a big purchase.' was said when asking when an account was opened, and of a card
    limit lowered; a statement was asked 'for 2024-44', a month no one writes."""
    for seed in range(200):
        lower = banking.phrasebook.say("ask_card_limit", seed, card="my Visa", limit=300.0, higher=False)
        assert "big purchase" not in lower, lower
        assert "big purchase" not in banking.phrasebook.say("ask_opened", seed, account="my savings account")
    months = set()
    for task in banking.generate_tasks(200, seed=6, kinds=["no_tool/invalid_value"], size="small"):
        invalid = task.no_tool.invalid.get("month") if task.no_tool else None
        if invalid:
            months.add(invalid)
            assert int(invalid[5:]) in (0, 13, 21) or 1 <= int(invalid[5:]) <= 12, invalid
    assert months, months


def test_a_dispute_consent_names_the_account_by_last_four_and_the_reason_recorded(banking):
    """'open a dispute for the PetSmart charge of $112.48 from May 16' named neither the card the
    charge was on nor the reason (wrong_amount) the call recorded."""
    reasons = set()
    for task in banking.generate_tasks(120, seed=7, kinds=["single"], size="small"):
        calls = task.gold_calls()
        at = next((i for i, c in enumerate(calls) if c.name == "open_dispute"), None)
        if at is None:
            continue
        call, messages = calls[at], gold_messages(banking, task)[0]
        account_id = next(c.arguments["account_id"] for c in reversed(calls[:at]) if c.name == "search_transactions")
        listed = [json.loads(m["content"]) for m in messages if m["role"] == "tool" and f'"account_id":"{account_id}"' in (m["content"] or "")]
        last4 = next(a["account_number"][-4:] for rows in listed if isinstance(rows, list) for a in rows if a.get("account_id") == account_id and "account_number" in a)
        ask = _ask_before(messages, "open_dispute")
        assert last4 in ask, (last4, ask)
        words = {"wrong_amount": ("wrong amount", "wrong-amount", "amount is wrong"),
                 "not_received": ("never arrived", "not-received", "not received", "never received")}[call.arguments["reason"]]  # fmt: skip
        assert any(w in ask for w in words), (call.arguments["reason"], ask)
        reasons.add(call.arguments["reason"])
    assert reasons == {"wrong_amount", "not_received"}, reasons
