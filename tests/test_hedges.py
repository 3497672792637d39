"""An output offered beside alternatives of its kind is not stated (verifiers/hedges.py): a reply
naming every figure it read as "the answer, or ..." does not earn the outputs it had to state."""

from __future__ import annotations

import copy
import re

import pytest

import toolgym
from toolgym.envs.gold import gold_messages
from toolgym.verifiers import verify
from toolgym.verifiers.hedges import hedged


@pytest.mark.parametrize("reply", [
    "The rug is priced at $372.48 (or $173.01 or $468.10).",
    "You owe $173.01 or $372.48 on bill B101161.",
    "It costs $173.01, $468.10 or $372.48.",
    "Your flight leaves on 2026-03-05 or 2026-03-15.",
    "Your order is #W7016304 or #W7016305.",
    "It was paid either $372.48 or $12.00.",
])
def test_a_value_offered_with_alternatives_of_its_kind_is_hedged(reply):
    output = next(o for o in ("$372.48", "2026-03-05", "#W7016304") if o.lower() in reply.lower())
    assert hedged(output, reply), reply


@pytest.mark.parametrize("reply", [
    "The rug is priced at $372.48.",
    "The rug is $372.48, or about a third of your budget.",  # "or" before words, not a value
    "Should I refund $372.48 or $12.00?",  # a question offers a choice
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
