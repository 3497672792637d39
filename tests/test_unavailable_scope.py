"""A decline for a withheld tool offers help with the rest of the service, never with the tool's own area."""

from __future__ import annotations

import pytest

import toolgym
from toolgym.envs.gold import gold_messages
from toolgym.generators.oracle import _domain_values

CASES = [  # (domain, withheld tool, the area its name does not say, an area still offered)
    ("travel", "add_baggage", "bags", "seats"),
    ("workplace", "mark_message", "email", "chat messages"),
    ("workplace", "cancel_event", "calendar", "documents"),
    ("workplace", "send_direct_message", "chat messages", "email"),
    ("workplace", "create_file", "documents", "calendar"),
]


@pytest.fixture(scope="module")
def unavailable():
    tasks = {}
    for name in {case[0] for case in CASES}:
        for task in toolgym.load_domain(name).generate_tasks(80, seed=3, kinds=["no_tool/unavailable"]):
            tasks.setdefault((name, task.no_tool.withheld_tools[0]), task)
    return tasks


@pytest.mark.parametrize(("name", "tool", "area", "other"), CASES)
def test_the_decline_leaves_the_withheld_tools_area_out_of_its_offer(unavailable, name, tool, area, other):
    """"I can't add checked bags to a flight booking … I'm happy to help with anything else about your
    flights, hotel stays, bookings, seats, bags, …": the tool's name ("baggage") never met the scope's
    word, and a workplace reply_to_message dropped "chat messages" and kept "email"."""
    task = unavailable[(name, tool)]
    scope = _domain_values(task)["scope"]
    assert area not in scope and other in scope, scope
    messages, verification = gold_messages(toolgym.load_domain(name), task)
    assert verification.passed
    said = " ".join(m.get("content") or "" for m in messages if m["role"] == "assistant")
    assert toolgym.load_domain(name).scope not in said
