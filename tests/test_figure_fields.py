"""An amount said as a field's is that field's: "a refund of $100.00 (fee $202.00)" for a quote of a
$202.00 refund and a $100.00 fee states two amounts seen, each as the other."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from toolgym.verifiers.figure_fields import figure_fields, swapped_amounts
from toolgym.verifiers.spoil import SPOILS

from .spoil_checks import spoil_fails_wherever_it_applies

QUOTE = {"booking_id": "FB100124", "fee": 100.0, "refund": 202.0, "rule": "economy fare: a cancellation fee of $100.00"}
FLIGHTS = [{"flight_id": "SW165", "price": 1196.0}, {"flight_id": "SW170", "price": 1310.0}]
BOOKING = {"booking_id": "FB100124", "fare_paid": 302.0, "bag_fees": 0.0}


def _graded(reply: str, *results: dict | list):
    messages = [m for n, r in enumerate(results or (QUOTE,)) for m in (
        {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{n}", "function": {"name": "t", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": f"c{n}", "content": json.dumps(r)})]
    messages.append({"role": "assistant", "content": reply})
    return figure_fields(SimpleNamespace(domain="travel"), SimpleNamespace(messages=messages))


@pytest.mark.parametrize("reply", [
    "I'll cancel FB100124 with a refund of $100.00 (fee $202.00). Shall I?",
    "FB100124 is cancelled; $202.00 is the fee and $100.00 will be refunded.",
    "Cancelling FB100124 refunds $100.00 after a $202.00 fee.",
])
def test_two_amounts_of_one_record_traded_fail(reply):
    score = _graded(reply)
    assert not score.passed and score.value == 0.0
    assert any("said as the" in why for why in score.details["misattributed"])


@pytest.mark.parametrize("reply", [
    "I'll cancel FB100124 with a refund of $202.00 (fee $100.00). Shall I?",
    "FB100124 is cancelled and $202.00 will be refunded, after the $100.00 fee.",
    "You get $202.00 back after the fee.",  # a field's word not bound to the amount
    "That comes to $9,104 in total.",  # worked out: no field held it
])
def test_amounts_said_as_their_own_fields_or_unbound_pass(reply):
    assert _graded(reply).passed, reply


def test_a_word_naming_a_field_of_another_record_says_nothing_of_this_one():
    """SW165's price said as "the lowest economy fare": the booking's fare_paid is another record's
    field, and a flight's price is what a fare is; nothing is swapped."""
    assert _graded("SW165 has the lowest economy fare: $1,196.00.", FLIGHTS, BOOKING).passed


def test_the_swap_is_made_for_the_spoil_only_where_both_amounts_are_said_as_their_fields():
    messages = [{"role": "tool", "content": json.dumps(QUOTE)},
                {"role": "assistant", "content": "Cancelling FB100124 refunds $202.00 after a $100.00 fee. OK?"}]
    assert swapped_amounts(messages, 1) == "Cancelling FB100124 refunds $100.00 after a $202.00 fee. OK?"
    messages[1]["content"] = "FB100124: $202.00 back to your card."
    assert swapped_amounts(messages, 1) is None


# banking's multi_step chats seldom say two amounts of one record (a payment and the balance it left)
@pytest.mark.parametrize("name, kind, count", [("travel", "single", 60), ("banking", "multi_step", 100), ("retail", "multi_step", 60)])
def test_the_swapped_fields_spoil_fails_wherever_it_applies(name, kind, count):
    assert spoil_fails_wherever_it_applies(name, kind, SPOILS["swapped_fields"], count=count) > 0


def test_a_field_counted_in_another_unit_holds_no_amount():
    """A line's 20 GB allowance and a refill named by the line's "refill_gb": "$20.00" is the 3 GB refill's price."""
    line = {"line_id": "L1", "data_allowance_gb": 20.0, "refill_gb": 0.0}
    refills = [{"refill_id": "refill_3gb", "gigabytes": 3, "price": 20.0}]
    assert _graded("The 3 GB data refill is $20.00, added to your next bill.", line, refills).passed


def test_an_amount_said_with_the_word_an_article_states_it_with_is_that_articles():
    """'The Holiday Saver has a minimum balance of $500.00.' read from an article, in a chat where a
    $500.00 loan payment left a loan's balance of $12,791.93: the amount is said as the article says
    it, not as the loan's balance; the loan's balance said as $500.00 still fails."""
    payment = {"loan_id": "L80129", "paid": 500.0, "balance": 12791.93}
    article = {"article_id": "KB0076", "title": "Holiday Saver: minimum balance",
               "body": "The minimum balance of the Holiday Saver is $500.00. This applies to every Holiday Saver opened with us."}
    assert _graded("The Holiday Saver has a minimum balance of $500.00.", payment, article).passed
    assert not _graded("Your loan's balance is $500.00.", payment).passed
    unrelated = dict(article, body="The Holiday Saver charges a monthly fee of $500.00.")
    assert not _graded("Your loan's balance is $500.00.", payment, unrelated).passed
