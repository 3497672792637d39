"""A reply's trace cites the value it reports, from the result that showed it: not a value the
result only repeats from its call, a figure the user brought, a stray field, or another result of
the same step that shows it by chance."""

from __future__ import annotations

import json


def test_a_reply_trace_cites_the_result_of_the_step_that_the_reply_states():
    """'Seen: set_lights returned V0005.' came before a reply about the tyres, whose pressures an
    earlier result of the same step showed."""
    from toolgym.generators.reasoning import last_said

    chat = [
        {"role": "user", "content": "Check the tyres. And switch on the fog lights."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "check_tyre_pressure", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "set_lights", "arguments": '{"light": "fog_lights", "mode": "on"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '[{"wheel": "front_left", "pressure_psi": 38.0, "recommended_psi": 38.0}]'},
        {"role": "tool", "tool_call_id": "c2", "content": '{"id": "V0005", "fog_lights": true, "speed_kmh": 90}'},
    ]
    reply = "All four tyres are close to their recommended pressure: 38 psi. I've switched the fog lights on."
    assert last_said(chat, None, reply) == "check_tyre_pressure returned 38.0"
    assert last_said(chat) == "set_lights returned V0005"  # with no reply to match, the latest result still speaks


def test_a_reply_trace_never_cites_a_value_the_result_only_repeats_from_its_call():
    """'get_fare_rules returned "business"' came before 'A business ticket can be changed with no
    fee': the result repeats the cabin it was asked about; the request the reply answers is quoted."""
    from toolgym.generators.reasoning import last_said

    chat = [
        {"role": "user", "content": "Can a business ticket be changed?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_fare_rules", "arguments": '{"cabin": "business"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"cabin": "business", "changeable": true, "change_fee": 0.0}'},
    ]
    reply = "A business ticket can be changed with no fee; you pay only any fare difference."
    cited = last_said(chat, None, reply, writes=frozenset({"book_flight"}))
    assert "returned" not in cited and "Can a business ticket be changed?" in cited, cited


def test_a_reply_trace_cites_the_date_a_page_gave_not_the_part_number_inside_it():
    """'open_page returned 1.' came before 'The latest edition ... took place on 1 November 2024.':
    the page's "part": 1 matched the day of the date."""
    from toolgym.generators.result_values import result_value

    page = json.dumps({"url": "https://atlaspedia.example/wiki/tusto-expo", "part": 1, "parts": 2,
                       "text": "The Tusto Harbour Film Expo is held in Tusto Harbour. Its latest edition took place on 1 November 2024."})
    reply = "The latest edition of the Tusto Harbour Film Expo took place on 1 November 2024."
    assert result_value(page, reply) == '"1 November 2024"'
    volume = json.dumps({"level": 26, "muted": False})  # a small figure of its own is still cited
    assert result_value(volume, "The volume is now set to 26.") == "26"


def test_a_reply_trace_cites_the_answer_a_file_gave_not_the_title_the_user_asked_about():
    """'read_file returned Sales 2025 quarterly report.' came before 'The owner of "Sales 2025
    quarterly report" is Patrick Alexander.': the title is the user's own words."""
    from toolgym.generators.result_values import result_value

    found = json.dumps({"file_id": "F00287", "title": "Sales 2025 quarterly report", "owner": "patrick.alexander@brightwell.example",
                        "content": "Sales 2025 quarterly report\\nOwner: Patrick Alexander\\nDeadline: 2025-05-01\\nStatus: draft"})
    reply = 'The owner of "Sales 2025 quarterly report" is Patrick Alexander.'
    said = 'open "sales 2025 quarterly report" and tell me who owns it.'
    assert result_value(found, reply, frozenset({"f00287"}), said) == '"Patrick Alexander"'
    # a folder named "Shared" is not the "shared" of the reply
    shared = json.dumps({"file_id": "F00012", "title": "Sales Q1 capacity plan", "folder": "Shared", "level": "edit"})
    assert result_value(shared, "I've shared the capacity plan with Anne, with edit rights.", frozenset(), "") != '"Shared"'
    # a write's result confirms what was asked: the task the user named is its answer, not a bare "done"
    task = json.dumps({"task_id": "T0042", "title": "Review the expense report", "status": "done"})
    marked = 'I\'ve marked "Review the expense report" as done.'
    asked = "please mark review the expense report as done."
    assert result_value(task, marked, frozenset({"t0042"}), asked, reads=False) == '"Review the expense report"'


def test_a_write_with_an_empty_list_in_its_result_found_something():
    """'send_email found nothing for "Next steps"' came before 'Your email "Next steps" is on its way':
    the sent mail's empty "cc" list read as a search that came back empty."""
    from toolgym.generators.reasoning import last_said

    chat = [
        {"role": "user", "content": 'Email Veronica, subject "Next steps".'},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "send_email", "arguments": '{"to": ["v@b.example"], "subject": "Next steps"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"subject": "Next steps", "cc": []}'},
    ]
    reply = 'Your email "Next steps" is on its way to Veronica.'
    assert "found nothing" not in last_said(chat, None, reply, writes=frozenset({"send_email"}))
    search = [chat[0], {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function", "function": {
        "name": "search_email", "arguments": '{"text": "Next steps"}'}}]},
        {"role": "tool", "tool_call_id": "c2", "content": '{"text": "Next steps", "matches": []}'}]
    assert "found nothing" in last_said(search, None, 'Nothing in your mailbox mentions "Next steps".', writes=frozenset({"send_email"}))


def test_a_value_a_write_was_given_is_cited_from_that_write_not_from_a_result_that_shows_it_too():
    """'set_defrost returned 3' traced "The heater in the driver's seat is now level 3": the defrost's
    result is the whole car, whose seat position happened to be 3 (or whose volume the step had just set)."""
    from toolgym.generators.reasoning import last_said

    chat = [{"role": "user", "content": "Heat my seat to level 3 and turn on the front defrost."},
            {"role": "assistant", "tool_calls": [
                {"id": "c1", "function": {"name": "set_seat_heating", "arguments": '{"seat": "driver", "level": 3}'}},
                {"id": "c2", "function": {"name": "set_defrost", "arguments": '{"where": "front", "on": true}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"seat": "driver", "level": 3}'},
            {"role": "tool", "tool_call_id": "c2", "content": '{"id": "V0159", "defrost_front": true, "seat_position": 3, "range_km": 412}'}]
    reply = "The heater in the driver's seat is now level 3. I've turned the front defrost on."
    writes = frozenset({"set_seat_heating", "set_defrost"})
    assert last_said(chat, reply=reply, writes=writes) == "set_seat_heating returned 3"
    # a value no call was given is still cited from the result that shows it
    assert last_said(chat, reply="Your range is 412 km.", writes=writes) == "set_defrost returned 412"
    # ... from a read of the step that shows it, before a write whose whole car shows it too
    status = [*chat[:1], {"role": "assistant", "tool_calls": [
                  {"id": "c3", "function": {"name": "get_vehicle_status", "arguments": "{}"}},
                  {"id": "c4", "function": {"name": "set_fan", "arguments": '{"level": 6}'}}]},
              {"role": "tool", "tool_call_id": "c3", "content": '{"id": "V0159", "range_km": 806, "tank_pct": 84}'},
              {"role": "tool", "tool_call_id": "c4", "content": '{"id": "V0159", "fan_level": 6, "range_km": 806}'}]
    assert last_said(status, reply="You have about 806 km of range.", writes=writes | {"set_fan"}) == "get_vehicle_status returned 806"


def test_a_reply_that_states_no_figure_of_the_result_cites_the_request_not_a_stray_figure():
    """'get_fare_rules returned 0.0' traced "A basic economy ticket cannot be changed once the booking is made."."""
    from toolgym.generators.reasoning import last_said
    from toolgym.generators.result_values import result_value

    rules = '{"cabin": "basic_economy", "changeable": false, "change_fee": 0.0, "refundable": false, "bag_fee": 40.0}'
    reply = "A basic economy ticket cannot be changed once the booking is made."
    assert result_value(rules, reply, frozenset({"basic_economy"})) == ""
    assert result_value(rules) == "0.0"  # with no reply to back, a figure still names the result
    chat = [{"role": "user", "content": "Can a basic economy ticket be changed?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_fare_rules", "arguments": '{"cabin": "basic_economy"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": rules}]
    assert last_said(chat, reply=reply, writes=frozenset()) == 'the user asked "Can a basic economy ticket be changed?"'
    # an id still names the record a reply is about
    assert result_value('{"booking_id": "FB100332", "bags": 1}', "Your bags are in.") == "FB100332"


def test_a_value_of_several_words_is_cited_as_one_quoted_value_even_with_a_figure_in_it():
    """'modify_pending_order_items returned 6 inch, carbon steel' read as two things returned."""
    from toolgym.generators.result_values import result_value

    order = '{"order_id": "#W6709224", "items": [{"name": "Chef\'s Knife", "options": "6 inch, carbon steel"}]}'
    reply = "I've changed the Chef's Knife to 6 inch, carbon steel in order #W6709224."
    assert result_value(order, reply, reads=False) == '"6 inch, carbon steel"'
    assert result_value('{"total": 167.45}', "The order now totals $167.45.") == "167.45"  # a figure stays bare


def test_a_search_term_the_agent_chose_is_not_cited_from_an_earlier_pages_prose():
    """'open_page returned "https://.../popend-camera" and "designer"': the word came from another page's
    text ("The product's designer is Mathew Medina."), not from anything that was asked or shown as a value."""
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import evidence_for

    tent = ('{"url": "https://atlaspedia.example/wiki/tent", "text": "The product\'s designer is Mathew Medina.", '
            '"links": [{"text": "Camera", "url": "https://atlaspedia.example/wiki/camera"}]}')
    camera = '{"url": "https://atlaspedia.example/wiki/camera", "text": "The Camera sells for $862.", "status": "designer"}'
    chat = [{"role": "user", "content": "Who designed the flagship product of Bepeapiox Foods?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "open_page", "arguments": '{"url": "https://atlaspedia.example/wiki/tent"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": tent},
            {"role": "assistant", "tool_calls": [{"id": "c2", "function": {"name": "open_page", "arguments": '{"url": "https://atlaspedia.example/wiki/camera"}'}}]},
            {"role": "tool", "tool_call_id": "c2", "content": camera.replace(', "status": "designer"', "")}]
    step = Step(calls=[ToolCall(name="find_in_page", arguments={"url": "https://atlaspedia.example/wiki/camera", "text": "designer"})])
    assert evidence_for(step, chat) == 'open_page returned "https://atlaspedia.example/wiki/camera"'
    # a word a result shows as a whole value is still cited
    chat[-1] = {**chat[-1], "content": camera}
    assert evidence_for(step, chat) == 'open_page returned "https://atlaspedia.example/wiki/camera" and "designer"'


def test_a_word_a_result_shows_only_as_a_key_is_the_users():
    """'search_email returned "M001518" and "unread"' named the field "unread": false; the user said it."""
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import evidence_for

    chat = [{"role": "user", "content": "Please mark the latest email from Lori Castillo unread again."},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "search_email", "arguments": '{"sender": "Lori Castillo"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '[{"message_id": "M001518", "sender_name": "Lori Castillo", "unread": false}]'}]
    step = Step(calls=[ToolCall(name="mark_message", arguments={"message_id": "M001518", "mark": "unread"})])
    assert evidence_for(step, chat) == 'search_email returned "M001518", and the user gave "unread"'


def test_a_small_number_is_cited_from_a_field_of_its_own_name():
    """'search_hotels returned "3"' for bags=3 named a hotel's three stars; the user asked for 3 bags."""
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import evidence_for

    chat = [{"role": "user", "content": "I would like to add 3 checked bags to booking FB100043, please."},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "search_hotels", "arguments": '{"city": "Denver"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '[{"hotel_id": "H1109", "stars": 3, "nightly_rate": 66.0}]'}]
    step = Step(calls=[ToolCall(name="add_baggage", arguments={"booking_id": "FB100043", "bags": 3})])
    assert evidence_for(step, chat) == 'the user gave "FB100043" and "3"'
    # a field named for what the argument is still counts ("free_bags": 3 for bags=3), where the
    # user gave no number of their own (when they did, theirs is cited: test_reasoning); the booking
    # id the user said is theirs, though the result shows it too
    chat[0] = {**chat[0], "content": "I would like to add the free checked bags to booking FB100043, please."}
    chat[2] = {**chat[2], "content": '{"booking": "FB100043", "free_bags": 3}'}
    assert evidence_for(step, chat) == 'the user gave "FB100043", and search_hotels returned "free_bags": 3'


def test_a_whole_number_a_page_writes_with_its_decimal_is_cited():
    """'open_page returned "37.3"' was the whole trace before converting 37.3 kg and 25.0 kg: the page's
    "25.0 kg" went uncited, as a figure of two digits is cited only from a field of its own."""
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import evidence_for

    chat = [{"role": "user", "content": "How much do the Lobre Tent and the Gugas Router weigh in pounds?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "open_page", "arguments": '{"url": "u1"}'}},
                                                 {"id": "c2", "function": {"name": "open_page", "arguments": '{"url": "u2"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"text": "The Lobre Tent weighs 37.3 kg."}'},
            {"role": "tool", "tool_call_id": "c2", "content": '{"text": "It has a weight of 25.0 kg and 25 reviews."}'}]
    step = Step(calls=[ToolCall(name="convert_units", arguments={"value": v, "from_unit": "kg", "to_unit": "lb"}) for v in (37.3, 25.0)])
    assert evidence_for(step, chat) == 'open_page returned "37.3" and "25.0"'
    # a bare "25" in prose is still no evidence for 25
    chat[-1] = {**chat[-1], "content": '{"text": "It has 25 reviews."}'}
    assert evidence_for(step, chat) == 'open_page returned "37.3"'


def test_a_read_whose_stated_values_the_user_brought_cites_no_value_of_it():
    """'read_file returned "Marketing Q1 retro notes"' traced "... "Marketing Q1 retro notes" is
    approved.": the title is what the user asked about; the read found its status."""
    from toolgym.generators.reasoning import last_said

    chat = [{"role": "user", "content": 'Is "Marketing Q1 retro notes" approved yet? Check the file\'s status line.'},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "read_file", "arguments": '{"file_id": "F00315"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"file_id": "F00315", "title": "Marketing Q1 retro notes", '
             '"text": "Agenda and notes from the retro. Status: approved by the team lead after review."}'}]
    reply = 'According to the file, "Marketing Q1 retro notes" is approved.'
    assert last_said(chat, None, reply, writes=frozenset()) == 'the user asked "Is \'Marketing Q1 retro notes\' approved yet?"'


def test_a_small_number_is_cited_from_the_user_over_a_field_that_only_shares_a_word_with_its_argument():
    """'get_booking returned "2"' explained add_baggage(bags=2) after "FB100311: 2 checked bags, please.":
    the booking's "free_bags": 2 is another quantity than the bags asked for."""
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import evidence_for

    booking = [
        {"role": "user", "content": "FB100311: 2 checked bags, please."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "g", "function": {"name": "get_booking", "arguments": '{"booking_id": "FB100311"}'}}]},
        {"role": "tool", "tool_call_id": "g", "content": '{"booking_id": "FB100311", "bags": 0, "fare_rules": {"free_bags": 2}}'},
    ]
    bags = Step(calls=[ToolCall(name="add_baggage", arguments={"booking_id": "FB100311", "bags": 2})])
    assert evidence_for(bags, booking) == 'the user gave "FB100311" and "2"'
    # with no word of the user's for it, the akin field is still where it was seen
    unasked = [{"role": "user", "content": "Booking FB100311 needs bags."}, *booking[1:]]
    assert evidence_for(bags, unasked) == 'the user gave "FB100311", and get_booking returned "free_bags": 2'
    # a field named as the argument is, read after the user spoke, is cited as before
    refills = [
        {"role": "user", "content": "Add 10 GB to my line, please."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "r", "function": {"name": "list_data_refills", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "r", "content": '[{"gigabytes": 10, "price": 45.0}]'},
    ]
    refill = Step(calls=[ToolCall(name="add_data_refill", arguments={"gigabytes": 10})])
    # a number of one or two digits is cited with the field that names it: a bare "10" says nothing
    assert evidence_for(refill, refills) == 'list_data_refills returned "gigabytes": 10'


def test_calls_made_together_are_cited_by_what_tells_them_apart():
    """'the user gave "#support" and "Reminder: ..."' was the trace of posting to #support and
    #offsite: the first facts a trace names were the first call's, and #offsite went uncited."""
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import evidence_for

    text = "Reminder: the demo moves to Thursday!"
    chat = [{"role": "user", "content": f'Can you put "{text}" in both #support and #offsite?'}]
    both = Step(calls=[ToolCall(name="post_to_channel", arguments={"channel": channel, "text": text})
                       for channel in ("#support", "#offsite")])
    assert evidence_for(both, chat) == f'the user gave "#support", "#offsite" and "{text}"'
    # one call names its own values in the order it takes them
    assert evidence_for(Step(calls=both.calls[:1]), chat) == f'the user gave "#support" and "{text}"'
    # calls to different tools share nothing: each is cited in turn
    chat = [{"role": "user", "content": "Find the file Data Q1 and my events on 2025-03-14."}]
    apart = Step(calls=[ToolCall(name="search_files", arguments={"query": "Data Q1"}),
                        ToolCall(name="list_events", arguments={"date": "2025-03-14"})])
    assert evidence_for(apart, chat) == 'the user gave "Data Q1" and "2025-03-14"'


def test_a_write_whose_reply_states_none_of_its_values_cites_what_it_changed_not_the_records_id():
    """'set_lights returned V0074.' came before "I've switched the headlights off": a write that
    returns the whole car names its id first, which says nothing about what it did."""
    from toolgym.generators.reasoning import last_said

    status = '{"id":"V0074","engine_on":false,"headlights":"auto","hazard_lights":false,"volume":7}'
    after = '{"id":"V0074","engine_on":false,"headlights":"off","hazard_lights":false,"volume":7,"battery_pct":0}'
    chat = [
        {"role": "user", "content": "Can you switch the headlights off?"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_vehicle_status", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": status},
        {"role": "assistant", "tool_calls": [
            {"id": "c2", "function": {"name": "set_lights", "arguments": '{"light":"headlights","mode":"off"}'}}]},
        {"role": "tool", "tool_call_id": "c2", "content": after},
    ]
    reply = "I've switched the headlights off, as you asked."
    writes = frozenset({"set_lights"})
    # the field that differs from the status read (battery_pct, shown only now, is no change)
    assert last_said(chat, None, reply, writes) == 'set_lights returned "headlights":"off"'
    # with no earlier read of the car, the field the call named
    hazards = '{"id":"V0009","headlights":"auto","hazard_lights":true}'
    alone = [chat[0], {"role": "assistant", "tool_calls": [
        {"id": "c3", "function": {"name": "set_lights", "arguments": '{"light":"hazard_lights","mode":"on"}'}}]},
        {"role": "tool", "tool_call_id": "c3", "content": hazards}]
    assert last_said(alone, None, "I've turned the hazard lights on.", writes) == 'set_lights returned "hazard_lights":true'
    # ... or the field whose key the call's words make up (set_trunk, action="open": trunk_open)
    trunk = [chat[0], {"role": "assistant", "tool_calls": [
        {"id": "c4", "function": {"name": "set_trunk", "arguments": '{"action":"open"}'}}]},
        {"role": "tool", "tool_call_id": "c4", "content": '{"id":"V0014","engine_on":false,"trunk_open":true,"volume":7}'}]
    assert last_said(trunk, None, "The trunk is open now.", writes | {"set_trunk"}) == 'set_trunk returned "trunk_open":true'
    # ... its state word aside (cancel_cruise_control names "cruise_on", not the speed beside it)
    cruise = [chat[0], {"role": "assistant", "tool_calls": [{"id": "c5", "function": {"name": "cancel_cruise_control", "arguments": "{}"}}]},
              {"role": "tool", "tool_call_id": "c5", "content": '{"id":"V0256","engine_on":true,"cruise_on":false,"cruise_speed_kmh":0}'}]
    assert last_said(cruise, None, "Cruise control is off now.", writes | {"cancel_cruise_control"}) == (
        'cancel_cruise_control returned "cruise_on":false')
    # a reply that states the write's value still cites that value; a read is never cited by a change
    assert last_said(chat, None, "Your headlights were on auto; now they're off. Car V0074.", writes) == "set_lights returned V0074"
    reads = [*chat[:3]]
    assert "headlights" not in last_said(reads, None, "Your headlights are set to auto.", writes)


def test_a_write_cites_the_field_it_changed_not_one_the_reply_names_it_by():
    """'freeze_card returned "Mastercard"' traced "I've frozen the Mastercard ending in 6671": the
    brand names the card; the status is what the write changed."""
    from toolgym.generators.reasoning import last_said

    card = {"card_id": "K30174", "brand": "Mastercard", "card_number": "****6671", "status": "active", "daily_limit": 2000.0}
    chat = [{"role": "user", "content": "I need the Mastercard ending in 6671 frozen."},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "list_cards", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps([card], separators=(",", ":"))},
            {"role": "assistant", "tool_calls": [{"id": "c2", "function": {"name": "freeze_card", "arguments": '{"card_id": "K30174"}'}}]},
            {"role": "tool", "tool_call_id": "c2", "content": json.dumps({**card, "status": "frozen"}, separators=(",", ":"))}]
    writes = frozenset({"freeze_card"})
    assert last_said(chat, reply="I've frozen the Mastercard ending in 6671.", writes=writes) == 'freeze_card returned "status":"frozen"'
    # a value the write changed, when the reply states it, is cited as before
    limit = [*chat[:3], {"role": "assistant", "tool_calls": [{"id": "c3", "function": {
                 "name": "set_card_daily_limit", "arguments": '{"card_id": "K30174", "daily_limit": 950}'}}]},
             {"role": "tool", "tool_call_id": "c3", "content": json.dumps({**card, "daily_limit": 950.0}, separators=(",", ":"))}]
    assert last_said(limit, reply="The Mastercard's daily limit is now $950.00.",
                     writes=frozenset({"set_card_daily_limit"})) == "set_card_daily_limit returned 950.0"
    # a field the read left out and the write shows (a cancelled transfer's status) is what it did
    pending = {"schedule_id": "S60120", "amount": 150.0, "run_on": "2025-07-13"}
    transfer = [{"role": "user", "content": "Please cancel the $150.00 transfer on 2025-07-13."},
                {"role": "assistant", "tool_calls": [{"id": "c4", "function": {"name": "list_scheduled_transfers", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c4", "content": json.dumps([pending], separators=(",", ":"))},
                {"role": "assistant", "tool_calls": [{"id": "c5", "function": {
                    "name": "cancel_scheduled_transfer", "arguments": '{"schedule_id": "S60120"}'}}]},
                {"role": "tool", "tool_call_id": "c5", "content": json.dumps({**pending, "status": "cancelled"}, separators=(",", ":"))}]
    assert last_said(transfer, reply="I've cancelled the scheduled $150.00 transfer on 2025-07-13.",
                     writes=frozenset({"cancel_scheduled_transfer"})) == 'cancel_scheduled_transfer returned "status":"cancelled"'
    # with no earlier read of the card, nothing tells what stayed: the stated value stands
    assert last_said([chat[0], *chat[3:]], reply="I've frozen the Mastercard ending in 6671.", writes=writes) == 'freeze_card returned "Mastercard"'


def test_a_search_that_found_nothing_names_what_it_looked_for_not_its_zero_total():
    """'search_transactions returned 0.0' traced "I found no transactions at Best Buy since 2025-03-13,
    so the total is $0.00."; a page with no links still shows its text."""
    from toolgym.generators.reasoning import last_said

    chat = [{"role": "user", "content": "What did Best Buy take from my checking account since 2025-03-13?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "search_transactions", "arguments":
                '{"account_id": "A20578", "start_date": "2025-03-13", "merchant": "Best Buy"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"account_id":"A20578","count":0,"total":0.0,"transactions":[]}'}]
    reply = "I found no transactions at Best Buy since 2025-03-13, so the total is $0.00."
    assert last_said(chat, reply=reply, writes=frozenset()) == 'search_transactions found nothing for "Best Buy"'
    page = [chat[0], {"role": "assistant", "tool_calls": [{"id": "c2", "function": {
                "name": "open_page", "arguments": '{"url": "https://atlaspedia.example/wiki/pealol"}'}}]},
            {"role": "tool", "tool_call_id": "c2", "content":
                '{"url":"https://atlaspedia.example/wiki/pealol","text":"Pealol is a harbour town on the north coast. It has 240,366 people.","links":[]}'}]
    assert last_said(page, reply="Pealol has 240,366 people.", writes=frozenset()) == 'open_page returned "240,366"'


def test_a_page_is_cited_by_the_figure_its_text_gives_not_by_the_day_it_was_written():
    """'open_page returned 2023-10-28' traced a reply weighing two pages' head counts: the page's own
    date is when it was written; its text's "31,524" is what it said."""
    from toolgym.generators.result_values import result_value

    page = json.dumps({"url": "https://bizdirectory.example/listing/nioleavath-studios", "date": "2023-10-28",
                       "text": "Updated 28 October 2023. Nioleavath Studios employs 31,524 people across its offices."})
    reply = ("One page, dated 28 October 2023, says 31,524 employees; a newer one gives 36,910, "
             "so the current figure is 36,910.")
    assert result_value(page, reply, frozenset({"https://bizdirectory.example/listing/nioleavath-studios"})) == '"31,524"'
    # a reply that states only the page's date still cites it
    assert result_value(page, "That page was written on 28 October 2023.", frozenset()) == "2023-10-28"


def _reply_traces(domain_name: str, outputs: list[str], results: list[dict], reply: str) -> set[str]:
    """The traces (40 seeds) before `reply`, after the request of a task of the domain whose required
    outputs are `outputs`, then the given call and result messages."""
    import toolgym
    from toolgym.envs.conversation import Move
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain(domain_name)
    task = next(iter(domain.generate_tasks(1, seed=3, kinds=["single"], size="small")))
    task = task.model_copy(update={"required_outputs": outputs})
    chat = [{"role": "user", "content": task.scenario.requests[0]}, *results]
    return {trace(task, Move("reply", utterance=task.replies[0]), domain.phrasebook, seed, chat, reply) for seed in range(40)}


def _called(call_id: str, name: str, arguments: dict, result: object) -> list[dict]:
    """An assistant message calling `name`, and its result."""
    return [{"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]},
            {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}]


def test_a_reply_trace_names_a_value_the_reply_states_in_its_own_form_beside_the_facts_cited():
    """'What matters here is "SW426".' came before "SW426 has the lowest fare; in MXN that's
    17,646.75.": the sum, shown by the tool as 17646.75, was left out of the trace. A value the reply
    does not state (a sent message's id) is not added."""
    results = [*_called("c1", "search_flights", {}, [{"flight_number": "SW426", "price": 1035.0}]),
               *_called("c2", "convert_currency", {"amount": 1035.0}, {"amount": 1035.0, "to_currency": "MXN", "converted": 17646.75})]
    traces = _reply_traces("travel", ["SW426", "17,646.75"], results, "SW426 has the lowest fare, $1,035.00; in MXN that's 17,646.75.")
    assert all('"SW426"' in t and "convert_currency returned 17646.75" in t for t in traces), sorted(traces)[:3]
    # the reply states only the flight: nothing is added beside it
    alone = _reply_traces("travel", ["SW426"], results, "SW426 is the cheapest.")
    assert not [t for t in alone if "returned" in t], sorted(alone)[:3]


def test_a_reply_trace_adds_the_other_result_of_a_step_whose_first_value_is_a_fact_cited():
    """'The reply must carry "Standard 15".' came before "You're on the Standard 15 plan, and your
    latest bill is $203.60": the step read the plan and the bills together, and the bill's amount
    was left out because the plan, already a fact, was named beside it."""
    calls = [{"id": "c1", "type": "function", "function": {"name": "get_line_details", "arguments": '{"line_id": "L1"}'}},
             {"id": "c2", "type": "function", "function": {"name": "list_bills", "arguments": '{"account_id": "A1"}'}}]
    results = [{"role": "assistant", "content": "", "tool_calls": calls},
               {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"line_id": "L1", "plan_name": "Standard 15"})},
               {"role": "tool", "tool_call_id": "c2", "content": json.dumps([{"bill_id": "B1", "amount": 203.6, "status": "open"}])}]
    traces = _reply_traces("telecom", ["Standard 15", "$203.60"], results, "You're on the Standard 15 plan, and your latest bill is $203.60.")
    assert all('"Standard 15"' in t and "list_bills returned 203.6" in t and 'returned "Standard 15"' not in t for t in traces), sorted(traces)[:3]


def test_a_value_that_only_says_the_tools_name_again_is_not_cited():
    """'send_direct_message returned "direct message"' came before "your direct message to Kyle
    Moody is sent": the result's "where" field only says the tool's name again (as "scheduled" does
    for schedule_transfer); the trace names the record the call made instead."""
    sent = {"message_id": "H000961", "where": "direct message", "author": "toni.ballard@brightwell.example",
            "text": "Hey Kyle, the client liked the proposal.", "sent_at": "2025-03-11 04:00"}
    results = _called("c1", "send_direct_message", {"email": "kyle.moody@brightwell.example",
                                                    "text": "Hey Kyle, the client liked the proposal."}, sent)
    traces = _reply_traces("workplace", [], results, "Your direct message to Kyle Moody is sent.")
    assert not [t for t in traces if '"direct message"' in t], sorted(traces)[:3]
    assert any("send_direct_message returned H000961" in t for t in traces), sorted(traces)[:3]


def test_a_write_cites_the_refund_it_added_beside_what_it_changed():
    """'cancel_pending_order returned "status":"cancelled"' traced "I cancelled order #W9745473, and the
    refund of $373.41 goes back to your Discover": the refund the write added shows the amount again,
    and the order's unchanged total was all that stood for it."""
    from toolgym.generators.reasoning import last_said

    order = {"id": "#W9745473", "status": "pending", "total": 373.41, "payment_method_id": "credit_card_6079302"}
    done = {**order, "status": "cancelled", "refund": {"amount": 373.41, "payment_method_id": "credit_card_6079302"}}
    chat = [{"role": "user", "content": "Please cancel order #W9745473, I no longer need it."},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_order_details", "arguments": '{"order_id": "#W9745473"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(order, separators=(",", ":"))},
            {"role": "assistant", "tool_calls": [{"id": "c2", "function": {"name": "cancel_pending_order", "arguments": '{"order_id": "#W9745473"}'}}]},
            {"role": "tool", "tool_call_id": "c2", "content": json.dumps(done, separators=(",", ":"))}]
    writes = frozenset({"cancel_pending_order"})
    said = "I cancelled order #W9745473, and the refund of $373.41 goes back to your Discover ending in 3483."
    assert last_said(chat, reply=said, writes=writes) == 'cancel_pending_order returned "status":"cancelled" and "amount":373.41'
    # a reply that states the refund alone cites it alone
    assert last_said(chat, reply="$373.41 goes back to your Discover.", writes=writes) == 'cancel_pending_order returned "amount":373.41'
