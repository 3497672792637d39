"""The closing trace: what the chat was about (the facts reported, or the latest request and how it
ended), each thing a request asked in turn that was carried out, and the decision to close."""

from __future__ import annotations

import re

import toolgym


def test_a_closing_trace_says_how_the_chat_ended_and_names_a_thanks_only_when_one_was_said():
    """'that is answered' only after an answer, never after a refusal or a value the user went to
    find; 'thanked me' only when the user's last message thanked."""
    import toolgym
    from toolgym.envs.conversation import outcome
    from toolgym.generators.inspection.grammar import find_grammar
    from toolgym.generators.reasoning import close_trace

    domain = toolgym.load_domain("retail")
    kinds = ["single", "no_tool/invalid_value", "no_tool/policy_refusal", "no_tool/irrelevant"]
    answered = ("that is answered", "has its answer", "it's dealt with", "what they came for", "No question is left open")
    seen = {}
    for task in domain.generate_tasks(24, seed=5, kinds=kinds, size="small"):
        first = {"role": "user", "content": task.scenario.requests[0]}
        for last, thanked in (("Thanks a lot, that's all.", True), ("Alright, I'll sort it out myself.", False)):
            chat = [first, {"role": "assistant", "content": "..."}, {"role": "user", "content": last}]
            for seed in range(40):
                trace = close_trace(task, domain.phrasebook, seed, chat)
                ended = outcome(task)
                seen.setdefault((ended, thanked), set()).add(trace)
                if ended in ("refused", "pending"):
                    assert not any(claim in trace for claim in answered), (ended, trace)
                if ended == "done":  # a change was made: it is done, not "answered"
                    assert "that is answered" not in trace and "has its answer" not in trace, trace
                if not thanked:  # the request it quotes may itself say "thank you" ("… 'thank you' in Czech?")
                    assert "thank" not in re.sub(r'"[^"]*"', "", trace).lower(), trace
    assert {ended for ended, _ in seen} >= {"done", "answered", "refused", "pending"}, seen.keys()
    slips = [f"{m.name}: {t}" for traces in seen.values() for t in traces for m in find_grammar(t, "assistant")]
    assert not slips, slips[:3]
    assert any("thank" in t for t in seen[("pending", True)]), "a thanks is named when one was said"
    assert any("waits on" in t or "stays open" in t for t in seen[("pending", False)])


def test_a_closing_trace_quotes_the_request_carried_out_not_the_one_declined():
    import toolgym
    from toolgym.envs.conversation import outcome
    from toolgym.envs.user_turns import sentences
    from toolgym.generators.reasoning import close_trace

    domain = toolgym.load_domain("telecom")
    checked = 0
    for task in domain.generate_tasks(40, seed=4, kinds=["multi_turn"], size="small"):
        declined = {s.segment for s in task.plan if s.declined}
        if declined != {0} or outcome(task) != "done" or len(task.scenario.requests) != 2:
            continue
        chat = [{"role": "user", "content": request} for request in task.scenario.requests]
        # the declined request's words, but for those the later one says too ("Please add a 3 GB data
        # refill to my line." then "... a 5 GB data refill to my line.")
        first, second = task.scenario.requests
        declined_words = [s.rstrip(".?!") for s in sentences(first) if len(s) > 20 and s.rstrip(".?!") not in second]
        assert declined_words, first
        for seed in range(20):
            trace = close_trace(task, domain.phrasebook, seed, [*chat, {"role": "user", "content": "Thanks."}])
            assert not [s for s in declined_words if s in trace], trace  # the declined request is never what was "dealt with"
        checked += 1
    assert checked >= 2


def test_a_closing_trace_names_the_outputs_the_last_replies_stated():
    """'I reported "pending"' closed a chat whose last reply said nothing of it: a declined request's
    output, shown again by the later request's result."""
    import toolgym
    from toolgym.generators.reasoning import close_trace

    domain = toolgym.load_domain("telecom")
    task = domain.generate_tasks(1, seed=1, kinds=["single"], size="small")[0]
    task = task.model_copy(update={"required_outputs": ["passed", "pending", "R100097", "8.0"],
                                   "scenario": task.scenario.model_copy(update={"requests": ["Run a test.", "Add 5 GB."]})})
    chat = [{"role": "user", "content": "Run a test."}, {"role": "tool", "tool_call_id": "a", "content": '{"result": "passed"}'},
            {"role": "assistant", "content": "The test passed."},
            {"role": "user", "content": "Add 5 GB."},
            {"role": "tool", "tool_call_id": "b", "content": '{"purchase_id": "R100097", "refill_gb_this_cycle": 8.0, "status": "pending"}'},
            {"role": "assistant", "content": "Done: purchase R100097 brings you to 8.0 GB this cycle."},
            {"role": "user", "content": "Perfect."}]
    traces = [close_trace(task, domain.phrasebook, seed, chat) for seed in range(40)]
    named = [t for t in traces if '"R100097" and "8.0"' in t]
    assert named and not any('"passed"' in t or '"pending"' in t for t in traces), traces


def test_a_closing_trace_tells_how_the_latest_request_ended():
    import toolgym
    from toolgym.envs.conversation import outcome
    from toolgym.generators.reasoning import close_trace

    domain = toolgym.load_domain("research")
    checked = 0
    for task in domain.generate_tasks(60, seed=5, kinds=["multi_turn"], size="small"):
        requests = task.scenario.requests
        if outcome(task) != "not_found" or len(requests) < 2 or any(s.declined for s in task.plan):
            continue
        chat = [{"role": "user", "content": request} for request in requests] + [{"role": "user", "content": "Never mind."}]
        for seed in range(30):  # no result was shown: every trace names the request and how it ended
            trace = close_trace(task, domain.phrasebook, seed, chat)
            quoted = re.search(r'"([^"]+)"', trace)  # the latest request's words, not the first one's
            assert quoted and quoted[1].rstrip(".?!") in requests[-1] and quoted[1] not in requests[0], (trace, requests)
            assert re.search(r"nothing I found|no answer in anything I could find|couldn't find the answer", trace), trace
        checked += 1
    assert checked >= 1


def test_a_closing_names_what_the_latest_request_brought_or_nothing():
    """'Already told: "passed".' closed a chat whose last request (an outage check) came after the speed
    test: an output shown before the latest request is not what that request brought."""
    from types import SimpleNamespace

    from toolgym.generators.outputs_seen import seen_outputs

    first, second = "My phone has no service.", "Is there an outage in St. Louis?"
    task = SimpleNamespace(scenario=SimpleNamespace(requests=[first, second]), required_outputs=["passed", "Plus 40"])
    chat = [{"role": "user", "content": first}, {"role": "user", "content": "The speed test passed."},
            {"role": "user", "content": second}, {"role": "tool", "content": '{"active_outages": []}'}]
    assert seen_outputs(task, chat, latest=True) == []
    assert seen_outputs(task, chat) == ['"passed"']  # a reply's trace still cites it
    shown = [*chat, {"role": "tool", "content": '{"plan_name": "Plus 40"}'}]
    assert seen_outputs(task, shown, latest=True) == ['"Plus 40"']
    # a later result's key is not the value: "delivered_at" does not show the status "delivered" again
    task.required_outputs = ["delivered"]
    revised = [{"role": "user", "content": first}, {"role": "tool", "content": '{"status": "delivered"}'},
               {"role": "user", "content": second}, {"role": "tool", "content": '{"status": "exchange requested", "delivered_at": "2025-03-04"}'}]
    assert seen_outputs(task, revised, latest=True) == []
    assert seen_outputs(task, revised) == ['"delivered"']


def test_a_closing_trace_quotes_the_last_of_the_things_a_request_asked_in_turn():
    """'The request was "The zone behind me to 78°F.", and it's dealt with.' closed "... Then, a
    second thing: Start the car.": the close quotes what was carried out last."""
    from toolgym.envs.conversation import outcome
    from toolgym.generators.reasoning import close_trace
    from toolgym.generators.request_quote import RequestCues

    domain = toolgym.load_domain("vehicle")
    tasks = [t for t in domain.generate_tasks(80, seed=2, kinds=["multi_step"], size="small")
             if t.segments == 1 and {s.part for s in t.plan} == {0, 1} and outcome(t) in ("done", "answered")]
    assert len(tasks) >= 5
    for task in tasks:
        request = task.scenario.requests[0]
        last = RequestCues.of(task, domain.phrasebook).part_of(request, 1)
        chat = [{"role": "user", "content": request}, {"role": "assistant", "content": "All done."},
                {"role": "user", "content": "Thanks."}]
        quoted = [t for t in (close_trace(task, domain.phrasebook, seed, chat) for seed in range(20)) if '"' in t]
        # the last is quoted, after the first when both are (see the test of every thing asked in turn)
        assert quoted and all(q.split('"')[-2].rstrip(" …") in last for q in quoted), (last, quoted[:2])


def test_a_chat_whose_earlier_request_was_declined_ends_on_the_later_answer():
    """The user said no to a cancellation, then asked what a product costs and was told: the chat
    ended answered, and its closing neither says "they chose not to go ahead" nor offers to do it later."""
    import toolgym
    from toolgym.envs.conversation import closer_intent, outcome
    from toolgym.generators.reasoning import close_trace

    domain = toolgym.load_domain("retail")
    checked = 0
    for task in domain.generate_tasks(60, seed=3, kinds=["multi_turn"], size="small"):
        declined = {s.segment for s in task.plan if s.declined}
        if declined != {0} or task.expected_writes or len(task.scenario.requests) != 2:
            continue
        assert outcome(task) in ("answered", "not_found") and closer_intent(task) != "closer_declined", task.id
        chat = [{"role": "user", "content": request} for request in task.scenario.requests]
        for seed in range(20):
            trace = close_trace(task, domain.phrasebook, seed, [*chat, {"role": "user", "content": "Thanks."}])
            assert "go ahead" not in trace and "called off" not in trace and "decided against" not in trace, trace
        checked += 1
    assert checked >= 2


def test_a_closing_trace_names_every_thing_a_request_asked_in_turn():
    """'The user came with "I'd like seat 10D for my booking FB100299, please.", and that is done.'
    closed a chat whose message also asked for two checked bags, carried out first."""
    import toolgym
    from toolgym.envs.conversation import outcome
    from toolgym.generators.reasoning import close_trace
    from toolgym.generators.request_quote import RequestCues, user_request

    domain = toolgym.load_domain("travel")
    checked = 0
    for task in domain.generate_tasks(60, seed=6, kinds=["multi_step"], size="small"):
        said_no = {s.part for s in task.plan if s.declined}
        parts = sorted({s.part for s in task.plan if s.part is not None} - said_no)
        if len(parts) < 2 or outcome(task) not in ("done", "answered") or task.segments != 1:
            continue
        chat = [{"role": "user", "content": task.scenario.requests[0]}, {"role": "assistant", "content": "..."},
                {"role": "user", "content": "Thanks."}]
        cues = RequestCues.of(task, domain.phrasebook)
        quotes = [user_request(chat[:1], cues, part=part) for part in parts]
        for seed in range(12):
            trace = close_trace(task, domain.phrasebook, seed, chat)
            if trace.startswith(("I reported", "Already told", "I've given")):
                continue  # the facts reported stand for the requests
            assert all(quote in trace for quote in quotes), (quotes, trace)
            assert "that is done" not in trace and "that is answered" not in trace and "The request," not in trace, trace
        checked += 1
    assert checked >= 3


def test_a_closing_trace_never_quotes_the_part_of_a_request_the_user_said_no_to():
    """'The request was "... Please cancel it.", and it's dealt with.' closed a chat whose user said no
    to the cancellation and yes to the bags asked for after it."""
    import toolgym
    from toolgym.generators.reasoning import close_trace
    from toolgym.generators.request_quote import RequestCues

    domain = toolgym.load_domain("travel")
    checked = 0
    for task in domain.generate_tasks(60, seed=6, kinds=["multi_step"], size="small"):
        said_no = {s.part for s in task.plan if s.declined and s.part is not None}
        if not said_no or not task.expected_writes or task.segments != 1:
            continue
        cues = RequestCues.of(task, domain.phrasebook)
        refused = [cues.part_of(task.scenario.requests[0], part).rstrip(".?!")[-30:] for part in said_no]
        chat = [{"role": "user", "content": task.scenario.requests[0]}, {"role": "assistant", "content": "..."},
                {"role": "user", "content": "Thanks."}]
        for seed in range(12):
            trace = close_trace(task, domain.phrasebook, seed, chat)
            assert not any(words in trace for words in refused), (refused, trace)
        checked += 1
    assert checked >= 1


def test_a_question_asked_after_a_change_closes_answered_not_carried_out():
    """'The request, "What's the baggage allowance on economy?", is carried out.': the chat changed
    something earlier, but its latest request only asked."""
    import toolgym
    from toolgym.envs.conversation import outcome
    from toolgym.generators.reasoning import close_trace

    checked = 0
    for name in ("travel", "telecom"):
        domain = toolgym.load_domain(name)
        writes = domain.write_tools
        for task in domain.generate_tasks(60, seed=8, kinds=["multi_turn"], size="small"):
            last = max(s.segment for s in task.plan)
            latest = [s for s in task.plan if s.segment == last]
            if outcome(task) != "done" or any(s.declined for s in task.plan) or any(
                    s.caller == "user" or any(c.name in writes for c in s.calls) for s in latest):
                continue
            chat = [{"role": "user", "content": r} for r in task.scenario.requests]
            for seed in range(12):
                trace = close_trace(task, domain.phrasebook, seed, [*chat, {"role": "user", "content": "Thanks."}])
                assert not any(done in trace for done in ("that is done", "is carried out", "taken care of")), trace
            checked += 1
    assert checked >= 3
