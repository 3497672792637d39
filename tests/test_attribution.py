"""A required figure counts only when said of its own record: "312-397-4468: 1.89 GB used" for the
other line's 1.89 GB states both figures and answers wrongly."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from toolgym.verifiers.attribution import Attribution
from toolgym.verifiers.checks import required_outputs
from toolgym.verifiers.spoil import SPOILS

from .spoil_checks import spoil_fails_wherever_it_applies

LINES = [json.dumps({"line_id": "L10046", "phone_number": "312-397-4468", "plan_name": "Travel 20", "status": "active", "data_used_gb": 3.65}),
         json.dumps({"line_id": "L10047", "phone_number": "312-837-5699", "plan_name": "Basic 5", "status": "active", "data_used_gb": 1.89})]
USE = ("3.65 GB", "1.89 GB")


def _graded(reply: str, outputs=USE, results=LINES):
    messages = [{"role": "user", "content": "How much data has each of my lines used?"},
                *({"role": "tool", "content": r} for r in results), {"role": "assistant", "content": reply}]
    trajectory = SimpleNamespace(messages=messages, agent_messages=[messages[-1]])
    return required_outputs(SimpleNamespace(required_outputs=list(outputs)), trajectory)


def test_figures_swapped_between_two_records_are_not_stated():
    assert _graded("312-397-4468: 3.65 GB used; 312-837-5699: 1.89 GB used.").passed
    swapped = _graded("312-397-4468: 1.89 GB used; 312-837-5699: 3.65 GB used.")
    assert not swapped.passed and swapped.value == 0.0 and swapped.details == {"misattributed": ["3.65 GB", "1.89 GB"]}
    # by the plan's name, the other way round, or in a clause of their own: as long as each is its own line's
    assert _graded("The Basic 5 line used 1.89 GB, and the Travel 20 line used 3.65 GB.").passed
    assert _graded("3.65 GB used on 312-397-4468, 1.89 GB on 312-837-5699.").passed
    assert not _graded("3.65 GB used on 312-837-5699, 1.89 GB on 312-397-4468.").passed


def test_a_figure_said_with_no_record_named_is_left_to_the_other_checks():
    assert _graded("One line used 3.65 GB and the other 1.89 GB.").passed


def test_names_every_peer_shares_name_no_record_and_records_of_another_kind_are_no_peers():
    """Both lines are "active": the status names neither. An order item's price is no peer of a variant's."""
    names = Attribution(list(USE), LINES).names
    assert "active" not in names["3.65 GB"][0] | names["3.65 GB"][1]
    variants = json.dumps({"product": "Fountain Pen", "variants": [
        {"variant_id": "V1", "options": {"color": "black", "nib": "fine"}, "price": 64.42},
        {"variant_id": "V2", "options": {"color": "blue", "nib": "fine"}, "price": 58.1}]})
    order = json.dumps({"id": "#W1", "items": [{"id": "IT1", "name": "Fountain Pen", "options": "blue, fine", "price": 71.0, "status": "delivered"},
                                               {"id": "IT2", "name": "Desk Lamp", "options": "white", "price": 20.5, "status": "delivered"}]})
    said = "For black, fine nib, the Fountain Pen is $64.42; that option is in stock."
    assert _graded(said, outputs=("$64.42",), results=[variants, order]).passed
    assert not _graded("In blue with a fine nib it is $64.42.", outputs=("$64.42",), results=[variants, order]).passed


def test_a_cabin_written_with_an_underscore_is_named_as_said():
    fares = [json.dumps({"cabin": "basic_economy", "bag_fee": 40.0}), json.dumps({"cabin": "economy", "bag_fee": 35.0})]
    assert _graded("On basic economy no checked bag is free: each one costs $40.00.", outputs=("$40.00",), results=fares).passed
    assert not _graded("On economy each checked bag costs $40.00.", outputs=("$40.00",), results=fares).passed


@pytest.mark.parametrize("name", ["telecom", "travel"])
def test_the_swapped_figures_spoil_fails_where_it_applies_and_the_gold_passes(name):
    assert spoil_fails_wherever_it_applies(name, "parallel", SPOILS["swapped_figures"]), f"no {name} parallel task applies"
