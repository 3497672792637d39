"""A domain's own words for asking and giving one fact (envs/fact_words.py), and the engine's answer
to "which one?": the chats stop saying "your preferred window opening" and "My place is X"."""

from __future__ import annotations

import pytest

import toolgym
from toolgym.envs.conversation import asks_confirmation
from toolgym.envs.fact_words import ASK_PREFIX, GIVE_PREFIX, fact_answer, fact_question
from toolgym.envs.gold import gold_messages
from toolgym.envs.phrasebook import Phrasebook
from toolgym.envs.registry import domains
from toolgym.envs.task import Fact
from toolgym.errors import DomainError


def _book(tmp_path, text: str) -> Phrasebook:
    path = tmp_path / "utterances.yaml"
    path.write_text(text)
    return Phrasebook(path)


def test_a_fact_with_its_own_words_is_asked_and_given_in_them(tmp_path):
    book = _book(tmp_path, 'ask_fact_folder: ["Which folder should it go in?"]\ntell_fact_folder: ["put it in {{ value }}"]\n'
                           'tell_fact_broken: ["somewhere nice"]\n')
    folder = Fact(key="folder", value="Projects", label="folder for the file")
    assert fact_question(book, [folder], None, 3) == "Which folder should it go in?"
    assert fact_answer(book, folder, None, 3) == "put it in Projects"
    # several facts asked at once, or a fact without words of its own, keep the engine's label words
    other = Fact(key="due", value="2025-03-01", label="due date")
    assert fact_question(book, [folder, other], None, 3) == "" and fact_answer(book, other, None, 3) == ""
    with pytest.raises(DomainError, match="tell_fact_broken.*leaves out the value"):
        fact_answer(book, Fact(key="broken", value="X1", label="thing"), None, 3)


def test_a_question_naming_a_fact_still_to_ask_for_is_drawn_again(tmp_path):
    """'What opening would you like, in percent?' had the driver give the charge limit too ("percent")."""
    book = _book(tmp_path, 'ask_fact_opening: ["What opening would you like, in percent?", "How far should it open?"]\n')
    opening = Fact(key="opening", value="40% open", label="window opening")
    asked = {fact_question(book, [opening], None, seed, avoid=["limit", "percent"]) for seed in range(30)}
    assert asked == {"How far should it open?"}
    assert fact_question(book, [opening], None, 3, avoid=["percent", "open"]) == ""  # every draw names one: the engine's words


def test_the_question_takes_the_place_of_the_engines_ask_and_keeps_its_lead_in():
    book = toolgym.load_domain("vehicle").phrasebook
    said = {book.say_swapping("ask_facts", seed, {"ask": "{{ question }}"}, question="How far should it open?",
                              labels=["preferred window opening"], opening=False, lookup=False) for seed in range(40)}
    assert all("How far should it open?" in s and "preferred window opening" not in s for s in said)
    assert len(said) > 5  # the lead-in and afterword still vary


@pytest.mark.parametrize("name", sorted(domains()))
def test_a_domains_own_questions_never_read_as_a_confirmation_and_its_answers_say_the_value(name):
    """'What speed should I hold?' read as 'should I …?': the user said yes instead of a speed."""
    book = toolgym.load_domain(name).phrasebook
    for intent in book.intents():
        if intent.startswith(ASK_PREFIX):
            for variant in book.variants(intent):
                assert variant.endswith("?") and not asks_confirmation(variant), (intent, variant)
        if intent.startswith(GIVE_PREFIX):
            for variant in book.variants(intent):
                assert "{{ value }}" in variant, (intent, variant)


def test_vehicle_settings_are_asked_and_given_in_words_people_use():
    domain = toolgym.load_domain("vehicle")
    asked = answered = 0
    for task in domain.generate_tasks(200, seed=3, kinds=["single", "parallel"], size="small"):
        messages, verification = gold_messages(domain, task)
        assert verification.passed, task.id
        for message, after in zip(messages, messages[1:], strict=False):
            text = message.get("content") or ""
            if message["role"] == "assistant" and "?" in text and not asks_confirmation(text):
                settings = [f for f in task.scenario.facts if f.key in task.scenario.withheld
                            and f.key in {"temperature", "heat_level", "window_opening", "cruise_speed", "charge_limit"}]
                if settings:
                    asked += 1
                    answer = after.get("content") or ""
                    assert "your preferred" not in text, text
                    assert "My preferred" not in answer, answer
                    answered += any(str(f.value).lower() in answer.lower() for f in settings)  # the value, not a "yes"
    assert asked >= 10 and answered == asked


def test_the_record_the_user_means_is_named_as_people_name_it():
    """'My place is Collins Charging Park.' answered "Which place do you mean?"."""
    chose = 0
    for name in ("travel", "vehicle", "retail"):
        domain = toolgym.load_domain(name)
        for task in domain.generate_tasks(120, seed=3, kinds=["single", "multi_step"], size="small"):
            choices = [s.choice for s in task.plan if s.choice is not None]
            if not choices:
                continue
            messages, verification = gold_messages(domain, task)
            assert verification.passed, task.id
            labels = {c.label for c in choices}
            for message in messages:
                if message["role"] == "user" and any(f"My {label} is" in (message.get("content") or "") for label in labels):
                    pytest.fail(message["content"])
            chose += 1
    assert chose >= 10
