"""Phrasing as composition: parts drawn on their own, grammar-safe slots, registers."""

from __future__ import annotations

import re

import pytest

from toolgym.envs.phrasebook import ENGINE_UTTERANCES, Phrasebook
from toolgym.envs.phrasing import article, card, counted, join_words, polish, register_of
from toolgym.errors import DomainError

from .conftest import builtin_domains

COMPOSED = """
offer:
  ack: ["", "Sure.", "Got it."]
  act: ["I can pause {{ item }}.", "pausing {{ item }} is possible.", "{{ item }} can be paused."]
  next: ["", "Want me to go on?", "Shall I go ahead?"]
offer@terse:
  act: ["Can pause {{ item }}."]
"""


def _book(tmp_path, text: str) -> Phrasebook:
    path = tmp_path / "utterances.yaml"
    path.write_text(text)
    return Phrasebook(ENGINE_UTTERANCES, path)


def test_a_composed_intent_draws_each_part_and_multiplies_the_sentences(tmp_path):
    book = _book(tmp_path, COMPOSED)
    assert book.combinations("offer") == 27
    said = {book.say("offer", seed, item="I00042") for seed in range(400)}
    assert len(said) == 27  # every combination is reachable from seeds
    assert all("I00042" in s for s in said)  # the required detail is in every one
    assert "Pausing I00042 is possible." in said  # a lower-case part opening a sentence is capitalised
    assert "I can pause I00042." in said  # an optional part may be left out, leaving no stray space
    assert book.say("offer", 7, item="x") == book.say("offer", 7, item="x")
    assert book.asks("offer")


def test_a_register_replaces_the_intent_only_where_it_is_given(tmp_path):
    book = _book(tmp_path, COMPOSED)
    assert book.voiced("offer", "terse") == "offer@terse"
    assert book.voiced("offer", "chatty") == "offer"
    assert book.voiced("offer", None) == "offer"
    assert book.say("offer@terse", 3, item="I1") == "Can pause I1."


def test_a_register_of_an_engine_intent_is_held_to_the_engines_variables(tmp_path):
    with pytest.raises(DomainError, match=r"'confirm@terse' .* uses \['actoin'\]"):
        _book(tmp_path, 'confirm@terse:\n  - "Do {{ actoin }}? Proceed?"\n')


def test_a_domain_replacing_an_engine_intent_drops_the_engines_registers(tmp_path):
    book = _book(tmp_path, 'confirm:\n  - "Shall I {{ action }} (yes/no)?"\n')
    assert book.voiced("confirm", "terse") == "confirm"


def test_a_composed_intent_needs_parts_with_text(tmp_path):
    with pytest.raises(DomainError, match="intent 'bad' needs parts"):
        _book(tmp_path, 'bad:\n  a: [""]\n  b: []\n')


def test_a_part_may_be_a_nested_composition_so_a_whole_sentence_is_optional(tmp_path):
    book = _book(tmp_path, """
bye:
  thanks: ["You're welcome", "Glad to help"]
  end: ["!", ", take care!"]
  offer:
    - ""
    - when: ["If anything comes up", "Whenever you need us"]
      how: [", just write.", ", we're here."]
""")
    assert book.combinations("bye") == 2 * 2 * (1 + 4)
    said = {book.say("bye", seed) for seed in range(300)}
    assert len(said) == 20 and "You're welcome, take care! Whenever you need us, we're here." in said
    assert "Glad to help!" in said
    assert {book.render("bye", i) for i in range(20)} == said


def test_render_reads_the_index_as_one_choice_per_part(tmp_path):
    book = _book(tmp_path, COMPOSED)
    assert {book.render("offer", i, item="x") for i in range(27)} == {book.say("offer", s, item="x") for s in range(400)}


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [("earbuds", "earbuds"), ("eSIM", "an eSIM"), ("SIM card", "a SIM card"), ("SMS", "an SMS"), ("hour", "an hour"),
     ("unit", "a unit"), ("umbrella", "an umbrella"), ("one-off fee", "a one-off fee"), ("laptop", "a laptop"),
     # a product named in the plural takes none ("ordered a Wireless Earbuds"), a pair of them does
     ("Wireless Earbuds", "Wireless Earbuds"), ("Trail Running Shoes", "Trail Running Shoes"), ("pair of jeans", "a pair of jeans"),
     ("Remote Control Car", "a Remote Control Car")],
)
def test_article_by_sound(phrase, expected):
    assert article(phrase) == expected


def test_slots_for_cards_counts_lists_and_pronouns(tmp_path):
    assert card("4242", "Mastercard") == "Mastercard ending in 4242"
    assert card("4242", "Mastercard card") == "Mastercard ending in 4242"
    assert card("4242") == "card ending in 4242"
    assert counted(1, "order") == "1 order" and counted(3, "box") == "3 boxes" and counted(2, "battery") == "2 batteries"
    assert join_words(["a", "b", "c"], "or") == "a, b or c"
    book = _book(tmp_path, 'ask:\n  - "Could you share your {{ labels | join_words }}? I need {{ labels | it_or_them }}."\n')
    assert book.say("ask", 0, labels=["email"]).endswith("I need it.")
    assert book.say("ask", 0, labels=["email", "ZIP code"]).endswith("I need them.")


def test_polish_fixes_what_parts_leave_where_they_meet():
    assert polish("we ship on on Monday.") == "We ship on Monday."
    assert polish("the card ending in 4413") == "the card ending in 4413"  # a fragment: its capital comes from where it lands
    assert polish("Sure: my email is a@b.co") == "Sure: My email is a@b.co"
    assert polish("Done.  your order ord_123 is ready .") == "Done. Your order ord_123 is ready."
    # a value that opens a sentence is quoted as given: 'Bryan.elliottexample.com doesn't work here' misquoted it
    assert polish("bryan.elliottexample.com doesn't work here.") == "bryan.elliottexample.com doesn't work here."
    assert polish("ok. notes.txt is empty.") == "Ok. notes.txt is empty."
    assert polish("Trip to Bora Bora. eSIM is on.") == "Trip to Bora Bora. eSIM is on."
    assert polish("All set! . Anything else ?") == "All set! Anything else?"
    assert polish("Done., your refund is on its way.") == "Done. Your refund is on its way."
    assert polish("The the plan is ready.") == "The plan is ready."
    assert polish("I know that that works.") == "I know that that works."
    assert polish("Call me : my phone is off.") == "Call me: My phone is off."


@pytest.mark.parametrize(
    ("persona", "register"),
    [("A busy professional who writes short, direct messages.", "terse"),
     ("A frustrated customer who has called before about the same problem.", "frustrated"),
     ("A polite retiree who is not very confident with technology.", "elderly"),
     ("An impatient shopper who types on a phone with a few typos.", "typo"),
     ("A non-native English speaker who writes simple, short sentences.", "non_native"),
     ("A careful person who double-checks every detail.", "formal"),
     ("A cheerful gift buyer.", "chatty"),
     ("A traveller who just landed.", "neutral")],
)
def test_register_of_a_persona(persona, register):
    assert register_of(persona) == register


ASSISTANT_INTENTS = ("ask_facts", "ask_missing", "instruct", "confirm", "farewell", "decline_irrelevant", "decline_unavailable",
                     "point_out_invalid", "point_out_unsupported", "refuse_policy")


def test_only_confirmations_read_as_confirmations_and_every_one_does():
    """The scripted user and the consent verifier tell a confirmation by its words: no other engine
    phrasing may look like one, and every confirmation phrasing must."""
    from toolgym.envs.conversation import asks_confirmation

    book = Phrasebook(ENGINE_UTTERANCES)
    values = {"labels": ["email", "ZIP code"], "action": "cancel order #W1 for $12.50", "instruction": "Turn it off.",
              "scope": "orders", "value": "#W1", "label": "order id", "problem": "it has 2 digits", "rule": "it has shipped",
              "tools": ["get_order"], "parallel": False, "evidence": "", "purpose": "read it", "source": "", "kind": "irrelevant",
              "facts": ["#W1", "$12.50"], "request": '"Please cancel order #W1."', "seen": "get_order returned #W1",
              "valid": "#W2", "handoff": "a human agent", "outcome": "pending", "thanked": True, "values": True,
              "arguments": "cited", "checks": True, "reported": False, "again": True, "writes": True, "agreed": True,
              "pending": ["email", "ZIP code"], "tool": "web_search", "page": 2, "found": ["https://a.example/x"], "order": "Cancel order #W1 now.", "disclosed": ["15.86 GB"],
              "because": "the engine starts only with the brake pressed", "several": False, "also": "get_invoice returned 1465.0", "picks": False, "queries": ["\"Gunondmouth\""], "terms": "",
              "derived": "", "how": ""}
    for intent in book.intents():
        if intent.split("@")[0] not in ASSISTANT_INTENTS and not intent.startswith(("closer_", "reason_")):
            continue
        for seed in range(min(book.combinations(intent), 1500)):  # every part's variants come up in 1,500 draws
            for lookup in (True, False):  # asked facts find records, or are the values of a change
                text = book.say(intent, seed, lookup=lookup, **values)
                assert asks_confirmation(text) is intent.startswith("confirm"), (intent, text)


def test_engine_phrasings_make_none_of_the_grammar_slips():
    """Every engine intent, drawn 300 times with one and with two labels, trips no grammar detector."""
    from toolgym.envs.phrasing import with_typos
    from toolgym.generators.inspection.grammar import GRAMMAR_CLASSES, find_grammar

    book = Phrasebook(ENGINE_UTTERANCES)
    values = {"action": "cancel order #W1234567", "instruction": "Turn airplane mode off.", "scope": "your orders",
              "value": "#W1", "label": "order id", "problem": "an order id has 7 digits", "rule": "shipped orders cannot be cancelled",
              "tools": ["get_order_details"], "parallel": False, "evidence": "the user gave #W1234567", "purpose": "get an order",
              "source": "the get_order_details result", "kind": "missing_info", "summary": "signal: 3 bars", "error": "no SIM",
              "facts": ["#W1234567", "$12.50"], "request": '"Please cancel order #W1234567."',
              "seen": "get_order_details returned #W1234567", "valid": "30 °C", "handoff": "a human agent",
              "outcome": "refused", "thanked": False, "values": False, "lookup": False,
              "arguments": "none", "checks": False, "reported": True, "again": False, "writes": False, "agreed": False,
              "pending": ["order id"], "tool": "web_search", "page": 3, "found": ["https://a.example/x"], "order": "Cancel order #W1 now.", "disclosed": ["15.86 GB"],
              "because": "the trunk does not open above 5 km/h", "several": True, "also": "convert_currency returned 17646.75", "picks": True, "queries": ["\"Rego Scanner\"", "\"Zatu Camera\""], "terms": "quote_cancellation returned \"refund\":436.0 and \"fee\":100.0",
              "derived": "temperature_c=19.0", "how": "the convert_units result rounded to the nearest 0.5 °C, the car's step"}
    found = []
    for intent in book.intents():
        if intent.startswith(("slot_", "irrelevant_request")) or intent in ("persona", "system_tone"):
            continue
        role = "user" if intent.startswith("user_") else "assistant"
        for labels in (["email"], ["email", "ZIP code"]):
            pairs = [f"my {label} is x{i}@y.co" for i, label in enumerate(labels)]
            for seed in range(150):
                values["lookup"] = bool(seed % 2)
                values["recalled"] = bool(seed % 3)
                values["open_question"] = bool(seed % 5 < 2)
                values["observed"] = bool(seed % 4 < 2)
                text = book.say(intent, seed, labels=labels, pairs=pairs, **values)
                text = with_typos(text, seed, keep=[*labels, *pairs]) if role == "user" else text
                found += [f"{intent}: {m.name}: {text}" for m in find_grammar(text, role)]
    assert len(GRAMMAR_CLASSES) >= 8 and not found, found[:5]


def test_every_ask_reads_as_a_request_for_every_label():
    """The scripted user answers only what a request sentence names: every way of asking must name them there."""
    from toolgym.envs.conversation import request_text

    book = Phrasebook(ENGINE_UTTERANCES)
    labels = ["email address", "ZIP code"]
    for intent in [i for i in book.intents() if i.split("@")[0] in ("ask_facts", "ask_missing")]:
        for seed in range(min(book.combinations(intent), 800)):
            said = book.say(intent, seed, labels=labels, lookup=bool(seed % 2))
            assert all(label in request_text(said) for label in labels), (intent, said)


@pytest.mark.parametrize("name", builtin_domains())
def test_every_decline_and_refusal_variant_reads_as_one_to_the_verifier(name):
    """The no_tool verifier looks for a decline in the reply; no variant of a domain may lack one."""
    import toolgym
    from toolgym.verifiers.replies import DECLINE

    phrases = toolgym.load_domain(name).phrasebook
    for intent, values in (("refuse_policy", {"rule": "R"}), ("decline_irrelevant", {"scope": "S"}), ("decline_unavailable", {"action": "do A"})):
        said = {phrases.render(intent, i, **values) for i in range(min(phrases.combinations(intent), 5000))}
        assert not [t for t in said if not DECLINE.search(t)], intent


def test_a_user_answers_a_what_or_which_question_with_the_value_not_with_yes():
    """'Which refill are you asking about?' / 'Yes, absolutely. It's the 3 GB one.' read as a
    yes to a question that asks for no yes."""
    from toolgym.envs.conversation import asks_open_question

    assert asks_open_question("Okay. Which refill are you asking about?")
    assert asks_open_question("And the payment amount: how much would you like to pay?")
    assert not asks_open_question("Could you tell me your phone number? Then I'll look.")
    assert not asks_open_question("Do you know which one?")
    book = Phrasebook(ENGINE_UTTERANCES)
    for register in ("", "@chatty", "@formal", "@elderly", "@non_native"):
        said = {book.say(f"user_reveal{register}", seed, pairs=["my phone number is 555-0100"], recalled=bool(seed % 2),
                         open_question=True) for seed in range(200)}
        assert not [t for t in said if t.lower().startswith("yes")], (register, sorted(said)[:5])
        asked = {book.say(f"user_reveal{register}", seed, pairs=["my phone number is 555-0100"], recalled=bool(seed % 2),
                          open_question=False) for seed in range(200)}
        assert [t for t in asked if t.lower().startswith("yes")], register  # a yes still answers "Could you ...?"


def test_no_question_for_a_fact_opens_as_a_follow_up():
    """"Good day. And the new transfer date: which day would you like?" was the agent's first question."""
    from toolgym.envs.registry import domains, load_domain

    found = []
    for name in sorted(domains()):
        book = load_domain(name).phrasebook
        for intent in (i for i in book.intents() if i.startswith(("ask_fact_", "ask_facts", "ask_missing"))):
            found += [(name, intent, v) for v in book.variants(intent) if v.lstrip().startswith(("And ", "Also "))]
    assert not found, found[:3]


def test_a_quotation_that_ends_its_sentence_takes_no_second_stop():
    """'I'll message Nathan Chavez: "Hi Nathan, could you send me the latest numbers?". Shall I go
    ahead?' (13 workplace confirmations of 840 chats, and the reasoning of 473 chats quoting a request)."""
    assert polish('I\'ll message Nathan: "Hi Nathan, could you send the numbers?". Shall I go ahead?') == (
        'I\'ll message Nathan: "Hi Nathan, could you send the numbers?" Shall I go ahead?')
    assert polish('I would send Ana the message "Thanks, all good.".') == 'I would send Ana the message "Thanks, all good."'
    assert polish('Its topic is "Budget questions". Next?') == 'Its topic is "Budget questions". Next?'  # the stop is the sentence's
    assert polish('The file is "v1.2".') == 'The file is "v1.2".'
    assert polish('The user asked "Why?". the two reads are apart.') == 'The user asked "Why?" The two reads are apart.'
    assert polish('Can you put "Reminder: moved!" in #support?') == 'Can you put "Reminder: moved!" in #support?'


def test_a_sentence_said_beside_others_takes_the_first_wording_that_repeats_none_of_their_words():
    from toolgym.envs.phrasing import apart

    said = frozenset({"now", "volume"})
    assert apart(["The defrost is now on.", "I've turned the defrost on."], said) == "I've turned the defrost on."
    # a word its own values hold may come again; failing a clean one, the fewest repeated
    assert apart(["The volume is now 24."], said, own=frozenset({"volume"})) == "The volume is now 24."
    assert apart(["The volume is now 24.", "It is 24 now."], said) == "It is 24 now."


def test_a_day_a_user_types_reads_as_that_day_in_every_form():
    """Users type a day as said ('June 8'), with an ordinal ('June 8th', 'November 21st, 2024'), day
    first ('8 June') or as forms do ('2025-06-08'); each reads as the day (a yearless one as this
    year's), and a day of another year keeps its year."""
    import datetime as dt
    import random
    import re

    from toolgym.envs.grounding import extract_facts
    from toolgym.envs.phrasing import typed_day

    today, rng = dt.date(2025, 6, 1), random.Random(5)
    forms = set()
    for day in ("2025-06-08", "2025-03-21", "2025-12-02", "2025-07-13", "2024-11-21", "2004-02-23"):
        for _ in range(40):
            said = typed_day(rng, day, today)
            (fact,) = extract_facts(f"It was on {said}.")
            assert fact.value == (day[5:] if day.startswith("2025") and said != day else day), (day, said)
            assert day.startswith("2025") or day[:4] in said, said
            forms.add("iso" if said == day else "ordinal" if re.search(r"\d(?:st|nd|rd|th)\b", said) else "day first" if said[0].isdigit() else "said")
    assert forms == {"iso", "ordinal", "day first", "said"}, forms
    assert typed_day(random.Random(0), "2025-03-11", today) in ("March 11", "March 11th", "11 March", "2025-03-11")
    assert {typed_day(random.Random(s), "2025-03-22", today) for s in range(200)} >= {"March 22nd", "22 March", "March 22"}


def test_a_declined_tool_s_area_is_not_offered_after_it():
    """'I'm unable to play media from a source ... I'm happy to help with anything else about this car's
    doors, ..., media and driver profiles.': the offer after a missing tool leaves out what it does."""
    import toolgym
    from toolgym.envs.gold import gold_messages
    from toolgym.envs.phrasing import scope_without, tool_area_words

    assert scope_without("this car's doors, engine, media and driver profiles", ["unlock", "doors"]) == "this car's engine, media and driver profiles"
    assert scope_without("your flights, bags, insurance and loyalty points", ["add", "insurance"]) == "your flights, bags and loyalty points"
    assert scope_without("your email", ["send", "email"]) == ""
    offered = 0
    for name in ("vehicle", "travel", "telecom"):
        domain = toolgym.load_domain(name)
        for task in domain.generate_tasks(24, seed=1, kinds=["no_tool/unavailable"], size="small"):
            withheld = {w for t in task.no_tool.withheld_tools for w in tool_area_words(t) if len(w) > 3}
            reply = next(m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "assistant" and m.get("content"))
            offer = reply.split("about ", 1)[1] if "about " in reply else ""
            offered += bool(offer)
            assert not any(w.rstrip("s") in offer for w in withheld), (withheld, reply)
            assert ", priced" not in reply and ", charged" not in reply, reply
    assert offered >= 10, offered


def test_a_user_reporting_a_step_asks_no_yes_no_question_the_agent_leaves_unanswered():
    """'Did I do that correctly?' and 'Is that what you wanted me to look at?' closed reports the next
    instruction never answered: what a user adds after a report asks nothing a yes or no would answer
    (a what-next question the next step answers is fine)."""
    import re

    book = Phrasebook(ENGINE_UTTERANCES)
    yes_no = re.compile(r"\b(?:Did I|Is that|Is it|Is good|Is correct|Tell me if)\b")
    for register in ("", "@terse", "@chatty", "@formal", "@frustrated", "@elderly", "@non_native"):
        said = {book.say(f"user_report_after{register}", seed, observed=bool(seed % 2)) for seed in range(80)}
        assert len(said) >= 2 and not any(yes_no.search(s) for s in said), (register, said)


def test_a_sentence_opening_on_a_preposition_before_a_name_is_lowered_inline():
    """'And on the second point: On July 7, $166.67 is due ...': inside a sentence a preposition that
    opened one is lower case, while the name after it keeps its capital."""
    from toolgym.envs.phrasing import inline

    assert inline("On July 7, $166.67 is due on your Auto Loan.") == "on July 7, $166.67 is due on your Auto Loan."
    assert inline("In March you spent $20.00 at Etsy.") == "in March you spent $20.00 at Etsy."
    assert inline("Booking FB100001 is confirmed.") == "Booking FB100001 is confirmed."  # a name's run keeps its capital


@pytest.mark.parametrize("name", ["banking", "telecom", "travel", "workplace"])
def test_a_fast_typist_opens_a_chat_in_many_ways(name):
    """'Helo. Sory, typing fast.' / 'quick qustion.': four openings of a fast typist's, copied into four
    domains, opened one chat in ten the same way."""
    import toolgym

    book = toolgym.load_domain(name).phrasebook
    said = {book.say("opening@typo", seed) for seed in range(300)}
    assert len(said) >= 40, len(said)


@pytest.mark.parametrize("name", ["banking", "telecom", "travel"])
def test_a_frustrated_customer_opens_a_chat_in_many_ways(name):
    """'Please don't pass me around again.' opened 10 of 150 banking chats: a frustrated opening has
    more than five things to say."""
    import toolgym

    book = toolgym.load_domain(name).phrasebook
    said = {book.say("opening@frustrated", seed).split(". ")[-1] for seed in range(300)}
    assert len(said) >= 9, said


@pytest.mark.parametrize("name", ["banking", "telecom", "retail"])
def test_a_user_greets_for_the_hour_of_the_world_s_clock(name):
    """'Good evening.' opened a banking chat whose policy said it was 09:30: a user's "Good ..." fits
    the part of the day the world's clock is in."""
    import re

    import toolgym
    from toolgym.envs.phrasing import part_of_day

    domain = toolgym.load_domain(name)
    greeted = 0
    for world_seed in (0, 7):
        part = part_of_day(domain.clock(world_seed).hour)
        for task in domain.generate_tasks(150, seed=4, kinds=["single", "multi_step"], world_seed=world_seed, size="small"):
            for said in re.findall(r"\bGood (morning|afternoon|evening)\b", " ".join(task.scenario.requests), re.I):
                greeted += 1
                assert said.lower() == part, (world_seed, domain.clock(world_seed), task.scenario.requests[0])
    assert greeted >= 5, greeted


def test_no_phrasebook_keeps_a_stock_phrase_readers_objected_to():
    """Phrasings a reader of the rows flagged, each in some rows of every corpus: "For the record, I
    will ..." before a question (the idiom reports what is done), "Do you approve, so that I may
    proceed?", "That's the answer in full.", "I'm afraid today I can't" at 20:15, "Enjoy the listening.",
    "Thanks. Next up." (a fragment)."""
    from pathlib import Path

    stock = ["For the record, I will", "so that I may proceed", "answer in full", "today I can't", "Enjoy the listening",
             "Thanks. Next up."]
    root = Path(__file__).resolve().parent.parent
    books = [*root.glob("envs/templates/*.yaml"), *root.glob("domains/*/utterances.yaml")]
    assert len(books) >= 9
    found = [(book.name, phrase) for book in books for phrase in stock if phrase in book.read_text()]
    assert not found, found


@pytest.mark.parametrize("name", ["workplace", "research", "vehicle"])
def test_an_assistant_that_serves_no_customers_never_calls_its_user_one(name):
    """"The customer is finishing up" in the trace of a workplace assistant, "customers read on small
    screens" in a car's system prompt: the engine's words for whoever is helped fit every domain."""
    from toolgym.envs.registry import load_domain

    book = load_domain(name).phrasebook
    said = [book.say(intent, seed, outcome="done", thanked=seed % 2 == 0, several=False, request="", facts=[])
            for intent in ("reason_close", "system_tone") for seed in range(300)]
    assert not [s for s in said if "customer" in s.lower()]


def test_an_ask_for_details_neither_promises_nor_points_back_stiffly():
    """"How would you like to be refunded? With it I can get started." and "Will do. What's your preferred
    option, exactly?": an ask ends on what it asks or a plain word of what follows."""
    from toolgym.envs.registry import load_domain

    book = load_domain("retail").phrasebook
    for register in ("", "@terse"):
        for seed in range(300):
            text = book.say(f"ask_facts{register}", seed, labels=["refund method"], lookup=False)
            assert not re.search(r"With (it|them) I can|^Will do\.", text), text


def test_a_trace_says_the_users_request_about_them_but_quotes_their_text_as_written():
    from toolgym.envs.phrasing import about_the_user

    said = about_the_user('email Kim the text "Hi Kim, thanks for your help." from your address')
    assert said == 'email Kim the text "Hi Kim, thanks for your help." from the user\'s address'
    assert about_the_user("send “see you soon” to your team") == "send “see you soon” to the user's team"


def test_an_agent_that_has_looked_already_does_not_offer_to_look_into_it():
    # "I will gladly look into this. What access should they have?" came after three calls
    book = Phrasebook(ENGINE_UTTERANCES)
    after = {book.say("ask_facts@formal", seed, labels=["the access level"], opening=True, lookup=False, computes=False, looked=True)
             for seed in range(400)}
    assert not [s for s in after if "look into this" in s or "review this" in s], after
    before = {book.say("ask_facts@formal", seed, labels=["the date"], opening=True, lookup=True, computes=False, looked=False)
              for seed in range(400)}
    assert any("look into this" in s for s in before)


@pytest.mark.parametrize("register", ["@frustrated", "@non_native"])
def test_a_choice_said_in_the_users_words_is_not_handed_over_with_here(register):
    """"Here. It's the one on November 14 I mean." / "Here: Jazz FM, please.": "here" hands over details
    the user looked up (`recalled`), not a choice."""
    from toolgym.envs.registry import load_domain

    book = load_domain("banking").phrasebook
    said = [book.say(f"user_reveal{register}", seed, pairs=["it's the one on November 14 I mean"], recalled=False,
                     open_question=seed % 2 == 0, offered=False) for seed in range(200)]
    assert not [s for s in said if re.match(r"(Yes, )?[Hh]ere\b", s)]


@pytest.mark.parametrize("name", ["vehicle", "workplace", "research"])
def test_an_assistant_without_a_company_voice_declines_as_itself(name):
    """"Sorry, but this service can't help with that." from the car's assistant, whose domain excludes
    the company voice (`exclude_voices`): it is an "I", not a service."""
    import toolgym

    book = toolgym.load_domain(name).phrasebook
    said = [book.say("decline_irrelevant", seed, scope="S") for seed in range(400)]
    assert not [s for s in said if re.search(r"\bservice\b", s)]
    company = toolgym.load_domain("retail").phrasebook
    assert [s for s in (company.say("decline_irrelevant", seed, scope="S") for seed in range(400)) if "this service" in s]


def test_a_missing_tool_takes_out_of_the_scope_only_what_it_acts_on():
    """"I can't change the shipping address of order #W3193995 ... If there's something else about
    returns, exchanges, payments, your account and our product catalog, I can still help.": the word
    "order" of 'modify_pending_order_address' took "orders" out, though the agent can still cancel and
    change them; and "for now ... at present" said the time twice."""
    import toolgym
    from toolgym.envs.gold import gold_messages
    from toolgym.envs.phrasing import scope_without, tool_area_words

    scope = "orders, returns, exchanges, payments, your account and our product catalog"
    assert scope_without(scope, tool_area_words("modify_pending_order_address")) == scope
    assert scope_without(scope, tool_area_words("return_delivered_order_items")).startswith("orders, exchanges")
    assert tool_area_words("unlock_doors") == ["unlock", "doors"]
    domain = toolgym.load_domain("retail")
    offers = 0
    for task in domain.generate_tasks(30, seed=3, kinds=["no_tool/unavailable"], size="small"):
        reply = next(m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "assistant" and m.get("content"))
        if "about " in reply and not {"cancel_pending_order", "get_order_details"} & set(task.no_tool.withheld_tools):
            assert "orders" in reply.split("about ", 1)[1], (task.no_tool.withheld_tools, reply)
            offers += 1
    assert offers >= 3, offers
    book = domain.phrasebook
    said = [book.say("decline_unavailable", seed, action="change the address", scope=scope) for seed in range(300)]
    assert not [s for s in said if len(re.findall(r"\b(?:for now|right now|at the moment|at present)\b", s)) > 1]
