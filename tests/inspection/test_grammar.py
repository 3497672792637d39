"""Each grammar detector fires on the slips of issue #9 and stays quiet on the right wording."""

from __future__ import annotations

import pytest

from toolgym.generators.inspection.grammar import GRAMMAR_CLASSES, find_grammar, grammar_findings

# class -> (texts that must fire, texts that must not), as the assistant says them
CASES: dict[str, tuple[list[str], list[str]]] = {
    "comma_splice": (
        ["I've checked, here's the answer.", "I checked both documents, here's what they say.", "I looked it up, here it is."],
        ["I've checked. Here's the answer.", "I've checked both, and here's what I found.", "Here's what I checked: the order."],
    ),
    "always_anytime": (
        ["You can always get in touch anytime.", "We're always here any time you need us."],
        ["You can always get in touch.", "Reach out anytime.", "It's always busy. Call any time."],
    ),
    "us_then_i": (
        ["Always happy to help! Any time you need us, I'm here.", "Whenever you need us, I'll be around.",
         "If you need me, we're here."],
        ["Any time you need help, I'm here.", "Whenever you need us, we're here.", "Tell us, and we'll fix it.",
         "If you need me, I'm here."],
    ),
    "doubled_word": (
        ["Data roaming is on on my phone now.", "Please check the the order."],
        ["I think that that is right.", "It had had an effect.", "Order 12 12 units.", "Data roaming is on."],
    ),
    "lowercase_my_opening": (
        ["my email is a@b.org", "Of course. my full name is Seth Miller.", "Sure: my ZIP code is 59994."],
        ["My email is a@b.org", "Sure, my name is Ann.", "That is my order."],
    ),
    "capital_after_comma": (
        ["Great, thank you. Also, What's the monthly price?", "Thanks, Could you check it?",
         "Also, Quick question about my bill.", "Also, Price of the Standard plan?", "Thanks, The order is here.",
         "There is $328.18 on gift card 9873385, and There is $49.29 on gift card 3414361."],
        ["Hi, Ann, your order is here.", "Thanks, Seth.", "Also, what's the price?", "Yes, I agree.",
         "There is $328.18 on gift card 9873385, and $49.29 on gift card 3414361.", "Both, and Tampa is clear.",
         "Also, I'd like a refund.", "Also, I need help.", "Okay, I see.", "I live in Paris, France.",
         "Well, The Daily Drive, please."],
    ),
    "card_doubled": (
        ["It goes back to your Mastercard card ending in 5263.", "Use the gift card card.",
         "Your Visa card ending in 1234.", "your American Express card"],
        ["It goes back to your Mastercard ending in 5263.", "the card ending in 9", "your gift card balance",
         "a SIM card", "your credit card ending in 4242", "Discover the card that fits."],
    ),
    "a_before_vowel_or_plural": (
        ["I'm looking for a earbuds.", "Do you sell a leggings?", "I placed a order.", "Is there a headphones deal?"],
        ["I'm looking for an umbrella.", "a user account", "a USB cable", "a European plug", "a one-time code",
         "a unit price", "a bus", "a SIM card", "A lens", "a status update"],
    ),
    "currently_finished_event": (
        ["Order #W2663655 is currently delivered.", "Your items are currently shipped."],
        ["Order #W2663655 was delivered.", "The line is currently suspended.", "It is currently pending."],
    ),
    "but_after_regret": (
        ["Unfortunately, but I can't do that.", "I'm afraid, but that isn't possible.", "Regrettably but no."],
        ["I'm sorry, but I can't do that.", "Unfortunately, I can't do that.", "I'm afraid I can't.",
         "Sadly the store is closed, but we open at nine."],
    ),
    "raw_payment_id": (
        ["Gift card gift_card_3963329 has a balance of $177.69.", "I charged credit_card_7009466."],
        ["Your gift card ending in 3329 has $177.69.", "Order #W2663655 is pending.", "Use snake_case names."],
    ),
    "it_after_two_things": (
        ["Before I go on, I need your full name and ZIP code. Could you share it?",
         "I need your email, name and ZIP. Please provide it."],
        ["I need your order id. Could you share it?", "I need your name and ZIP code. Could you share them?",
         "Your email or your phone number works. Could you share it?"],
    ),
    "pronoun_agreement": (
        ["Already told: #W1. They is finishing up, so I stop.", "They has no further request.", "Done; we has it."],
        ["They are finishing up.", "What I told you is right.", "The user has no further request.", "I was there."],
    ),
}


def test_every_class_of_the_issue_has_cases():
    assert set(CASES) == set(GRAMMAR_CLASSES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_detector_fires_on_the_slip(name):
    detect, _ = GRAMMAR_CLASSES[name]
    for text in CASES[name][0]:
        found = detect(text)
        assert found and all(m.name == name for m in found), f"{name} missed {text!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_detector_stays_quiet_on_the_right_wording(name):
    detect, _ = GRAMMAR_CLASSES[name]
    for text in CASES[name][1]:
        assert detect(text) == [], f"{name} fired on {text!r}: {detect(text)}"


def test_user_quoting_their_own_id_is_not_a_slip_but_the_assistant_saying_it_is():
    text = "Please use credit_card_7009466."
    assert [m.name for m in find_grammar(text, "assistant")] == ["raw_payment_id"]
    assert find_grammar(text, "user") == []


def test_findings_count_turns_and_keep_examples():
    rows = [
        {"domain": "telecom", "kind": "single", "messages": [
            {"role": "user", "content": "Data roaming is on on my phone now."},
            {"role": "assistant", "content": "Thanks. Your line is active."},
        ]}
        for _ in range(4)
    ]
    found = grammar_findings(rows, examples=2)
    assert found["doubled_word"].turns == 4
    assert found["doubled_word"].examples == ["[telecom/single user] Data roaming is on on my phone now."] * 2
    assert all(found[name].turns == 0 for name in found if name != "doubled_word")
