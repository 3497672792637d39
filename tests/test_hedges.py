"""An output offered beside alternatives of its kind is not stated (verifiers/hedges.py): a reply
naming every figure it read as "the answer, or ..." does not earn the outputs it had to state."""

from __future__ import annotations

import copy
import json
import re

import pytest

import toolgym
from toolgym.envs.gold import gold_messages
from toolgym.verifiers import verify
from toolgym.verifiers.hedges import Hedges, hedged
from toolgym.verifiers.spoil import SPOILS

from .spoil_checks import spoil_fails_wherever_it_applies


@pytest.mark.parametrize("reply", [
    "The rug is priced at $372.48 (or $173.01 or $468.10).",
    "You owe $173.01 or $372.48 on bill B101161.",
    "It costs $173.01, $468.10 or $372.48.",
    "Your flight leaves on 2026-03-05 or 2026-03-15.",
    "Your order is #W7016304 or #W7016305.",
    "It was paid either $372.48 or $12.00.",
    "Is it $372.48 or $173.01 you're after?",  # a question offering the answer among others answers nothing
])
def test_a_value_offered_with_alternatives_of_its_kind_is_hedged(reply):
    output = next(o for o in ("$372.48", "2026-03-05", "#W7016304") if o.lower() in reply.lower())
    assert hedged(output, reply), reply


@pytest.mark.parametrize("reply", [
    "The rug is priced at $372.48.",
    "The rug is $372.48, or about a third of your budget.",  # "or" before words, not a value
    "The rug is $372.48 (or $173.01 in blue). To be exact: $372.48 for the rust one.",  # said plainly once
    "Refills come in 1 GB or 3 GB sizes.",  # no output of its kind here
    "SW302 costs $372.48, or 510.54 SGD.",  # the same value in another unit
])
def test_a_value_said_plainly_or_asked_about_is_not_hedged(reply):
    assert not hedged("$372.48", reply), reply
    assert not hedged("510.54", "SW302 costs $372.48, or 510.54 SGD.")


def test_a_hedged_figure_does_not_earn_its_output_and_the_gold_still_does():
    """'In rust, 3x5 ft, the Wool Area Rug is priced at $372.48 (or $173.01 or $468.10 or $348.63)'
    scored 1.0: every output it had to state was in the reply."""
    domain = toolgym.load_domain("retail")
    tried = 0
    for task in domain.generate_tasks(80, seed=3, kinds=["single"]):
        figures = [o for o in task.required_outputs if o.startswith("$")]
        messages = gold_messages(domain, task)[0]
        replies = [i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("content")]
        if not figures or sum(figures[0] in messages[i]["content"] for i in replies) != 1:
            continue
        # figures the chat's results showed: each is grounded, so only the hedge can fail the reply
        shown = {f"${float(v):,.2f}" for m in messages if m["role"] == "tool"
                 for v in re.findall(r'"(?:price|total|amount)":\s*([\d.]+)', m["content"])} - {figures[0]}
        if len(shown) < 2:
            continue
        assert verify(task, messages).value == 1.0
        at = next(i for i in replies if figures[0] in messages[i]["content"])
        spoiled = copy.deepcopy(messages)
        spoiled[at]["content"] = spoiled[at]["content"].replace(figures[0], f"{figures[0]} (or {' or '.join(sorted(shown)[:2])})", 1)
        score = verify(task, spoiled)
        assert not score.passed and score.value < 1.0, (task.id, spoiled[at]["content"])
        tried += 1
    assert tried >= 4, tried


@pytest.mark.parametrize(("output", "reply"), [
    ("2026-03-05", "Your flight leaves on March 5, 2026 or March 15, 2026."),  # a date in words
    ("2026-03-05", "It leaves on 15 March 2026 or 5 March 2026."),
    ("22.38 GB", "You have used 22.38 GB or 0.84 GB this month."),  # a figure and its unit
    ("13.5%", "The rate is 13.5% (or 9.9%)."),
    ("level 1", "The seat heater is on level 1 or level 3."),
    ("26", "I've set the media volume to 26 or 4."),  # a count: any number is its alternative
])
def test_dates_in_words_and_figures_with_units_are_hedged_by_their_kind(output, reply):
    assert hedged(output, reply), reply


def test_a_figure_is_not_hedged_by_another_unit_or_a_plain_statement():
    # an amount converted: the dollar price is the same value, another currency's amount too
    assert not hedged("288,077.50", "Your best option is SW696 for $3,475.00, or 288,077.50 INR.")
    assert not hedged("288,077.50", "That is 288,077.50 INR, or 3,475.00 USD.")
    assert hedged("288,077.50", "That is 288,077.50 INR or 300,112.00 INR.")
    assert hedged("10,346", "It has 10,346 or 13,855 employees.")
    assert not hedged("22.38 GB", "You have used 22.38 GB, or 51% of your allowance.")
    assert not hedged("2026-03-05", "It leaves on March 5, 2026 (or in three weeks).")
    assert not hedged("2026-03-05", "It leaves on March 15, 2026 or March 5, 2026? No: it is March 5, 2026.")


def _field_results(**fields: list[str]) -> list[str]:
    return [json.dumps([{key: value} for value in values]) for key, values in fields.items()]


def test_a_name_is_hedged_by_another_value_of_its_field_and_not_by_other_words():
    results = _field_results(owner=["Paul Henderson", "Martha Matthews"], folder=["Planning"])
    hedges = Hedges(["Paul Henderson"], results)
    assert hedges.alternatives["Paul Henderson"] == {"martha matthews"}
    assert hedges.hedged("Paul Henderson", "The owner is Paul Henderson or Martha Matthews.")
    assert hedges.hedged("Paul Henderson", 'The owner is "Martha Matthews" or "Paul Henderson".')
    assert not hedges.hedged("Paul Henderson", "The owner is Paul Henderson, or his team.")
    assert hedges.hedged("Paul Henderson", "Is it Paul Henderson or Martha Matthews you mean?")
    assert not hedges.hedged("Paul Henderson", "The owner is Paul Henderson or Martha Matthews. To be exact: Paul Henderson.")
    # a plan name with a number: another plan is its alternative, not the number in it
    plans = Hedges(["Travel 20"], _field_results(plan_name=["Travel 20", "Basic 5"]))
    assert plans.hedged("Travel 20", "Your line is now on the Travel 20 or Basic 5 plan.")
    assert not plans.hedged("Travel 20", "Your line is now on the Travel 20 plan, or 20 GB of data.")


def test_other_answers_joined_by_or_are_a_list_not_a_hedge():
    hedges = Hedges(["Travel 20", "Plus 40", "$50.00"], _field_results(plan_name=["Travel 20", "Plus 40", "Basic 5"]))
    assert not hedges.hedged("Travel 20", "Roaming comes with Travel 20 or Plus 40.")
    assert hedges.hedged("Travel 20", "Roaming comes with Travel 20 or Basic 5.")
    assert not hedged("$10.00", "Either refill costs $10.00 or $20.00.", answers=["$20.00"])


def _values_of_its_fields(output: str, messages: list[dict]) -> list[str]:
    """Other texts the chat's results show in a field that shows `output` (the test's own reading)."""
    found: list[tuple[str, str]] = []

    def walk(data, key=None):
        if isinstance(data, dict):
            for k, v in data.items():
                walk(v, k)
        elif isinstance(data, list):
            for v in data:
                walk(v, key)
        elif isinstance(data, str):
            found.append((key, data))

    for m in messages:
        if m["role"] == "tool":
            try:
                walk(json.loads(m["content"]))
            except ValueError:
                pass
    keys = {k for k, v in found if v.lower() == output.lower()}
    return sorted({v for k, v in found if k in keys and v.lower() != output.lower() and len(v) >= 3})


@pytest.mark.parametrize("domain_name", ["telecom", "workplace", "travel"])
def test_a_name_hedged_in_gold_chats_does_not_earn_its_output(domain_name):
    """'Your line is now on the Travel 20 or Basic 5 plan', 'The owner is ... or ...': each named a
    value the chat's results showed, and scored 1.0."""
    domain = toolgym.load_domain(domain_name)
    tried = 0
    for task in domain.generate_tasks(60, seed=11):
        messages = gold_messages(domain, task)[0]
        replies = [i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("content")]
        for output in task.required_outputs:
            others = [v for v in _values_of_its_fields(output, messages)
                      if not any(v.lower() == o.lower() for o in task.required_outputs)]
            at = [i for i in replies if output.lower() in messages[i]["content"].lower()]
            if re.match(r"^[$#\d]", output) or not others or not at:
                continue
            spoiled = copy.deepcopy(messages)
            for i in at:  # every statement of it, or one said plainly elsewhere still states it
                spoiled[i]["content"] = re.sub(re.escape(output), lambda found, other=others[0]: f"{found.group(0)} or {other}",
                                               spoiled[i]["content"], flags=re.I)  # fmt: skip
            assert verify(task, messages).value == 1.0
            score = verify(task, spoiled)
            assert not score.passed and score.value < 1.0, (task.id, spoiled[at[-1]]["content"])
            tried += 1
            break
    assert tried >= 4, tried


@pytest.mark.parametrize(("name", "kind"), [("telecom", "single"), ("workplace", "parallel"), ("vehicle", "multi_step"),
                                            ("research", "single")])
def test_the_hedged_answer_spoil_fails_where_it_applies_and_the_gold_passes(name, kind):
    """With the checks of before, 26 of 40 such spoils of 50 tasks a domain scored 1.0."""
    assert spoil_fails_wherever_it_applies(name, kind, SPOILS["hedged_answer"]), f"no {name} {kind} final reply has an output to hedge"
