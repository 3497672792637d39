"""Which of the user's sentences a reasoning trace quotes as the request (generators/request_quote.py):
the request's own words, the part of a message a step serves, never a greeting, an aside or a lead-in."""

from __future__ import annotations

from toolgym.generators.reasoning import last_said
from toolgym.generators.request_quote import RequestCues, user_request


def test_a_trace_quotes_the_request_never_a_greeting():
    chat = [{"role": "user", "content": "Hi there. Thanks! Excuse me. Please cancel order #W1234567, it's late."}]
    assert user_request(chat) == '"Please cancel order #W1234567, it\'s late."'
    assert user_request([{"role": "user", "content": "Good morning. Of course."}]) == ""
    # a greeting that names whom it greets, or opens on an interjection, is still a greeting
    for greeting in ("Good evening, assistant.", "Hello there, car.", "Hello, travel desk.", "Oh, hi!", "Assistant?"):
        assert user_request([{"role": "user", "content": f"{greeting} Start the car."}]) == '"Start the car."', greeting
    assert user_request([{"role": "user", "content": "Hello, I need the car started."}]) == '"Hello, I need the car started."'
    after_read = [*chat, {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_order"}}]},
                  {"role": "tool", "tool_call_id": "c1", "content": '{"status": "pending", "order_id": "#W1234567", "total": 12.5}'}]
    assert last_said(after_read) == "get_order returned #W1234567"


def test_a_trace_quotes_the_request_not_a_reply_nor_an_aside():
    from toolgym.envs.user_turns import sentence_key
    from toolgym.generators.reasoning import since_request

    request = "Please don't send me to another department. I need a room in Paris from January 12 to January 13."
    chat = [
        {"role": "user", "content": request},
        {"role": "assistant", "content": "What's your email address?"},
        {"role": "user", "content": "Sure, for your records: my email address is a@b.co, please check it."},
    ]
    aside = {sentence_key("Please don't send me to another department.")}
    # without the task's requests the latest sentence that asks is quoted, even a reply's
    assert user_request(chat) == '"Sure, for your records: my email address is a@b.co, please check it."'
    assert user_request(chat, RequestCues([request])) == '"Please don\'t send me to another department."'
    assert user_request(chat, RequestCues([request], asides=aside)) == '"I need a room in Paris from January 12 to January 13."'
    phone = "I can't get online since this morning. To find my account, my number is 512-393-3628."
    assert user_request([{"role": "user", "content": phone}], RequestCues([phone], identity=["512-393-3628"])) == (
        '"I can\'t get online since this morning."'
    )
    # a request written whole comes before the line that identifies the caller, and before a later
    # request put together from parts ("Also: ...")
    whole = "Turn my line back on please. The line in question is 602-413-1042."
    cues = RequestCues([whole], identity=["602-413-1042"])
    assert user_request([{"role": "user", "content": whole}], cues) == '"Turn my line back on please."'
    two = "Can you check how much data is left on my line? Also: Can you tell me which cards are saved on my account?"
    assert user_request([{"role": "user", "content": two}], RequestCues([two])) == '"Can you check how much data is left on my line?"'
    # an aside that frames the turn asks too ("Please go slowly"): it never stands for the request
    framed = "Please go slowly with me. Please turn off roaming on my line."
    cues = RequestCues([framed], asides={sentence_key("Please go slowly with me.")})
    assert user_request([{"role": "user", "content": framed}], cues) == '"Please turn off roaming on my line."'
    assert user_request([{"role": "user", "content": framed}], RequestCues([framed])) == (
        '"Please go slowly with me."'  # without the asides, ties go to the first sentence that asks
    )
    # when nothing asks, the longest sentence says most
    report = "Nothing works on my phone, no calls, no data. I'm currently in Chicago."
    cues = RequestCues([report])
    assert user_request([{"role": "user", "content": report}], cues) == '"Nothing works on my phone, no calls, no data."'
    # a sentence too long to quote whole is cut at a word, never on one that leads on ("... to", "... called"),
    # and the cut is marked: the quote never reads as all the user said
    long = "Could you compare the cheapest basic economy and economy fares from Mexico City to Frankfurt for my trip?"
    assert user_request([{"role": "user", "content": long}], RequestCues([long])) == (
        '"Could you compare the cheapest basic economy and economy fares from Mexico City …"'
    )
    transfer = "I'd like $300.00 to go from my savings account with you to my checking account ending in 1152 on 2025-08-02."
    assert user_request([{"role": "user", "content": transfer}], RequestCues([transfer])) == (
        '"I\'d like $300.00 to go from my savings account with you to my checking account …"'
    )
    # a cut never splits a title quoted inside the request; a quoted title is quoted with single marks
    titled = 'Compare the status in "Finance autumn capacity plan" with the one in "Support Q1 quarterly report".'
    assert user_request([{"role": "user", "content": titled}], RequestCues([titled])) == (
        '"Compare the status in \'Finance autumn capacity plan\' with the one …"'
    )
    for opens_on_title, quoted in (
        ('"Prepare the access request" is done, please check it off.', '"\'Prepare the access request\' is done, please check it off."'),
        ('"Cancel my order, please."', '"Cancel my order, please."'),  # marks around the whole sentence are dropped
    ):
        assert user_request([{"role": "user", "content": opens_on_title}], RequestCues([opens_on_title])) == quoted
    later = [*chat, {"role": "assistant", "content": "Booked."}, {"role": "user", "content": "Add 3 bags to FB1."}]
    assert since_request(later, [request, "Add 3 bags to FB1."]) == later[-1:]
    assert since_request(later, []) == later


def test_a_quoted_request_leaves_out_the_words_that_joined_it_on():
    """'the user asked "And when you've done that: Cool down the rear right zone, please."'"""
    from toolgym.envs.registry import load_domain

    message = "Hello. Navigate to the charging station. And when you've done that: Cool down the rear right zone, please."
    cues = RequestCues([message], links=load_domain("vehicle").phrasebook.joining_links)
    assert user_request([{"role": "user", "content": message}], cues, "set climate set one climate zone") == '"Cool down the rear right zone, please."'


def test_a_request_that_says_it_is_quoted_with_what_it_is():
    """'The user wrote "Can I still add it?"' left out what "it" is: the sentence before names it."""
    message = "So, we're planning a trip! My frequent flyer number is SK3997637. I forgot the insurance on FB100288. Can I still add it?"
    cues = RequestCues([message], identity=["SK3997637"])
    assert user_request([{"role": "user", "content": message}], cues) == '"I forgot the insurance on FB100288. Can I still add it?"'
    # the identity line is not what "it" is; nor is a sentence too long to quote with it
    message = "My frequent flyer number is SK3997637. Can I still add it?"
    assert user_request([{"role": "user", "content": message}], RequestCues([message], identity=["SK3997637"])) == '"Can I still add it?"'
    long = ("I booked a long trip to see my family in the mountains next spring with two connections, a night in Denver "
            "and a rental car for the whole week. Can I cancel it?")
    assert user_request([{"role": "user", "content": long}], RequestCues([long])) == '"Can I cancel it?"'
    # "It's too hot" names nothing before it; a link between two requests does not join them
    hot = "Start the engine. It's too hot on the zone behind me."
    assert user_request([{"role": "user", "content": hot}], RequestCues([hot]), "climate zone hot") == '"It\'s too hot on the zone behind me."'
    linked = "Start the charging. After that: Can I stop it at 80%?"
    assert user_request([{"role": "user", "content": linked}], RequestCues([linked], links=["After that:"])) == '"Can I stop it at 80%?"'


def test_a_title_before_a_name_ends_no_sentence():
    """'the user asked "I'd like to pay Mr."' cut a payee's name at its title."""
    from toolgym.envs.phrasing import sentences_of
    from toolgym.envs.user_turns import sentences
    from toolgym.generators.inspection.text import split_sentences

    text = "I'd like to pay Mr. Matthew Edwards and Dr. Ann Lee the same sum. I'm in St. Louis. Thanks."
    whole = ["I'd like to pay Mr. Matthew Edwards and Dr. Ann Lee the same sum.", "I'm in St. Louis.", "Thanks."]
    assert sentences(text) == whole and split_sentences(text) == whole
    assert sentences_of(text) == {s.lower() for s in whole}
    assert user_request([{"role": "user", "content": text}], RequestCues([text])) == f'"{whole[0]}"'


def test_a_revisions_lead_in_is_never_quoted_as_the_request():
    """'The request, "Let's turn to something else.", is carried out.' closed a cancellation."""
    from toolgym.envs.registry import load_domain

    phrases = load_domain("travel").phrasebook
    for lead in phrases.pooled("revise_lead_other") + phrases.pooled("revise_lead") + phrases.pooled("correct_lead"):
        message = f"{lead} Cancel booking FB100428, please."
        cues = RequestCues([message], asides=phrases.asides, links=phrases.lead_links)
        assert user_request([{"role": "user", "content": message}], cues) == '"Cancel booking FB100428, please."', lead


def test_an_ask_trace_quotes_the_request_the_ask_serves():
    """'The user asked "When did my last payment go through …?"' explained an ask for the region an
    outage check needs; the message asked both."""
    message = [{"role": "user", "content": "When did my last payment go through, and how much was it? Also, a second "
                "question. Quick one: is there a known outage in the area I'm in today?"}]
    assert user_request(message) == '"When did my last payment go through, and how much was it?"'
    outage = "check outages check for active network outages in a service region region area"
    assert user_request(message, about=outage) == '"Quick one: is there a known outage in the area I\'m in today?"'
    # a request that speaks of the step comes before one that only asks
    message = [{"role": "user", "content": "The temperature for the zone behind me needs changing. The window behind me down to 20% open, please."}]
    assert user_request(message, about="set climate set one climate zone's temperature preferred temperature") == (
        '"The temperature for the zone behind me needs changing."')


def test_a_link_in_a_personas_own_register_or_case_is_not_quoted_as_the_request():
    """'The user asked "and lastly: I'd like to exchange …"': the typing persona's own link
    (last_follow_up@typo) was no link to the quote, which knew only the plain register's "Lastly:"."""
    from toolgym.envs.registry import load_domain

    phrases = load_domain("retail").phrasebook
    typed = [v.strip() for v in phrases.variants("last_follow_up@typo") if v.strip().endswith(":")]
    assert typed and set(typed) <= set(phrases.lead_links)
    for link in typed:
        message = f"{link} I'd like to exchange the shirt from order #W4414097."
        cues = RequestCues([message], asides=phrases.asides, links=phrases.lead_links)
        assert user_request([{"role": "user", "content": message}], cues) == (
            '"I\'d like to exchange the shirt from order #W4414097."'), link
    # a link typed in lower case still joins on, and still splits a message asking two things in turn
    link = phrases.sequence_links[0]
    message = f"Cancel order #W1. {link.lower()} Refund it to my card."
    cues = RequestCues([message], links=phrases.lead_links, sequence_links=phrases.sequence_links)
    assert cues.part_of(message, 1) == "Refund it to my card."
    assert user_request([{"role": "user", "content": f"{link.lower()} Refund order #W1 to my card."}], cues) == (
        '"Refund order #W1 to my card."')


def test_a_sentence_that_only_points_to_a_page_is_not_the_request():
    """'The request, "I have https://atlaspedia.example/wiki/ludrair-heater open.", has its answer.':
    "open" there is no request; the question after it is."""
    for lead in ("I have https://atlaspedia.example/wiki/ludrair-heater open.", "This page should say it: https://atlaspedia.example/wiki/ludrair-heater."):
        message = f"{lead} What would 2 of the Ludrair Heater cost at list price?"
        assert user_request([{"role": "user", "content": message}]) == '"What would 2 of the Ludrair Heater cost at list price?"'
    # a question that names the page is still the request
    asked = "Can you check https://atlaspedia.example/wiki/ludrair-heater for me? I'm curious."
    assert user_request([{"role": "user", "content": asked}]).startswith('"Can you check')


def test_a_rider_that_says_how_is_not_quoted_over_the_request_it_qualifies():
    """'The user declined: "Should my points cover the fare, please use them; if not, my card."': the
    payment condition spoke of the booking step's points and card, and was quoted over the booking."""
    booking = "book flight book a seat in a cabin on a flight, paid by card or with loyalty points"
    for rider in ("Should my points cover the fare, please use them; if not, my card.", "Points if I've got enough, card if not!",
                  "Kindly use my loyalty points if the balance suffices; otherwise, please charge my card.",
                  "Try my points; if they fall short, charge the card.", "Pay with points if they cover it, else card."):
        message = [{"role": "user", "content": f"Hello. I need the cheapest nonstop from Seoul to Lima on July 18 in business. {rider}"}]
        expected = '"I need the cheapest nonstop from Seoul to Lima on July 18 in business."'
        assert user_request(message, about=booking) == expected, rider
        assert user_request(message, about="find traveller by loyalty number") == expected, rider
    # "else" that names no alternative is no rider
    for plain in ("I need nothing else booked.", "Can someone else use my seat?", "What else can I add to FB100001?"):
        assert RequestCues().rank(plain)[2] is False, plain
    alone = [{"role": "user", "content": "Is there anything else I should know about my booking FB100001?"}]
    assert user_request(alone, about=booking).startswith('"Is there anything else')


def test_a_message_splits_into_the_two_questions_it_asks_together():
    cues = RequestCues(also_links=("Second question:", "Also, a second question."))
    message = "Hi. What would a 3 GB top-up cost me? Second question: Can you tell me what I owe this month?"
    assert cues.half_of(message, 0) == "Hi. What would a 3 GB top-up cost me?"
    assert cues.half_of(message, 1) == "Can you tell me what I owe this month?"
    assert cues.half_of("What plan am I on?", 1) == "What plan am I on?"  # one question: the whole message
    asked = [{"role": "user", "content": message}]
    assert user_request(asked, RequestCues([message], also_links=cues.also_links), half=1) == '"Can you tell me what I owe this month?"'


def test_an_identity_ask_quotes_the_question_that_needs_the_user_known():
    """'The user asked "What would a 3 GB top-up cost me?"' explained an ask for the phone number;
    the price list needs no account, the bill asked about in the same message does. Every telecom and
    travel draw whose identification serves one of two questions asked together quotes that question."""
    from toolgym.envs.generation import draw
    from toolgym.envs.gold import gold_chat
    from toolgym.envs.registry import load_domain
    from toolgym.envs.world import World
    from toolgym.generators.reasoning import with_reasoning

    checked = 0
    for name in ("telecom", "travel"):
        domain = load_domain(name)
        personal = domain.authz.personal
        world = World(domain.template(0, "default"))
        try:
            tasks = [draw(domain, world, 0, "parallel", index, 0) for index in range(40)]
        finally:
            world.close()
        for task in tasks:
            steps = task.plan
            if len(steps) < 2 or steps[0].calls[0].name not in domain.authz.identifiers or len(steps[1].calls) != 2:
                continue
            owned = [call.name in personal for call in steps[1].calls]
            if owned.count(True) != 1:
                continue
            messages = with_reasoning(task, gold_chat(domain, task)[0])
            ask = next(m for m in messages if m["role"] == "assistant")
            if ask.get("tool_calls"):
                continue  # the user gave who they are up front: nothing is asked
            cues = RequestCues.of(task, domain.phrasebook)
            served = cues.half_of(task.scenario.requests[0], owned.index(True))
            other = cues.half_of(task.scenario.requests[0], 1 - owned.index(True))
            quoted = ask["reasoning_content"].split('"')[1].removesuffix(" …")
            assert quoted in served and quoted not in other, (task.id, quoted, served)
            checked += 1
    assert checked >= 4, checked  # the draws hold such chats: the check is not vacuous


def test_an_ask_names_the_call_that_takes_a_date_the_user_gives_in_words():
    """'To look up one booking I'd call get_booking, which takes it' explained an ask for the travel
    date, which the flight search beside it takes ("January 21" is its 2026-01-21)."""
    from toolgym.envs.conversation import call_taking
    from toolgym.envs.task import Fact, Step, ToolCall

    step = Step(calls=[ToolCall(name="get_booking", arguments={"booking_id": "FB100313"}),
                       ToolCall(name="search_flights", arguments={"origin": "MEX", "destination": "DEL", "date": "2026-01-21"})])
    date = Fact(key="travel_date", value="January 21", label="travel date")
    assert call_taking(step, (date,), frozenset()).name == "search_flights"
    booking = Fact(key="booking", value="FB100313", label="booking number")
    assert call_taking(step, (booking,), frozenset()).name == "get_booking"


def test_an_ask_names_the_call_that_takes_a_value_in_its_own_form():
    """A value the user says in other words ("$940.00", "view only", "8.25%") is taken by the call
    whose argument it becomes (940.0, "view", an expression holding 8.25), not by the step's first call."""
    from toolgym.envs.conversation import call_taking
    from toolgym.envs.task import Fact, Step, ToolCall

    lookup = ToolCall(name="list_customer_orders", arguments={"customer_id": "C53982", "status": "pending"})
    for fact, call in [
        (Fact(key="payment_amount", value="$940.00", label="payment amount"),
         ToolCall(name="pay_payee", arguments={"payee_id": "P50264", "amount": 940.0})),
        (Fact(key="access_level", value="view only", label="access level"),
         ToolCall(name="share_file", arguments={"file_id": "F00053", "level": "view"})),
        (Fact(key="calc_percent", value="8.25%", label="sales tax rate"),
         ToolCall(name="calculate", arguments={"expression": "66.02 * (1 + 8.25 / 100)"})),
    ]:
        assert call_taking(Step(calls=[lookup, call]), (fact,), frozenset()) == call, fact


def test_a_fact_no_call_takes_names_no_tool_unless_a_change_takes_it_as_a_record():
    """'get_product_details needs it' explained an ask for the option the user wants, which only picks
    which of the product's variants the answer reports: no call is named. A change takes the user's
    words as a record of its own ("the American Express ending in 0101" is a card's id): it is named."""
    from toolgym.envs.conversation import call_taking
    from toolgym.envs.task import Fact, Step, ToolCall

    option = Fact(key="wanted_option", value="white, wired", label="preferred option")
    details = ToolCall(name="get_product_details", arguments={"product_id": "P1023"})
    tracking = ToolCall(name="get_tracking_info", arguments={"order_id": "#W5970589"})
    assert call_taking(Step(calls=[details]), (option,), frozenset()) is None
    assert call_taking(Step(calls=[details, tracking]), (option,), frozenset()) is None
    card = Fact(key="new_payment_method", value="the American Express ending in 0101", label="payment method to use")
    change = ToolCall(name="modify_pending_order_payment", arguments={"order_id": "#W4961652", "payment_method_id": "credit_card_2869611"})
    assert call_taking(Step(calls=[change]), (card,), frozenset({"modify_pending_order_payment"})) == change


def test_a_short_request_keeps_a_long_sentence_that_names_what_it_asks_about():
    """'the user asked "I want to dispute it."' left out the charge: the sentence before it is too
    long for a one-sentence quote, not for the two together."""
    message = ("Uber charged me the wrong amount recently on my checking account ending in 2987. I want to dispute it. "
               "The number on file is 602-555-2157.")
    cues = RequestCues([message], identity=["602-555-2157"])
    assert user_request([{"role": "user", "content": message}], cues) == (
        '"Uber charged me the wrong amount recently on my checking account ending in 2987. I want to dispute it."')


def test_a_sentence_is_quoted_with_the_short_request_after_it_that_points_back():
    """'the user asked "I've tried three times to open the checking account ending 5230 in the app."'
    left out "What's in it?", the question the reply answered; a remark after the request is not added."""
    message = "Right, thanks. I've tried three times to open the checking account ending 5230 in the app. What's in it? Quickly, please."
    assert user_request([{"role": "user", "content": message}], RequestCues([message])) == (
        '"I\'ve tried three times to open the checking account ending 5230 in the app. What\'s in it?"')
    remark = "Which address is my account set to? I really appreciate it, honestly."
    assert user_request([{"role": "user", "content": remark}], RequestCues([remark])) == '"Which address is my account set to?"'


def test_a_requests_worry_is_no_request():
    """'the user asked "Please help, I think it's fraud."' explained a call about a charge the user
    did not make: the worry beside the request is how they feel, the charge is what they ask about."""
    from toolgym.envs.registry import load_domain

    domain = load_domain("banking")
    message = "Hello. There's a $8.49 charge from Metro Transit on my checking account that I didn't make. Please help, I think it's fraud."
    cues = RequestCues([message], asides=domain.phrasebook.asides)
    assert user_request([{"role": "user", "content": message}], cues) == (
        '"There\'s a $8.49 charge from Metro Transit on my checking account that I didn\'t make."')


def test_a_lead_in_naming_the_pages_is_not_quoted_as_the_request():
    """'The user came with "Going by https://atlaspedia.example/wiki/hozitark-press …"' spent the quote
    on the addresses: the question after them is what was asked. A colon that is not right after an
    address, and a sentence that only points to a page, keep their words."""
    message = ("Going by https://atlaspedia.example/wiki/hozitark-press and https://atlaspedia.example/wiki/trofais-kettle: "
               "How many days passed between the two launches?")
    assert user_request([{"role": "user", "content": message}], RequestCues([message])) == (
        '"How many days passed between the two launches?"')
    asked = "What does https://atlaspedia.example/wiki/kizi say: is it still sold?"
    assert user_request([{"role": "user", "content": asked}]) == f'"{asked}"'
    pointer = "I have https://atlaspedia.example/wiki/kizi open. When did the Kizi Bicycle launch?"
    assert user_request([{"role": "user", "content": pointer}]) == '"When did the Kizi Bicycle launch?"'


def test_a_request_of_up_to_ten_words_that_points_back_is_quoted_with_what_it_points_to():
    """'What the user wants: "The earliest slot that works for all of them."' said nothing of the
    meeting to move; a remark after a request ("I can't find it, but it's probably at home.") is not
    joined on though it has a request's verb."""
    message = "Can you push the Finance review on 2025-03-20 to a different day? The earliest slot that works for all of them."
    cues = RequestCues([message])
    assert user_request([{"role": "user", "content": message}], cues, about="find free slots when everyone is free") == f'"{message}"'
    remark = "Can you put a freeze on the Visa ending in 2062? I can't find it, but it's probably at home."
    assert user_request([{"role": "user", "content": remark}], RequestCues([remark])) == '"Can you put a freeze on the Visa ending in 2062?"'
    order = "I've lost my card ending in 7628 and I'm panicking. Block it and replace it."
    assert user_request([{"role": "user", "content": order}], RequestCues([order])) == f'"{order}"'


def test_a_remark_and_the_question_after_it_are_quoted_together():
    """'Request: "We're about to move."' quoted a remark that only holds a request's verb, and left
    out the question after it ("Can the address on my account be changed?"); "I have two gift cards,
    numbers 9882581 and 8878557." left out "How much is on each?". The two are quoted together; a
    sentence that asks plainly is still quoted alone, and so is a remark before an order."""
    from toolgym.generators.request_quote import user_request

    def quoted(text: str, about: str = "") -> str:
        return user_request([{"role": "user", "content": text}], about=about)

    assert quoted("Hi! I love your shop, by the way. We're about to move. Can the address on my account be changed?") == (
        "\"We're about to move. Can the address on my account be changed?\"")
    # the remark is quoted first where it speaks of the step (a gift card balance read)
    assert quoted("I have two gift cards, numbers 9882581 and 8878557. How much is on each?", "get gift card balance") == (
        '"I have two gift cards, numbers 9882581 and 8878557. How much is on each?"')
    assert quoted("Please cancel order #W1. Can you also send me the receipt?") == '"Please cancel order #W1."'
    # an order after the remark is a request of its own
    assert quoted("The zone behind me needs changing. The window down to 20% open, please.", "zone") == (
        '"The zone behind me needs changing."')


def test_a_bare_request_is_quoted_with_the_remark_that_names_what_it_is_about():
    """'the user asked "Please open a dispute."' left out the charge the sentence before named (its
    merchant, amount and date); "What's each person's share?" left out the $49.74 gift. A short
    request that names nothing is quoted with such a remark; after a remark that names nothing
    either, or one that asks on its own, it stands alone."""
    from toolgym.generators.request_quote import user_request

    def quoted(text: str) -> str:
        return user_request([{"role": "user", "content": text}])

    charge = "There's a $378.47 charge from eBay on 2025-06-05 on my checking account ending in 0224 and the amount is wrong."
    assert quoted(f"{charge} Please open a dispute.") == f'"{charge} Please open a dispute."'
    assert quoted("We're sharing the cost of a $49.74 gift equally. What's each person's share?") == (
        "\"We're sharing the cost of a $49.74 gift equally. What's each person's share?\"")
    assert quoted("It's far too quiet in here. Turn on the radio.") == '"Turn on the radio."'
    assert quoted("Please check order #W1 for me. Turn on the radio.") == '"Please check order #W1 for me."'
