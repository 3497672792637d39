"""A value that is the user's to choose (an amount, a speed, a preference) is decided, not found:
the agent's ask, the user's "not yet" and the closing line say so, while a fact to look up keeps
the words of something to find ("I don't have the payee's account number right now")."""

from __future__ import annotations

import re

import pytest

import toolgym
from toolgym.envs.conversation import closer_intent, undecided
from toolgym.envs.gold import gold_messages
from toolgym.generators.rows import with_closer

_FOUND = re.compile(r"\b(?:offhand|find|found|in hand|look (?:it|them) up|don't (?:have|know)|at hand|stand in|check)\b", re.I)
_DECIDED = re.compile(r"\b(?:decid\w*|made up|make up|mind|chos\w*|settled|your call|think)\b", re.I)


def _missing_chats(name: str, count: int = 60):
    domain = toolgym.load_domain(name)
    for task in domain.generate_tasks(count, seed=7, kinds=["no_tool/missing_info"]):
        yield task, with_closer(task, gold_messages(domain, task)[0])


@pytest.mark.parametrize(("name", "chosen_label", "fact_label"), [
    ("banking", "the transfer amount", "the payee's account number"),
    ("retail", "preferred", "gift card number"),
])
def test_a_choice_not_made_is_undecided_and_a_fact_not_at_hand_is_to_be_found(name, chosen_label, fact_label):
    """'Ah, I don't know the transfer amount offhand.' / 'drop us a line once you've found it': an amount
    is the customer's choice, not a fact they could forget."""
    seen = {True: 0, False: 0}
    for task, chat in _missing_chats(name):
        label = task.no_tool.missing[0]
        ask, answer, close = (m["content"] for m in chat[-3:])
        if chosen_label in label:
            assert undecided(task) and closer_intent(task) == "closer_undecided"
            assert _DECIDED.search(answer) and not _FOUND.search(answer), answer
            assert _DECIDED.search(close) and not _FOUND.search(close), close
            assert not re.search(r"stand in|look (?:it|them) up", ask), ask
            seen[True] += 1
        elif fact_label in label:
            assert not undecided(task) and closer_intent(task) == "closer_pending"
            seen[False] += 1
    assert seen[True] and seen[False], seen


def test_every_missing_car_setting_is_the_drivers_choice():
    """'I don't know what cruise speed I want.' / 'once it's in hand, we can wrap this up'."""
    closes = [chat[-1]["content"] for task, chat in _missing_chats("vehicle", 30) if undecided(task)]
    assert len(closes) == 30
    assert not [c for c in closes if _FOUND.search(c)], closes


def test_a_value_with_a_nearer_valid_one_offered_is_chosen_again_not_found():
    """'Volume to 100.' / 'I'll think it over and come back.' / 'once you find it, we can pick up right
    where we left off!': the driver picks another volume."""
    domain = toolgym.load_domain("vehicle")
    offered = [t for t in domain.generate_tasks(40, seed=3, kinds=["no_tool/invalid_value"]) if t.replies[0].vars.get("valid")]
    assert offered
    for task in offered:
        assert undecided(task)
        close = with_closer(task, gold_messages(domain, task)[0])[-1]["content"]
        assert not _FOUND.search(close), close


def test_the_ask_for_a_choice_never_calls_it_a_thing_to_stand_in_for_or_look_up(book):
    """'Could you give me your preferred style? Nothing else can stand in for it.'"""
    chosen = {book.say("ask_missing", seed, labels=["preferred style"], chosen=True) for seed in range(300)}
    facts = {book.say("ask_missing", seed, labels=["order id"]) for seed in range(300)}
    assert not [a for a in chosen if re.search(r"stand in|look (?:it|them) up", a)]
    assert [a for a in chosen if "your decision" in a or "for you to choose" in a]
    assert [a for a in facts if "stand in" in a] and not [a for a in facts if "your decision" in a]


@pytest.mark.parametrize("name", ["telecom", "banking", "travel", "retail"])
def test_a_user_without_the_value_answers_it_and_does_not_say_the_label_back(name):
    """'Hmm, I can't tell you my wife's phone number yet.', 'I can't give you my flatmate's service region
    just now.': the agent had just asked for that and nothing else, so a person says "it"."""
    answered = 0
    for task, chat in _missing_chats(name, 10):
        answer = chat[-2]["content"]
        assert not [label for label in task.no_tool.missing if label.lower() in answer.lower()], answer
        answered += 1
    assert answered >= 3, answered


def test_a_user_asked_for_several_things_names_the_one_they_lack(book):
    """Asked for a phone number and a date of birth, "I don't have it" would not say which."""
    workplace = toolgym.load_domain("workplace").phrasebook  # its own user_unknown
    for phrases, intent in ((book, "user_unknown"), (book, "user_undecided"), (workplace, "user_unknown")):
        alone = [phrases.say(intent, seed, labels=["wife's phone number"], alone=True) for seed in range(200)]
        among = [phrases.say(intent, seed, labels=["wife's phone number"], alone=False) for seed in range(200)]
        assert not [a for a in alone if "phone number" in a]
        assert all("phone number" in a for a in among if intent == "user_unknown")
