"""Telecom's language: calls open in the customer's register, openings vary, no known grammar slip."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

import toolgym
import toolgym.domains.telecom as telecom
from toolgym.envs import ALL_KINDS
from toolgym.envs.phrasing import greeting_at, register_of
from toolgym.generators.inspection.grammar import find_grammar
from toolgym.generators.inspection.text import normalize


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain("telecom")


def test_calls_open_in_the_persona_register_and_vary(domain):
    tasks = domain.generate_tasks(120, seed=21, kinds=["single", "parallel"], size="small")
    registers = Counter()
    for task in tasks:
        register = register_of(task.scenario.persona)
        registers[register] += 1
        opening = greeting_at(domain.phrasebook.say(domain.phrasebook.voiced("opening", register), task.seed),
                              domain.clock(task.world_seed).hour)  # a "Good morning" is said for the world's hour
        assert task.scenario.requests[0].startswith(opening), (register, opening, task.scenario.requests[0])
    assert len(registers) >= 4  # personas are read as several registers, not one voice
    distinct = {normalize(t.scenario.requests[0]) for t in tasks}
    assert len(distinct) >= 0.8 * len(tasks)


def test_gold_conversations_have_none_of_the_known_grammar_slips(domain):
    for task in domain.generate_tasks(10 * len(ALL_KINDS), seed=22, size="small"):
        result = toolgym.rollout_sync(toolgym.make("telecom"), toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
        for message in result.messages:
            if message["role"] in ("user", "assistant") and message.get("content"):
                assert not find_grammar(message["content"], message["role"]), (task.kind, message["content"])


def test_irrelevant_requests_are_enough_for_a_full_job(domain):
    # configs/full.yaml asks for 800 irrelevant rows per domain; each must be a distinct lesson
    tasks = domain.generate_tasks(1000, seed=23, kinds=["no_tool/irrelevant"], size="small")
    assert len({t.lesson_key() for t in tasks}) >= 800


def test_a_done_line_reads_as_a_clause_mid_sentence():
    from toolgym.domains.telecom.tasks.troubleshoot import _clause

    assert _clause("A technician will call you within 24 hours.") == "a technician will call you within 24 hours."
    assert _clause("Airplane mode is off") == "airplane mode is off"
    assert [_clause(t) for t in ("I opened ticket TKT100001", "TKT100001 is open", "5G is on")] == [
        "I opened ticket TKT100001", "TKT100001 is open", "5G is on"]


def test_an_outage_answer_puts_no_two_colons_in_one_sentence(domain):
    """'Outage check: Chicago: an outage expected to end at 00:45.' put the lead's colon before the region's."""
    import re

    answers = ["Chicago has an outage that should end by 00:45", "Denver has no active outage"]
    for seed in range(200):
        said = domain.phrasebook.say("answer_outages", seed, answers=answers)
        assert not re.search(r":(?!\d)[^;.]*:(?!\d)", said), said  # a time's colon ("00:45") and a list's ";" aside


def test_a_reply_after_the_user_answered_the_agent_is_not_called_a_good_question(domain):
    """'Good question. I found you: the customer ID for 312-880-2877 is C1253.' followed the user's
    phone number, given because the agent asked for it."""
    from toolgym.envs.gold import gold_messages
    from toolgym.generators.oracle import OracleTeacher

    oracle = OracleTeacher()
    after_answer = direct = 0
    for task in domain.generate_tasks(150, seed=4, kinds=["single", "parallel", "multi_turn"], size="small"):
        moves = oracle.moves(task)
        messages, _ = gold_messages(domain, task)
        turn = 0
        for message in messages:
            if message["role"] != "assistant":
                continue
            if turn < len(moves) and moves[turn].kind == "reply":
                since_reply = moves[turn - _since_reply(moves, turn):turn]
                answered = any(m.kind in ("ask", "confirm", "instruct") for m in since_reply)
                if answered:
                    after_answer += 1
                    assert "Good question" not in (message["content"] or ""), message["content"]
                else:
                    direct += 1
            turn += 1
    assert after_answer >= 20 and direct >= 20, (after_answer, direct)


def _since_reply(moves, turn):
    """How many moves came after the last reply before `turn`."""
    for back, move in enumerate(reversed(moves[:turn])):
        if move.kind == "reply":
            return back
    return turn


def test_a_joined_reply_closes_the_turn_only_at_its_end(domain):
    """'Plus 40 is the best price: $55.00 a month. Happy to help with anything else. As for your other
    question: ...' closed the turn in the middle of a message that went on to a second answer."""
    from toolgym.envs.gold import gold_messages

    closings = {line for name in domain.phrasebook.intents() for line in domain.phrasebook.closing_lines(name)}
    assert "Happy to help with anything else." in closings
    joined = 0
    for task in domain.generate_tasks(150, seed=8, kinds=["parallel"], size="small"):
        messages, _ = gold_messages(domain, task)
        for message in messages:
            text = (message["content"] or "") if message["role"] == "assistant" else ""
            inside = [line for line in closings if line in text and not text.rstrip().endswith(line)]
            assert not inside, (inside, text)
            joined += any(link in text for link in ("As for your other question:", "And on the second point:", "Also:"))
    assert joined >= 10


def test_an_instruction_thanks_only_for_a_report_and_a_look_is_no_fix_to_try(domain):
    """"Thanks, that helps. Please run a speed test" came right after "Yes. Just do it, please.",
    "Next thing to try." led a speed test that checks a line just resumed, and "One more check on
    the phone." opened the first thing the customer was asked to do."""
    from toolgym.envs.gold import gold_messages

    thanks = ("Thanks, that helps.", "Okay, that tells me a lot.", "Thanks for checking.", "Good, let's keep going.", "Thanks. Next up.")
    trying = ("Let's try something.", "Next thing to try.", "One more thing to try on the phone.", "Bear with me, this usually helps.")
    tasks = domain.generate_tasks(160, seed=23, kinds=["multi_step", "multi_turn", "single"], size="small")
    one_more = ("One more check on the phone.", "One more thing to try on the phone.")
    instructions = after_report = tests = firsts = 0
    for task in tasks:
        messages, _ = gold_messages(domain, task)
        steps = [s for s in task.plan if s.caller == "user"]  # the instructions, in the order they are given
        for index, message in enumerate(messages[:-1]):
            done = messages[index + 1]  # the user does what an instruction asks, and says what they see
            if message["role"] != "assistant" or not message.get("content") or not done.get("user_tool_calls"):
                continue
            first = len(steps) == len([s for s in task.plan if s.caller == "user"])
            step = steps.pop(0)
            if first:
                firsts += 1
                assert not message["content"].startswith(one_more), message["content"]
            assert [c.name for c in step.calls] == [c["name"] for c in done["user_tool_calls"]]
            instructions += 1
            before = next(m for m in reversed(messages[:index]) if m["role"] == "user")
            reported = bool(before.get("user_tool_results"))
            after_report += reported
            if not reported:
                assert not message["content"].startswith(thanks), (before.get("content"), message["content"])
            if not step.evidence:  # a look or a test, not a fix of something shown
                tests += step.calls[0].name == "run_speed_test"
                assert not message["content"].startswith(trying), message["content"]
    assert instructions >= 20 and after_report >= 5 and tests >= 5 and firsts >= 10, (instructions, after_report, tests, firsts)


def test_only_an_instruction_after_another_is_one_more():
    """"One more check on the phone." opened the first thing a customer was asked to do (telecom's
    lead-ins and the engine's)."""
    import toolgym
    from toolgym.envs.phrasebook import ENGINE_UTTERANCES, Phrasebook

    for phrases, checks in [(book, checks) for book in (toolgym.load_domain("telecom").phrasebook, Phrasebook(ENGINE_UTTERANCES))
                            for checks in (True, False)]:
        said = {again: [phrases.say("instruct", seed, instruction="Please restart your phone.", checks=checks,
                                    reported=again, again=again) for seed in range(400)]
                for again in (False, True)}
        assert not [t for t in said[False] if "one more" in t.lower()]
        assert [t for t in said[True] if t.startswith("One more")]


def test_the_first_instruction_is_no_next_step_and_a_later_one_no_first():
    """"Let's keep going. Please check your network settings", "Next, on your side." and "Here's the
    next step. To start, ..." opened the first thing a customer was asked to do (telecom's lead-ins
    and the engine's); an instruction, worded before its place is known, says neither."""
    import re

    import toolgym
    from toolgym.envs.phrasebook import ENGINE_UTTERANCES, Phrasebook

    telecom_book = toolgym.load_domain("telecom").phrasebook
    onward, opening = re.compile(r"\bnext\b|keep going", re.IGNORECASE), re.compile(r"\b(?:first|to start)\b", re.IGNORECASE)
    for phrases, checks in [(book, checks) for book in (telecom_book, Phrasebook(ENGINE_UTTERANCES)) for checks in (True, False)]:
        for again in (False, True):
            said = {phrases.say("instruct", seed, instruction="Please restart your phone.", checks=checks, reported=again, again=again)
                    for seed in range(400)}
            assert not [t for t in said if (opening if again else onward).search(t)], (again, checks)
    # the data usage screen is read at diagnosis, before any other step on the phone: its "First," fits
    worded = [v for intent in telecom_book.intents() if intent.startswith("do_") and intent != "do_check_data_usage"
              for v in telecom_book.variants(intent)]
    assert len(worded) > 20 and not [v for v in worded if onward.search(v) or opening.search(v)]


def test_a_report_from_the_phone_acknowledges_once_and_reads_every_screen_in_words(domain):
    """"Ok. Okay, I see this: ..." acknowledged twice, and the data usage screen was read out as
    "data used this cycle gb: 5.0, carrier notice: ..."."""
    import re

    from toolgym.generators.user import ScriptedUser

    twice = re.compile(r"^[^.!?]*\b(?:okay|ok|alright|right|done|fine|it)[.!] (?:Okay|Alright|Ok|Right|Done)\b", re.I)
    usage = {"user_tool_calls": [{"name": "check_data_usage", "arguments": {}}],
             "user_tool_results": ['{"data_used_this_cycle_gb": 5.0, "carrier_notice": "You have used all the data on your plan for this cycle."}']}
    unknown = {"user_tool_calls": [{"name": "check_widget", "arguments": {}}], "user_tool_results": ['{"widget": "blue"}']}
    reports = [ScriptedUser._report(message, domain.phrasebook, seed, register)
               for message in (usage, unknown) for seed in range(40)
               for register in ("neutral", "terse", "chatty", "frustrated", "elderly", "formal", "non_native")]
    assert not [r for r in reports if twice.search(r)], [r for r in reports if twice.search(r)][:2]
    assert not [r for r in reports if "_gb" in r or " gb:" in r]
    assert all("5.0 GB" in r for r in reports[: len(reports) // 2])


SETTINGS_CHECK = {"role": "user", "content": None, "user_tool_calls": [{"name": "check_network_settings", "arguments": {}}],
                  "user_tool_results": ['{"airplane_mode": false, "mobile_data": false, "data_roaming": false, "data_saver": false, '
                                        '"wifi_calling": true, "network_mode": "5g_preferred", "location": "Austin"}']}
DATA_ON = {"role": "user", "content": None, "user_tool_calls": [{"name": "toggle_mobile_data", "arguments": {"state": "on"}}],
           "user_tool_results": ['{"mobile_data": "on"}']}


def _device_chat(task, done_before: bool, done: dict = SETTINGS_CHECK) -> list[dict]:
    """A chat where the customer has just done `done` on the phone (once before, if `done_before`)."""
    asked = {"role": "assistant", "content": "Please do this on your phone."}
    return [{"role": "user", "content": task.scenario.requests[0]}, *([asked, done] if done_before else []), asked, done]


def test_a_customer_says_again_only_of_a_step_done_before(domain):
    """'Did it. Again. In the settings, airplane mode is off, ...' answered the first time the customer
    was asked to check their settings."""
    from toolgym.envs.phrasing import register_of
    from toolgym.generators.user import ScriptedUser

    tasks = domain.generate_tasks(120, seed=9, kinds=["multi_step"], size="small")
    task = next(t for t in tasks if register_of(t.scenario.persona) == "frustrated")
    user = ScriptedUser()
    said = {before: [user.reply_sync(_device_chat(task, before), task.model_copy(update={"seed": seed}))["content"]
                     for seed in range(300)] for before in (False, True)}
    assert not [r for r in said[False] if "again" in r.lower()]
    assert [r for r in said[True] if r.startswith("Did it. Again.")]


def test_a_customer_asks_what_a_report_tells_only_of_a_reading_not_of_a_switch_they_turned(domain):
    """'I changed the network mode; it's set to LTE preferred now. Does that tell you anything?': a
    switch the customer turned shows nothing to interpret; a reading of the settings does."""
    from toolgym.envs.phrasing import register_of
    from toolgym.generators.user import ScriptedUser

    tasks = domain.generate_tasks(160, seed=9, kinds=["multi_step"], size="small")
    asking = ("tell you anything", "Does that help", "figure it out", "useful")
    user = ScriptedUser()
    for register in ("chatty", "neutral"):
        task = next(t for t in tasks if register_of(t.scenario.persona) == register)
        said = {done is DATA_ON: [user.reply_sync(_device_chat(task, False, done), task.model_copy(update={"seed": seed}))["content"]
                                  for seed in range(300)] for done in (SETTINGS_CHECK, DATA_ON)}
        assert not [r for r in said[True] if any(a in r for a in asking)], register
        assert [r for r in said[False] if any(a in r for a in asking)], register


def test_a_payment_that_lifts_a_suspension_says_why_it_comes_up(domain):
    """"Here's the plan: charge $91.00 to the credit card ending in 4767 for bill B100083." was the
    first the customer heard of a bill: they had reported no service, and the line was suspended for it."""
    tasks = domain.generate_tasks(200, seed=7, kinds=["multi_step", "multi_turn"], world_seed=0, size="small")
    payments = [s for t in tasks for s in t.plan if s.calls[0].name == "make_payment" and not s.declined]
    lifting = [s for s in payments if s.evidence]  # the fix of a line suspended for an unpaid bill
    assert lifting and len(lifting) < len(payments), "both kinds of payment should be among these tasks"
    for step in payments:
        assert step.confirm is not None
        if step.evidence:
            assert "overdue" in step.confirm and "suspended" in step.confirm, step.confirm
        else:
            assert "suspended" not in step.confirm, step.confirm


def test_the_phone_fixes_a_summary_lists_together_say_again_once_at_most(domain):
    """'So, your SIM card is seated properly again and your phone uses LTE again. The speed test
    passed, which means data is flowing again.': each fix's done line said "again" of its own; and 'the
    phone detects the SIM card again. Your speed test passed, so your connection is working again.'"""
    lines = yaml.safe_load((Path(telecom.__file__).parent / "utterances.yaml").read_text())
    # the fixes on the phone, which one summary lists together
    phone = ("done_airplane", "done_mobile_data", "done_data_saver", "done_apn", "done_sim", "done_network_mode", "done_roaming_switch")
    done = [v for intent in phone for v in lines[intent]]
    assert len(done) == 14 and sum(" again" in v for v in done) <= 1, [v for v in done if " again" in v]
    # a summary: any done lines (the phone's and the account's), one result and one closing
    listed = [v for intent, variants in lines.items() if intent.startswith("done_") and isinstance(variants, list) for v in variants]
    said = [*listed, *lines["troubleshoot_done"]["result"], *lines["troubleshoot_done"]["close"]]
    assert len(listed) >= 20 and sum(" again" in v for v in said) <= 1, [v for v in said if " again" in v]
    # nor "now" twice: "international roaming is now enabled on your line, the phone recognises the SIM card now"
    assert not [v for v in listed if " now" in v]


def test_roaming_ready_for_a_trip_names_the_trip_once():
    """"Roaming is enabled for your trip to Portugal ($5.00 for each day you use it), so you're set
    for the trip.": the trip twice in one sentence, and a promise the phone's own switch may break."""
    import toolgym

    book = toolgym.load_domain("telecom").phrasebook
    said = {book.say("done_roaming_trip", seed, country="Portugal", fee=5.0) for seed in range(200)}
    assert not [s for s in said if s.count("trip") > 1]
    assert all("data roaming on in your phone" in s for s in said)


def test_a_speed_test_is_asked_for_without_saying_now_twice():
    """"Now, on your phone. Please run a speed test on your phone now.": the instruction's lead may say
    "now"; the speed test itself does not."""
    import re

    import toolgym

    book = toolgym.load_domain("telecom").phrasebook
    asked = [book.say("instruct", seed, instruction=book.say("do_speed_test", seed), checks=True, reported=seed % 2 == 0,
                      again=seed % 3 == 0) for seed in range(400)]
    assert not [a for a in asked if len(re.findall(r"\bnow\b", a, re.I)) > 1]
    assert [a for a in asked if re.search(r"\bnow\b", a, re.I)]  # the leads that say it remain


def test_each_line_s_data_and_each_area_s_outage_is_said_as_a_clause(domain):
    """"Data use per line: 312-835-1044: 1.38 GB used; 312-591-6041: 25.26 GB used." and "Austin: no
    active outage.": labels and colons where a person says "312-835-1044 has used 1.38 GB" and
    "Austin has no active outage"."""
    import re

    from toolgym.envs.gold import gold_messages

    said = []
    for task in domain.generate_tasks(400, seed=13, kinds=["single", "multi_step", "parallel"], size="small"):
        if any(r.intent in ("answer_lines_usage", "answer_outages") for r in task.replies):
            said += [m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "assistant" and m.get("content")]
    usage = [s for s in said if "has used" in s and "; " in s]
    outages = [s for s in said if re.search(r"[A-Z][a-z]+ has (?:no active outage|an outage)", s)]
    assert usage and outages, said
    for text in usage + outages:
        assert not re.search(r":(?!\d)[^.]*:(?!\d)", text), text  # one colon at most in a sentence, a time's aside
        assert not re.search(r"[A-Z][a-z]+: (?:no active outage|an outage)|\d: \d", text), text
