"""A record's state said as it stands: "booking FB100124 is still confirmed" after a cancel that a
tool result showed is false, though every id and amount in it is right."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from toolgym.verifiers.spoil import SPOILS
from toolgym.verifiers.states import current_states

from .spoil_checks import spoil_fails_wherever_it_applies

LISTED = {"traveller_id": "TR0059", "flight_bookings": [
    {"booking_id": "FB100124", "flight_id": "SW1370-20250905", "to": "MEX (Mexico City)", "status": "confirmed"},
    {"booking_id": "FB100125", "flight_id": "SW250-20250827", "to": "MAD (Madrid)", "status": "confirmed"}]}
CANCELLED = {"booking_id": "FB100124", "fee": 100.0, "refund": 202.0, "status": "cancelled"}


def _chat(*replies: str, cancel_result: dict | None = CANCELLED) -> list[dict]:
    """A travel chat: the bookings listed, FB100124 cancelled, then the replies given."""
    messages = [
        {"role": "user", "content": "Please cancel my flight to Mexico City."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "list_bookings", "arguments": '{"traveller_id":"TR0059"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(LISTED)},
        {"role": "assistant", "content": "Booking FB100124 to Mexico City is confirmed; shall I cancel it for a refund of $202.00?"},
        {"role": "user", "content": "Yes."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "function": {"name": "cancel_booking", "arguments": '{"booking_id":"FB100124"}'}}]},
        {"role": "tool", "tool_call_id": "c2", "content": json.dumps(cancel_result)},
    ]
    return messages + [{"role": "assistant", "content": reply} for reply in replies]


def _graded(*replies: str, **kwargs):
    return current_states(SimpleNamespace(domain="travel"), SimpleNamespace(messages=_chat(*replies, **kwargs)))


def test_a_state_the_record_left_is_a_misstatement():
    assert _graded("Done. Booking FB100124 is cancelled and $202.00 will be refunded.").passed
    stale = _graded("Done. Booking FB100124 is still confirmed and $202.00 will be refunded.")
    assert not stale.passed and stale.value == 0.0
    assert stale.details["misstated"] == ["message 7: it says FB100124 is 'confirmed', but its last result shows status 'cancelled'"]
    # said before the cancel, "confirmed" was the state it stood in: the question of message 3 passes
    assert _graded().vacuous is False and _graded().passed


def test_a_state_denied_is_wrong_when_the_record_is_in_it():
    denied = _graded("Booking FB100124 is not cancelled, and $202.00 will be refunded.")
    assert not denied.passed and "is not 'cancelled'" in denied.details["misstated"][0]
    assert not _graded("FB100124 isn't cancelled.").passed
    assert _graded("FB100124 isn't confirmed any more.").passed
    assert _graded("FB100124 is cancelled, not confirmed.").passed
    # the negation of another clause denies nothing here: "I haven't cancelled FB1; it's still confirmed"
    assert _graded("I haven't touched FB100125; it's still confirmed.").passed
    assert not _graded("I haven't touched FB100124; it's still confirmed.").passed


@pytest.mark.parametrize("reply", [
    "FB100124 was confirmed; it is now cancelled.",  # the past
    "FB100124 is no longer confirmed.",  # a negation
    "FB100124 went from confirmed to cancelled.",
    "Your other booking, FB100125 to Madrid, is still confirmed.",  # the other record, in its own state
    "FB100124 is cancelled, while FB100125 stays confirmed.",
    "FB100125 is confirmed and booking FB100124 is cancelled.",  # "confirmed" is said of the one before it
    'I wrote "FB100124 confirmed" in the note.',  # quoted words
    "Would you like FB100125 confirmed as well?",  # a question
    "If FB100125 were confirmed again, I'd tell you.",  # a condition
    "FB100124 is off your confirmed bookings now.",  # a class of records
])
def test_what_is_not_a_state_said_as_it_stands_passes(reply):
    assert _graded(reply).passed, reply


def test_the_record_is_the_one_named_nearest_and_a_state_of_another_kind_says_nothing_of_it():
    # "confirmed" said of FB100125 (named nearest before it), though FB100124 opens the sentence
    assert _graded("FB100124 is cancelled and FB100125 confirmed.").passed
    assert not _graded("FB100125 is cancelled and FB100124 confirmed.").passed
    # "delayed" is a flight's state, not a booking's: the booking's vocabulary never held it
    assert _graded("FB100124 is cancelled; the flight was delayed anyway.").passed


def test_a_write_whose_result_leaves_the_state_out_makes_it_unknown_not_stale():
    """A cancel that returns only the refund: "cancelled" cannot be checked, and is not a misstatement."""
    assert _graded("FB100124 is cancelled.", cancel_result={"booking_id": "FB100124", "refund": 202.0}).passed
    assert _graded("FB100124 is confirmed.", cancel_result={"booking_id": "FB100124", "refund": 202.0}).passed


def test_a_record_is_named_by_its_noun_when_it_is_the_only_one_of_its_kind():
    """The line was suspended, the bill paid, the line read again: "your line" is the one line shown."""

    def graded(reply, *others):
        results = [{"line_id": "L1", "phone_number": "312-334-8194", "status": "suspended"}, *others,
                   {"line_id": "L1", "phone_number": "312-334-8194", "status": "active"}]
        messages = [m for n, r in enumerate(results) for m in (
            {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{n}", "function": {"name": "get_line_details", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": json.dumps(r)})]
        messages.append({"role": "assistant", "content": reply})
        return current_states(SimpleNamespace(domain="telecom"), SimpleNamespace(messages=messages))

    assert graded("The bill is paid, so your line is active again.").passed
    assert not graded("The bill is paid, so your line is suspended again.").passed
    # with a second line shown, "your line" names neither
    assert graded("The bill is paid, so your line is suspended again.", {"line_id": "L2", "phone_number": "312-334-9999", "status": "active"}).passed


@pytest.mark.parametrize("name", ["travel", "retail", "telecom", "banking"])
def test_the_stale_state_spoil_fails_wherever_it_applies(name):
    kind = "single" if name == "travel" else "multi_step"
    assert spoil_fails_wherever_it_applies(name, kind, SPOILS["stale_state"], count=40) > 0


def test_a_title_two_records_share_names_the_one_whose_other_values_the_sentence_says():
    """A weekly "Support demo": the 19 March one was cancelled, the 13 March one stands."""
    events = [{"event_id": "EV1", "title": "Support demo", "start": "2025-03-13 15:30", "location": "Room Oak", "status": "confirmed"},
              {"event_id": "EV2", "title": "Support demo", "start": "2025-03-19 15:30", "location": "Room Aspen", "status": "confirmed"}]
    cancelled = events[1] | {"status": "cancelled"}

    def graded(reply):
        messages = [
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "list_events", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(events)},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "function": {"name": "cancel_event", "arguments": '{"event_id":"EV2"}'}}]},
            {"role": "tool", "tool_call_id": "c2", "content": json.dumps(cancelled)},
            {"role": "assistant", "content": reply}]
        return current_states(SimpleNamespace(domain="workplace"), SimpleNamespace(messages=messages))

    assert graded("The Support demo at 2025-03-19 15:30 is cancelled.").passed
    assert not graded("The Support demo at 2025-03-19 15:30 is confirmed.").passed
    assert not graded("The Support demo in Room Aspen is confirmed.").passed
    assert graded("The Support demo at 2025-03-13 15:30 is confirmed.").passed
    assert graded("The Support demo is confirmed.").passed  # which one is not said: neither is named


def _retail(reply: str, *results: dict):
    messages = [m for n, (name, r) in enumerate(results) for m in (
        {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{n}", "function": {"name": name, "arguments": json.dumps(r.pop("_args", {}))}}]},
        {"role": "tool", "tool_call_id": f"c{n}", "content": json.dumps(r)})]
    messages.append({"role": "assistant", "content": reply})
    return current_states(SimpleNamespace(domain="retail"), SimpleNamespace(messages=messages))


def _order(status: str, item_status: str, order_id: str = "#W1", item: str = "IT1", name: str = "LED Desk Lamp") -> dict:
    return {"id": order_id, "status": status, "items": [{"id": item, "order_id": order_id, "name": name, "status": item_status}]}


def test_a_state_of_the_order_said_beside_an_item_it_holds_is_the_orders():
    """An item can be "return requested" too (another order's is): the lamp is named nearer, the order is in that state."""
    earlier = _order("return requested", "return requested", "#W2", "IT2", "Kettle")
    reply = "Your latest order #W1, with the LED Desk Lamp, is return requested."
    assert _retail(reply, ("get_order_details", earlier), ("get_order_details", _order("return requested", "ordered"))).passed
    assert not _retail(reply, ("get_order_details", earlier), ("get_order_details", _order("delivered", "ordered"))).passed


def test_a_write_naming_a_record_in_a_list_argument_makes_its_state_unknown():
    """The return's result shows the order, not the item: the item's "ordered" is no longer known."""
    returned = {"id": "#W1", "status": "return requested", "_args": {"order_id": "#W1", "item_ids": ["IT1"]}}
    reply = "The LED Desk Lamp is return requested; the refund goes to your card."
    other = _order("return requested", "return requested", "#W2", "IT2", "Kettle")
    assert _retail(reply, ("get_order_details", other), ("get_order_details", _order("delivered", "ordered")),
                   ("return_delivered_order_items", returned)).passed


def test_an_act_is_not_a_state():
    """"you ordered the lamp": the item's status is "exchange requested", and "ordered" is what the customer did."""
    exchanged = _order("exchange requested", "exchange requested")
    other = _order("delivered", "ordered", "#W2", "IT2", "Kettle")
    reply = "Most recently you ordered the LED Desk Lamp in order #W1, which has an exchange requested."
    assert _retail(reply, ("get_order_details", other), ("get_order_details", exchanged)).passed
    assert not _retail("The LED Desk Lamp is ordered.", ("get_order_details", other), ("get_order_details", exchanged)).passed


def _order_chat(reply: str, *results: dict) -> list[dict]:
    """A retail chat: the order's details read (each result given), then the reply."""
    messages: list[dict] = [{"role": "user", "content": "What's the status of order #W1000001?"}]
    for number, result in enumerate(results):
        messages += [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{number}", "function": {
                         "name": "get_order_details", "arguments": json.dumps({"order_id": result["id"]})}}]},
                     {"role": "tool", "tool_call_id": f"c{number}", "content": json.dumps(result)}]
    return [*messages, {"role": "assistant", "content": reply}]


ORDER = {"id": "#W1000001", "customer_id": "C1", "status": "pending", "placed_at": "2025-05-13T05:42", "total": 231.2}


@pytest.mark.parametrize("reply", [
    "Order #W1000001 is delivered.",
    "Order #W1000001 is pending or processed, or delivered, or cancelled.",  # every state at once: one is right
    "Right now, order #W1000001 shows as cancelled or pending.",
])
def test_a_state_no_result_showed_is_still_read_where_the_world_knows_it(reply):
    """The chat showed one pending order: "delivered" was no state of its vocabulary, so a reply
    saying the order was delivered, or hedging over every status, passed. The world's orders table
    holds the states an order takes."""
    graded = current_states(SimpleNamespace(domain="retail"), SimpleNamespace(messages=_order_chat(reply, ORDER)))
    assert not graded.passed and any(f"'{state}'" in graded.details["misstated"][0] for state in ("delivered", "processed", "cancelled"))
    assert current_states(SimpleNamespace(domain="retail"), SimpleNamespace(messages=_order_chat("Order #W1000001 is pending.", ORDER))).passed


def test_a_state_only_the_world_knows_is_said_of_the_record_of_its_kind_that_is_in_it():
    """"The 2025-07-11 transfer is cancelled and $150.00 is now scheduled to the account ending in
    4190": the account names the old transfer, but "scheduled" speaks of the new one, which is."""
    old = {"schedule_id": "S60039", "from_account": "A20236", "to_account_number": "****4190", "amount": 150.0, "run_on": "2025-07-11"}
    chat = [{"role": "user", "content": "Move my transfer to 2025-07-22."}]
    for number, (name, result) in enumerate([("list_scheduled_transfers", [old]),
                                             ("cancel_scheduled_transfer", {"schedule_id": "S60039", "amount": 150.0, "run_on": "2025-07-11", "status": "cancelled"}),
                                             ("schedule_transfer", {"schedule_id": "S60162", "from_account": "A20236", "to_account": "A20237", "amount": 150.0,
                                                                   "run_on": "2025-07-22", "status": "scheduled"})]):
        chat += [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{number}", "function": {"name": name, "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": f"c{number}", "content": json.dumps(result)}]
    said = "Done: the 2025-07-11 transfer is cancelled and $150.00 is now scheduled to the account ending in 4190 for 2025-07-22."
    assert current_states(SimpleNamespace(domain="banking"), SimpleNamespace(messages=[*chat, {"role": "assistant", "content": said}])).passed
    wrong = "Done: transfer S60039 is scheduled."  # named by its id, it is not
    assert not current_states(SimpleNamespace(domain="banking"), SimpleNamespace(messages=[*chat, {"role": "assistant", "content": wrong}])).passed
