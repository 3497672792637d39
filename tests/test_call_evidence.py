"""Where a call trace says its argument values came from (generators/reasoning.evidence_for): the
user or the result that showed each, as it showed it, and how many values a trace names."""

from __future__ import annotations

import json

from toolgym.envs.task import Step, ToolCall
from toolgym.generators.reasoning import evidence_for, last_said


def test_a_step_of_three_calls_cites_a_value_for_each():
    """'the user gave "Rego Scanner" and "Raimio Watch"' came before three web searches: the third
    search's name was left out by the two-fact limit. A step of several calls names one value of each."""

    names = ["Rego Scanner", "Raimio Watch", "Tehaibior Speaker"]
    step = Step(calls=[ToolCall(name="web_search", arguments={"query": name}) for name in names])
    messages = [{"role": "user", "content": "Who makes the Rego Scanner, the Raimio Watch and the Tehaibior Speaker?"}]
    assert evidence_for(step, messages) == 'the user gave "Rego Scanner", "Raimio Watch" and "Tehaibior Speaker"'
    # one call names every value of its usual arguments: a hotel search's two dates, an address's parts
    single = Step(calls=[ToolCall(name="find_customer", arguments={"first": "Rego", "last": "Scanner", "zip": "Raimio",
                                                                   "city": "Tehaibior"})])
    assert evidence_for(single, messages) == 'the user gave "Rego", "Scanner", "Raimio" and "Tehaibior"'


def test_a_trace_that_names_only_some_values_says_there_are_others():
    """'the user gave "Frankfurt", "Hong Kong" and "March 3"' explained a hotel search that also took
    "March 7", the check-out date: the trace named three values and read as if they were all. It names
    up to six now, and past those says the list goes on."""

    words = ["Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Ginkgo"]
    messages = [{"role": "user", "content": f"Plant {', '.join(words)} along the path."}]
    all_named = Step(calls=[ToolCall(name="plant", arguments={f"tree_{i}": word for i, word in enumerate(words[:6])})])
    assert evidence_for(all_named, messages) == 'the user gave "Alder", "Birch", "Cedar", "Dogwood", "Elm" and "Fir"'
    one_more = Step(calls=[ToolCall(name="plant", arguments={f"tree_{i}": word for i, word in enumerate(words)})])
    assert evidence_for(one_more, messages) == 'the user gave "Alder", "Birch", "Cedar", "Dogwood", "Elm" and "Fir", among others'
    # a value past the cap that nobody showed, or one named already, adds nothing to say
    unseen = Step(calls=[ToolCall(name="plant", arguments={**all_named.calls[0].arguments, "tree_6": "Hazel", "tree_7": "Alder"})])
    assert evidence_for(unseen, messages) == 'the user gave "Alder", "Birch", "Cedar", "Dogwood", "Elm" and "Fir"'


def test_the_items_of_a_list_argument_are_cited_where_they_were_seen():
    """'list_customer_orders returned "#W9785558", and list_payment_methods returned "paypal_1073906"'
    came before returning item IT1002008 of that order: a list argument (item ids, colleagues'
    emails) was never cited, though get_order_details had shown each item."""

    order = {"id": "#W9785558", "items": [{"id": "IT1002008", "name": "LED Desk Lamp"}, {"id": "IT1002009", "name": "Mug"}]}
    chat = [{"role": "user", "content": "Please return the lamp and the mug from order #W9785558."},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
             "function": {"name": "get_order_details", "arguments": '{"order_id": "#W9785558"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(order)}]
    step = Step(calls=[ToolCall(name="return_delivered_order_items",
                                arguments={"order_id": "#W9785558", "item_ids": ["IT1002008", "IT1002009"]})])
    assert evidence_for(step, chat) == 'the user gave "#W9785558", and get_order_details returned "IT1002008" and "IT1002009"'


def test_a_figure_the_user_wrote_as_money_is_cited_as_theirs():
    """'list_loans returned "L80036" and "500.0"' explained a $500.00 loan payment the user asked
    for: the loan's monthly payment happened to be 500.0, and the user's "$500.00" was not read as
    500 at all ("$1,085.00" neither), so an amount the user gave was never cited."""

    def chat(request: str, loan: dict) -> list[dict]:
        return [{"role": "user", "content": request},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "list_loans", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": json.dumps([loan])}]

    loan = {"loan_id": "L80036", "balance": 15205.61, "monthly_payment": 500.0}
    step = Step(calls=[ToolCall(name="make_loan_payment", arguments={"loan_id": "L80036", "amount": 500.0})])
    cited = evidence_for(step, chat("Please pay $500.00 toward my Home Improvement Loan.", loan))
    assert cited == 'list_loans returned "L80036", and the user gave "$500.00"', cited
    larger = Step(calls=[ToolCall(name="make_loan_payment", arguments={"loan_id": "L80036", "amount": 1085.0})])
    assert 'the user gave "$1,085.00"' in evidence_for(larger, chat("I'd like to pay $1,085.00 on my loan.", loan))
    # a time or a date holds no figure of its own: 30 is not in "10:30", nor 12 in "2025-03-12"
    late = Step(calls=[ToolCall(name="make_loan_payment", arguments={"loan_id": "L80036", "amount": 30.0, "day": 12})])
    assert "the user gave" not in evidence_for(late, chat("Pay it at 10:30 on 2025-03-12.", loan))


def test_a_value_put_together_from_seen_numbers_cites_where_each_was_seen():

    messages = [
        {"role": "user", "content": "What was the combined attendance of the two forums?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "function": {"name": "open_page", "arguments": {"url": "https://x.example/a"}}},
            {"id": "b", "function": {"name": "open_page", "arguments": {"url": "https://x.example/b"}}},
        ]},
        {"role": "tool", "tool_call_id": "a", "content": '{"date": "2023-02-26", "text": "It drew 86,923 visitors."}'},
        {"role": "tool", "tool_call_id": "b", "content": '{"date": "2023-09-17", "text": "It drew 52,093 visitors."}'},
    ]
    step = Step(calls=[ToolCall(name="calculate", arguments={"expression": "86,923 + 52,093"})])
    assert evidence_for(step, messages) == 'open_page returned "86,923" and "52,093"'
    # values one source showed are named under it once; each source keeps its own clause
    found = [{"role": "user", "content": "I'm Tara Williams, order #W2629560."}, *messages]
    named = Step(calls=[ToolCall(name="find", arguments={"first_name": "Tara", "last_name": "Williams"})])
    assert evidence_for(named, found) == 'the user gave "Tara" and "Williams"'
    mixed = Step(calls=[ToolCall(name="calculate", arguments={"order": "#W2629560", "expression": "86,923 + 1"})])
    assert evidence_for(mixed, found) == 'the user gave "#W2629560", and open_page returned "86,923"'
    # a fault shown by a fragment of a result's JSON is cited with its own quotes, not doubled ones
    line = [{"role": "assistant", "tool_calls": [{"id": "l", "function": {"name": "get_line_details"}}]},
            {"role": "tool", "tool_call_id": "l", "content": '{"line_id":"L1","data_remaining_gb":0.0}'}]
    fix = Step(calls=[ToolCall(name="add_data_refill", arguments={"line_id": "L1"})], evidence=['"data_remaining_gb":0.0'])
    assert evidence_for(fix, line) == 'get_line_details showed "data_remaining_gb":0.0'
    # the setting a fix chooses is no value anyone gave, though a word of the report matches it
    report = [{"role": "user", "content": "Airplane mode is on, data saver is off."}]
    toggle = Step(calls=[ToolCall(name="toggle_airplane_mode", arguments={"state": "off"})], evidence=["airplane mode is on"])
    assert evidence_for(toggle, report) == 'the user reported "airplane mode is on"'
    refill = Step(calls=[ToolCall(name="add_data_refill", arguments={"line_id": "L10618"})], evidence=['"data_remaining_gb":0.0'])
    assert evidence_for(refill, [{"role": "user", "content": "My line is L10618."}, *line]) == (
        'get_line_details showed "data_remaining_gb":0.0, and the user gave "L10618"'
    )
    # a value no text showed, whole or in numbers, is cited nowhere (the pages' dates are no evidence)
    unseen = Step(calls=[ToolCall(name="open_page", arguments={"url": "https://x.example/c"})])
    assert evidence_for(unseen, messages) == ""
    # a date the user gave in words is no sum: its parts ("03", "2023") are never cited
    dated = Step(calls=[ToolCall(name="search_hotels", arguments={"check_in": "2023-09-26"})])
    assert evidence_for(dated, messages) == ""
    # a date seen in words is cited as it was written (not the page's own date, cited for want of it)
    opened = {"role": "assistant", "content": None,
              "tool_calls": [{"id": "p", "function": {"name": "open_page", "arguments": {"url": "https://x.example/p"}}}]}
    pages = [opened, {"role": "tool", "tool_call_id": "p", "content": '{"date": "2021-10-09", "text": "It went on sale on 8 November 2016."}'}]
    launch = Step(calls=[ToolCall(name="days_between", arguments={"start": "2016-11-08", "end": "2016-11-09"})])
    assert evidence_for(launch, pages) == 'open_page returned "8 November 2016"'
    asked = [{"role": "user", "content": "A hotel in Denver for February 19 to February 23, please."}]
    stay = Step(calls=[ToolCall(name="search_hotels", arguments={"check_in": "2026-02-19", "check_out": "2026-02-23"})])
    assert evidence_for(stay, asked) == 'the user gave "February 19" and "February 23"'
    # a date with a time is no plain date: nothing is spelled out for it (nor raised)
    meeting = Step(calls=[ToolCall(name="create_event", arguments={"start": "2025-03-12 15:00"})])
    assert evidence_for(meeting, asked) == ""


def test_a_number_is_cited_where_it_was_said_as_a_number_and_a_word_where_it_was_a_word():
    """'the user asked "…"' explained convert_units(value=63) after the user said "63 Fahrenheit";
    'convert_units returned 63.0' (its own input) explained set_climate(17.0) after the result 17.2;
    'set_charge_limit returned "charger"' cited a word inside a field's name."""

    messages = [
        {"role": "user", "content": "My preferred temperature is 63 Fahrenheit."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "function": {"name": "convert_units", "arguments": '{"value": 63, "from_unit": "F", "to_unit": "C"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"value": 63.0, "from_unit": "F", "to_unit": "C", "result": 17.2}'},
    ]
    convert = Step(calls=[ToolCall(name="convert_units", arguments={"value": 63, "from_unit": "F", "to_unit": "C"})])
    assert evidence_for(convert, messages[:1]) == 'the user gave "63"'
    assert last_said(messages) == "convert_units returned 17.2"
    # a number of two digits inside another ("163", "6.3") or only in a result's text is nobody's
    assert evidence_for(convert, [{"role": "user", "content": "I'm at 163 Main St, it's 6.3 miles."}]) == ""
    status = [
        {"role": "user", "content": "Where's the nearest charger?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "s", "function": {"name": "get_vehicle_status", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "s", "content": '{"charger_connected": false, "range_km": 88, "odometer_km": 1880}'},
    ]
    assert evidence_for(Step(calls=[ToolCall(name="find_nearest", arguments={"category": "charger"})]), status) == 'the user gave "charger"'
    range_miles = Step(calls=[ToolCall(name="convert_units", arguments={"value": 88.0, "from_unit": "km", "to_unit": "miles"})])
    assert evidence_for(range_miles, status) == 'get_vehicle_status returned "88"'


def test_an_argument_worked_out_is_said_with_how():
    """'Known so far: the user gave "passenger". The tool that fits is set_climate' came before
    set_climate(temperature_c=19.0) for "66 °F": the 19.0 came from convert_units' 18.9, rounded,
    and the trace never said so. A step's `derived` notes are said with the values they explain."""
    from toolgym.generators.worked_out import worked_out

    rounded = "the convert_units result rounded to the nearest 0.5 °C, the car's step"
    step = Step(calls=[ToolCall(name="set_climate", arguments={"zone": "passenger", "temperature_c": 19.0})],
                derived={"temperature_c": rounded})
    assert worked_out(step) == ("temperature_c=19.0", rounded)
    units = "the units the policy sets"
    both = Step(calls=[ToolCall(name="convert_units", arguments={"value": 896, "from_unit": "km", "to_unit": "miles"})],
                derived={"from_unit": units, "to_unit": units})
    assert worked_out(both) == ('from_unit="km" and to_unit="miles"', units)
    driver = Step(calls=[ToolCall(name="set_climate", arguments={"zone": "driver", "temperature_c": 20.0})],
                  derived={"zone": "the driver's zone", "temperature_c": "one step up"})
    assert worked_out(driver) == ('zone="driver" and temperature_c=20.0', "the driver's zone (zone); one step up (temperature_c)")
    assert worked_out(Step(calls=[ToolCall(name="get_climate")])) == ("", "")


def test_a_converted_setting_trace_says_where_its_value_came_from():
    from toolgym.envs.registry import load_domain

    from .conftest import played_with_reasoning

    domain = load_domain("vehicle")
    tasks = [t for t in domain.generate_tasks(60, seed=2, kinds=["single"])
             if any(s.derived.get("temperature_c", "").startswith("the convert_units result") for s in t.plan)]
    assert tasks
    for _, trajectory in played_with_reasoning(domain, tasks):
        setting = next(m for m in trajectory.messages
                       if any(c["function"]["name"] == "set_climate" for c in m.get("tool_calls") or ()))
        arguments = setting["tool_calls"][0]["function"]["arguments"]
        value = (json.loads(arguments) if isinstance(arguments, str) else arguments)["temperature_c"]
        assert f"temperature_c={json.dumps(value)}" in setting["reasoning_content"], setting
        assert "convert_units result rounded to the nearest 0.5 °C" in setting["reasoning_content"], setting


def test_a_search_for_a_named_place_says_which_kind_its_name_makes_it():
    """'Seen so far: the user asked "Directions to Haley Business Park, please.". The next fact I need
    comes from search_places' left category="office" unexplained: it comes from the name's ending."""
    from toolgym.envs.registry import load_domain

    from .conftest import played_with_reasoning

    domain = load_domain("vehicle")
    tasks = [t for t in domain.generate_tasks(60, seed=5, kinds=["multi_step"])
             if any(s.derived.get("category") for s in t.plan)][:4]
    assert tasks
    for task, trajectory in played_with_reasoning(domain, tasks):
        search = next(m for m in trajectory.messages if any(c["function"]["name"] == "search_places" for c in m.get("tool_calls") or ()))
        category = next(c.arguments["category"] for s in task.plan for c in s.calls if c.name == "search_places" and s.derived)
        assert f'category="{category}"' in search["reasoning_content"] and "going by its name" in search["reasoning_content"], search


def test_search_words_the_agent_picks_are_said_to_be_picked_and_the_users_are_cited():
    """'What I have: web_search returned "https://.../drobusstad-games-summit". The two find_in_page
    calls don't depend on each other' left text="organised by" unexplained; words the user said
    ("list price") are theirs, cited as such, not worked out."""
    from toolgym.generators.worked_out import worked_out

    picked = "the words the sentence I need would use"
    url = "https://atlaspedia.example/wiki/mahiond-camera"
    step = Step(calls=[ToolCall(name="find_in_page", arguments={"url": url, "text": "list price"})], derived={"text": picked})
    asked = [{"role": "user", "content": f"According to {url}: What is the list price of the Mahiond Camera?"}]
    cited = evidence_for(step, asked)
    assert cited == f'the user gave "{url}" and "list price"' and worked_out(step, cited) == ("", "")
    other = [{"role": "user", "content": f"According to {url}: What does the Mahiond Camera cost?"}]
    cited = evidence_for(step, other)
    assert cited == f'the user gave "{url}"' and worked_out(step, cited) == ('text="list price"', picked)


def test_every_research_find_in_page_step_says_how_its_words_were_picked():
    from toolgym.envs.registry import load_domain

    domain = load_domain("research")
    steps = [s for t in domain.generate_tasks(60, seed=4, kinds=["single", "parallel", "multi_step"]) for s in t.plan
             if any(c.name == "find_in_page" for c in s.calls)]
    assert steps and all("the words the sentence I need would use" in s.derived.get("text", "") for s in steps)


def test_a_value_the_user_said_is_theirs_though_a_result_shows_it_later():
    """'Noted: send_email returned "2025-03-11"' explained a task due on the day the user named
    ("March 11"): the sent mail's date only happened to be the same day."""

    step = Step(calls=[ToolCall(name="update_task", arguments={"title": "Platform prep", "due": "2025-03-11"})])
    messages = [
        {"role": "user", "content": "Move Platform prep to Tuesday, March 11."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "send_email", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"subject": "Platform prep", "sent_at": "2025-03-11 09:00"})},
    ]
    assert evidence_for(step, messages) == 'the user gave "Platform prep" and "March 11"'
