"""A call that hands the chat to a person ends what the agent does: "Done. A human agent will take
over; your ticket is HT700001." was followed by another request, and the same bot added two bags and
charged $35. Tools mark such a call (`@tool(hands_over=True)`); the gold check refuses a plan that
goes on after it, and travel's multi_turn asks for a hand-off only as its last request."""

from __future__ import annotations

import random
import re

import pytest

import toolgym
from toolgym.domains.travel.tasks.kinds import multi_turn
from toolgym.envs import World
from toolgym.envs.generation import GenContext
from toolgym.envs.gold import check_gold
from toolgym.errors import DomainError, GeneratorBug

SEEDS = 80


@pytest.fixture(scope="module")
def travel():
    domain = toolgym.load_domain("travel")
    world = World(domain.template(0, "small"))
    yield domain, world
    world.close()


def _multi_turns(travel, seeds=range(SEEDS)):
    domain, world = travel
    for seed in seeds:
        ctx = GenContext(domain, world, random.Random(seed), seed, "multi_turn", 0, "small")
        try:
            yield multi_turn(ctx)
        except GeneratorBug:
            continue


def _hands_over(domain, step) -> bool:
    return not step.declined and any(domain.tool(c.name).hands_over for c in step.calls)


def test_travel_hand_off_is_marked_and_banking_fraud_case_is_not():
    """Travel's transfer_to_human gives the chat to a human agent; banking's passes a case to a fraud team
    that calls back, and the chat goes on."""
    assert toolgym.load_domain("travel").tool("transfer_to_human").hands_over
    assert not toolgym.load_domain("banking").tool("transfer_to_human").hands_over


def test_a_read_cannot_hand_over():
    from toolgym.envs import tool

    def ask(world, who: str) -> str:
        """Ask someone.

        Args:
            who: Whom to ask.
        """
        return who

    with pytest.raises(DomainError, match="hands_over"):
        tool(ask, hands_over=True)


def test_travel_multi_turn_asks_for_a_hand_off_only_last(travel):
    domain, _ = travel
    handed = 0
    for task in _multi_turns(travel):
        steps = [s for s in task.plan if not s.declined]
        at = [i for i, s in enumerate(steps) if _hands_over(domain, s)]
        if not at:
            continue
        handed += 1
        assert at == [len(steps) - 1], [c.name for s in steps for c in s.calls]
        assert steps[-1].segment == task.segments - 1, task.scenario.requests
    assert handed, "no multi_turn in the sample ends with a hand-off"


def test_the_gold_check_refuses_a_plan_that_goes_on_after_a_hand_off(travel):
    domain, _ = travel
    task = next(t for t in _multi_turns(travel) if any(_hands_over(domain, s) for s in t.plan))
    first = [s for s in task.plan if s.segment == 0]
    handoff = [s.model_copy(update={"segment": 0}) for s in task.plan if _hands_over(domain, s)]
    rest = [s.model_copy(update={"segment": 1}) for s in first]
    moved = task.model_copy(update={"plan": handoff + rest})
    with pytest.raises(GeneratorBug, match="goes on after transfer_to_human"):
        check_gold(domain, moved)


def test_a_hand_off_reply_promises_nothing_the_tool_did_not_say():
    """"Your case is with a human agent now ... They'll be in touch shortly.": transfer_to_human returns a
    ticket and "a human agent will take over", nothing of when or how they get in touch or what they know."""
    book = toolgym.load_domain("travel").phrasebook
    said = {book.say("done_handoff", seed, ticket="HT700001") for seed in range(300)}
    assert len(said) > 20
    for text in said:
        assert "HT700001" in text, text
        assert not re.search(r"\b(shortly|soon|in touch with you|be in touch|call you|everything they need|within)\b", text), text


def test_retail_hand_off_is_marked_and_asked_for_last_in_a_multi_turn_chat():
    """Retail's transfer_to_human_agent hands the conversation to a human agent too; its multi_turn
    shuffles two or three requests, and the hand-off still comes last."""
    from toolgym.domains.retail.tasks.acting import multi_turn as retail_multi_turn

    domain = toolgym.load_domain("retail")
    assert domain.tool("transfer_to_human_agent").hands_over
    world = World(domain.template(0, "small"))
    handed = 0
    try:
        for seed in range(400):
            ctx = GenContext(domain, world, random.Random(seed), seed, "multi_turn", 0, "small")
            try:
                task = retail_multi_turn(ctx)
            except GeneratorBug:
                continue
            steps = [s for s in task.plan if not s.declined]
            at = [i for i, s in enumerate(steps) if _hands_over(domain, s)]
            if at:
                handed += 1
                assert at == [len(steps) - 1] and steps[-1].segment == task.segments - 1, task.scenario.requests
    finally:
        world.close()
    assert handed, "no retail multi_turn in the sample hands the chat over"
