"""The engine's task composition, on the retail domain's context (any domain would do)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import toolgym
from toolgym.envs import (
    Fact,
    Forbidden,
    GenContext,
    Identity,
    Segment,
    Step,
    Utterance,
    World,
    WorldEdit,
    call,
    compose,
)


@pytest.fixture
def ctx():
    domain = toolgym.load_domain("retail")
    world = World(domain.template(0, "small"))
    yield GenContext(domain, world, random.Random(0), 0, "multi_turn", 0, "small")
    world.close()


def _order(order_id: str) -> Fact:
    return Fact(key="order_id", value=order_id, label="order id", keywords=["order id"])


def _status(order_id: str, **fields) -> Segment:
    return Segment(
        request=f"Where is {order_id}?",
        goal=f"Find out where {order_id} is.",
        steps=[Step(calls=[call("get_order_details", order_id=order_id)], needs=["order_id"])],
        reply=Utterance(intent="reply_order_status", vars={"order_id": order_id, "status": "pending"}),
        facts=[_order(order_id)],
        **fields,
    )


WHO = Identity(
    facts=[Fact(key="email", value="jo@example.com", label="email address", keywords=["email"])],
    step=Step(calls=[call("find_customer_id_by_email", email="jo@example.com")], needs=["email"]),
    fragment="I'm jo@example.com.",
    goal="You are Jo.",
)


def test_identification_comes_once_before_the_first_segment_that_needs_it(ctx):
    catalog = Segment(
        request="Do you sell lamps?", goal="Ask about lamps.", reply=Utterance(intent="x"), identifies=False
    )
    task = compose(ctx, [catalog, _status("#W0000001"), _status("#W0000002")], identify=WHO)
    assert [(s.segment, s.calls[0].name) for s in task.plan] == [
        (1, "find_customer_id_by_email"), (1, "get_order_details"), (2, "get_order_details")
    ]  # fmt: skip
    assert task.scenario.requests == [
        "Do you sell lamps?",
        "Where is #W0000001? I'm jo@example.com.",
        "Where is #W0000002?",
    ]
    assert task.scenario.goal.startswith("You are Jo. Ask about lamps.")


def test_the_goal_says_who_the_user_is_then_each_request_in_turn(ctx):
    """"You are Wayne Hardy. Then Find out ..." and "Then Then, instead: ..." told a served user model
    its goals: the link joins requests, once, and the request after it reads on."""
    revised = replace(_status("#W0000002"), goal="Then, instead: Find out where #W0000002 is.")
    task = compose(ctx, [_status("#W0000001"), revised, _status("#W0000003")], identify=WHO, goal_joiner=" Then ")
    assert task.scenario.goal == ("You are Jo. Find out where #W0000001 is. Then, instead: Find out where #W0000002 is. "
                                  "Then find out where #W0000003 is.")


def test_withheld_identity_is_not_said(ctx):
    task = compose(ctx, [_status("#W0000001")], identify=replace(WHO, withhold=True))
    assert task.scenario.withheld == ["email"]
    assert "jo@example.com" not in task.scenario.requests[0]


def test_facts_are_kept_once_and_a_taken_key_is_renamed(ctx):
    task = compose(
        ctx, [_status("#W0000001"), _status("#W0000001"), _status("#W0000002", withheld=["order_id"])]
    )
    assert [(f.key, f.value) for f in task.scenario.facts] == [
        ("order_id", "#W0000001"),
        ("order_id_2", "#W0000002"),
    ]
    assert [s.needs for s in task.plan] == [["order_id"], ["order_id"], ["order_id_2"]]
    assert task.scenario.withheld == ["order_id_2"]


def test_minefields_the_gold_plan_steps_on_are_dropped_and_each_is_kept_once(ctx):
    rules = [
        Forbidden(reason="a", tool="get_order_details", arguments={"order_id": "#W0000001"}),
        Forbidden(reason="b", tool="cancel_pending_order"),
        Forbidden(reason="c", tool="cancel_pending_order"),
    ]
    task = compose(ctx, [_status("#W0000001", forbidden=rules[:2])], forbidden=rules[2:])
    assert [r.reason for r in task.forbidden] == ["b"]


def test_edits_become_one_per_row(ctx):
    edits = [
        WorldEdit(table="order", key="#W0000001", set={"note": "a"}),
        WorldEdit(table="note", insert={"id": 1}),
    ]
    later = [WorldEdit(table="order", key="#W0000001", set={"status": "pending"})]
    task = compose(ctx, [_status("#W0000001", setup=edits)], setup=later)
    assert [(e.table, e.set) for e in task.setup] == [
        ("order", {"note": "a", "status": "pending"}),
        ("note", {}),
    ]


@pytest.mark.parametrize("name", ["travel", "vehicle", "banking", "telecom"])
def test_a_goal_reads_as_plain_instructions(name):
    """"Add 3 checked bag(s)", "Set the rear right window(s) to 75% open." and "Then Then, instead:"
    were in the goals a served user model is given."""
    import re

    tasks = toolgym.load_domain(name).generate_tasks(120, seed=4, size="small")
    goals = [t.scenario.goal for t in tasks]
    slips = [g for g in goals if re.search(r"\w\(s\)|\bThen Then\b|\bThen [A-Z][a-z]", g)]
    assert not slips, slips[:2]
    assert sum(" Then " in g for g in goals) >= 5

