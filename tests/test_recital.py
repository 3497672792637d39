"""A required output counts only when singled out: a reply that recites the list it was picked from
(every variant's price, for the cheapest) has not answered, whatever else it says."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from toolgym.verifiers.checks import required_outputs
from toolgym.verifiers.recital import Recitals
from toolgym.verifiers.spoil import SPOILS

from .spoil_checks import spoil_fails_wherever_it_applies

VARIANTS = json.dumps({"id": "P1045", "name": "Non-Slip Yoga Mat", "variants": [
    {"variant_id": "V100469", "options": {"color": "purple", "size": "4mm"}, "price": 43.67},
    {"variant_id": "V100470", "options": {"color": "black", "size": "4mm"}, "price": 30.05},
    {"variant_id": "V100472", "options": {"color": "blue", "size": "6mm"}, "price": 62.8},
    {"variant_id": "V100474", "options": {"color": "green", "size": "6mm"}, "price": 26.04},
]})  # fmt: skip


def _graded(reply: str, outputs=("$26.04",), result: str = VARIANTS):
    messages = [{"role": "user", "content": "Which Non-Slip Yoga Mat is cheapest?"},
                {"role": "tool", "content": result}, {"role": "assistant", "content": reply}]
    trajectory = SimpleNamespace(messages=messages, agent_messages=[messages[-1]])
    return required_outputs(SimpleNamespace(required_outputs=list(outputs)), trajectory)


def test_an_answer_among_every_value_of_its_list_is_not_stated():
    recited = _graded("Prices: purple $43.67, black $30.05, blue $62.80 and green $26.04.")
    assert not recited.passed and recited.value == 0.0 and recited.details == {"recited": ["$26.04"]}
    assert _graded("The green, 6mm one is cheapest at $26.04.").passed


def test_one_other_value_beside_the_answer_is_a_comparison_not_a_recital():
    assert _graded("Green is $26.04, a little under black at $30.05.").passed


def test_the_answer_said_once_on_its_own_counts_even_after_a_listing():
    assert _graded("Prices: purple $43.67, black $30.05, blue $62.80, green $26.04.\n", outputs=("$26.04",)).value == 0.0
    listed_then_answered = _graded("Prices: purple $43.67, black $30.05, blue $62.80, green $26.04. Cheapest: $26.04.")
    assert not listed_then_answered.passed  # one message: the listing and the answer together
    plans = json.dumps([{"plan_id": "starter_2", "name": "Starter 2", "price": 15.0}, {"plan_id": "standard_15", "name": "Standard 15", "price": 40.0},
                        {"plan_id": "plus_40", "name": "Plus 40", "price": 60.0}, {"plan_id": "travel_20", "name": "Travel 20", "price": 55.0}])
    # a plan named "Standard 15" and an outage ending at 15:00 state no price of $15.00 or $55.00
    said = "For 10 GB or more, Standard 15 is the best price: $40.00 a month. Miami: an outage expected to end at 15:00 on day 55."
    assert _graded(said, outputs=("$40.00",), result=plans).passed


def test_an_answer_read_in_prose_is_not_picked_from_the_links_beside_it():
    page = json.dumps({"text": "Heanair Studios is headquartered in Mamainholm, where it was founded.",
                       "links": [{"text": "Mamainholm"}, {"text": "Caitlyn Freeman"}, {"text": "Fiozurk Lamp"}]})
    said = "The Fiozurk Lamp was designed by Caitlyn Freeman, who runs Heanair Studios. It is headquartered in Mamainholm."
    assert _graded(said, outputs=("Mamainholm",), result=page).passed
    assert Recitals(["Mamainholm"], [page]).siblings == {}


def test_every_required_output_of_a_list_is_no_sibling_of_another():
    usage = json.dumps([{"line": "312-835-1044", "data_used_gb": 1.07}, {"line": "312-591-6041", "data_used_gb": 19.69},
                        {"line": "312-577-4489", "data_used_gb": 4.5}])
    assert Recitals(["1.07", "19.69"], [usage]).siblings == {"1.07": [4.5], "19.69": [4.5]}
    assert _graded("1.07 GB on one line, 19.69 GB on the other.", outputs=("1.07", "19.69"), result=usage).passed


@pytest.mark.parametrize(("name", "kind"), [("retail", "single"), ("telecom", "parallel"), ("workplace", "parallel"), ("vehicle", "parallel")])
def test_the_recited_list_spoil_fails_where_it_applies_and_the_gold_passes(name, kind):
    assert spoil_fails_wherever_it_applies(name, kind, SPOILS["recited_list"]), f"no {name} {kind} task picks an answer from a list"


def test_the_answer_with_the_range_of_the_rest_is_context_not_a_recital():
    """Two of five other prices ("the others run from $30.05 to $68.14") tell the user more, not less;
    three of five, or all, make the answer one of a list."""
    variants = json.dumps({"variants": [{"variant_id": f"V{i}", "price": price}
                                        for i, price in enumerate((43.67, 30.05, 62.8, 68.14, 51.2, 26.04))]})
    assert _graded("Green, 6mm is cheapest at $26.04; the others run from $30.05 to $68.14.", result=variants).passed
    assert not _graded("It is $26.04, $30.05, $43.67 or $51.20.", result=variants).passed


def test_a_figure_a_result_shows_on_its_own_or_another_answers_record_holds_is_no_recital():
    """Two gold chats of a full run failed: "$49.55 in total" from a calculation was also one pending
    order's total, listed with the others that were asked for; and the cheapest London hotel came in
    the same message as three hotels asked about by id, whose names the search listed too."""
    orders = json.dumps([{"id": "#W5160721", "total": 143.74}, {"id": "#W4165050", "total": 49.55},
                         {"id": "#W6703058", "total": 298.99}])
    calculation = json.dumps({"expression": "3 * 19.43 * 0.85", "result": 49.55})
    said = "With the discount you pay $49.55 in total. Still pending: #W5160721 for $143.74, #W4165050 for $49.55 and #W6703058 for $298.99."
    outputs = ("$49.55", "#W5160721", "#W4165050", "#W6703058")
    messages = [{"role": "tool", "content": orders}, {"role": "tool", "content": calculation}, {"role": "assistant", "content": said}]
    chat = SimpleNamespace(messages=messages, agent_messages=messages[-1:])
    assert required_outputs(SimpleNamespace(required_outputs=list(outputs)), chat).passed
    hotels = json.dumps([{"hotel_id": f"H{i}", "name": name, "nightly_rate": rate} for i, (name, rate) in
                         enumerate([("Hernandez Suites", 213.0), ("Forbes Residences", 79.0), ("Ruiz Hotel", 144.0),
                                    ("Alvarez Grand Hotel", 67.0), ("Fowler House", 163.0), ("Green Suites", 189.0)])])
    said = ("Hernandez Suites: $213.00 a night; Forbes Residences: $79.00; Ruiz Hotel: $144.00. "
            "The cheapest is Alvarez Grand Hotel at $67.00 a night.")
    outputs = ("$213.00", "$79.00", "$144.00", "Alvarez Grand Hotel", "$67.00")
    messages = [{"role": "tool", "content": hotels}, {"role": "assistant", "content": said}]
    chat = SimpleNamespace(messages=messages, agent_messages=messages[-1:])
    assert required_outputs(SimpleNamespace(required_outputs=list(outputs)), chat).passed
