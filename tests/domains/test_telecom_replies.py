"""What telecom's agent says to a customer: a fix it found offered with its cause, an outage status
worded for the areas asked, and a suspended line's way back offered as the policy asks."""

from __future__ import annotations

import re

import pytest

import toolgym


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain("telecom")


def test_a_refill_found_as_the_fix_is_offered_with_its_cause_not_asked_about(domain):
    """'I see four data refill sizes ... Which refill do you mean?' was asked of a customer who reported
    slow data and never asked for a refill, who answered 'Oh, I know that one.': the gold says the data
    is used up and offers the sizes; the trace does not call them matches of a request, and the
    customer picks one without recalling it."""
    from toolgym.envs.gold import gold_messages

    offered = 0
    for task in domain.generate_tasks(300, seed=4, kinds=["multi_step", "multi_turn"], size="small"):
        if not any(s.choice is not None and s.choice.label == "refill" for s in task.plan):
            continue
        messages = gold_messages(domain, task)[0]
        at = next(i for i, m in enumerate(messages) if m["role"] == "assistant" and "which refill" in (m["content"] or "").lower())
        if not any(s.caller == "user" for s in task.plan):  # troubleshooting: the customer reports, acts on the phone
            continue
        offered += 1
        question, answer = messages[at]["content"], messages[at + 1]["content"]
        assert re.search(r"used all|used up|all used", question), question
        assert "match the request" not in (messages[at].get("reasoning_content") or ""), messages[at]["reasoning_content"]
        assert not re.search(r"I know that one|Ah yes!|do you mean", answer + question), (question, answer)
    assert offered >= 5, offered


def test_the_outage_status_of_one_area_is_not_said_by_area(domain):
    """'Here is the status by area: Tampa has no active outage.' named areas for one."""
    one = {domain.phrasebook.say("answer_outages", seed, answers=["Tampa has no active outage"]) for seed in range(80)}
    two = {domain.phrasebook.say("answer_outages", seed, answers=["Tampa has no active outage", "Austin has no active outage"]) for seed in range(80)}
    assert not any("by area" in s for s in one) and any("by area" in s for s in two), (one, two)


def test_a_line_kept_suspended_for_an_unpaid_bill_is_offered_the_payment(domain):
    """The policy: a line suspended for an unpaid bill comes back once the bill is paid, and the agent
    offers to take the payment; the refusal said only the first half."""
    from toolgym.envs.gold import gold_messages

    refused = 0
    for task in domain.generate_tasks(60, seed=3, kinds=["no_tool/policy_refusal"], size="small"):
        said = " ".join(m["content"] or "" for m in gold_messages(domain, task)[0] if m["role"] == "assistant")
        if "overdue bill" in said:
            refused += 1
            assert re.search(r"take (?:the|that) payment", said), said
    assert refused >= 2, refused


def test_a_technician_ticket_is_reported_as_the_tool_words_it_with_no_phone_call(domain):
    """'a technician will call you within 24 hours ... Keep your phone nearby for their call.' was said
    to a customer whose phone detects no SIM or has no signal, when the ticket's tool says only that a
    technician will contact them: the gold reply says 'contact' and promises no call."""
    from toolgym.envs.gold import gold_messages

    told = set()
    for task in domain.generate_tasks(300, seed=5, kinds=["multi_step", "multi_turn"], size="small"):
        if not any(c.name == "transfer_to_technician" for s in task.plan for c in s.calls):
            continue
        messages = gold_messages(domain, task)[0]
        at = next(i for i, m in enumerate(messages) if m["role"] == "tool" and "TKT" in (m["content"] or ""))
        assert "will contact the customer" in messages[at]["content"], messages[at]["content"]
        reply = next(m["content"] for m in messages[at:] if m["role"] == "assistant" and m["content"])
        assert "contact you" in reply and not re.search(r"\bcall you\b|their call|phone nearby", reply), reply
        told.add(reply)
    assert len(told) >= 5, told


def test_the_reply_to_a_change_turned_down_says_what_stays_as_it_is(domain):
    """The policy: 'If the customer says no, change nothing and tell them what stays as it is.' A no to
    paying $64.00 on bill B100324, then a request for a refill, was answered 'Understood. I won't do
    it.': the reply names what stays (the bill still to pay, the plan kept, the refill not added)."""
    import json

    from toolgym.envs.gold import gold_messages

    checked = set()
    for task in domain.generate_tasks(200, seed=6, kinds=["multi_turn"], size="small"):
        taken_back = next((s for s in task.plan if s.declined and s.segment == 0), None)
        if taken_back is None or not task.scenario.revisions:
            continue
        messages = gold_messages(domain, task)[0]
        at = next(i for i, m in enumerate(messages) if m["role"] == "user" and m["content"] == task.scenario.requests[1])
        reply = messages[at - 1]["content"]
        call = taken_back.calls[0]
        if call.name == "make_payment":
            kept = [call.arguments["bill_id"]]
        elif call.name == "change_plan":
            line = next(json.loads(m["content"]) for m in messages if m["role"] == "tool" and '"plan_name"' in m["content"])
            kept = [line["plan_name"]]
        else:
            kept = [f"{call.arguments['gigabytes']} GB"]
        assert all(k in reply for k in kept), (call.name, kept, reply)
        checked.add(call.name)
    assert checked == {"make_payment", "change_plan", "add_data_refill"}, checked


def test_a_city_off_the_network_is_not_called_invalid_nor_asked_for_again(domain):
    """'Anchorage is not a valid service region … What's the right service region?' / 'Ok, will check.':
    the customer is in Anchorage; the reply says the network does not reach it, offers the regions it
    serves, and the customer, who made no slip, has nothing to go and check."""
    from toolgym.envs.gold import gold_messages

    unserved = [t for t in domain.generate_tasks(120, seed=5, kinds=["no_tool/invalid_value"])
                if "region" in t.no_tool.invalid]
    assert len(unserved) >= 5
    for task in unserved:
        messages, verification = gold_messages(domain, task)
        assert verification.passed
        reply = next(m["content"] for m in messages if m["role"] == "assistant")
        city = task.no_tool.invalid["region"]
        assert city in reply and "valid" not in reply and "right" not in reply, reply
        last = [m["content"] for m in messages if m["role"] == "user"][-1]
        assert not re.search(r"\b(check|find|correct|right one)\b", last.split("another way")[0]), last


def test_a_fix_summary_does_not_call_a_state_something_we_did(domain):
    """"What we did: the phone recognises the SIM card." (the customer reseated it): the done lines are
    states, so the summary introduces them as where things stand."""
    said = {domain.phrasebook.say("troubleshoot_done", seed, done=["the phone recognises the SIM card"])
            for seed in range(300)}
    assert not [s for s in said if re.search(r"\bwe (did|changed)\b", s)]


def test_a_last_payment_question_asks_nothing_the_answer_leaves_out(domain):
    """"Did my last bill payment go through?" was answered with the amount and day only: no yes or no."""
    assert not [q for q in domain.phrasebook.variants("ask_last_payment") if re.match(r"(Did|Has|Was) ", q)]


def test_a_network_mode_set_is_not_said_to_be_back(domain):
    """"the network mode is back to 5G" of a phone that had been on 2G only and never on 5G here."""
    assert not [v for v in domain.phrasebook.variants("done_network_mode") if "back to" in v]
