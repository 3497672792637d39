"""Travel: what tool results show and gold replies say (ownership in reads, totals agreed to,
answers that answer, look-alike bookings)."""

from __future__ import annotations

import json
import re

import pytest

import toolgym
from tests.conftest import agent_call, small_world_index
from toolgym.envs import World
from toolgym.envs.gold import gold_messages


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain("travel")


@pytest.fixture(scope="module")
def index():
    return small_world_index("travel")  # its small world 0



def test_an_invoice_shows_whose_booking_it_is(domain, index):
    """The policy acts only on the identified traveller's own bookings, but get_invoice showed another
    traveller's charges and card with nothing to tell whose booking it was."""
    flight = next(b for b in index.confirmed("any"))
    stay = next(iter(index.stays))
    world = World(domain.template(0, "small"))
    try:
        for booking_id, owner in ((flight.booking_id, flight.traveller_id), (stay.booking_id, stay.traveller_id)):
            error, invoice = agent_call(domain, world, "get_invoice", booking_id=booking_id)
            assert error is None and invoice["traveller_id"] == owner, invoice
    finally:
        world.close()
    assert "whose booking" in domain.tool("get_invoice").description


def test_bags_are_agreed_to_at_the_total_add_baggage_charges(domain, index):
    """'add 3 checked bags (each one is $40.00)' then 'for a fee of $120.00': the yes was asked at the
    per-bag fee. get_booking quotes the total for each number of bags, and the question states it."""
    from toolgym.envs.gold import gold_messages

    for booking in [b for b in index.confirmed("any") if b.bags < 3][:12]:
        world = World(domain.template(0, "small"))
        try:
            _, read = agent_call(domain, world, "get_booking", booking_id=booking.booking_id)
            quote = read["add_bags_quote"]
            assert list(quote) == [f"{n} bag{'s' if n > 1 else ''}" for n in range(1, 4 - booking.bags)], quote
            _, added = agent_call(domain, world, "add_baggage", booking_id=booking.booking_id, bags=len(quote))
            assert added["fee"] == quote[list(quote)[-1]], (read, added)
        finally:
            world.close()
    asked = 0
    for task in domain.generate_tasks(300, seed=6, kinds=["single", "multi_step"], size="small"):
        if not any(c.name == "add_baggage" for c in task.gold_calls()):
            continue
        messages = gold_messages(domain, task)[0]
        at = next(i for i, m in enumerate(messages) if any(c["function"]["name"] == "add_baggage" for c in m.get("tool_calls") or ()))
        charged = json.loads(messages[at + 1]["content"])
        ask = next(m["content"] for m in reversed(messages[:at]) if m["role"] == "assistant" and "?" in (m["content"] or ""))
        amounts = re.findall(r"\$[\d,]+\.\d\d", ask)
        if charged["fee"]:
            assert f"${charged['fee']:,.2f}" in amounts, (ask, charged)
            assert len(amounts) == (1 if charged["bags_added"] == 1 else 2), ask  # one bag: one figure
            asked += charged["bags_added"] > 1
        else:
            assert not amounts and ("no charge" in ask or "nothing" in ask), ask
    assert asked >= 3, asked


def test_a_look_alike_booking_has_an_id_like_any_other_and_the_one_meant_is_listed_either_place(domain, index):
    """Look-alikes added so the traveller must say which flight they mean were numbered 'FB9' and the
    real booking's digits (FB100298 / FB900298): a model learns FB9... is never the answer. The one
    meant is listed first in some questions and second in others."""
    built = {b.booking_id for b in index.bookings}
    added, places = set(), set()
    for task in domain.generate_tasks(300, seed=11, kinds=["single", "multi_step", "multi_turn"], size="small"):
        twins = [e.insert["booking_id"] for e in task.setup if e.table == "flight_booking" and e.insert]
        for step in (s for s in task.plan if s.choice is not None and s.choice.label == "flight"):
            meant = next(v for c in step.calls for v in c.arguments.values() if str(v).startswith("FB"))
            places.add(step.choice.options.index(meant))
            for twin in twins:
                assert re.fullmatch(r"FB10\d{4}", twin) and twin not in built, twin
                assert all(twin == o or twin[3:] != o[3:] for o in step.choice.options), (twin, step.choice.options)
                added.add(twin)
    assert len(added) >= 5 and places == {0, 1}, (added, places)


def test_what_a_free_checked_bag_costs_is_answered(domain):
    """'What does a checked bag cost on a business fare?' was answered 'A business fare includes 2
    free checked bags.' (get_fare_rules showed a bag fee of 0): the cost was never said."""
    from toolgym.envs.gold import gold_messages

    answered = 0
    for task in domain.generate_tasks(400, seed=13, kinds=["single", "multi_turn"], size="small"):
        if not any(r.intent == "answer_rule_bags" and not r.vars["bag_fee"] for r in task.replies):
            continue
        assert "no fee" in task.required_outputs, task.required_outputs
        reply = [m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "assistant" and "2 free" in (m["content"] or "")]
        assert reply and re.search(r"costs? nothing", reply[0]), reply
        answered += 1
    assert answered >= 2, answered
    for seed in range(20):
        said = domain.phrasebook.say("answer_rule_bags", seed, cabin="business", free_bags=2, bag_fee=0.0)
        assert "2 free" in said and "no fee" in said and re.search(r"costs? nothing", said), said


DETAILS_THANKS = re.compile(r"thank(s| you)(,| for)[^.]*\b(details|helpful|clear|what I need|everything I need)", re.I)


def test_details_are_thanked_for_only_after_words_that_gave_them(domain):
    """After the traveller's plain 'yes' to a hotel and a call, the next confirmation opened 'Thank you,
    that's very helpful.' or 'Thanks for the details.': thanks for details nobody gave."""
    from toolgym.envs.conversation import asks_confirmation
    from toolgym.envs.gold import gold_messages

    for register in ("confirm", "confirm@elderly", "confirm@formal"):
        said = {domain.phrasebook.say(register, seed, action="assign seat 5B on booking FB100514", details=False) for seed in range(300)}
        assert not [s for s in said if DETAILS_THANKS.search(s)], register
    after_yes = thanked = 0
    for task in domain.generate_tasks(300, seed=21, kinds=["multi_step", "multi_turn"], size="small"):
        said = [m for m in gold_messages(domain, task)[0] if m["role"] in ("user", "assistant") and m.get("content")]
        for before, user, reply in zip(said, said[1:], said[2:], strict=False):
            if user["role"] != "user" or reply["role"] != "assistant" or before["role"] != "assistant":
                continue
            yes = asks_confirmation(before["content"])
            after_yes += yes and asks_confirmation(reply["content"])
            thanked += bool(DETAILS_THANKS.match(reply["content"]))
            assert not (yes and DETAILS_THANKS.match(reply["content"])), (user["content"], reply["content"])
    assert after_yes >= 20 and thanked >= 3, (after_yes, thanked)


def test_a_refusal_names_the_policy_once(domain):
    """'the policy doesn't allow it, so I cannot: our policy allows insurance only at booking...': the
    refusal's frame and the rule inside it both said policy (or allow)."""
    book = domain.phrasebook
    for intent in ("rule_basic_change", "rule_insurance", "rule_own_bookings", "rule_passport"):
        rules = {book.say(intent, seed, hours=24, months=6) for seed in range(60)}
        for rule in rules:
            for seed in range(200):
                said = book.say("refuse_policy", seed, rule=rule).lower()
                assert said.count("polic") <= 1 and len(re.findall(r"\ballow", said)) <= 1, said


def test_the_cheapest_hotels_of_two_cities_are_said_in_sentences_not_labels():
    """"Here's what I found: Frankfurt: Thompson Residences at $57.00 a night; Hong Kong: ...": a
    colon after a colon, and "The lowest rates are Frankfurt: ..." read as a list pasted in."""
    book = toolgym.load_domain("travel").phrasebook
    first = {"city": "Frankfurt", "hotel": "Thompson Residences", "rate": 57.0}
    second = {"city": "Hong Kong", "hotel": "Briggs Residences", "rate": 129.0}
    said = {book.say("answer_hotels_two_cities", seed, first=first, second=second) for seed in range(100)}
    assert len(said) >= 3
    for text in said:
        assert "Frankfurt:" not in text and "Hong Kong:" not in text, text
        assert all(v in text for v in ("Thompson Residences", "$57.00", "Briggs Residences", "$129.00")), text


def test_a_cancellation_is_agreed_to_naming_the_trip_its_day_and_the_card_refunded(domain):
    """'I'm all set to cancel FB100717, refunding $1,862.38 after a $100.00 fee': the policy asks for the
    flight or hotel, the dates and where the refund goes; the quote shows the card, the ask names all."""
    asked = set()
    for task in domain.generate_tasks(400, seed=5, kinds=["single", "multi_step"], size="small"):
        if not any(c.name == "cancel_booking" for c in task.gold_calls()):
            continue
        messages = gold_messages(domain, task)[0]
        quote = json.loads(next(m["content"] for m in messages if m["role"] == "tool" and '"rule"' in (m["content"] or "")))
        booking = json.loads(next(m["content"] for m in messages if m["role"] == "tool" and '"booking_id"' in (m["content"] or "")
                                  and ('"flight_bookings"' in m["content"] or '"fare_rules"' in m["content"] or '"hotel_name"' in m["content"])))
        ask = next(m["content"] for m in messages if m["role"] == "assistant" and quote["booking_id"] in (m["content"] or "") and "?" in m["content"] and "cancel" in m["content"].lower())
        if quote["refund"]:
            assert quote["refund_to"] and quote["refund_to"] in ask, (quote, ask)
        if "hotel_name" in booking:
            assert booking["hotel_name"] in ask, ask
            asked.add("hotel")
        else:
            flight = next((f for f in booking.get("flight_bookings", []) if f["booking_id"] == quote["booking_id"]), None)
            flight_id = (flight or booking["flight"])["flight_id"]
            assert flight_id.split("-")[0] in ask and re.search(r"(January|February|March|April|May|June|July|August|September|October|November|December) \d", ask), ask
            asked.add("flight")
    assert asked == {"hotel", "flight"}, asked


def test_a_look_alike_booking_is_numbered_among_the_world_s_own_and_may_be_the_one_meant(domain, index):
    """The booking added for "my flight to <city>" was numbered past every world booking and was never
    the one the traveller meant: a model could learn to pick the lower, in-sequence id."""
    numbers = sorted(int(b.booking_id[2:]) for b in index.bookings)
    meant = []
    for task in domain.generate_tasks(300, seed=9, kinds=["multi_step"], size="small"):
        added = [e.insert for e in task.setup if e.table == "flight_booking" and e.insert]
        if not added:
            continue
        number = int(added[0]["booking_id"][2:])
        assert numbers[0] < number < numbers[-1] and number not in numbers, number
        acted = {c.arguments.get("booking_id") for c in task.gold_calls() if c.name != "list_bookings"}
        meant.append(added[0]["booking_id"] in acted)
    assert len(meant) >= 6 and any(meant) and not all(meant), meant


ASIDES = {"connect": ("connecting between", "my connection", "change planes"),
          "see_off": ("seeing people off", "parents are on one", "drive to the airport"),
          "meet": ("picking people up", "arriving on both")}


def test_why_two_flights_are_asked_about_fits_the_two_flights(domain):
    """'I'm seeing people off on both.' was said of ORD-MIA and SIN-NRT, 'I'm connecting between them.'
    of any two flights: the aside fits how the two flights meet, or is one that fits any two."""
    said = set()
    for task in domain.generate_tasks(300, seed=3, kinds=["parallel"], size="small"):
        if [c.name for c in task.gold_calls()] != ["get_flight_status", "get_flight_status"]:
            continue
        messages = gold_messages(domain, task)[0]
        request = next(m["content"] for m in messages if m["role"] == "user")
        first, second = (json.loads(m["content"]) for m in messages if m["role"] == "tool")
        for relation, words in ASIDES.items():
            if any(w in request for w in words):
                said.add(relation)
                if relation == "connect":
                    assert first["to"] == second["from"], (request, first, second)
                elif relation == "see_off":
                    assert first["from"] == second["from"] and first["departs_local"][:10] == second["departs_local"][:10], request
                else:
                    assert first["to"] == second["to"], request
    assert {"connect", "see_off"} <= said, said


def test_a_seat_offered_for_one_no_plane_has_says_only_what_the_policy_says_of_seats(domain):
    """"The closest valid seat would be letter F, the window seat of the same row.": the policy gives rows
    and letters, never which letter is a window. The nearest seat is named by its row and letter only."""
    import random

    from toolgym.domains.travel.tasks.no_tool import _bad_seat
    from toolgym.envs.generation import GenContext

    offers = set()
    for seed in range(60):
        ctx = GenContext(domain, None, random.Random(seed), seed, "no_tool/invalid_value", 0, "small")
        seat, nearest = _bad_seat(ctx)
        offers.add(nearest)
        assert not re.search(r"\b(window|aisle|middle)\b", nearest), (seat, nearest)
    assert len(offers) > 3, offers


@pytest.mark.parametrize("intent, values, named", [
    ("ask_two_statuses", {"first": "SW824", "first_day": "May 2", "second": "SW856", "second_day": "May 3"}, "SW824"),
    ("ask_two_statuses_connect", {"first": "SW824", "first_day": "May 2", "second": "SW856", "second_day": "May 3"}, "SW824"),
    ("ask_two_statuses_see_off", {"first": "SW824", "first_day": "May 2", "second": "SW856", "second_day": "May 3"}, "SW824"),
    ("ask_two_statuses_meet", {"first": "SW824", "first_day": "May 2", "second": "SW856", "second_day": "May 3"}, "SW824"),
    ("ask_three_hotels", {"hotels": ["Harbour Inn", "Grand Plaza", "Park Lodge"], "city": "Lisbon"}, "Harbour Inn"),
    ("ask_three_dates", {"days": ["May 2", "May 3", "May 4"], "cabin": "economy", "origin": "Lisbon", "destination": "Oslo"}, "May 2"),
])
def test_an_aside_about_the_flights_or_hotels_comes_after_the_ask_that_names_them(domain, intent, values, named):
    """"Hello. I'm tracking them for work. Any delays on SW856 ...?": the aside spoke of "them" before the
    request named the flights. Nothing before the sentence that names them refers to them."""
    book = domain.phrasebook
    for seed in range(120):
        said = book.say(intent, seed, **values)
        before = said[:said.index(named)]
        assert not re.search(r"\b(them|both|the two|those|they|one)\b", before, re.IGNORECASE), said


def test_bags_added_are_told_in_a_sentence_not_a_numeral_first_fragment(domain):
    """"3 bags added to booking FB100650, for a fee of $70.00.": a telegraphic fragment opening on a
    numeral. No wording of the reply starts a sentence with the count."""
    book = domain.phrasebook
    for bags, fee in ((1, 0.0), (2, 35.0), (3, 70.0)):
        said = {book.say("done_bags", seed, bags=bags, booking="FB100650", fee=fee) for seed in range(200)}
        assert len(said) > 8
        for text in said:
            assert not re.search(r"(^|[.!?;] )\d", text), text
            assert "FB100650" in text, text
