"""A word that opens a reply fits what the reply says: no promise before a thing done, no
acknowledgement of a user who said nothing."""

from __future__ import annotations

import pytest

import toolgym


@pytest.mark.parametrize("intent", ["reply_temperature", "reply_warmer"])
def test_a_car_reports_a_change_made_without_promising_it(intent):
    """"Will do. The volume is now set to 40.": future tense for what is already done."""
    book = toolgym.load_domain("vehicle").phrasebook
    said = [book.say(intent, seed, zone="the driver's side", temp="21 °C") for seed in range(400)]
    assert not [s for s in said if s.startswith("Will do")]


def test_a_research_answer_does_not_open_on_an_acknowledgement():
    """"Got it." opened answers given right after tool results: the user had said nothing to acknowledge."""
    book = toolgym.load_domain("research").phrasebook
    said = [book.say("reply_answer", seed, answer="It was founded in 1893.", sources="https://a.example/x")
            for seed in range(400)]
    assert not [s for s in said if s.startswith("Got it")]
