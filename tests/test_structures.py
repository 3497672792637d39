"""The judgement structures of envs/structures.py and their checks: choices, revisions, lookups, joined reads.

Each is built on retail's own builders (one task each, proven like any generated task) and its
gold chat is then spoiled the way a careless policy would act.
"""

from __future__ import annotations

import copy
import random
import re
import zlib

import pytest

import toolgym
from toolgym.envs import World
from toolgym.envs.conversation import asks_confirmation, oracle_moves
from toolgym.envs.generation import GenContext, finalize
from toolgym.envs.gold import gold_messages
from toolgym.envs.phrasebook import ENGINE_STRUCTURES, ENGINE_UTTERANCES, Phrasebook
from toolgym.envs.structures import together
from toolgym.verifiers import verify
from toolgym.verifiers.choice_spoils import abandoned_request, asked_for_lookup, guessed_choice

from .conftest import builtin_domains

RETAIL = "retail"


@pytest.fixture(scope="module")
def retail():
    domain = toolgym.load_domain(RETAIL)
    world = World(domain.template())
    yield domain, world
    world.close()


def _task(retail, kind: str, build, *, tries: int = 60):
    """The first task a builder gives (over seeds), assembled and proven like a generated one."""
    from toolgym.domains.retail.tasks.assemble import assemble

    domain, world = retail
    for attempt in range(tries):
        seed = zlib.crc32(f"structures:{build.__name__}:{attempt}".encode())
        ctx = GenContext(domain, world, random.Random(seed), seed, kind, domain.world_seed, domain.default_size)
        found = build(ctx, None)
        if found is not None:
            return finalize(domain, assemble(ctx, found if isinstance(found, list) else [found], withhold_auth=True))
    raise AssertionError(f"{build.__name__} built nothing in {tries} seeds")


def test_a_choice_is_asked_naming_every_candidate_and_a_guess_fails(retail):
    from toolgym.domains.retail.tasks.choices import cancel_which

    task = _task(retail, "multi_step", cancel_which)
    step = next(s for s in task.plan if s.choice is not None)
    messages, verification = gold_messages(retail[0], task)
    assert verification.passed and verification.value == 1.0
    question = next(m["content"] for m in messages if m["role"] == "assistant" and m.get("content") and "which order" in m["content"].lower())
    assert all(option in question for option in step.choice.options)
    pick = task.scenario.fact(step.choice.fact)
    assert pick is not None and pick.key in task.scenario.withheld
    # the question comes after the reads that show the candidates, and before the act
    kinds = [m.kind for m in oracle_moves(task)]
    assert kinds.index("ask", kinds.index("call", kinds.index("call") + 1)) < len(kinds) - 1

    guessed = guessed_choice(task, messages)
    score = verify(task, guessed)
    assert score.value < 1.0 and not score.passed and score.components["chosen"] == 0.0

    # a user who answers the question in their own words, naming a candidate, has chosen
    paraphrased = copy.deepcopy(messages)
    answer = next(i for i, m in enumerate(paraphrased) if m["role"] == "user" and pick.value in (m.get("content") or ""))
    paraphrased[answer]["content"] = f"Oh, I mean the {' '.join(pick.value.split()[-2:])} one."  # "the May 14 one"
    assert verify(task, paraphrased).components["chosen"] == 1.0
    # a bare "yes" to the question is no choice
    paraphrased[answer]["content"] = "Yes, that's right."
    assert verify(task, paraphrased).components["chosen"] == 0.0


def test_choice_questions_never_read_as_a_request_for_a_yes():
    book = Phrasebook(ENGINE_UTTERANCES, ENGINE_STRUCTURES)
    values = {"label": "card", "what": "credit cards", "options": ["Visa ending in 1234", "Amex ending in 9876"], "count": "two"}
    for intent in [i for i in book.intents() if i.split("@")[0] in ("ask_which", "ask_pick")]:
        for seed in range(200):
            text = book.say(intent, seed, **values)
            assert "which card" in text.lower(), text
            assert not asks_confirmation(text), text
            assert re.search(r"[Ww]hich card[^.!?]*\?", text), text  # "Just tell me which card you'd like." asks no question


def test_a_revision_is_followed_and_the_abandoned_request_fails(retail):
    from toolgym.domains.retail.tasks.revisions import other_option

    task = _task(retail, "multi_turn", other_option)
    (revision,) = task.scenario.revisions
    assert revision.kind == "revise" and revision.abandoned
    assert [c.name for c in task.declined_calls()] == [c.name for c in revision.abandoned]
    messages, verification = gold_messages(retail[0], task)
    assert verification.passed
    made = [c["function"] for m in messages for c in m.get("tool_calls") or ()]
    assert not any(f["name"] == a.name and f["arguments"] == a.arguments for f in made for a in revision.abandoned)

    spoiled = abandoned_request(task, messages)
    assert spoiled is not None
    score = verify(task, spoiled)
    assert score.value < 1.0 and score.components["minefield"] == 0.0


# words that take a request back: the user's "no" before a revision says them already
_TAKING_BACK = re.compile(r"\b(no|not|don't|never mind|changed? my mind|scratch|forget|drop|skip|leave|hold off)\b", re.I)


@pytest.mark.parametrize("name", builtin_domains())
def test_a_revision_moves_on_without_saying_no_again(name):
    """The user said no ("No, don't do that after all.") and the agent let it be ("Fine, nothing
    happens then."); the next request's lead-in moves on, it does not turn the change down twice
    ("Okay, scratch that.", "Let's leave that.")."""
    book = toolgym.load_domain(name).phrasebook
    for intent in ("revise_lead", "revise_lead_other"):
        for variant in book.pooled(intent):
            assert not _TAKING_BACK.search(variant), f"{intent}: {variant!r}"
    assert any(_TAKING_BACK.search(v) for v in book.pooled("user_decline"))  # the words are a decline's


def test_asking_for_an_id_a_lookup_finds_scores_below_one(retail):
    from toolgym.domains.retail.tasks.choices import latest_action

    task = _task(retail, "multi_step", latest_action)
    (lookup,) = task.scenario.lookups
    assert lookup.label in task.scenario.unknown
    messages, verification = gold_messages(retail[0], task)
    assert verification.passed and verification.components["looked_up"] == 1.0
    score = verify(task, asked_for_lookup(task, messages))
    assert score.value < 1.0 and not score.passed and score.components["looked_up"] == 0.5


def test_two_reads_joined_answer_both_in_one_parallel_step(retail):
    from toolgym.domains.retail.tasks import reads

    domain, world = retail
    ctx = GenContext(domain, world, random.Random(5), 5, "parallel", domain.world_seed, domain.default_size)
    first, second = reads.gift_card_balance(ctx), reads.arithmetic(ctx)
    joined = together(ctx, first, second)
    assert joined is not None and len(joined.steps) == 1
    assert [c.name for c in joined.steps[0].calls] == ["get_gift_card_balance", "calculate"]
    assert joined.outputs == [*first.outputs, *second.outputs]
    assert together(ctx, first, first) is None  # the same tool twice is one request said twice
    # a sentence both requests say is said once in the joined message; a request all said already is no second one
    from dataclasses import replace

    from toolgym.envs.structures import in_sequence

    shared = first.request.split(". ")[-1]
    echoing = replace(second, request=f"{second.request} {shared}")
    for joiner in (together, in_sequence):
        message = joiner(ctx, first, echoing).request
        assert message.count(shared) == 1 and second.request in message, message
        assert joiner(ctx, first, replace(second, request=shared)) is None
    from toolgym.domains.retail.tasks.assemble import assemble

    task = finalize(domain, assemble(ctx, [joined]))
    _, verification = gold_messages(domain, task)
    assert verification.passed and verification.value == 1.0


def test_a_sentence_said_once_in_a_joined_message_never_cuts_a_quoted_message():
    from toolgym.envs.structures import unsaid

    first = "Someone posted about the outage in #finance recently. Who was it?"
    second = 'Post "Heads up. Who was it? Let me know." in #ops. Who was it?'
    assert unsaid(first, second) == 'Post "Heads up. Who was it? Let me know." in #ops.'
    assert unsaid(first, "Someone posted in #launch recently. Who was it?") == "Someone posted in #launch recently."


def test_a_joined_answer_keeps_a_short_first_sentence_that_is_part_of_the_answer():
    from toolgym.envs.structures import _without_ack

    answer = "The Fiozea Scanner weighs 13.1 kg. In pounds, that comes to 28.88."
    # the reply's own answer opens on a short fact: it is the answer, not an acknowledgement
    assert _without_ack(answer, ["28.88"], [answer, "https://atlaspedia.example/wiki/fiozea-scanner"]) == answer
    # a short opening the template added ("Found it.") is dropped from the second answer
    assert _without_ack(f"Found it. {answer}", ["28.88"], [answer]) == answer


def test_the_reply_to_a_declined_action_fits_a_hand_off_as_well_as_a_change(retail):
    """'Okay, I haven't made that change.' answered a user who said no to being transferred to a
    human agent: the engine's reply to a declined action names no change."""
    book = retail[0].phrasebook
    said = {book.say("reply_left_as_is", seed) for seed in range(60)}
    assert len(said) >= 4 and not [s for s in said if "change" in s.lower()], said


def test_a_message_of_two_requests_thanks_once(retail):
    """'... I appreciate your prompt help. Next: ... I would be grateful if this could be done today.'
    joined two requests that each thanked: the second's thanking aside goes."""
    from dataclasses import replace

    from toolgym.domains.retail.tasks import reads
    from toolgym.envs.structures import in_sequence
    from toolgym.envs.user_turns import THANKS, sentence_key, sentences

    domain, world = retail
    thanks, grateful = "I appreciate your help with this.", "Thank you very much."
    assert {sentence_key(thanks), sentence_key(grateful)} <= domain.phrasebook.asides
    ctx = GenContext(domain, world, random.Random(5), 5, "multi_step", domain.world_seed, domain.default_size)
    first, second = reads.gift_card_balance(ctx), reads.arithmetic(ctx)
    for joiner in (together, in_sequence):
        joined = joiner(ctx, replace(first, request=f"{first.request} {thanks}"), replace(second, request=f"{second.request} {grateful}"))
        assert joined is not None
        assert [s for s in sentences(joined.request) if THANKS.search(s)] == [thanks], joined.request
        assert second.request in joined.request  # the request itself stays whole


def test_the_reply_to_a_no_is_said_in_a_hundred_ways():
    """Six sentences answered every declined change of five domains: "Sure, I'll hold off on that."
    was said 28 times in a 4,200-task corpus."""
    from collections import Counter

    from toolgym.envs.registry import load_domain

    said = Counter(load_domain("telecom").phrasebook.say("reply_left_as_is", seed) for seed in range(3000))
    assert len(said) >= 100, len(said)
    assert max(said.values()) <= 0.02 * 3000, said.most_common(3)
    assert not [s for s in said if "change" in s.lower()]  # the action may be a hand-off, not a change


def test_a_joined_reply_calls_a_second_request_for_a_change_a_request_not_a_question():
    """"Please open a dispute." came second in one message, and the joined reply answered "As for your
    other question: your dispute ... is open": a change asked for is no question."""
    book = Phrasebook(ENGINE_UTTERANCES, ENGINE_STRUCTURES)
    for index, _ in enumerate(book.variants("reply_both")):
        acted = book.render("reply_both", index, first="Done.", second="the card is frozen.", acted=True)
        asked = book.render("reply_both", index, first="Done.", second="the balance is $5.00.", acted=False)
        assert "question" not in acted and "request" not in asked, (acted, asked)
    domain = toolgym.load_domain("banking")
    joined = [t for t in domain.generate_tasks(40, seed=2, kinds=["multi_step"]) if t.replies and t.replies[0].intent == "reply_both"]
    assert joined, "no banking multi_step task of 40 joins two requests in one reply"
    for task in joined:
        last = max(s.part or 0 for s in task.plan)
        changes = any(domain.tools[c.name].writes for s in task.plan if (s.part or 0) == last for c in s.calls)
        assert task.replies[0].vars["acted"] == changes, task.id


def test_a_left_out_value_is_told_apart_from_a_longer_one_in_the_request():
    """A transfer planned for "July 19th" moved to a day left out, July 1: the request "... July
    19th won't work" was taken to hold "July 1", and the draw failed. A value counts as in the
    request only as a whole word; one that is there still fails the draw."""
    from toolgym.envs import Piece, Step, Utterance, call
    from toolgym.envs.structures import left_out
    from toolgym.errors import GeneratorBug

    piece = Piece(request="", goal="Move the transfer.", steps=[Step(calls=[call("schedule_transfer", run_on="2025-07-01")])],
                  reply=Utterance(intent="done_schedule"))
    moved = left_out(piece, key="day", label="new transfer date", value="July 1",
                     request="Please reschedule my planned $100.00 transfer; July 19th won't work.")
    assert moved.facts[-1].value == "July 1" and "day" in moved.steps[-1].needs
    with pytest.raises(GeneratorBug, match="new transfer date"):
        left_out(piece, key="day", label="new transfer date", value="July 1", request="Move it to July 1, please.")


@pytest.mark.parametrize("name", ["telecom", "retail"])
def test_an_open_choice_is_offered_and_picked_not_asked_as_which_one_is_meant(name):
    """"I'd like to change it" (no plan named) / "Your request corresponds to five other plans ...
    Would you kindly tell me which plan you are referring to?" / "I meant the Starter 2 plan.": the
    user named none, so the options are offered and the user picks one."""
    from toolgym.envs.registry import load_domain

    domain = load_domain(name)
    tasks = [t for t in domain.generate_tasks(400, seed=2, kinds=["single", "multi_turn"], size="small")
             if any(s.choice is not None and s.choice.question.intent == "ask_pick" for s in t.plan)]
    assert len(tasks) >= 5
    meant = re.compile(r"\b(mean|meant|referring|could mean|corresponds to|matches more than one|right one)\b", re.I)
    for task in tasks[:12]:
        messages, verification = gold_messages(domain, task)
        assert verification.passed
        asked = next(i for i, m in enumerate(messages) if m["role"] == "assistant" and re.search(r"\bwhich\b", m.get("content") or "", re.I))
        answer = next(m["content"] for m in messages[asked + 1:] if m["role"] == "user")
        assert not meant.search(messages[asked]["content"]) and not meant.search(answer), (messages[asked]["content"], answer)


def test_a_change_its_domain_built_turned_down_keeps_its_own_reply_of_what_stays():
    """`changed_mind` answered every no with the engine's 'Sure, I won't do it.' even where the domain
    had built the change turned down with a reply naming what stays ('Bill B100324 stays open'); a
    change built to be confirmed still gets the engine's reply."""
    from toolgym.envs import Piece, Step, Utterance, call
    from toolgym.envs.structures import LEFT_AS_IS, changed_mind

    class Ctx:
        def say(self, intent: str, **values) -> str:
            return "Instead:"

    def piece(tool: str, declined: bool = False) -> Piece:
        reply = Utterance(intent="declined_pay" if declined else "done_pay")
        step = Step(calls=[call(tool, bill_id="B1")], confirm="pay bill B1", declined=declined)
        return Piece(request=f"Please {tool}.", goal="g", reply=reply, steps=[step], outputs=["B1"])

    held, then = changed_mind(Ctx(), piece("make_payment", declined=True), piece("add_data_refill"))
    assert held.reply.intent == "declined_pay" and held.outputs == ["B1"] and held.steps[-1].declined
    plain, _ = changed_mind(Ctx(), piece("make_payment"), piece("add_data_refill"))
    assert plain.reply == LEFT_AS_IS and plain.outputs == [] and plain.steps[-1].declined


def test_a_change_turned_down_makes_no_call_and_says_what_stays():
    from dataclasses import replace

    from toolgym.envs import Piece, Step, Utterance, call
    from toolgym.envs.structures import turned_down

    steps = [Step(calls=[call("list_bills")]), Step(calls=[call("make_payment", bill_id="B1")], confirm="pay bill B1"), Step(calls=[call("list_bills")])]
    piece = Piece(request="Pay my bill.", goal="g", reply=Utterance(intent="done_pay"), steps=steps, outputs=["$5.00"])
    held = turned_down(piece, Utterance(intent="declined_pay"), ["B1"])
    assert [s.declined for s in held.steps] == [False, True, False]
    assert held.reply.intent == "declined_pay" and held.outputs == ["B1"] and not piece.steps[1].declined
    # by default, the domain's held_<x> for its done_<x>, with the reply's values
    assert turned_down(piece).reply == Utterance(intent="held_pay") and turned_down(piece).outputs == []
    assert turned_down(replace(piece, reply=Utterance(intent="reply_unlocked"))).reply.intent == "held_unlocked"
    # a piece its domain built turned down (its own reply of what stays) is kept as it is
    assert turned_down(held) is held
