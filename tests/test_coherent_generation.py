"""The generation side of coherence (closing lines: tests/test_closings.py; request quotes:
tests/test_request_quote.py): traces cite what they rest on, the scripted user answers what it was
told in words it has not said yet, refusals offer what exists."""

from __future__ import annotations

import re

import pytest

from toolgym.envs.phrasing import inline, polish
from toolgym.envs.valid_values import nearest_bound, said
from toolgym.generators.inspection.coherence import Knowledge
from toolgym.generators.reasoning import last_said
from toolgym.generators.user import fresh

from .conftest import builtin_domains


def _after(tool: str, result: str) -> list[dict]:
    return [{"role": "user", "content": "What's on my gift card? And where is Pebolir Falls?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": tool}}]},
            {"role": "tool", "tool_call_id": "c1", "content": result}]


# (tool, its result, the reply about to be sent, what the trace's "Seen:" names). A value is cited as
# the result shows it (what the tool returned), found as the reply writes it.
STATED = [
    # the answer, not the id the result leads with
    ("get_gift_card_balance", '{"gift_card_id": "gift_card_8904273", "balance": 137.12}',
     "Gift card 8904273 has a balance of $137.12.", "137.12"),
    # values inside the objects a result holds, written as the reply writes them
    ("make_payment", '{"payment": {"payment_id": "PAY101201", "amount": 3122.4}, "bill": {"bill_id": "B100942"}}',
     "Your payment of $3,122.40 for bill B100942 went through.", "3122.4"),
    ("list_accounts", '[{"account_id": "A1", "balance": 50.0}, {"account_id": "A2", "balance": 905.39}]',
     "Right now that account holds $905.39.", "905.39"),
    # a figure before a word, whole tokens only: '1' inside '$10.00' is not the refill's size
    ("get_fare_rules", '{"cabin": "economy", "change_fee": 75.0, "refundable": false}',
     "Yes, economy fares can be changed: the fee is $75.00.", "75.0"),
    ("add_data_refill", '{"refill_id": "R7", "gigabytes": 1, "price": 10.0}', "Done: a refill for $10.00.", "10.0"),
    # a date the reply writes in words; a word, quoted
    ("open_page", '{"url": "https://atlaspedia.example/wiki/x", "born": "1972-08-25", "updated": "2023-11-04"}',
     "Douglas Simpson was born on 25 August 1972.", "1972-08-25"),
    ("freeze_card", '{"card_id": "CARD_A", "status": "frozen"}', "Your card is frozen now.", '"frozen"'),
    # nothing the reply states: the result's id, as before
    ("unlock_doors", '{"vehicle_id": "V0292", "locked": false}', "I've just unlocked all the doors for you.", "V0292"),
    # an answer inside a page's text: the reply's figure the text holds, not the page's date
    ("open_page", '{"url": "https://atlaspedia.example/wiki/steastaxford", "date": "2020-07-11", '
     '"text": "Steastaxford is a town in the north. Its population is 1,255,919 as of the last census."}',
     "About 1,255,919 people live in Steastaxford.", '"1,255,919"'),
    ("open_page", '{"url": "https://atlaspedia.example/wiki/douglas-simpson", "date": "2023-11-04", '
     '"text": "Douglas Simpson (born 25 August 1972) is a painter who lives by the coast."}',
     "Douglas Simpson was born on 25 August 1972.", '"25 August 1972"'),
    # a page's address is not in a longer one the reply gives; the answer is the name the text holds
    ("open_page", '{"url": "https://atlaspedia.example/wiki/hanibury", "date": "2024-11-19", '
     '"text": "Hanibury is a town by the sea. Mobrex Energy runs its yearly food expo in the harbour."}',
     "Mobrex Energy organises it. I read this on https://atlaspedia.example/wiki/hanibury-food-expo.", '"Mobrex Energy"'),
    # no figure: the longest name the text holds that the user did not bring ("Pebolir Falls" was asked about)
    ("open_page", '{"url": "https://atlaspedia.example/wiki/pebolir-falls", "date": "2024-11-19", '
     '"text": "Pebolir Falls is a town in South Georgia and the South Sandwich Islands, by the river."}',
     "Pebolir Falls lies in South Georgia and the South Sandwich Islands.", '"South Georgia and the South Sandwich Islands"'),
]


@pytest.mark.parametrize(("tool", "result", "reply", "cited"), STATED, ids=[row[0] for row in STATED])
def test_a_reply_trace_cites_the_value_the_reply_states_as_it_states_it(tool, result, reply, cited):
    assert last_said(_after(tool, result), reply=reply) == f"{tool} returned {cited}"


def test_a_result_that_echoes_the_calls_arguments_is_not_cited_for_them():
    # find_in_page repeats the term it was given: the reply's "elevation" is the user's word, not
    # something the page showed; the figure the match holds is
    chat = [{"role": "user", "content": "How high is Dribrerkmouth?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {
                "name": "find_in_page", "arguments": '{"url": "https://atlaspedia.example/wiki/d", "query": "elevation"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"query": "elevation", "matches": '
             '["Dribrerkmouth lies at an elevation of 46 metres above the sea."]}'}]
    reply = "Found it. Dribrerkmouth lies at an elevation of 46 metres."
    assert last_said(chat, reply=reply) == 'find_in_page returned "46"'
    # a write's result that confirms the value it was given is still what the reply reports
    chat = [{"role": "user", "content": "Warm the rear left seat to level 2."},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {
                "name": "set_seat_heating", "arguments": '{"seat": "rear_left", "level": 2}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"seat_id": "V0072-rear_left", "level": 2}'}]
    assert last_said(chat, reply="Seat heating for the rear left seat is now level 2.") == "set_seat_heating returned 2"
    # a search that found nothing showed only the term it was given: it found nothing for it
    chat = [{"role": "user", "content": "What is the elevation of Biolin Ridge?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {
                "name": "find_in_page", "arguments": '{"url": "https://atlaspedia.example/wiki/b", "text": "elevation"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"url": "https://atlaspedia.example/wiki/b", "text": "elevation", "matches": []}'}]
    reply = "None of the pages I found states the elevation of Biolin Ridge."
    assert last_said(chat, reply=reply) == 'find_in_page found nothing for "elevation"'


def test_a_reply_on_reads_made_together_cites_each_of_them():
    """Two lines' data read together and both stated: 'get_line_details returned 7.62 and 6.28', not
    only the newest; a read of another tool in the step is named on its own."""
    def read(call_id: str, name: str, line: str, used: float) -> list[dict]:
        return [{"role": "tool", "tool_call_id": call_id, "content": f'{{"line_id": "{line}", "data_used_gb": {used}}}'}]

    calls = [{"id": f"c{i}", "function": {"name": name, "arguments": f'{{"line_id": "{line}"}}'}}
             for i, (name, line) in enumerate([("get_line_details", "L1"), ("get_line_details", "L2"), ("get_usage", "L3")])]
    chat = [{"role": "user", "content": "How much data has each line used?"}, {"role": "assistant", "tool_calls": calls[:2]},
            *read("c0", "get_line_details", "L1", 7.62), *read("c1", "get_line_details", "L2", 6.28)]
    reply = "Data use per line: 617-494-8573: 7.62 GB used; 617-484-8289: 6.28 GB used."
    assert last_said(chat, reply=reply) == "get_line_details returned 7.62 and 6.28"
    chat[1] = {"role": "assistant", "tool_calls": [calls[0], calls[2]]}
    chat[3] = read("c2", "get_usage", "L3", 6.28)[0]
    assert last_said(chat, reply=reply) == "get_line_details returned 7.62, and get_usage returned 6.28"
    # the bills list shows an old bill of 27.00 too: the current bill, listed first, is what it gives
    calls = [{"id": "p", "function": {"name": "list_payments", "arguments": '{"account_id": "A1"}'}},
             {"id": "b", "function": {"name": "list_bills", "arguments": '{"account_id": "A1"}'}}]
    chat = [{"role": "user", "content": "When was my last payment, and what do I owe?"}, {"role": "assistant", "tool_calls": calls},
            {"role": "tool", "tool_call_id": "p", "content": '[{"payment_id": "P1", "amount": 27.0}]'},
            {"role": "tool", "tool_call_id": "b", "content": '[{"bill_id": "B2", "amount": 47.0}, {"bill_id": "B1", "amount": 27.0}]'}]
    reply = "The latest payment was $27.00. The current bill comes to $47.00."
    assert last_said(chat, reply=reply) == "list_payments returned 27.0, and list_bills returned 47.0"


def test_without_a_reply_the_trace_names_the_results_id():
    # a call's evidence has no reply to match: the id the result leads with
    balance = _after("get_gift_card_balance", '{"gift_card_id": "gift_card_8904273", "balance": 137.12}')
    assert last_said(balance) == "get_gift_card_balance returned gift_card_8904273"


def test_the_user_says_no_sentence_twice_when_another_wording_exists(book):
    spoken = {"yes please go ahead", "thanks"}
    drawn = {fresh(lambda s: book.say("user_confirm", s), seed, spoken) for seed in range(50)}
    assert drawn and all("Yes, please go ahead." not in text for text in drawn)
    assert fresh(lambda s: "Thanks.", 0, {"thanks"}) == "Thanks."  # nothing else to say: the repeat stands


def test_a_formal_user_answers_four_questions_without_opening_two_the_same_way(book):
    """"Certainly. I would like it refunded to my gift card." then "Certainly. The option is red, ...":
    the formal lead-ins ran out after three answers."""
    from toolgym.generators.user import spoken_sentences

    answers = (["my email address is a@b.co"], ["I would like it refunded to my gift card"],
               ["it should be 4961 Orchard Court"], ["the option is red, long"])
    for seed in range(40):
        spoken: set[str] = set()
        for pairs in answers:
            values = {"pairs": pairs, "recalled": False, "open_question": seed % 2 == 0}
            count = book.combinations("user_reveal@formal")
            text = fresh(lambda s, v=values: book.say("user_reveal@formal", s, **v), seed, spoken,
                         every=(lambda i, v=values: book.render("user_reveal@formal", i, **v), count))
            said = spoken_sentences([text])
            assert not said & spoken, (text, spoken)
            spoken |= said


def test_a_wording_that_repeats_nothing_is_found_when_random_draws_miss_it():
    """'Confirmed. Please go ahead. Thank you.' repeated the request's "Thank you." although
    "Yes, I confirm." was free: 16 random draws of an intent's 15 wordings can miss the few that fit."""
    wordings = [f"Yes, I confirm. Thank you{'.' * (i + 1)}" for i in range(14)] + ["Yes, I confirm."]
    spoken = {"thank you", "i confirm please proceed"}
    def unlucky(seed: int) -> str:
        return wordings[0]  # every random draw repeats "Thank you."
    assert fresh(unlucky, 7, spoken) == wordings[0]  # without the wordings, the least repeating draw stands
    assert fresh(unlucky, 7, spoken, every=(wordings.__getitem__, len(wordings))) == "Yes, I confirm."


def test_the_agent_says_no_lead_sentence_twice_in_a_chat():
    # an elderly caller asked for three facts in turn was told "Take your time." and greeted
    # "Hello, I'm glad you got in touch." at every question
    import toolgym
    from toolgym.envs.gold import gold_messages

    checked = 0
    for name in ("telecom", "travel"):
        domain = toolgym.load_domain(name)
        for task in domain.generate_tasks(30, seed=8, kinds=["multi_turn", "multi_step"], size="small"):
            said = [m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "assistant" and m.get("content")]
            sentences = [s.lower() for text in said[:-1] for s in re.split(r"(?<=[.!?])\s+", text) if len(s) > 12]
            repeated = {s for s in sentences if sentences.count(s) > 1}
            assert not repeated, (task.id, repeated)  # the closing line may echo a reply: left out
            assert not any("glad you got in touch" in text.lower() for text in said[1:]), said
            checked += len(said)
    assert checked > 200


def test_told_a_value_is_invalid_the_user_goes_to_find_it(book):
    from toolgym.generators.inspection.coherence import _DELIGHT

    for register in ("", "@terse", "@formal", "@frustrated", "@elderly", "@chatty", "@non_native"):
        for seed in range(20):
            text = book.say(f"user_done_pending{register}", seed)
            assert not _DELIGHT.search(text), text


def test_a_withheld_tool_is_handed_off_only_where_the_domain_has_someone(book):
    without = {book.say("decline_unavailable", s, action="Set seat heating", handoff="", scope="the car's seats") for s in range(60)}
    assert all("agent" not in t and "later" not in t and "the car's seats" in t for t in without), without
    assert all("set seat heating" in t for t in without)  # the action said mid-sentence, lower case
    # "I can't process a return ... I'm happy to help with orders, returns, ... instead": what's left is the rest of the scope
    assert all(re.search(r"\b(?:anything|something) else about the car's seats\b", t) for t in without), without
    offered = {book.say("decline_unavailable", s, action="cancel a booking", handoff="a human travel agent", scope="x") for s in range(60)}
    assert all("human travel agent" in t for t in offered)


@pytest.mark.parametrize("domain", ["retail", "travel"])
def test_a_withheld_tool_is_not_handed_off_where_the_policy_lists_what_a_transfer_is_for(domain):
    """"I can point you to a human agent for this." declined a return whose tool was withheld; retail's
    policy transfers only damaged, missing or disputed goods and a customer who insists, and travel's
    only group bookings, airport assistance, lost luggage and complaints."""
    from toolgym.envs.gold import gold_messages
    from toolgym.envs.registry import load_domain
    from toolgym.generators.inspection.coherence import handoff_without_one

    built = load_domain(domain)
    know = Knowledge(handoff=lambda _: bool(built.refusal_handoff))
    rows = [{"domain": domain, "kind": task.kind, "messages": gold_messages(built, task)[0]}
            for task in built.generate_tasks(40, seed=5, kinds=["no_tool/unavailable"])]
    assert len(rows) == 40 and built.handoff and not built.refusal_handoff
    assert [found for row in rows if (found := handoff_without_one(row, know))] == []


def test_a_domain_whose_policy_refers_missing_tools_to_people_offers_them(tmp_path):
    from toolgym.envs.domain import Domain
    from toolgym.errors import DomainError

    (tmp_path / "policy.md.j2").write_text("Pass what you cannot do to the service desk.")

    def domain(**handoff):
        return Domain(name="desk", version=0, description="d", scope="s", folder=tmp_path, tables=[], build_world=None,
                      tools=[], generators={}, now=None, **handoff)

    assert domain(handoff="the service desk", handoff_for_unavailable=True).refusal_handoff == "the service desk"
    assert domain(handoff="the service desk").refusal_handoff == ""
    with pytest.raises(DomainError, match="handoff_for_unavailable=True needs handoff="):
        domain(handoff_for_unavailable=True)


def test_an_invalid_value_offers_the_range_end_the_policy_states(book):
    assert said(nearest_bound(31, 16, 30), " °C") == "30 °C"
    assert said(nearest_bound(45, 50, 100), "%") == "50%"
    assert said(nearest_bound(24.8, 16, 30), " °C") == ""  # between steps: nothing the chat could ground
    texts = {book.say("point_out_invalid", s, value="31 °C", label="temperature", problem="the car takes 16 to 30 °C", valid="30 °C")
             for s in range(60)}
    assert all("30 °C" in t for t in texts)
    assert not any("30 °C" in book.say("point_out_invalid", s, value="X", label="temperature", problem="p") for s in range(60))


def test_capitals_come_from_position():
    assert inline("Turn on roaming for your line") == "turn on roaming for your line"
    assert inline("Kristen's meeting is hers to cancel") == "Kristen's meeting is hers to cancel"
    assert inline("Mechanical Keyboard is gone") == "Mechanical Keyboard is gone"
    assert inline("Your Visa ending in 2122 is frozen now.") == "your Visa ending in 2122 is frozen now."
    assert inline("There's $14.20 left") == "there's $14.20 left" and inline("I've checked") == "I've checked"
    assert polish("the credit card ending in 4413") == "the credit card ending in 4413"
    assert polish("sure. the card is frozen.") == "Sure. The card is frozen."


def test_a_status_naming_a_request_is_one_the_record_has():
    from toolgym.envs.phrasing import is_status

    assert is_status("shipped") == "is shipped" and is_status("pending", "still") == "is still pending"
    assert is_status("exchange requested") == "has an exchange requested"
    assert is_status("delivered", "still") == "is still marked as delivered" and is_status("delivered") == "is delivered"
    assert is_status("return requested", "still") == "still has a return requested"


def test_a_quoted_value_is_evidence_a_quoted_greeting_is_not():
    from toolgym.envs.user_turns import sentence_key
    from toolgym.generators.inspection.coherence import greeting_as_evidence

    def row(trace):
        return {"messages": [{"role": "user", "content": "Hi there. Flights to Tampa?"}, {"role": "assistant", "reasoning_content": trace}]}

    assert not greeting_as_evidence(row('The user gave "Tampa", so I call search_flights.'), Knowledge())
    assert greeting_as_evidence(row('The user said "Hi there.", so I call search_flights.'), Knowledge())
    assert greeting_as_evidence(row('The user said "No worries.", so I call search_flights.'), Knowledge())
    # a result's field, cited as the result writes it, is no one's greeting; a quote beside it still is
    assert not greeting_as_evidence(row('Seen: complete_task returned "status":"done". So I answer now.'), Knowledge())
    assert greeting_as_evidence(row('complete_task returned "status":"done", and the user said "Done."'), Knowledge())
    assert greeting_as_evidence(row('The user asked "Good evening, assistant.", so I call start_engine.'), Knowledge())
    aside = row('The user asked "Please go slowly with me.", so I call search_flights.')
    assert not greeting_as_evidence(aside, Knowledge())  # an aside is known only from the domain's phrasebook
    asides = Knowledge(asides=lambda _: frozenset({sentence_key("Please go slowly with me.")}))
    assert greeting_as_evidence(aside, asides)
    assert not greeting_as_evidence(row('The user gave "Tampa", so I call search_flights.'), asides)


# ---- a chat's requests, said by one person ------------------------------------------------------


def test_a_later_request_drops_what_was_said_and_a_turn_thanks_once():
    from toolgym.envs.user_turns import fixed_sentences, tidy_requests

    fillers = fixed_sentences(["The app isn't loading for me.", "Another question.", "Great, thank you."])
    first, second = tidy_requests([
        "Hi. What is the balance of my savings? The app isn't loading for me.",
        "Great, thank you. Another question. Please unfreeze card 8829. The app isn't loading for me. Thanks.",
    ], fillers)
    assert first.endswith("The app isn't loading for me.")
    assert second == "Great, thank you. Another question. Please unfreeze card 8829."
    # a sentence rendered from a slot may be the question itself: asked of two products, it stays
    asked = ["I'm thinking about the Goal Saver. What is its fee?", "Okay. I'm thinking about the Plus. What is its fee?"]
    assert tidy_requests(asked, fixed_sentences(["Okay."])) == asked
    # a sentence with a fact stays, and so does a message quoted for sending
    kept = tidy_requests(["Card 8829, please. Thanks.", 'Card 8829, please. Post "Done. Thanks!" in #ops. Thank you.'], fillers)[1]
    assert kept == 'Card 8829, please. Post "Done. Thanks!" in #ops. Thank you.'
    # a statement said again with no fact in it goes while the request still asks; alone, it stays
    opened = tidy_requests(["How long have I had the checking account? I need the opening date.",
                            "Brilliant, thank you. How long have I had the savings account? I need the opening date."], fillers)
    assert opened[1] == "Brilliant, thank you. How long have I had the savings account?"
    alone = ["I need the opening date.", "Okay. I need the opening date."]
    assert tidy_requests(alone, fixed_sentences(["Okay."])) == alone
    # a thanks that says more is kept over a bare one
    assert tidy_requests(["Thanks. I'd be grateful if you could freeze card 12."], fillers) == ["I'd be grateful if you could freeze card 12."]


def test_polish_goes_on_after_a_quoted_message():
    assert polish('I will put "Fixed. Thanks!" in #sales.') == 'I will put "Fixed. Thanks!" in #sales.'
    assert polish("done. next one.") == "Done. Next one."


def test_an_elderly_voice_only_for_a_customer_old_enough():
    import datetime as dt

    from toolgym.envs.phrasing import persona_fits, speaker_age
    from toolgym.envs.registry import load_domain
    from toolgym.envs.task import Fact

    today = dt.date(2025, 6, 1)
    assert speaker_age([Fact(key="dob", value="1990-06-02", label="date of birth")], today) == 34
    assert speaker_age([Fact(key="dob", value="1990-02-30", label="date of birth")], today) is None  # no such day
    for typed in ("June 2, 1990", "2 June 1990", "June 2nd, 1990"):  # as customers type it
        assert speaker_age([Fact(key="dob", value=typed, label="date of birth")], today) == 34, typed
    assert speaker_age([Fact(key="dob", value="June 2", label="date of birth")], today) is None  # no year, no age
    assert not persona_fits("A retiree who is unsure about phone apps.", 34)
    assert persona_fits("A retiree who is unsure about phone apps.", 70) and persona_fits("A busy nurse.", 34)
    domain = load_domain("banking")
    tasks = list(domain.generate_tasks(24, seed=5, kinds=["single"]))
    today = domain.clock(domain.world_seed).date()
    born = [t for t in tasks if any(f.key == "dob" for f in t.scenario.facts)]
    ages = [speaker_age(t.scenario.facts, today) for t in born]
    assert len(born) >= 15 and all(age is not None for age in ages), [t.scenario.facts for t in born]  # read as typed
    assert all(persona_fits(t.scenario.persona, age) for t, age in zip(born, ages, strict=True))


def test_after_nothing_was_found_nobody_is_glad(book):
    from toolgym.generators.inspection.coherence import _DELIGHT

    for register in ("", "@terse", "@chatty", "@formal"):
        for seed in range(12):
            assert not _DELIGHT.search(book.say(f"user_done_not_found{register}", seed))
    closers = {book.say("closer_not_found", seed) for seed in range(60)}
    assert not any("Glad" in c or "Happy to help" in c for c in closers), closers


def test_a_withheld_tool_is_named_with_every_use_it_has():
    from toolgym.envs.phrasing import tool_purpose
    from toolgym.envs.registry import load_domain

    workplace = load_domain("workplace")
    assert tool_purpose(workplace, "mark_message") == "mark a message of your mailbox as read or unread"
    assert tool_purpose(workplace, "mark_message", whole=True).endswith("or set or clear its flag")


@pytest.mark.parametrize("name", builtin_domains())
def test_no_tools_purpose_stops_in_the_middle_of_a_list(name):
    """A purpose cut at ", or" names a list without its last item: a trace said convert_units would
    "convert a value between km and miles, km/h and mph, litres and gallons" before a °F to °C call."""
    from toolgym.envs.phrasing import tool_description, tool_purpose
    from toolgym.envs.registry import load_domain

    domain = load_domain(name)
    for tool in domain.tools:
        purpose, description = tool_purpose(domain, tool), tool_description(domain, tool)
        cut = description[len(purpose):].startswith(", or") if description.lower().startswith(purpose.lower()) else False
        assert not (cut and "," in purpose), f"{tool}: {purpose!r} of {description!r}"


def test_a_tools_purpose_reads_whole_and_a_trace_says_it_about_the_user():
    from toolgym.envs.phrasing import about_the_user, tool_purpose
    from toolgym.envs.registry import load_domain
    from toolgym.generators.reasoning import purpose_of

    telecom = load_domain("telecom")
    # a parenthetical inside the first sentence no longer cuts it short ('switch mobile'); a verb
    # before a capitalised word is still a verb ('Switch Wi-Fi calling')
    assert tool_purpose(telecom, "toggle_mobile_data") == "switch mobile data on or off"
    assert tool_purpose(telecom, "check_apn_settings") == "open the phone's access point settings and read the APN in use"
    assert tool_purpose(telecom, "toggle_wifi_calling") == "switch Wi-Fi calling on or off"
    assert tool_purpose(load_domain("travel"), "list_bookings").startswith("look up a traveller's flight and hotel bookings")
    assert about_the_user("share a file you own with someone") == "share a file the user owns with someone"
    assert about_the_user("search the files you own or that are shared with you") == \
        "search the files the user owns or that are shared with the user"
    assert about_the_user("find when you and the given colleagues are free in your calendar") == \
        "find when the user and the given colleagues are free in the user's calendar"
    assert about_the_user("read a file you can open; you reach it") == "read a file the user can open; the user reaches it"
    assert about_the_user("transfer you to a human agent") == "transfer the user to a human agent"  # 'to' is no verb
    workplace = load_domain("workplace")
    task = workplace.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    for name in workplace.tools:
        said = purpose_of(task, task.plan[0], type(task.plan[0].calls[0])(name=name, arguments={}))
        assert not re.search(r"\byou(r|rs)?\b", said), (name, said)  # a trace speaks of the user, not to them
    # a call that flags a message is not said to "mark it as read or unread": the trace names every use
    flag = type(task.plan[0].calls[0])(name="mark_message", arguments={"message_id": "M1", "mark": "flagged"})
    assert purpose_of(task, task.plan[0], flag).endswith("or set or clear its flag")


def test_a_request_that_takes_back_the_last_one_opens_on_its_lead_in():
    from toolgym.envs.user_turns import fixed_sentences, tidy_requests

    fillers = fixed_sentences(["Great, thank you.", "Another question.", "Also, while I have you:"])
    leads = fixed_sentences(["Sorry, I changed my mind.", "Okay, scratch that."])
    asked = ["Can I get a 1 GB refill?", "Great, thank you. Another question. Sorry, I changed my mind. Can I get a 3 GB refill?"]
    assert tidy_requests(asked, fillers, {1}, leads)[1] == "Sorry, I changed my mind. Can I get a 3 GB refill?"
    retail = ["Return #W1.", "Also, while I have you: Okay, scratch that. Return #W2."]
    assert tidy_requests(retail, fillers, {1}, leads)[1] == "Okay, scratch that. Return #W2."
    assert tidy_requests(retail, fillers, set(), leads)[1] == retail[1]  # not a revision: as generated
    # a lead-in that runs into the request after a colon: "I also wanted to ask something." went before it
    colon = fixed_sentences(["Instead, here's what I want:"])
    asked = ["Swap it for the small one.", "Another question. Instead, here's what I want: Swap it for the large one."]
    assert tidy_requests(asked, fillers, {1}, colon)[1] == "Instead, here's what I want: Swap it for the large one."
    asked[1] = "Also, while I have you: Instead, here's what I want: Swap it for the large one."
    assert tidy_requests(asked, fillers, {1}, colon)[1] == "Instead, here's what I want: Swap it for the large one."


GREETING_THANKS = ("Thanks for reaching out", "Thanks for getting in touch")


@pytest.mark.parametrize("intent", ["ask_facts", "ask_facts@formal"])
def test_thanks_for_getting_in_touch_only_as_the_agents_first_words(book, intent):
    opening = " ".join(book.say(intent, seed, labels=["phone number"], opening=True, lookup=True) for seed in range(300))
    later = " ".join(book.say(intent, seed, labels=["phone number"], opening=False, lookup=True) for seed in range(300))
    assert re.search(r"[Tt]hank(?:s| you) for (?:reaching out|getting in touch|contacting us)", opening)
    assert not re.search(r"[Tt]hank(?:s| you) for (?:reaching out|getting in touch|contacting us)", later)


def test_a_later_request_is_not_thanked_for_getting_in_touch():
    import toolgym
    from toolgym.envs.gold import gold_messages

    domain = toolgym.load_domain("banking")
    later_asks = 0
    for task in domain.generate_tasks(60, seed=11, kinds=["multi_turn"]):
        messages, _ = gold_messages(domain, task)
        spoken = [m["content"] for m in messages if m.get("role") == "assistant" and m.get("content")]
        later_asks += len(spoken) - 1
        assert not any(thanks in text for text in spoken[1:] for thanks in GREETING_THANKS), spoken
    assert later_asks > 100  # the chats do speak after their first words



def test_a_reply_trace_speaks_of_exact_values_only_when_it_cites_one():
    from toolgym.envs.registry import load_domain

    phrases = load_domain("workplace").phrasebook
    asked = {"facts": [], "seen": 'the user asked "Can you share this in #support?"'}
    # after a declined change the trace names the request, not a value: no "values exactly as shown"
    without = [phrases.say("reason_reply", seed, **asked, values=False, asked=True, reported=False, also="") for seed in range(300)]
    assert not any("exactly as shown" in t for t in without)
    # nor does it present the request as something a tool gave back
    assert not any(lead in t for t in without for lead in ("What came back:", "In hand:", "Just now,"))
    assert any("in a sentence or two" in t for t in without)
    cited = [phrases.say("reason_reply", seed, facts=[], seen="get_order returned 12.5", values=True, asked=False, reported=False, also="")
             for seed in range(300)]
    assert any("exactly as shown" in t for t in cited)
    # a search that just came back empty is neither a value to quote nor something said earlier
    empty = [phrases.say("reason_reply", seed, facts=[], seen='check_outages found nothing for "Tampa"', values=False,
                         asked=False, reported=False, also="") for seed in range(300)]
    assert not any("exactly as shown" in t or "Earlier," in t or "Where this started:" in t for t in empty)


def test_an_invalid_value_is_never_put_as_the_label_it_already_names(book):
    # "I can't use 5 bags as the number of bags": a value that names its unit reads twice
    said = {book.say("point_out_invalid", seed, value="5 bags", label="number of bags",
                     problem="a booking can take 1 to 3 extra checked bags") for seed in range(200)}
    assert len(said) > 20 and not any("as the number of bags" in text for text in said), sorted(said)[:5]
    assert all("5 bags" in text and "1 to 3" in text for text in said)


# what an ask says it will do with the facts ("I'll look into that for you" opens any ask: it is about the request)
_LOOKING_UP = re.compile(r"pull up|look into it properly|take a look|I'll check|look it up|locate the records|Before I look|check the details")


def test_asking_for_the_values_of_a_change_does_not_speak_of_looking_records_up(book):
    """'Before I look, I'll need your message to post. That lets me pull up the right details.' was said
    before a post: the facts asked for feed a write, and nothing is looked up with them."""
    from types import SimpleNamespace

    from toolgym.envs.conversation import Move, finds_records
    from toolgym.envs.task import Fact, Step, ToolCall

    reason = Fact(key="reason", value="no longer needed", label="reason for cancelling")
    email = Fact(key="email", value="a@b.co", label="email")
    retail = SimpleNamespace(domain="retail")
    cancel = Step(calls=[ToolCall(name="cancel_pending_order", arguments={"order_id": "#W1", "reason": "no longer needed"})])
    find = Step(calls=[ToolCall(name="find_customer_id_by_email", arguments={"email": "a@b.co"})])
    assert not finds_records(retail, Move("ask", step=cancel, facts=(reason,)))
    assert finds_records(retail, Move("ask", step=find, facts=(email,)))
    for intent in ("ask_facts", "ask_facts@terse", "ask_facts@formal"):
        change = [book.say(intent, seed, labels=["reason for cancelling"], opening=False, lookup=False) for seed in range(400)]
        assert not [said for said in change if _LOOKING_UP.search(said)], intent
        lookups = [book.say(intent, seed, labels=["email"], opening=False, lookup=True) for seed in range(400)]
        assert any(_LOOKING_UP.search(said) for said in lookups), intent  # the record-finding words are kept for finding records


def test_asking_for_the_input_of_a_computation_speaks_of_the_answer_not_of_records(book):
    """'A made-up value could touch someone else's records, so I ask.' explained an ask for a sales tax
    rate that `calculate` needs: a computation finds no records, and a guessed rate gives a wrong sum."""
    from types import SimpleNamespace

    from toolgym.envs.conversation import Move, works_out
    from toolgym.envs.task import Fact, Step, ToolCall

    rate = Fact(key="rate", value="8.25", label="sales tax rate")
    retail = SimpleNamespace(domain="retail")
    tax = Step(calls=[ToolCall(name="calculate", arguments={"expression": "174.35 * (1 + 8.25 / 100)"})])
    find = Step(calls=[ToolCall(name="find_customer_id_by_email", arguments={"email": "a@b.co"})])
    assert works_out(retail, Move("ask", step=tax, facts=(rate,)))
    assert not works_out(retail, Move("ask", step=find, facts=(rate,)))
    records = re.compile(r"records|pull up|look it up|Before I look|check the details|take a look")
    for intent in ("ask_facts", "ask_facts@terse", "ask_facts@formal", "reason_ask"):
        values = {"labels": ["sales tax rate"], "opening": False, "lookup": True, "computes": True,
                  "tools": ["calculate"], "purpose": "evaluate an arithmetic expression", "request": "", "picks": False}
        said = [book.say(intent, seed, **values) for seed in range(400)]
        assert not [text for text in said if records.search(text)], intent
    assert any("wrong answer" in book.say("reason_ask", seed, **values) for seed in range(400))


def test_a_value_inside_a_longer_one_was_not_said():
    """The user who had picked "the one on 2025-04-10" was taken to have said the statement month
    "2025-04" already, and answered "Which month?" with "Thank you very much.": the gold chat failed."""
    from toolgym.envs.conversation import said_before

    assert not said_before("2025-04", "That would be the one on 2025-04-10.")
    assert said_before("2025-04", "The month is 2025-04.") and said_before("2025-04-10", "on 2025-04-10, please")
    assert not said_before("20", "on 2025-03-20") and not said_before("3", "3.5 GB") and said_before("Tara", "Tara, hi")


def test_a_statement_month_is_given_after_a_charge_of_that_month_was_picked():
    """A customer who had picked the charge "on 2025-04-10" was taken to have given the statement
    month 2025-04 already, and the gold chat failed. Draws in which the statement's month is the
    picked charge's are proven (a draw that cannot be raises)."""
    import datetime as dt

    from toolgym.envs.generation import draw
    from toolgym.envs.registry import load_domain
    from toolgym.envs.world import World

    domain = load_domain("banking")
    world = World(domain.template(17, "default"))  # a world where such draws come within 200 seeds
    same_month = 0
    try:
        for seed in range(200):
            task = draw(domain, world, seed, "multi_turn", 10, 0)
            picked = [s for s in task.plan if s.choice is not None and s.choice.label == "charge"]
            months = [c.arguments["month"] for s in task.plan for c in s.calls if c.name == "request_statement"]
            if picked and months:
                days = [str(o) for o in picked[0].choice.question.vars["options"]]
                same_month += any(f"{dt.date.fromisoformat(months[0] + '-01'):%B} " in d for d in days)
    finally:
        world.close()
    assert same_month >= 1
