"""The oracle's reasoning traces cite what they rest on and say what they decide, in varied words."""

from __future__ import annotations

import re

import toolgym
from tests.conftest import played_with_reasoning
from toolgym.envs.phrasing import about_the_user


def test_a_call_trace_names_the_tool_and_where_its_arguments_came_from(toy_domain):
    tasks = toy_domain.generate_tasks(40, seed=0, kinds=["single", "multi_turn", "no_tool/irrelevant"], size="small")
    traces, cited = [], 0
    for task, trajectory in played_with_reasoning(toy_domain, tasks):
        assert trajectory.verification.passed
        messages = trajectory.messages
        for index, message in enumerate(messages):
            if message.get("role") != "assistant":
                continue
            trace = message["reasoning_content"]
            traces.append(trace)
            for call in message.get("tool_calls") or ():
                name = call["function"]["name"]
                assert name in trace, trace
                for value in call["function"]["arguments"].values():
                    seen = any(str(value) in (m.get("content") or "") for m in messages[:index] if m.get("role") == "user")
                    if seen and isinstance(value, str) and len(value) >= 3:
                        # quoted, as said, under the one clause naming what the user gave
                        assert "the user gave" in trace.lower() and f'"{value.lower()}"' in trace.lower(), trace
                        cited += 1
            assert trace.lower().count("the user gave") <= 1, trace  # values the user gave are named together
            if task.kind == "no_tool/irrelevant" and not message.get("tool_calls"):
                assert about_the_user(toy_domain.scope) in trace or "no call" in trace.lower() or "without one" in trace, trace
    assert cited > 10
    assert len(set(traces)) >= 0.5 * len(traces)


def test_an_ask_trace_names_the_one_tool_that_takes_what_it_asks_for():
    """A parallel step asked for names one tool, with its own purpose, and that tool takes the fact
    asked for: "To check for outages in a region I'd call check_outages", never list_payments beside
    it, nor two tools run into the first one's purpose ("... list_payments and check_outages")."""
    import toolgym
    from toolgym.envs.conversation import oracle_moves

    domain = toolgym.load_domain("telecom")
    tasks = domain.generate_tasks(80, seed=3, kinds=["parallel"], size="small")
    asked = taking = 0
    for task, trajectory in played_with_reasoning(domain, tasks):
        for move, message in zip(oracle_moves(task), (m for m in trajectory.messages if m["role"] == "assistant"), strict=False):
            calls = move.step.calls if move.kind == "ask" and move.step and move.step.choice is None else []
            if len({c.name for c in calls}) < 2:
                continue
            asked += 1
            trace = message["reasoning_content"]
            named = [c for c in calls if c.name in trace]
            assert len({c.name for c in named}) <= 1, trace  # some wordings name no tool at all
            takes = [c for c in calls if any(f.key in c.arguments or f.value in map(str, c.arguments.values()) for f in move.facts)]
            if named and takes:
                taking += 1
                assert named[0].name in {c.name for c in takes}, trace
    assert asked >= 5 and taking >= 3


def test_an_ask_for_what_picks_the_answer_names_no_tool_as_taking_it():
    """'get_product_details needs it' explained an ask for the option the user wants: no call takes
    the option, it picks which of the product's variants the answer reports. The trace names no tool
    for it, says the answer depends on it, and that a guess would make the answer wrong."""
    from toolgym.envs.conversation import Move
    from toolgym.envs.task import Fact, Step, ToolCall
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("retail")
    task = next(iter(domain.generate_tasks(1, seed=3, kinds=["single"], size="small")))
    option = Fact(key="wanted_option", value="white, wired", label="preferred option", keywords=["preferred option"])
    step = Step(calls=[ToolCall(name="get_product_details", arguments={"product_id": "P1023"})], needs=[option.key])
    chat = [{"role": "user", "content": "Is the Wireless Gaming Mouse, product P1023, available in the option I'd like?"}]
    traces = {trace(task, Move("ask", step=step, facts=(option,)), domain.phrasebook, seed, chat, "") for seed in range(60)}
    assert not [t for t in traces if "get_product_details" in t], sorted(traces)[:3]
    assert any("depends on it" in t for t in traces) and any("wrong" in t for t in traces), sorted(traces)[:3]
    assert not [t for t in traces if "records" in t or "words in the user's mouth" in t], sorted(traces)[:3]


def test_a_refusals_trace_speaks_of_the_user_not_to_them():
    """The withheld action and the policy's rule are written to the user ('cancel your order', 'not
    yours'); the trace says them about the user ('cancel the user's order', 'not the user's')."""

    import toolgym

    said_to = re.compile(r"\byou(?:r|rs)?\b", re.IGNORECASE)
    traces = 0
    for name in ("retail", "travel", "workplace"):
        domain = toolgym.load_domain(name)
        tasks = domain.generate_tasks(24, seed=2, kinds=["no_tool/policy_refusal", "no_tool/unavailable", "no_tool/irrelevant"], size="small")
        for _, trajectory in played_with_reasoning(domain, tasks):
            for message in trajectory.messages:
                if message.get("role") == "assistant" and message.get("reasoning_content"):
                    unquoted = re.sub(r'"[^"]*"', '""', message["reasoning_content"])  # the user's own words may say "you"
                    assert not said_to.search(unquoted), message["reasoning_content"]
                    traces += 1
    assert traces > 50


def test_an_output_the_request_names_is_not_reported_as_found():
    import toolgym
    from toolgym.generators.reasoning import close_trace

    domain = toolgym.load_domain("research")
    task = domain.generate_tasks(1, seed=1, kinds=["single"], size="small")[0]
    request = "How high above sea level is Babrolwick?"
    task = task.model_copy(update={"required_outputs": ["Babrolwick"],
                                   "scenario": task.scenario.model_copy(update={"requests": [request]})})
    chat = [{"role": "user", "content": request},
            {"role": "tool", "tool_call_id": "a", "content": '{"url": "https://atlaspedia.example/wiki/babrolwick", "matches": []}'},
            {"role": "user", "content": "Never mind, thanks."}]
    traces = [close_trace(task, domain.phrasebook, seed, chat) for seed in range(40)]
    # the town is quoted only inside the user's question, never as a fact the reply brought
    assert all(t.count("Babrolwick") == t.count(request) for t in traces), traces
    assert any(request in t for t in traces)


def test_a_result_that_repeats_its_calls_argument_is_not_where_the_value_was_seen():
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import evidence_for

    messages = [
        {"role": "user", "content": "My city's name is Brotriofath Falls."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "s1", "function": {"name": "web_search", "arguments": '{"query": "Brotriofath Falls"}'}}]},
        {"role": "tool", "tool_call_id": "s1", "content": '{"query": "Brotriofath Falls", "page": 1, "results": []}'},
    ]
    again = Step(calls=[ToolCall(name="web_search", arguments={"query": "Brotriofath Falls", "page": 2})])
    assert evidence_for(again, messages) == 'the user gave "Brotriofath Falls"'
    # a result that shows the value among what it found (not as its own input) is still the source
    listed = [*messages[:2], {"role": "tool", "tool_call_id": "s1", "content": '{"query": "Brotriofath Falls", '
                              '"results": [{"url": "https://atlaspedia.example/wiki/brotriofath-falls"}]}'}]
    opened = Step(calls=[ToolCall(name="open_page", arguments={"url": "https://atlaspedia.example/wiki/brotriofath-falls"})])
    assert evidence_for(opened, listed) == 'web_search returned "https://atlaspedia.example/wiki/brotriofath-falls"'
    # a word that is only part of the search's own query was asked for, not found
    asked = [{"role": "user", "content": "What is the elevation of Biolin Ridge?"},
             {"role": "assistant", "content": None, "tool_calls": [
                 {"id": "s2", "function": {"name": "web_search", "arguments": '{"query": "Biolin Ridge elevation"}'}}]},
             {"role": "tool", "tool_call_id": "s2",
              "content": '{"query": "Biolin Ridge elevation", "results": [{"url": "https://atlaspedia.example/wiki/biolin-ridge"}]}'}]
    find = Step(calls=[ToolCall(name="find_in_page", arguments={"url": "https://atlaspedia.example/wiki/biolin-ridge", "text": "elevation"})])
    assert evidence_for(find, asked) == (
        'web_search returned "https://atlaspedia.example/wiki/biolin-ridge", and the user gave "elevation"'
    )


def test_a_tool_called_more_than_once_in_a_step_is_named_once_with_its_count():
    from toolgym.generators.reasoning import named_calls

    assert named_calls(["get_booking", "get_booking"]) == ["the two get_booking calls"]
    assert named_calls(["web_search", "open_page", "web_search"]) == ["the two web_search calls", "open_page"]
    assert named_calls(["freeze_card", "list_cards"]) == ["freeze_card", "list_cards"]


def test_the_reply_to_a_declined_change_reasons_that_nothing_is_done_not_that_an_outcome_is_reported():
    import toolgym
    from toolgym.envs.conversation import Move
    from toolgym.envs.structures import LEFT_AS_IS
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("telecom")
    task = next(t for t in domain.generate_tasks(40, seed=4, kinds=["multi_turn"], size="small")
                if any(s.declined for s in t.plan))
    chat = [{"role": "user", "content": task.scenario.requests[0]},
            {"role": "assistant", "content": "Shall I go ahead (yes/no)?"},
            {"role": "user", "content": "No thanks, I'd rather not."}]
    traces = [trace(task, Move("reply", utterance=LEFT_AS_IS), domain.phrasebook, seed, chat) for seed in range(40)]
    assert not any(word in t for t in traces for word in ("report the facts", "report the outcome", "exactly as shown"))
    assert all(("no" in t.lower() or "declin" in t or "turned" in t) for t in traces)


def test_a_domains_own_reply_to_a_declined_change_reasons_that_nothing_is_done():
    """Vehicle says "I've left the engine running." in its own words (reply_stop_declined): its trace
    said 'I tell the user, stating only what I've seen.' as if an outcome were reported."""
    from toolgym.envs.conversation import oracle_moves
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("vehicle")
    task = next(t for t in domain.generate_tasks(300, seed=5, size="small")
                if any(s.declined for s in t.plan) and not any(r.intent == "reply_left_as_is" for r in t.replies))
    move = next(m for m in oracle_moves(task) if m.kind == "reply" and m.utterance is not None and "declined" in m.utterance.intent)
    chat = [{"role": "user", "content": task.scenario.requests[0]},
            {"role": "assistant", "content": "Shall I go ahead (yes/no)?"},
            {"role": "user", "content": "No thanks, I'd rather not."}]
    traces = [trace(task, move, domain.phrasebook, seed, chat) for seed in range(40)]
    assert not [t for t in traces if "stating only what I've seen" in t or "report" in t and "outcome" in t]
    assert all(("no" in t.lower() or "declin" in t or "turned" in t) for t in traces), traces[:3]


def test_a_call_with_no_arguments_is_not_said_to_take_them_from_the_chat():
    """'The arguments are exactly what was seen.' was said before list_accounts({})."""
    import toolgym
    from toolgym.envs.conversation import Move
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("banking")
    task = next(iter(domain.generate_tasks(1, seed=3, kinds=["single"], size="small")))
    chat = [{"role": "user", "content": task.scenario.requests[0]}]
    bare = Move("call", step=Step(calls=[ToolCall(name="list_accounts", arguments={})]))
    traces = {trace(task, bare, domain.phrasebook, seed, chat) for seed in range(300)}
    assert not [t for t in traces if "argument comes from the chat" in t or "arguments are exactly" in t]
    assert any("No arguments are needed" in t or "no values from the chat" in t for t in traces)
    given = Move("call", step=Step(calls=[ToolCall(name="search_transactions", arguments={"account_id": "A20871"})]))
    # said only where the trace shows where they came from: not for an id nobody showed, nor for a
    # value in the tool's own words ('every argument comes from the chat' before status="open")
    unseen = {trace(task, given, domain.phrasebook, seed, chat) for seed in range(300)}
    assert not [t for t in unseen if "argument comes from the chat" in t or "arguments are exactly" in t or "No arguments" in t]
    shown = [*chat, {"role": "tool", "content": '[{"account_id": "A20871", "kind": "checking"}]'}]
    assert any("arguments are exactly" in trace(task, given, domain.phrasebook, seed, shown) for seed in range(300))


def test_a_step_that_computes_an_argument_is_not_said_to_take_it_as_seen():
    """'get_climate returned "driver". ... The arguments are exactly what was seen.' before
    set_climate(temperature_c=19.0), a degree below the 20.0 read: a computed argument (Step.derived)
    was seen nowhere, though the zone beside it was."""
    import toolgym
    from toolgym.envs.conversation import Move
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("vehicle")
    task = next(iter(domain.generate_tasks(1, seed=3, kinds=["single"], size="small")))
    chat = [{"role": "user", "content": "I'm roasting, cool me down a bit."},
            {"role": "tool", "content": '{"zones":[{"zone":"driver","temperature_c":20.0,"seat_heat":0}]}'}]
    setting = ToolCall(name="set_climate", arguments={"zone": "driver", "temperature_c": 19.0})
    derived = Move("call", step=Step(calls=[setting], derived={"temperature_c": "one step below the zone's temperature"}))
    traces = {trace(task, derived, domain.phrasebook, seed, chat) for seed in range(300)}
    assert all('"driver"' in t for t in traces), sorted(traces)[:3]
    assert not [t for t in traces if "argument comes from the chat" in t or "arguments are exactly" in t]
    # the same step with the value as read is said to take it as seen
    seen = Move("call", step=Step(calls=[ToolCall(name="set_climate", arguments={"zone": "driver", "temperature_c": 20.0})]))
    assert any("arguments are exactly" in trace(task, seen, domain.phrasebook, seed, chat) for seed in range(300))


def test_a_call_with_no_arguments_quotes_the_request_it_serves_not_the_id_before_it():
    """'Noted: set_charge_limit returned V0011.' explained get_vehicle_status({}), which answers the
    range question; and of two requests the one the tool speaks of is quoted ('serviced' is the
    service log's word)."""
    from toolgym.envs.conversation import Move
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("vehicle")
    task = next(iter(domain.generate_tasks(1, seed=3, kinds=["single"], size="small")))
    task = task.model_copy(update={"scenario": task.scenario.model_copy(update={"requests": [
        "Could you set the climate for the back left? Thanks. Next: When was the car last serviced?"]})})
    chat = [
        {"role": "user", "content": task.scenario.requests[0]},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "set_climate", "arguments": '{"zone": "rear_left", "temperature_c": 25}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"id": "V0172-rear_left", "zone": "rear_left", "temperature_c": 25.0}'},
    ]
    log = Move("call", step=Step(calls=[ToolCall(name="read_service_log", arguments={})]))
    traces = [trace(task, log, domain.phrasebook, seed, chat) for seed in range(20)]
    assert all('the user asked "Next: When was the car last serviced?"' in t
               or 'the user asked "When was the car last serviced?"' in t for t in traces), traces[:3]
    assert not [t for t in traces if "V0172" in t]
    # an argument in the tool's own words, which nobody said, cites no id either
    search = Move("call", step=Step(calls=[ToolCall(name="search_places", arguments={"category": "airport"})]))
    traces = [trace(task, search, domain.phrasebook, seed, chat) for seed in range(20)]
    assert all("the user asked" in t and "V0172" not in t for t in traces), traces[:3]


def test_a_choice_before_reads_only_does_not_speak_of_changing_records():
    import toolgym

    book = toolgym.load_domain("research").phrasebook
    values = {"label": "event", "count": 2, "options": ["A", "B"], "purpose": "open a web page"}
    reads = {book.say("reason_ask_which", seed, changes=False, **values) for seed in range(200)}
    assert not [t for t in reads if "change a record" in t]
    assert any("change a record" in book.say("reason_ask_which", seed, changes=True, **values) for seed in range(200))


def test_a_reply_trace_quotes_only_outputs_the_reply_states():
    """'I'll quote "29 August 1997" exactly.' came before 'Robert Tucker was born on 12 February
    1992.': the later request's output (Jennifer's birth date) was in the first search's snippet."""
    from toolgym.generators.oracle import OracleTeacher

    domain = toolgym.load_domain("research")
    checked = 0
    for task in domain.generate_tasks(60, seed=23, kinds=["multi_turn"], size="small"):
        chat = toolgym.rollout_sync(toolgym.make("research"), OracleTeacher(reasoning=True), toolgym.ScriptedUser(), task)
        for message in chat.messages:
            thought, said = message.get("reasoning_content") or "", message.get("content") or ""
            if message["role"] == "assistant" and said and not message.get("tool_calls") and "quote" in thought:
                quoted = re.findall(r'"([^"]+)"', thought.split("quote", 1)[1].split(".", 1)[0])
                assert all(q in said for q in quoted), (thought, said)
                checked += 1
    assert checked >= 5


def test_a_missing_fact_trace_says_the_reply_asks_and_never_that_the_user_lacks_it():
    """The reply to a missing fact asks for it, and whether the user has it is not known until they
    answer: 'I explain why' and 'the user doesn't have it' were said before 'What's the date?'."""
    phrases = toolgym.load_domain("workplace").phrasebook
    said = {phrases.say("reason_no_call", seed, kind="missing_info", labels=["date"], scope="work", rule="", problem="",
                        action="", value="", request='"Set up a meeting."') for seed in range(400)}
    assert len(said) > 20
    assert not [t for t in said if "explain why" in t or "doesn't have" in t or "say so plainly" in t]
    assert any("ask for it" in t for t in said)
    refusal = {phrases.say("reason_no_call", seed, kind="policy_refusal", labels=["details"], scope="work", rule="it is not yours",
                           problem="", action="", value="", request='"Cancel it."') for seed in range(400)}
    assert any("explain why" in t for t in refusal)


def test_a_step_of_a_message_asking_two_things_in_turn_quotes_the_thing_it_serves():
    """"Can you send a payment to Amy Orozco ...? Then, a second thing: Could you block my Visa ending
    in 1361?": the card list read for the block quotes the block, not the payment, though both ask."""
    from toolgym.generators.request_quote import RequestCues

    banking = toolgym.load_domain("banking")
    tasks = [t for t in banking.generate_tasks(80, seed=21, kinds=["multi_step"], size="small")
             if any(s.part for s in t.plan)]
    checked = 0
    for task, trajectory in played_with_reasoning(banking, tasks):
        cues = RequestCues.of(task, banking.phrasebook)
        request, steps = task.scenario.requests[0], [s for s in task.plan if not s.declined]
        for message in trajectory.messages:
            calls = [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or ()]
            if not calls:
                continue
            step = steps.pop(0)  # the gold makes the plan's calls in order
            assert [(c.name, c.arguments) for c in step.calls] == calls
            quoted = re.search(r'asked "(.+?)(?: …)?"', message.get("reasoning_content") or "")  # a quote ending a sentence takes no second stop
            if quoted is None or step.part is None:
                continue
            checked += 1
            # a trace quotes the user's double marks as single ones
            assert quoted.group(1) in cues.part_of(request, step.part).replace('"', "'"), (request, step.part, quoted.group(0))
    assert checked >= 20, checked


def test_a_write_is_reasoned_as_a_change_made_after_the_users_yes_never_as_a_fact_fetched():
    """'The next fact I need comes from select_seat' was the trace of a seat change the user had just
    agreed to: a write fetches no fact, and the trace said nothing of the yes it rests on."""
    from toolgym.envs.conversation import Move
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("travel")
    task = next(t for t in domain.generate_tasks(60, seed=3, kinds=["single"], size="small")
                if any(s.confirm and not s.declined for s in t.plan))
    step = next(s for s in task.plan if s.confirm and not s.declined)
    read = next(s for s in task.plan if not s.confirm and all(c.name not in domain.write_tools for c in s.calls))
    chat = [{"role": "user", "content": task.scenario.requests[0]},
            {"role": "assistant", "content": "Shall I go ahead (yes/no)?"},
            {"role": "user", "content": "Yes, please."}]
    writes = [trace(task, Move("call", step=step), domain.phrasebook, seed, chat) for seed in range(60)]
    assert not [t for t in writes if "next fact I need" in t]
    consent = ("said yes", "go-ahead", "agreed", "confirmed")
    assert all(any(word in t for word in consent) for t in writes), [t for t in writes if not any(w in t for w in consent)][:2]
    reads = [trace(task, Move("call", step=read), domain.phrasebook, seed, chat) for seed in range(60)]
    assert not [t for t in reads if any(word in t for word in consent)]
    assert any("next fact I need" in t for t in reads)


def test_a_write_whose_reply_names_none_of_its_values_is_traced_to_the_request():
    """'enable_roaming returned L10838' before "Roaming is enabled for your trip to Italy.": the
    line id the write was given, which the reply never states. The reply answers the request."""
    from toolgym.generators.reasoning import last_said

    chat = [{"role": "user", "content": "Turn roaming on for my trip."},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "enable_roaming", "arguments": '{"line_id": "L10838"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"line_id": "L10838", "roaming_enabled": true}'}]
    writes = frozenset({"enable_roaming"})
    assert last_said(chat, reply="Roaming is enabled for your trip to Italy.", writes=writes) == (
        'the user asked "Turn roaming on for my trip."')
    assert last_said(chat, reply="Roaming is on for line L10838.", writes=writes) == "enable_roaming returned L10838"


def test_an_identity_ask_quotes_the_request_not_a_sentence_that_shares_a_word_with_the_identity():
    """'Request: "I need the opening date."' explained an ask for the phone number, date of birth and
    id number: "date" of "date of birth" drew the quote to a sentence that only qualifies the request."""
    import toolgym
    from toolgym.envs.conversation import Move
    from toolgym.envs.task import Fact, Step, ToolCall
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("banking")
    task = next(iter(domain.generate_tasks(1, seed=3, kinds=["single"], size="small")))
    request = "Please freeze my card for now, I can't find it. After that: How long have I had my credit card account? I need the opening date."
    task = task.model_copy(update={"scenario": task.scenario.model_copy(update={"requests": [request]})})
    asked = (Fact(key="phone", value="503-555-0435", label="registered phone number", keywords=["phone", "number"]),
             Fact(key="dob", value="1970-09-09", label="date of birth", keywords=["date of birth", "birth"]))
    step = Step(calls=[ToolCall(name="verify_identity", arguments={"phone_number": "503-555-0435", "date_of_birth": "1970-09-09",
                                                                   "id_last4": "9497"})])
    ask = Move("ask", step=step, facts=asked)
    traces = [trace(task, ask, domain.phrasebook, seed, [{"role": "user", "content": request}]) for seed in range(20)]
    assert not [t for t in traces if '"I need the opening date."' in t], traces[:2]
    assert all('"Please freeze my card for now, I can\'t find it."' in t for t in traces), traces[:2]


def test_a_reply_after_the_users_own_check_does_not_credit_a_tool():
    """'I report the facts as the tool gave them' came after "The speed test passed with 75.0 Mbps":
    the user ran the test on their phone; no tool gave anything."""
    import toolgym

    domain = toolgym.load_domain("telecom")
    tasks = domain.generate_tasks(40, seed=1, kinds=["multi_step", "multi_turn"], size="small")
    after_report = []
    for _, trajectory in played_with_reasoning(domain, tasks):
        messages = trajectory.messages
        for index, message in enumerate(messages):
            before = messages[index - 1] if index else {}
            if message.get("role") == "assistant" and not message.get("tool_calls") and before.get("user_tool_results"):
                after_report.append(message["reasoning_content"])
    assert len(after_report) >= 8
    assert not [t for t in after_report if "tool gave" in t], after_report
    assert any("the user's own check" in t for t in after_report)


def test_a_step_a_rule_puts_first_says_the_rule():
    """'So I call press_brake to press or release the brake pedal.' said nothing of why the brake,
    when the driver asked to start the engine: the car's rule is the reason."""
    import toolgym
    from toolgym.envs.task import Step, ToolCall

    domain = toolgym.load_domain("vehicle")
    tasks = domain.generate_tasks(60, seed=2, kinds=["single", "multi_step"], size="small")
    said = {"press_brake": 0, "get_doors_and_windows": 0}
    for _, trajectory in played_with_reasoning(domain, tasks):
        for message in trajectory.messages:
            names = [c["function"]["name"] for c in message.get("tool_calls") or ()]
            if names == ["press_brake"]:
                assert "the engine starts only with the brake pressed" in message["reasoning_content"], message
                said["press_brake"] += 1
            if names == ["get_doors_and_windows"] and "start" in message["reasoning_content"]:
                assert "every door locked" in message["reasoning_content"], message
                said["get_doors_and_windows"] += 1
    assert min(said.values()) >= 2, said
    # a step with no such rule stores nothing for it: tasks without one keep their content ids
    assert "because" not in Step(calls=[ToolCall(name="get_vehicle_status")]).model_dump_json()


def test_an_ask_quotes_the_sentence_that_names_what_its_call_already_has():
    """'The user wrote "Turn on the fog lights.". Missing: the preferred station.' came after "Put the
    radio on. And one more. Turn on the fog lights.": the radio is what the station is for."""
    from toolgym.envs.conversation import Move
    from toolgym.envs.task import Fact, Step, ToolCall
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("vehicle")
    task = domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    station = Fact(key="station", value="City Talk 98.4", label="preferred station", keywords=["station"])
    step = Step(calls=[ToolCall(name="play_media", arguments={"source": "radio", "title": "City Talk 98.4"}),
                       ToolCall(name="set_lights", arguments={"light": "fog_lights", "mode": "on"})], needs=["station"])
    message = "Hello. My son set this up for me. Put the radio on. And one more. Turn on the fog lights."
    task = task.model_copy(update={"plan": [step], "scenario": task.scenario.model_copy(
        update={"requests": [message], "facts": [station], "withheld": ["station"], "identity": []})})
    move = Move(kind="ask", step=step, facts=(station,))
    traces = [trace(task, move, domain.phrasebook, seed, [{"role": "user", "content": message}]) for seed in range(10)]
    assert all('"Put the radio on."' in t for t in traces), traces


def test_locking_before_a_start_cites_the_door_the_read_showed_unlocked():
    """'Known so far: the user asked "Start the car.". So I call lock_doors ... The arguments are
    exactly what was seen.': the unlocked door is why, and door="all" was seen nowhere."""
    import toolgym
    from toolgym.verifiers.conduct import diagnosis

    domain = toolgym.load_domain("vehicle")
    tasks = domain.generate_tasks(80, seed=3, kinds=["single", "multi_step"], size="small")
    locks = 0
    for task, trajectory in played_with_reasoning(domain, tasks):
        for message in trajectory.messages:
            if [c["function"]["name"] for c in message.get("tool_calls") or ()] == ["lock_doors"] and any(
                    s.evidence for s in task.plan if s.calls[0].name == "lock_doors"):
                trace = message["reasoning_content"]
                assert 'get_doors_and_windows showed "position":"' in trace and '"locked":false' in trace, trace
                assert "exactly what was seen" not in trace and "every argument comes from the chat" not in trace, trace
                locks += 1
                # the gold locks after the read; without the read's unlocked door, the lock is a guess
                assert diagnosis(task, trajectory).value == 1.0
    assert locks >= 2


def test_a_comfort_step_cites_the_zone_reading_it_moves_from():
    """'get_climate returned "driver"' (or "rear_left" and then "temperature_c":20.0, another zone's
    reading) explained set_climate one degree from the zone's temperature: the trace cites the zone's
    own reading, once, and a policy that sets the zone without reading it has guessed."""
    import dataclasses

    import toolgym
    from toolgym.verifiers.conduct import diagnosis

    domain = toolgym.load_domain("vehicle")
    tasks = [t for t in domain.generate_tasks(200, seed=5, kinds=["single", "multi_step"], size="small")
             if any(s.calls[0].name == "set_climate" and s.evidence for s in t.plan)]
    assert len(tasks) >= 3
    guessed = 0
    for task, trajectory in played_with_reasoning(domain, tasks):
        step = next(s for s in task.plan if s.calls[0].name == "set_climate" and s.evidence)
        zone, value = step.calls[0].arguments["zone"], step.calls[0].arguments["temperature_c"]
        message = next(m for m in trajectory.messages if [c["function"]["name"] for c in m.get("tool_calls") or ()] == ["set_climate"])
        trace = message["reasoning_content"]
        assert f'get_climate showed "zone":"{zone}","temperature_c":' in trace, trace
        assert f'returned "{zone}"' not in trace and f'"temperature_c":{value}' not in trace, trace
        assert diagnosis(task, trajectory).value == 1.0
        unread = dataclasses.replace(trajectory, derived={}, messages=[
            m for m in trajectory.messages if not (m.get("role") == "tool" and '"zones"' in str(m.get("content")))])
        # a seat-heating result shows its zone's reading too: without the climate read that one still grounds it
        shown_elsewhere = any(e in str(m.get("content")) for m in unread.messages if m.get("role") == "tool" for e in step.evidence)
        if not shown_elsewhere:
            guessed += 1
            assert diagnosis(task, unread).value < 1.0
    assert guessed >= 3, "too few tasks read their zone only through get_climate"


def test_a_reply_trace_names_what_the_reply_brings_or_says_it_names_only_some():
    """'The key facts: "Non-Slip Yoga Mat", "Adjustable Dumbbell Set" and "Bike Helmet".' came before a
    reply listing six products, and the closing trace named two of several outputs: both read as the
    whole. A reply's trace names up to six outputs, a closing one two, and either says when there are more."""
    from toolgym.envs.gold import gold_messages
    from toolgym.generators.reasoning import with_reasoning

    domain = toolgym.load_domain("retail")
    traced, many = 0, 0
    for task in domain.generate_tasks(60, seed=4, kinds=["single", "parallel"]):
        messages = with_reasoning(task, gold_messages(domain, task)[0])
        for index, message in enumerate(messages):
            facts = re.search(r'(?:The key facts: |The reply must carry |What matters here is |exactly: |needs to hear: )(.*?(?:"|among others))\.(?: |$)',
                              message.get("reasoning_content") or "")
            if message.get("role") != "assistant" or message.get("tool_calls") or not facts:
                continue
            # outputs the reply states that a result showed and the user never said (which a trace cites)
            said = " ".join(m.get("content") or "" for m in messages[:index] if m.get("role") == "user")
            stated = [o for o in task.required_outputs if o in (message.get("content") or "") and o not in said
                      and any(o in (m.get("content") or "") for m in messages[:index] if m.get("role") == "tool")]
            named = re.findall(r'"([^"]*)"', facts.group(1))
            traced += 1
            many += len(stated) > 3
            assert set(named) <= set(task.required_outputs) and len(named) <= 6, facts.group(1)
            if facts.group(1).endswith("among others"):
                assert len(named) == 6, facts.group(1)
            else:  # all named: at least every output a result showed and the user never said
                assert set(stated) <= set(named), (facts.group(1), stated)
    assert traced >= 20 and many >= 2, (traced, many)


def test_a_parallel_step_s_trace_counts_its_calls_right():
    """"None of the two get_line_details calls needs another's result" and "Several independent calls"
    for two: every wording of a parallel step fits two calls as well as more."""
    import toolgym

    book = toolgym.load_domain("telecom").phrasebook
    for seed in range(200):
        said = book.say("reason_call", seed, evidence="", agreed=False, parallel=True, writes=False, purpose="", because="", arguments="cited",
                        tools=["the two get_line_details calls"], derived="", how="")
        assert "None of" not in said and "Several" not in said, said


def test_a_call_trace_names_its_tool_apart_from_the_purpose_s_own_words():
    """"Next I list the events on the user's calendar on one day, with attendees and their responses
    with list_events.": a purpose that ends on a "with" clause ran into the tool's name. No wording
    puts the tool's name after the purpose."""
    import toolgym

    book = toolgym.load_domain("workplace").phrasebook
    purpose = "list the events on the user's calendar on one day, with attendees and their responses"
    for seed in range(300):
        said = book.say("reason_call", seed, evidence="", agreed=False, parallel=False, writes=False, purpose=purpose,
                        because="", arguments="cited", tools=["list_events"], derived="", how="")
        assert f"{purpose} with list_events" not in said, said


def test_a_trace_opens_and_decides_in_many_ways():
    """'Known so far / Seen so far / Noted:' opened 3,095 traces of 1,050 chats and 'The tool that fits
    is' decided 421: a call's trace opens in eight ways or more and decides in eight or more."""
    from toolgym.envs.phrasebook import ENGINE_UTTERANCES, Phrasebook

    book = Phrasebook(ENGINE_UTTERANCES)
    values = {"evidence": 'get_booking returned "TR0121"', "agreed": False, "parallel": False, "tools": ["book_hotel"],
              "purpose": "book a room", "writes": True, "derived": "", "how": "", "because": "", "arguments": "cited"}
    traces = [book.say("reason_call", seed, **values) for seed in range(600)]
    opens = {t.split(":")[0] for t in traces}
    decides = {t.split("TR0121\".")[1].split(".")[0] for t in traces}
    assert len(opens) >= 8 and len(decides) >= 8, (opens, decides)
