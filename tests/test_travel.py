"""The travel domain's own rules: fare rules in the tools, refusals and minefields in the tasks,
local times from the tools, and the registered env."""

from __future__ import annotations

import datetime as dt
import json
import re

import gymnasium
import pytest

import toolgym
from tests.conftest import agent_call, small_world_index
from toolgym.domains.travel.catalogue import FARE_RULE_BY_CABIN
from toolgym.envs import World
from toolgym.envs.gold import gold_messages
from toolgym.verifiers import verify

TRAVEL = "travel"


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain(TRAVEL)


@pytest.fixture(scope="module")
def index():
    return small_world_index(TRAVEL)


_call = agent_call


def _rollout(task):
    return toolgym.rollout_sync(toolgym.make(TRAVEL, world_size=task.world_size), toolgym.OracleTeacher(),
                                toolgym.ScriptedUser(), task)  # fmt: skip


def test_world_is_seeded_and_sized(domain):
    from toolgym.domains.travel.world import build_world

    first, again, other = (list(build_world(s, "small")) for s in (3, 3, 4))
    assert first == again and first != other
    small, default = domain.template(0, "small"), domain.template(0, "default")
    assert len(small.image) < len(default.image)


def test_fare_rules_are_tool_errors_that_say_what_is_right(domain, index):
    basic = next(b for b in index.confirmed("any") if b.cabin == "basic_economy")
    other = next(f for f in index.flights_on(basic.flight.row.origin, basic.flight.row.destination, index.dates[-1]))
    world = World(domain.template(0, "small"))
    try:
        error, _ = _call(domain, world, "change_flight_date", booking_id=basic.booking_id, new_flight_id=other.flight_id)
        assert "basic economy" in error and "cannot be changed" in error
        error, _ = _call(domain, world, "select_seat", booking_id=basic.booking_id, seat="55K")
        assert "55K" in error and "14C" in error
        error, _ = _call(domain, world, "search_flights", origin="XYZ", destination="JFK", date="2026-03-05", cabin="economy")
        assert "XYZ" in error and "JFK" in error
        error, _ = _call(domain, world, "search_flights", origin="JFK", destination="LAX", date="2026-02-30", cabin="economy")
        assert "YYYY-MM-DD" in error
        assert not world.changes
    finally:
        world.close()


def test_cancellation_is_free_within_a_day_of_booking_and_by_fare_rule_after(domain, index):
    recent = next(b for b in index.confirmed("any") if b.recent and b.cabin == "basic_economy")
    old_basic = next(b for b in index.confirmed("any") if not b.recent and b.cabin == "basic_economy")
    world = World(domain.template(0, "small"))
    try:
        _, quote = _call(domain, world, "quote_cancellation", booking_id=recent.booking_id)
        assert quote["fee"] == 0 and quote["refund"] == recent.paid
        _, quote = _call(domain, world, "quote_cancellation", booking_id=old_basic.booking_id)
        assert quote["refund"] == 0 and "non-refundable" in quote["rule"]
    finally:
        world.close()


def test_flight_times_are_local_with_their_zone(domain, index):
    from zoneinfo import ZoneInfo

    from toolgym.domains.travel.catalogue import AIRPORT_BY_CODE

    flight = next(f for f in index.flights.values() if AIRPORT_BY_CODE[f.row.origin].timezone != AIRPORT_BY_CODE[f.row.destination].timezone)
    world = World(domain.template(0, "small"))
    try:
        _, status = _call(domain, world, "get_flight_status", flight_number=flight.row.flight_number,
                          date=flight.row.depart_date.isoformat())  # fmt: skip
    finally:
        world.close()
    for key, moment, code in (("departs_local", flight.row.depart_utc, flight.row.origin),
                              ("arrives_local", flight.row.arrive_utc, flight.row.destination)):  # fmt: skip
        zone = AIRPORT_BY_CODE[code].timezone
        local = moment.replace(tzinfo=dt.UTC).astimezone(ZoneInfo(zone))
        assert status[key] == f"{local:%Y-%m-%d %H:%M} {zone}"
    minutes = (flight.row.arrive_utc - flight.row.depart_utc).total_seconds() // 60
    assert status["duration"] == f"{int(minutes // 60)}h {int(minutes % 60):02d}m"


def test_basic_economy_change_is_refused_and_the_change_zeroes_the_score(domain):
    tasks = domain.generate_tasks(40, seed=2, kinds=["no_tool/policy_refusal"], size="small")
    task = next(t for t in tasks if any(f.tool == "change_flight_date" for f in t.forbidden))
    messages = _rollout(task).messages
    assert verify(task, messages).value == 1.0
    refusal = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")][-1]
    assert "basic economy" in refusal
    booking = next(c.arguments["booking_id"] for c in task.gold_calls() if c.name == "get_booking")
    change = {"role": "assistant", "content": None, "tool_calls": [{"id": "x", "type": "function", "function": {
        "name": "change_flight_date", "arguments": {"booking_id": booking, "new_flight_id": "SW100-20260310"}}}]}  # fmt: skip
    assert verify(task, messages[:-2] + [change] + messages[-2:]).value == 0.0


def test_points_are_used_only_when_they_cover_the_fare(domain):
    tasks = domain.generate_tasks(150, seed=5, kinds=["multi_step"], size="small")  # a fifth or so book a flight
    bookings = [c for t in tasks for c in t.gold_calls() if c.name == "book_flight"]
    payments = {c.arguments["payment"] for c in bookings}
    assert payments == {"card", "points"}
    for task in tasks:
        card = [c for c in task.gold_calls() if c.name == "book_flight" and c.arguments["payment"] == "card"]
        if card:  # too few points: paying with them is a minefield
            assert any(f.tool == "book_flight" and f.arguments == {"payment": "points"} for f in task.forbidden)


def test_the_env_is_registered():
    import toolgym  # noqa: F401  (registers the ids)

    env = gymnasium.make("toolgym/Travel-v1")
    observation, info = env.reset(seed=0)
    assert observation[0]["role"] == "system" and "basic economy" in observation[0]["content"].lower()
    assert {"book_flight", "convert_currency", "change_flight_date"} <= {t["function"]["name"] for t in info["tools"]}
    env.close()


def test_bag_fees_and_insurance_follow_the_fare(domain, index):
    economy = next(b for b in index.confirmed("any") if b.cabin == "economy" and b.bags == 0 and not b.insurance)
    world = World(domain.template(0, "small"))
    try:
        _, bags = _call(domain, world, "add_baggage", booking_id=economy.booking_id, bags=2)
        assert bags["fee"] == 35.0  # one bag is free on economy, the second costs the fare rule's fee
        error, _ = _call(domain, world, "add_baggage", booking_id=economy.booking_id, bags=2)
        assert "at most 3" in error
        _, insured = _call(domain, world, "add_insurance", booking_id=economy.booking_id)
        assert insured["price"] == round(economy.fare_paid * 0.07, 2)
        _, invoice = _call(domain, world, "get_invoice", booking_id=economy.booking_id)
        assert invoice["total"] == round(economy.fare_paid + 35.0 + insured["price"], 2)
    finally:
        world.close()


def test_an_amount_of_nothing_is_said_as_none_and_required_so(domain):
    """'you get $0.00 back', 'the fee is $0.00', 'a business ticket can be changed for a $0.00 fee' read
    as a form's fields; a cancellation refunding nothing also opened on 'Good news'."""
    from toolgym.envs.gold import gold_messages

    said_none = 0
    for task in domain.generate_tasks(300, seed=3, kinds=["single", "parallel", "multi_step"], size="small"):
        messages, verification = gold_messages(domain, task)
        assert verification.passed, task.id
        for message in messages:
            text = message.get("content") or ""
            if message["role"] == "assistant":
                assert "$0.00" not in text, text
                said_none += any(w in text for w in ("no charge", "no refund", "no fee", "nothing comes back"))
        if any(o in ("no charge", "no refund", "no fee") for o in task.required_outputs):
            said_none += 1
    assert said_none >= 20
    book = domain.phrasebook
    for seed in range(40):
        done = book.say("done_cancel", seed, booking="FB100001", refund=0.0, fee=755.0)
        assert "no refund" in done and not done.startswith(("Good news", "Great", "Perfect")), done


def test_two_cabins_compared_are_asked_for_their_fares_not_a_difference_no_tool_computes(domain):
    """The reply states each cabin's cheapest fare; travel has no calculator, so a request asking
    "how much more" would go unanswered (or be answered with a number nothing showed)."""
    tasks = [t for t in domain.generate_tasks(120, seed=9, kinds=["parallel"]) if any(r.intent == "answer_two_cabins" for r in t.replies)]
    assert tasks
    for task in tasks:
        request = task.scenario.requests[0].lower()
        assert not any(w in request for w in ("how much more", "price gap", "difference")), request


def test_no_free_bag_is_said_as_none_not_zero(domain):
    """'On basic economy you get 0 free checked bags' read as a form's output."""
    for seed in range(30):
        said = domain.phrasebook.say("answer_rule_bags", seed, cabin="basic economy", free_bags=0, bag_fee=40.0)
        assert "0 free" not in said and "$40.00" in said and ("no free" in said or "no checked bag is free" in said), said
        two = domain.phrasebook.say("answer_rule_bags", seed, cabin="business", free_bags=2, bag_fee=35.0)
        assert "2 free checked bags" in two, two
    for seed in range(30):  # and the confirmation of bags on such a fare
        said = domain.phrasebook.say("action_bags", seed, bags=2, booking="FB100176", free=0, fee=40.0, total=80.0)
        assert "0 free" not in said and "no free bag" in said and "$40.00" in said, said
        assert "1 free" in domain.phrasebook.say("action_bags", seed, bags=2, booking="FB100176", free=1, fee=40.0, total=40.0)
    for seed in range(30):  # a bag the fare carries free is "it", bags are "them"
        one = domain.phrasebook.say("action_bags", seed, bags=1, booking="FB100175", free=0, fee=0.0, total=0.0)
        assert "carries them" not in one, one


def test_insurance_is_priced_before_the_traveller_agrees(domain, index):
    """The policy asks for the price before a yes; insurance used to be confirmed with no price at all."""
    from toolgym.envs.gold import gold_messages
    from toolgym.verifiers.matching import arguments_of

    uninsured = next(b for b in index.confirmed("any") if not b.insurance)
    world = World(domain.template(0, "small"))
    try:
        _, booking = _call(domain, world, "get_booking", booking_id=uninsured.booking_id)
        _, insured = _call(domain, world, "add_insurance", booking_id=uninsured.booking_id)
        assert booking["insurance_quote"] == insured["price"] == round(uninsured.fare_paid * 0.07, 2)
        _, after = _call(domain, world, "get_booking", booking_id=uninsured.booking_id)
        assert "insurance_quote" not in after and after["insurance_price"] == insured["price"]
    finally:
        world.close()
    confirms: dict[str, list[str]] = {"add_insurance": [], "book_flight": []}
    reported = 0
    for task in domain.generate_tasks(250, seed=4, kinds=["single", "multi_step"], size="small"):
        messages, verification = gold_messages(domain, task)
        assert verification.passed, task.id
        calls = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()}
        for index, result in enumerate(messages):  # an insured booking's report says what the insurance cost
            booking = result["role"] == "tool" and calls.get(result.get("tool_call_id")) == "book_flight"
            booked = json.loads(result["content"]) if booking else None
            if booked and booked["insurance"]:
                later = [m["content"] for m in messages[index:] if m["role"] == "assistant" and m.get("content")]
                assert any(f"${booked['insurance_price']:,.2f}" in text for text in later), later
                reported += 1
        for ask, act in zip(messages, messages[2:], strict=False):
            call = next(iter(act.get("tool_calls") or ()), None)
            if call and ask["role"] == "assistant" and ask.get("content"):
                name, arguments = call["function"]["name"], arguments_of(call["function"]["arguments"])
                if name == "add_insurance" or (name == "book_flight" and arguments.get("insurance")):
                    confirms[name].append(ask["content"])
    assert confirms["add_insurance"] and confirms["book_flight"] and reported
    for text in confirms["add_insurance"]:
        assert re.search(r"\$\d[\d,]*\.\d\d", text), text
    for text in confirms["book_flight"]:
        assert "7% of the fare" in text, text


def test_a_yes_to_insurance_without_its_price_is_no_consent(domain):
    """The confirmation names the price (test above); a policy that asks "add insurance to FB1?" and
    charges a price the traveller never heard earned full consent credit."""
    from toolgym.envs.gold import gold_messages

    tasks = domain.generate_tasks(250, seed=4, kinds=["single", "multi_step"], size="small")
    task, step = next((t, s) for t in tasks for s in t.plan if s.disclose and s.calls[0].name == "add_insurance")
    (price,) = step.disclose
    messages, verification = gold_messages(domain, task)
    assert verification.passed and price in step.confirm
    asked = next(i for i, m in enumerate(messages) if m["role"] == "assistant" and price in (m.get("content") or "")
                 and "?" in m["content"])  # fmt: skip
    booking = step.calls[0].arguments["booking_id"]
    silent = [*messages[:asked], {**messages[asked], "content": f"I'll add travel insurance to booking {booking}. Shall I go ahead?"},
              *messages[asked + 1 :]]  # fmt: skip
    consent = verify(task, silent).details["consent"]
    assert any(price in p and "did not state" in p for p in consent["problems"]), consent


def test_a_one_night_stay_is_priced_once_and_a_converted_fare_has_thousands_separators(domain):
    """'$126.00 for the stay ($126.00 a night)' gave a one-night stay's price twice, and a fare in
    another currency read '79666.90 INR'."""
    from toolgym.envs.phrasing import polish

    book = domain.phrasebook
    card = {"last4": "2477", "brand": "visa"}
    for seed in range(12):
        one = book.render("action_book_hotel", seed % 2, hotel="West Residences", city="Boston", check_in="September 11",
                          check_out="September 12", rate=126.0, total=126.0, nights=1, **card)
        assert one.count("$126.00") == 1, one
        three = book.render("action_book_hotel", seed % 2, hotel="West Residences", city="Boston", check_in="September 11",
                            check_out="September 14", rate=93.0, total=279.0, nights=3, **card)
        assert "$93.00 a night" in three and "$279.00" in three, three
        found = polish(book.say("answer_cheapest_hotel", seed, hotel="Lindsey Inn", rate=171.0, total=171.0, nights=1, stars=4,
                                city="Boston"))
        assert found.count("$171.00") == 1, found
    converted = [t for t in domain.generate_tasks(400, seed=5, kinds=["single", "multi_step", "multi_turn"], size="small")
                 if any(c.name == "convert_currency" for s in t.plan for c in s.calls)]
    assert converted, "no task converts a fare: the check would be vacuous"
    for task in converted:
        amount = task.required_outputs[-1]
        assert re.fullmatch(r"\d{1,3}(,\d{3})*\.\d\d", amount), (task.id, amount)


def test_too_many_bags_are_refused_by_the_policy_and_three_offered_only_where_three_fit(domain, index):
    """'7 bags is not valid: at most 3 checked bags can be added to a booking. I could use 3 bags
    instead, the nearest value that works' was said of bookings already holding bags, which the
    agent had not read: the policy caps a traveller's checked bags, not what one request adds."""
    bags_of = {b.booking_id: b.bags for b in index.bookings}
    offered = 0
    for task in domain.generate_tasks(120, seed=7, kinds=["no_tool/invalid_value"], size="small"):
        messages = _rollout(task).messages
        request = messages[1]["content"]
        if "bag" not in request:
            continue
        reply = next(m["content"] for m in messages if m["role"] == "assistant" and m.get("content"))
        booking = re.search(r"FB\d+", request).group(0)
        assert bags_of[booking] == 0, (request, reply)
        assert "3 bags" in reply and "3 checked bags" in reply and "added to a booking" not in reply, reply
        offered += 1
    assert offered >= 3, offered


def test_a_second_answer_joined_into_one_message_opens_with_no_lead_of_its_own(domain):
    """"At $562.00, SW954 is the cheapest basic economy seat; it departs at 18:30 local time. I've
    searched for you, and here's what I found. SW1169 is scheduled ...": the second answer's opener
    stood in the middle of the message."""
    import importlib
    from pathlib import Path

    import yaml

    package = importlib.import_module("toolgym.domains.travel")
    phrases = yaml.safe_load((Path(package.__file__).parent / "utterances.yaml").read_text())
    shared = [phrases[lead] for lead in ("found_lead", "done_lead")]
    # the engine leaves out a joined answer's `ack`: every reply that opens with a shared opener names it so
    opening = {(intent, part) for intent, parts in phrases.items() if isinstance(parts, dict)
               for part, variants in parts.items() if any(variants is lead for lead in shared)}  # fmt: skip
    assert len(opening) >= 15 and {part for _, part in opening} == {"ack"}, opening
    openers = {w for lead in shared for v in lead if isinstance(v, dict) for w in v["word"]}
    joined = 0
    for task in domain.generate_tasks(300, seed=23, kinds=["parallel", "multi_step"]):
        for reply in task.replies:
            if reply.intent == "reply_both":
                second = reply.vars["second"]
                assert not any(second.startswith(w) for w in openers), second
                joined += 1
    assert joined >= 20, joined


def test_a_reply_that_may_open_with_here_s_what_i_found_says_here_once():
    """"I've searched for you, and here's what I found. Here you go: FB100072 lands in Sao Paulo ...":
    the shared opener and the list each said "here"."""
    import importlib
    import re
    from pathlib import Path

    import yaml

    package = importlib.import_module("toolgym.domains.travel")
    phrases = yaml.safe_load((Path(package.__file__).parent / "utterances.yaml").read_text())
    lead = phrases["found_lead"]
    opened = [(intent, parts) for intent, parts in phrases.items() if isinstance(parts, dict) and any(v is lead for v in parts.values())]
    assert len(opened) >= 8
    for intent, parts in opened:
        for name, variants in parts.items():
            if variants is not lead:
                said = [v for v in variants if isinstance(v, str) and re.search(r"\bhere\b", v, re.I)]
                assert not said, (intent, name, said)


def test_flights_to_one_city_are_told_apart_in_words():
    """"two flights to Madrid: FB100758, leaving 2026-03-06 16:25 America/Denver and ...": the question
    read the tool's raw departure, time zone id and all, and the traveller answered "the one leaving on
    2026-03-06". Both say the day as people do ("March 6 at 16:25 local time", "the one leaving on March 6")."""
    import re

    from tests.conftest import choice_exchanges

    domain = toolgym.load_domain("travel")
    raw = re.compile(r"\d{4}-\d\d-\d\d|[A-Z][a-z]+/[A-Z][a-z_]+")
    asked = 0
    for question, answer in choice_exchanges(domain, domain.generate_tasks(400, seed=23, kinds=["single", "multi_step"]), "flight"):
        assert not raw.search(question) and "local time" in question, question
        assert not raw.search(answer), answer
        asked += 1
    assert asked >= 5, asked


def test_a_day_said_to_name_a_flight_is_given_again_as_a_travel_date(domain):
    """The traveller named the flight to cancel as "the one leaving on March 9", then asked for
    flights Paris to Frankfurt; asked "What travel date do you have in mind?", they said goodbye:
    "March 9" had been said before, inside the other answer. A value another fact holds is said
    again when its own label is asked for."""
    from toolgym.envs.gold import gold_messages

    task = domain.generate_tasks(1, seed=1121, kinds=["multi_turn"], size="small")[0]
    messages = gold_messages(domain, task)[0]
    user = [m["content"] for m in messages if m["role"] == "user"]
    assert any("the one leaving on March 7" in text for text in user), user
    asked = next(i for i, m in enumerate(messages) if m["role"] == "assistant" and "travel date" in (m.get("content") or ""))
    assert "March 7" in messages[asked + 1]["content"], messages[asked + 1]
    assert any(c.name == "search_flights" and c.arguments["date"].endswith("-03-07") for c in task.gold_calls())


def test_a_hand_off_to_a_human_is_named_once_in_one_clause():
    """"pass you to a colleague who handles your lost luggage, as a transfer to a human agent": the
    hand-off was said twice over, the second time as a tag that named the tool. Every wording names
    it once, to a human agent, which a confirmation must name (verifiers/conduct.py)."""
    book = toolgym.load_domain("travel").phrasebook
    for index, _ in enumerate(book.variants("action_handoff")):
        said = book.render("action_handoff", index, reason="your lost luggage")
        assert "human agent" in said, said
        assert len(re.findall(r"\b(?:transfer|pass|put you through|hand)\b", said)) == 1, said


def _flights(messages: list[dict]) -> dict[str, dict]:
    """The flights the chat's tool results show, by flight id (a number flies every day)."""
    found: dict[str, dict] = {}
    stack = [json.loads(m["content"]) for m in messages if m["role"] == "tool" and (m["content"] or "").startswith(("{", "["))]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if "flight_number" in value and "departs_local" in value:
                found[value["flight_id"]] = value
            stack += [v for v in value.values() if isinstance(v, dict | list)]
        elif isinstance(value, list):
            stack += value
    return found


def test_a_delayed_flight_is_offered_at_its_new_time_and_said_to_be_late(domain):
    """'At $848.00, SW954 is the cheapest economy seat; it departs at 18:30 local time.' was said of a
    flight the search showed 25 minutes late: a reply gives a delayed flight's expected time and says it is late."""
    told = 0
    for task in domain.generate_tasks(300, seed=5, kinds=["single", "parallel", "multi_step"], size="small"):
        messages = gold_messages(domain, task)[0]
        flights = _flights(messages)
        for flight in (f for f in flights.values() if f["status"] == "delayed"):
            number, due, expected = flight["flight_number"], flight["departs_local"][11:16], flight["expected_departure_local"][11:16]
            others = [f for f in flights.values() if f["flight_number"] == number]
            day = dt.date.fromisoformat(flight["departs_local"][:10])
            for m in messages:
                said = m["content"] or "" if m["role"] == "assistant" else ""
                if number not in said or "on time" in said or (len(others) > 1 and f"{day:%B} {day.day}" not in said):
                    continue
                assert f"at {due} local time" not in said, (number, due, said)
                if f"{expected} local time" in said:
                    told += 1
                    assert re.search(r"late|delay|behind schedule", said), said
    assert told >= 3, told


def test_a_points_first_booking_put_on_the_card_says_the_points_fall_short(domain):
    """'book you on SW1108, ..., charged to your Mastercard ending in 9820' was asked of a traveller who
    wanted points first and had 30,500: the confirmation says the points (and their worth) don't cover it."""
    told = 0
    for task in domain.generate_tasks(300, seed=8, kinds=["single", "multi_step"], size="small"):
        booking = next((c for c in task.gold_calls() if c.name == "book_flight" and c.arguments.get("payment") == "card"), None)
        if booking is None or "points" not in " ".join(task.scenario.requests).lower():
            continue
        messages = gold_messages(domain, task)[0]
        profile = json.loads(next(m["content"] for m in messages if m["role"] == "tool" and '"points_value_usd"' in (m["content"] or "")))
        ask = next(m["content"] for m in messages if m["role"] == "assistant" and booking.arguments["flight_id"].split("-")[0] in (m["content"] or ""))
        told += 1
        assert f"{profile['points']:,} points" in ask and f"${profile['points_value_usd']:,.2f}" in ask, ask
    assert told >= 3, told


def test_quote_change_gives_what_the_change_then_charges_and_changes_nothing(domain, index):
    """The total a change costs is read before the yes (quote_change), and is what change_flight_date charges."""
    quoted = 0
    for booking in (b for b in index.confirmed("any") if FARE_RULE_BY_CABIN[b.cabin].changeable):
        old = booking.flight.row
        others = [f for d in index.dates if d != old.depart_date for f in index.flights_on(old.origin, old.destination, d)]
        if not others:
            continue
        world = domain.new_world(size="small")
        error, quote = _call(domain, world, "quote_change", booking_id=booking.booking_id, new_flight_id=others[0].flight_id)
        if error is not None:
            world.close()
            continue
        assert not world.diff()
        error, changed = _call(domain, world, "change_flight_date", booking_id=booking.booking_id, new_flight_id=others[0].flight_id)
        world.close()
        assert error is None and changed["charged"] == quote["total"] == round(quote["change_fee"] + quote["fare_difference"], 2)
        quoted += 1
        if quoted == 5:
            break
    assert quoted == 5


def test_a_flight_change_is_agreed_to_at_the_total_it_costs(domain):
    """'for the $75.00 change fee plus any fare difference', then 'the change cost $351.00': the yes is
    asked with the total quote_change gave."""
    asked = 0
    for task in domain.generate_tasks(300, seed=12, kinds=["single", "multi_step"], size="small"):
        if not any(c.name == "change_flight_date" for c in task.gold_calls()):
            continue
        messages = gold_messages(domain, task)[0]
        quote = json.loads(next(m["content"] for m in messages if m["role"] == "tool" and '"fare_difference"' in (m["content"] or "")))
        ask = next(m["content"] for m in messages if m["role"] == "assistant" and quote["booking_id"] in (m["content"] or "") and "?" in m["content"])
        shown = quote["total"] if quote["total"] else quote["fare_paid"]
        assert f"${shown:,.2f}" in ask and "any fare difference" not in ask and "any difference" not in ask, (quote, ask)
        asked += 1
    assert asked >= 3, asked


def test_where_insurance_is_charged_is_what_add_insurance_says(domain):
    """'paid with the card the booking was charged to' was said where no tool told it, and of bookings
    paid with points too: add_insurance says where it charges, and the confirmation follows it."""
    described = domain.tool("add_insurance").description
    assert "card the booking was paid with" in described and "default card" in described
    for seed in range(60):
        by_card = domain.phrasebook.say("action_insurance", seed, booking="FB100001", price=41.5, points=False)
        by_points = domain.phrasebook.say("action_insurance", seed, booking="FB100001", price=41.5, points=True)
        assert "default card" not in by_card and "card" in by_card, by_card
        assert "default card" in by_points and "points" in by_points, by_points
