"""Values no tool takes, and tools the agent lacks: the reply names what the user said and no more,
offers the nearest valid value where one exists, never calls a right value wrong; and the user
leaves in words that fit (choosing again, finding the right one, or managing without)."""

from __future__ import annotations

import re

import pytest


def test_research_invalid_values_vary_and_offer_the_nearest_valid_one():
    from toolgym.envs.registry import load_domain
    from toolgym.generators.inspection.text import normalize

    tasks = list(load_domain("research").generate_tasks(40, seed=2, kinds=["no_tool/invalid_value"]))
    openings = {normalize(t.scenario.requests[0]) for t in tasks}
    assert len(openings) >= 0.9 * len(tasks)
    for task in tasks:
        spec = next(iter(task.no_tool.invalid.items()))
        offer = task.replies[0].vars.get("valid")
        if spec[0] == "page" or (spec[0] == "start" and 1 <= int(str(spec[1])[5:7]) <= 12):
            assert offer, task.scenario.requests[0]  # a last page, a last day of the month
        else:
            assert not offer  # a month 13 or a unit the converter lacks has no nearest value


def test_a_unit_the_converter_lacks_is_not_called_a_mistake_by_either_side():
    """"390 yards in metres" is a right question the converter cannot answer: the agent says what it
    converts and asks for another unit, never that yards are wrong; the user leaves without an apology."""
    from toolgym.envs.gold import gold_messages
    from toolgym.envs.registry import load_domain
    from toolgym.generators.reasoning import with_reasoning
    from toolgym.generators.rows import with_closer

    domain = load_domain("research")
    tasks = [t for t in domain.generate_tasks(40, seed=3, kinds=["no_tool/invalid_value"]) if "from_unit" in t.no_tool.invalid]
    assert len(tasks) >= 4
    blame = re.compile(r"not a valid|isn't a valid|double-check|correct unit|right unit|doesn't work here|won't work", re.I)
    sorry = re.compile(r"mistake|mixed it up|my bad|silly me|read it wrong|right one|correct one|verify", re.I)
    waiting = re.compile(r"when you're ready|come back with it|once you have it|as soon as you have it|once you've found|back with it|send it over|take your time|when you can", re.I)
    for task in tasks:
        messages, verification = gold_messages(domain, task)
        assert verification.passed and verification.value == 1.0
        reply = next(m["content"] for m in messages if m["role"] == "assistant" and m.get("content"))
        unit = str(task.no_tool.invalid["from_unit"])
        assert unit in reply and "unit" in reply and not blame.search(reply), reply
        closing = [m["content"] for m in messages if m["role"] == "user"][-1]
        assert not sorry.search(closing), closing
        # the user does not come back with another unit: nothing is said to wait on them
        chat = with_closer(task, with_reasoning(task, messages))
        assert not waiting.search(chat[-1]["content"]), chat[-1]["content"]
        traces = " ".join(m.get("reasoning_content") or "" for m in chat)
        assert "invalid" not in traces and "look up" not in traces and "the details" not in traces, traces


@pytest.mark.parametrize(("domain", "parameters"), [("travel", {"bags", "seat", "cabin"}), ("workplace", {"duration_minutes"})])
def test_an_invalid_value_with_a_nearest_valid_one_declares_it(domain, parameters):
    from toolgym.envs.registry import load_domain

    tasks = list(load_domain(domain).generate_tasks(30, seed=4, kinds=["no_tool/invalid_value"]))
    checked = [t for t in tasks if set(t.no_tool.invalid) & parameters]
    assert checked and all(t.replies[0].vars.get("valid") for t in checked)


@pytest.mark.parametrize("domain", ["travel", "workplace"])
def test_a_decline_for_a_missing_tool_names_only_what_the_user_said(domain):
    """'I'm not able to put you in seat 2E on booking FB100320' answered 'I'd like to pick a seat on
    booking FB100320', and 'cancel the Design retro at 2025-03-20 13:00' a request that gave no time:
    the seat and the time came from reads the unavailable task never makes."""
    from toolgym.envs.gold import gold_messages
    from toolgym.envs.registry import load_domain

    built = load_domain(domain)
    tasks = list(built.generate_tasks(40, seed=8, kinds=["no_tool/unavailable"]))
    for task in tasks:
        messages, verification = gold_messages(built, task)
        assert verification.passed, task.id
        said = " ".join(m["content"] for m in messages if m["role"] == "user" and m.get("content")).lower()
        reply = next(m["content"] for m in messages if m["role"] == "assistant" and m.get("content"))
        unsaid = [w.strip(".,:;") for w in re.findall(r"\S*\d\S*", reply) if w.strip(".,:;").lower() not in said]
        assert not unsaid, (unsaid, reply)


@pytest.mark.parametrize("domain", ["banking", "retail"])
def test_a_decline_for_a_missing_tool_answers_a_request_that_asks_one_thing(domain):
    """41 of 60 banking unavailable tasks asked two things in one message ("Someone used my card at
    FreshMart. After that: add up my charges ..."); the decline answered the first, and the second
    was left unanswered when the user said goodbye."""
    from toolgym.envs.registry import load_domain

    built = load_domain(domain)
    links = built.phrasebook.variants("and_then") + built.phrasebook.variants("and_also")
    tasks = list(built.generate_tasks(60, seed=3, kinds=["no_tool/unavailable"]))
    assert len(tasks) == 60
    joined = [t.scenario.requests[0] for t in tasks if any(link in t.scenario.requests[0] for link in links)]
    assert not joined, joined[:2]


def test_a_decline_with_no_web_tools_left_offers_what_the_tools_left_do():
    """"I'm not able to search the web ... Anything else about the organisations, people, cities,
    products and events described on the web, I'm happy to do.": no page could be read at all."""
    from toolgym.envs.gold import gold_messages
    from toolgym.envs.registry import load_domain

    built = load_domain("research")
    for task in built.generate_tasks(12, seed=2, kinds=["no_tool/unavailable"]):
        messages, verification = gold_messages(built, task)
        assert verification.passed
        assert not {"web_search", "open_page", "find_in_page"} & set(task.tools)
        decline = next(m["content"] for m in messages if m["role"] == "assistant" and m.get("content"))
        assert "described on the web" not in decline and ("calculation" in decline or "sums" in decline), decline


def test_a_value_with_a_nearer_valid_one_offered_is_chosen_again_not_found():
    """'20 won't work ... The nearest cruise speed I can use is 30 km/h.' was answered 'I'll ask my son
    to help me find it.': a speed or a meeting length is the user's to choose, not to look up."""
    from toolgym.envs.gold import gold_messages
    from toolgym.envs.registry import load_domain
    from toolgym.generators.inspection.coherence import _DELIGHT

    checked = 0
    for name in ("vehicle", "workplace"):
        domain = load_domain(name)
        for task in domain.generate_tasks(30, seed=6, kinds=["no_tool/invalid_value"]):
            if not task.replies[0].vars.get("valid"):
                continue
            messages, verification = gold_messages(domain, task)
            assert verification.passed
            closing = [m["content"] for m in messages if m["role"] == "user"][-1]
            assert not re.search(r"\bfind\b|look it up|mistake|mixed it up|read it wrong", closing, re.I), closing
            assert not _DELIGHT.search(closing), closing
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize(("name", "kind"), [("retail", "no_tool/invalid_value"), ("banking", "no_tool/invalid_value"),
                                          ("travel", "no_tool/invalid_value"), ("workplace", "no_tool/unavailable")])
def test_a_user_never_gives_a_value_again_to_an_agent_that_has_it_or_called_it_invalid(name, kind):
    """"My order id is W6814264." answered an agent that had just said W6814264 is no order id, and
    'Tell them "Hey Michael, are we still on for the sync?" from me.' one that had just quoted the
    message it could not send. A user says a value again only to a question that does not hold it,
    in a chat that acts on it."""
    import toolgym
    from toolgym.envs.gold import gold_messages

    domain = toolgym.load_domain(name)
    checked = 0
    for task in domain.generate_tasks(40, seed=5, kinds=[kind]):
        chat = gold_messages(domain, task)[0]
        users = [m["content"] for m in chat if m["role"] == "user" and m.get("content")]
        for fact in task.scenario.facts:
            said = [text for text in users if fact.value in text]
            assert len(said) <= 1, (fact.value, users)
        checked += 1
    assert checked >= 20, checked
