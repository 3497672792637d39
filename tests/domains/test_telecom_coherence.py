"""Telecom chats that hold together: what a customer says of their line is true of it, and what the
agent changes or reports is what the chat asked for and saw."""

from __future__ import annotations

import json
import re

import toolgym

from .test_telecom import TELECOM, _gold

# A customer who says their data is nearly gone (in any request of the chat) asks about a line the world has close to its cap.
SAYS_LOW = re.compile(r"running out|almost gone|nearly|hitting the cap|run low|(?<!run )out of data|almost run out|ran out|used up|close to (my|its) data", re.I)


def test_a_customer_who_says_data_is_low_has_a_line_close_to_its_cap():
    from toolgym.domains.telecom.catalogue import PLAN_BY_ID

    domain = toolgym.load_domain(TELECOM)
    low = neutral = 0
    for task in domain.generate_tasks(600, seed=31, kinds=["single", "multi_step", "multi_turn"]):
        refilled = [c.arguments["line_id"] for c in task.gold_calls() if c.name == "add_data_refill"]
        if not refilled:
            continue
        says_low = any(SAYS_LOW.search(r) for r in task.scenario.requests)
        low += says_low
        neutral += not says_low
        world = domain.new_world(task)
        for line_id in refilled:
            [(used, plan_id, refill)] = world.query("SELECT data_used_gb, plan_id, refill_gb FROM line WHERE line_id = ?", [line_id])
            share = used / (PLAN_BY_ID[plan_id].data_gb + refill)
            if says_low:
                assert share >= 0.88, (task.seed, task.scenario.requests, round(share, 2))
    assert low >= 15 and neutral >= 15, (low, neutral)  # both kinds of request are made


def test_a_plan_change_never_turns_off_roaming_the_customer_has_on():
    """'I just landed in Lisbon ... no service': the gold turned roaming on, then moved the line to
    Starter 2 at the customer's next request, which has no roaming: change_plan switched it off
    again, unsaid, with the customer abroad."""
    domain = toolgym.load_domain(TELECOM)
    changed = 0
    for task in domain.generate_tasks(500, seed=13, kinds=["multi_turn"]):
        if not any(c.name == "change_plan" for c in task.gold_calls()):
            continue
        messages = _gold(task).messages
        for at, message in enumerate(messages):
            if message["role"] != "tool" or '"plan_name"' not in message["content"] or '"line"' not in message["content"]:
                continue
            line = json.loads(message["content"])["line"]
            shown = [json.loads(m["content"]) for m in messages[:at] if m["role"] == "tool" and '"roaming_enabled"' in m["content"]]
            was_on = [s.get("roaming_enabled") for s in shown if isinstance(s, dict) and s.get("line_id") == line["line_id"]]
            assert not (was_on and was_on[-1]) or line["roaming_enabled"], (task.id, task.scenario.requests)
            changed += 1
    assert changed >= 20, changed


def test_a_refill_for_one_of_the_account_s_lines_names_the_line_it_went_to():
    """"I have found three lines on your account ... The one ending in 1184, please." was answered
    "Done: 5 GB added to your line for $30.00.": the caller's own line is 305-929-2208."""
    from toolgym.envs.gold import gold_messages

    domain = toolgym.load_domain(TELECOM)
    named = 0
    for task in domain.generate_tasks(300, seed=17, kinds=["single", "multi_step"]):
        names = [c.name for c in task.gold_calls()]
        if "add_data_refill" not in names or not any(s.choice is not None and s.choice.fact == "which_line" for s in task.plan):
            continue  # not a refill for a line the customer picks among the account's
        messages = gold_messages(domain, task)[0]
        line_id = next(c.arguments["line_id"] for c in task.gold_calls() if c.name == "add_data_refill")
        [(number,)] = domain.new_world(task).query("SELECT phone_number FROM line WHERE line_id = ?", [line_id])
        final = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")][-1]
        assert number in final, (number, final)
        # "Can you put a 10 GB data refill on one of my family's lines?" ... "the one ending in 0100", the caller's own
        caller = next(m["content"] for m in messages if m["role"] == "tool" and '"customer_id"' in m["content"])
        assert f'"line_id":"{line_id}"' not in caller.replace(" ", ""), (task.scenario.requests, caller)
        named += 1
    assert named >= 5, named


def test_one_of_the_account_s_lines_is_never_the_one_the_caller_named():
    """"In case you need it, it's the line 305-929-2208. How much data has one of the lines on my
    account used this month?" ... "I mean the one ending in 2208.": the caller's own line, which they
    would have asked about as theirs."""
    from toolgym.envs.gold import gold_messages

    domain = toolgym.load_domain(TELECOM)
    asked = 0
    for task in domain.generate_tasks(300, seed=19, kinds=["single", "multi_step", "multi_turn"]):
        picked = [s for s in task.plan if s.choice is not None and s.choice.fact == "which_line"]
        if not picked:
            continue
        messages = gold_messages(domain, task)[0]
        found = next(json.loads(m["content"]) for m in messages if m["role"] == "tool" and '"customer_id"' in m["content"])
        answers = [m["content"] for m in messages if m["role"] == "user" and "one ending in" in m["content"].lower()]
        assert answers and not any(f"ending in {found['phone_number'][-4:]}" in a for a in answers), (found, answers)
        asked += 1
    assert asked >= 10, asked
