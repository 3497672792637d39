"""A frustrated user hears sorry once or twice in a chat, not at every step, and "Sorry again" only
after an earlier sorry: "I'm sorry for the trouble. What transfer amount would you like?" was followed by
"Sorry for the trouble. Here is what I will do: ...", and 14 of 17 "Sorry again for the trouble." closed
a chat whose agent had never apologised."""

from __future__ import annotations

import re

import pytest

import toolgym
from toolgym.envs.gold import gold_messages
from toolgym.envs.phrasing import apologies, register_of
from toolgym.generators.rows import with_closer

SORRY = re.compile(r"\b(sorry|apolog)", re.I)


def test_apologies_counts_the_sentences_that_say_sorry():
    assert apologies(["I'm sorry for the trouble. What's your email?", "Thanks. Apologies for the wait. Shall I?"]) == 2
    assert apologies(["Understood. Here it is.", ""]) == 0


@pytest.mark.parametrize("intent", ["closer_done@frustrated", "closer_answered@frustrated"])
def test_a_closing_says_sorry_again_only_after_a_sorry_and_never_a_third_time(book, intent):
    said = {count: [book.say(intent, seed, thanked=seed % 2 == 0, apologised=count) for seed in range(300)] for count in (0, 1, 2)}
    assert not [s for s in said[0] if re.search(r"(sorry|apologi[sz]e) again", s, re.I)]
    assert [s for s in said[1] if "Sorry again" in s]
    assert not [s for s in said[1] if SORRY.search(s) and "Sorry again" not in s]
    assert not [s for s in said[2] if SORRY.search(s)]
    assert [s for s in said[0] if SORRY.search(s)]  # with none said yet, one sorry for the trouble


@pytest.mark.parametrize("intent", ["ask_facts@frustrated", "confirm@frustrated"])
def test_a_question_after_a_sorry_does_not_say_sorry_once_more(book, intent):
    values = {"labels": ["email"], "opening": False, "lookup": True, "computes": False, "looked": False} if intent.startswith("ask") \
        else {"action": "cancel FB1", "details": True}
    after = [book.say(intent, seed, apologised=1, **values) for seed in range(300)]
    assert not [s for s in after if SORRY.search(s)]
    assert [s for s in (book.say(intent, seed, apologised=0, **values) for seed in range(300)) if SORRY.search(s)]


@pytest.mark.parametrize("domain_name", ["banking", "retail", "travel"])
def test_a_frustrated_chat_apologises_at_most_twice(domain_name):
    domain = toolgym.load_domain(domain_name)
    chats = 0
    for task in domain.generate_tasks(60, seed=23, kinds=["single", "multi_turn", "multi_step"], size="small"):
        if register_of(task.scenario.persona) != "frustrated":
            continue
        messages = with_closer(task, gold_messages(domain, task)[0])
        said = [str(m.get("content") or "") for m in messages if m.get("role") == "assistant"]
        assert apologies(said) <= 2, said
        for index, text in enumerate(said):
            if "Sorry again" in text:
                assert apologies(said[:index]), said
        chats += 1
    assert chats >= 3, chats
