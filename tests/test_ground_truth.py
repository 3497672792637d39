"""Ground truth: grounded facts, consent, diagnosis, what no-tool replies say, and the spoil suite."""

from __future__ import annotations

import pytest

from tests.conftest import heavy_domains
from toolgym.envs.diff import Diff
from toolgym.envs.gold import gold_messages
from toolgym.envs.grounding import stated_facts, ungrounded_facts
from toolgym.envs.registry import list_domains, load_domain
from toolgym.envs.task import NoToolSpec, Scenario, Step, Task, ToolCall, Utterance
from toolgym.envs.trajectory import Trajectory
from toolgym.verifiers.conduct import consent, diagnosis, final_answer, repeats
from toolgym.verifiers.replies import reply_content

DOMAINS = [name for name in list_domains() if name != "toy"]


# ---- stated_facts / ungrounded_facts ---------------------------------------------------------


def test_stated_facts_finds_every_kind_of_fact():
    text = (
        "I refunded $1,234.50 to your Mastercard card ending in 0345 for order #W2378156 on March 4, 2026 "
        "at 2:30 PM; 5 GB were added and line 415-555-0123 is active."
    )
    facts = stated_facts(text)
    for expected in ("$1,234.50", "ending in 0345", "Mastercard", "#W2378156", "March 4, 2026", "2:30 PM", "5 GB", "415-555-0123"):
        assert expected in facts, (expected, facts)
    assert stated_facts("Sure, I can help with that. What would you like to do?") == []


def _chat(*turns: tuple[str, str]) -> list[dict]:
    return [{"role": role, "content": content} for role, content in turns]


def test_formatting_variants_count_as_seen():
    chat = _chat(
        ("system", "policy"),
        ("user", "What did I pay?"),
        ("tool", '{"amount": 1234.5, "date": "2026-03-04T14:30:00", "brand": "amex", "last_four": "0345"}'),
        ("assistant", "You paid $1,234.50 on March 4, 2026 at 2:30 PM with your American Express card ending in 0345."),
    )
    assert ungrounded_facts(chat) == []


def test_a_time_inside_a_date_time_counts_as_seen():
    chat = _chat(("tool", '{"expected_end": "2025-03-14 12:00"}'), ("assistant", "The outage should end at 12:00 on March 14, 2025."))
    assert ungrounded_facts(chat) == []


def test_long_digit_runs_are_one_fact_and_amounts_in_words_still_count():
    # a model may send any text; a number is read whole, not once per digit it starts at
    assert stated_facts("9" * 5_000) == ["9" * 5_000]
    assert stated_facts("it came to 1,234.50 USD, not 99 dollars") == ["1,234.50 USD", "99 dollars"]
    assert stated_facts("to my dismay 4 items broke; on May 4 it shipped") == ["May 4", "4 items"]


def test_a_number_said_as_rounded_is_grounded_by_the_figure_it_rounds():
    """'That works out to 1,765.09 feet.' was the only grounded way to give a converted elevation:
    'about 1,765 feet' is seen in 1765.09, and 'about 1,766' (a wrong rounding) is not."""
    shown = ("tool", '{"value": 1765.09, "unit": "ft"}')
    assert ungrounded_facts(_chat(shown, ("assistant", "That works out to about 1,765 feet."))) == []
    assert ungrounded_facts(_chat(("tool", '{"value": 890.62}'), ("assistant", "In feet: about 891."))) == []
    assert [f.fact for f in ungrounded_facts(_chat(shown, ("assistant", "That is about 1,766 feet.")))] == ["about 1,766"]
    assert [f.fact for f in ungrounded_facts(_chat(shown, ("assistant", "That is 1,765 feet.")))] == ["1,765"]  # said exact, it is not

def test_every_month_spelling_reads_as_a_date_and_no_other_word_does():
    from toolgym.envs.grounding import _MONTHS, extract_facts

    for name, number in _MONTHS.items():
        for spelled in (name, name.capitalize(), name.upper()):
            assert [(f.text, f.value) for f in extract_facts(f"on {spelled} 4")] == [(f"{spelled} 4", f"{number:02d}-04")]
            assert stated_facts(f"the 4th of {spelled}, 2026") == [f"4th of {spelled}, 2026"], spelled
    assert stated_facts("marching 4 junk 5 mayor 6 septa 7") == []


def test_unseen_facts_are_named_with_their_turn():
    chat = _chat(
        ("system", "policy"),
        ("user", "Refund order #W100200, please."),
        ("tool", '{"order_id": "#W100200", "total": 59.4, "payment_method_id": "credit_card_7009466"}'),
        ("assistant", "I refunded $59.40 for order #W100200 to your Visa card ending in 3289."),
    )
    bad = ungrounded_facts(chat)
    assert {(f.kind, f.fact) for f in bad} == {("ending", "ending in 3289"), ("brand", "Visa")}
    assert all(f.turn == 0 and f.message_index == 3 for f in bad)
    assert "turn 0" in bad[0].describe()


def test_own_call_arguments_are_seen_but_own_words_are_not():
    chat = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "find", "arguments": {"order_id": "#W555123"}}}]},
        {"role": "assistant", "content": "Order #W555123 costs $12.00."},
        {"role": "assistant", "content": "Again: $12.00."},
    ]
    facts = [(f.turn, f.fact) for f in ungrounded_facts(chat)]
    assert facts == [(1, "$12.00"), (2, "$12.00")]


# ---- consent, diagnosis, final answer, repeats -----------------------------------------------


def _task(**fields) -> Task:
    base = dict(
        domain="retail",
        domain_version=0,
        world_seed=0,
        world_size="small",
        kind="single",
        seed=1,
        scenario=Scenario(persona="p", goal="g", requests=["Cancel order #W1000001."]),
        tools=["cancel_pending_order"],
        replies=[Utterance(intent="x")],
        required_outputs=["#W1000001"],
    )
    base.update(fields)
    return Task(**base)


def _trajectory(task: Task, messages: list[dict]) -> Trajectory:
    return Trajectory(task=task, messages=messages, state_hash="", diff=Diff([], [], []), terminated=True)


_CANCEL = ToolCall(name="cancel_pending_order", arguments={"order_id": "#W1000001", "reason": "no longer needed"})


def _call(call: ToolCall, index: int = 0) -> list[dict]:
    return [
        {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{index}", "type": "function", "function": {"name": call.name, "arguments": dict(call.arguments)}}]},
        {"role": "tool", "tool_call_id": f"c{index}", "content": '{"order_id": "#W1000001", "status": "cancelled"}'},
    ]


def test_consent_needs_a_named_question_and_a_yes():
    task = _task(plan=[Step(calls=[_CANCEL], confirm="cancel order #W1000001")])
    opening = _chat(("system", "policy"), ("user", "Cancel order #W1000001."))
    asked = _chat(("assistant", "To confirm: cancel order #W1000001. Shall I go ahead (yes/no)?"), ("user", "Yes, please go ahead."))
    assert consent(task, _trajectory(task, opening + asked + _call(_CANCEL))).passed
    rash = consent(task, _trajectory(task, opening + _call(_CANCEL)))
    assert not rash.passed and rash.value == 0.0
    refused = _chat(("assistant", "To confirm: cancel order #W1000001. Shall I go ahead (yes/no)?"), ("user", "No, please don't."))
    assert not consent(task, _trajectory(task, opening + refused + _call(_CANCEL))).passed
    vague = _chat(("assistant", "Shall I go ahead (yes/no)?"), ("user", "Yes."))
    assert not consent(task, _trajectory(task, opening + vague + _call(_CANCEL))).passed


def test_two_guarded_writes_of_one_tool_each_need_their_own_yes():
    other = ToolCall(name="cancel_pending_order", arguments={"order_id": "#W2000002", "reason": "no longer needed"})
    task = _task(plan=[Step(calls=[_CANCEL], confirm="cancel order #W1000001"), Step(calls=[other], confirm="cancel order #W2000002")])
    opening = _chat(("system", "policy"), ("user", "Cancel orders #W1000001 and #W2000002."))
    first = _chat(("assistant", "To confirm: cancel order #W1000001. Shall I go ahead?"), ("user", "Yes."))
    second = _chat(("assistant", "And #W2000002 as well. Shall I go ahead?"), ("user", "Yes, go ahead."))
    assert consent(task, _trajectory(task, opening + first + _call(_CANCEL) + second + _call(other, 1))).passed
    # the second cancel made on the strength of the first yes has no consent of its own
    rash = consent(task, _trajectory(task, opening + first + _call(_CANCEL) + _call(other, 1)))
    assert not rash.passed and "message" in rash.details["problems"][0]


def test_diagnosis_needs_the_fault_shown_before_the_fix():
    fix = ToolCall(name="toggle_airplane_mode", arguments={})
    task = _task(domain="telecom", plan=[Step(calls=[fix], caller="user", evidence=["airplane mode: on"])])
    user_fix = [
        {"role": "assistant", "content": "Please turn airplane mode off."},
        {"role": "user", "content": None, "user_tool_calls": [{"name": "toggle_airplane_mode", "arguments": {}}]},
    ]
    shown = _chat(("system", "policy"), ("user", "No signal."), ("assistant", "What does the status bar show?"), ("user", "It shows Airplane mode: ON."))
    assert diagnosis(task, _trajectory(task, shown + user_fix)).passed
    blind = _chat(("system", "policy"), ("user", "No signal."))
    assert not diagnosis(task, _trajectory(task, blind + user_fix)).passed


def test_final_answer_and_repeats():
    task = _task(plan=[Step(calls=[_CANCEL])])
    opening = _chat(("system", "policy"), ("user", "Cancel order #W1000001."))
    good = opening + _call(_CANCEL) + _chat(("assistant", "Order #W1000001 is now cancelled."))
    assert final_answer(task, _trajectory(task, good)).passed
    for lazy in ("", "OK.", "Done, it's all taken care of."):
        assert not final_answer(task, _trajectory(task, opening + _call(_CANCEL) + _chat(("assistant", lazy)))).passed, lazy
    said_early = opening + _chat(("assistant", "I'll cancel #W1000001.")) + _call(_CANCEL) + _chat(("assistant", "It is cancelled now, anything else I can do for you today?"))
    assert not final_answer(task, _trajectory(task, said_early)).passed
    assert repeats(task, _trajectory(task, good)).passed
    assert not repeats(task, _trajectory(task, opening + _call(_CANCEL) + _call(_CANCEL, 1))).passed


# ---- what no-tool replies say ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "spec", "vars_", "good", "bad"),
    [
        ("no_tool/irrelevant", NoToolSpec(reason="r"), {"scope": "orders, returns and exchanges"},
         "Sorry, I can't help with that; I can only help with orders, returns and exchanges.", "Sure, Lisbon will be sunny."),
        ("no_tool/missing_info", NoToolSpec(reason="r", missing=["order id"], about="your"),
         {}, "Could you tell me your order id?", "Could you tell me the email?"),
        ("no_tool/unavailable", NoToolSpec(reason="r", withheld_tools=["cancel_pending_order"]), {"action": "cancel order #W1000001"},
         "I'm sorry, I can't cancel order #W1000001 right now.", "Done, your order #W1000001 is cancelled."),
        ("no_tool/invalid_value", NoToolSpec(reason="r", invalid={"order_id": "#W12"}), {"problem": "order ids have 7 digits"},
         "#W12 isn't a valid order id: order ids have 7 digits.", "Could you give me your order id?"),
        ("no_tool/policy_refusal", NoToolSpec(reason="r"), {"rule": "delivered orders cannot be cancelled"},
         "I'm sorry, delivered orders cannot be cancelled.", "I'm sorry, I can't do that."),
    ],
)  # fmt: skip
def test_no_tool_replies_say_what_the_kind_requires(kind, spec, vars_, good, bad):
    task = _task(kind=kind, no_tool=spec, replies=[Utterance(intent="x", vars=vars_)], required_outputs=[])
    opening = _chat(("system", "policy"), ("user", "..."))
    assert reply_content(task, _trajectory(task, opening + _chat(("assistant", good)))).passed
    for cheap in (bad, "OK.", "Done, it's all taken care of.", ""):
        assert not reply_content(task, _trajectory(task, opening + _chat(("assistant", cheap)))).passed, cheap


# ---- the spoil suite and the gold on every built-in domain -----------------------------------


def test_every_spoil_kind_applies_to_some_built_in_task():
    from toolgym.verifiers.spoil import SPOIL_KINDS, spoil_coverage

    applied: set[str] = set()
    for name in DOMAINS:
        domain = load_domain(name)
        for kinds in spoil_coverage(name, domain.generate_tasks(10 * len(domain.kinds), seed=5)).values():
            applied |= kinds
    # no_diagnosis needs fix steps that carry Step.evidence (telecom's troubleshooting, issue #8)
    assert set(SPOIL_KINDS) <= applied, f"no built-in task lets these spoils apply: {set(SPOIL_KINDS) - applied}"


@pytest.mark.parametrize("name", heavy_domains())
def test_gold_is_grounded_diagnosed_and_grammatical_on_1000_tasks_per_kind(name):
    """Issue #8's bar: 0 ungrounded gold turns and 0 fixes before their fault was shown; and
    issue #9's: no turn with a slip of the grammar classes it lists. Every kind makes its 1,000 tasks
    with 1,000 distinct ids."""
    from toolgym.generators.inspection.grammar import GRAMMAR_CLASSES, grammar_findings

    assert set(GRAMMAR_CLASSES) >= {
        "doubled_word", "lowercase_my_opening", "capital_after_comma", "card_doubled", "a_before_vowel_or_plural",
        "currently_finished_event", "raw_payment_id", "it_after_two_things",
    }  # fmt: skip  (the issue's classes; inspection may count more, and this test checks them all)
    domain = load_domain(name)
    ungrounded: list[str] = []
    undiagnosed: list[str] = []
    rows: list[dict] = []
    for kind in domain.kinds:
        ids: set[str] = set()
        # streamed: each task's gold chat, played when generation proved it, is still remembered
        for task in domain.iter_tasks(1000, seed=0, kinds=[kind]):
            ids.add(task.id)
            messages, verification = gold_messages(domain, task)
            schemas = [{"role": "system", "content": str(domain.schemas(task.tools))}]
            ungrounded += [f"{kind} {task.id}: {f.describe()}" for f in ungrounded_facts(schemas + messages)]
            if verification.components.get("diagnosis", 1.0) < 1.0:
                undiagnosed.append(f"{kind} {task.id}: {verification.details.get('diagnosis')}")
            rows.append({"domain": name, "kind": kind, "messages": messages})
        assert len(ids) == 1000, f"{kind}: {len(ids)} distinct task ids in 1,000 tasks"  # a pool at scale never repeats
    assert not ungrounded, f"{len(ungrounded)} ungrounded facts, e.g. {ungrounded[:5]}"
    assert not undiagnosed, f"{len(undiagnosed)} fixes before evidence, e.g. {undiagnosed[:5]}"
    slips = {name: tally for name, tally in grammar_findings(rows).items() if tally.turns}
    assert not slips, f"grammar slips: {slips}"


# ---- a confirmation the user declines --------------------------------------------------------


def test_a_declined_step_is_asked_refused_and_never_made(toy_domain):
    from toolgym.envs.generation import finalize
    from toolgym.generators.rows import with_closer
    from toolgym.verifiers.regrade import verify

    base = toy_domain.generate_tasks(1, seed=3, kinds=["single"])[0]
    account_id = base.required_outputs[0]
    declined = finalize(
        toy_domain,
        base.model_copy(
            update={
                "id": "",
                "plan": [base.plan[0], base.plan[1].model_copy(update={"declined": True})],
                "replies": [Utterance(intent="kept_open", vars={"account_id": account_id})],
            }
        ),
    )  # finalize plays the gold conversation: it must pass its own verifier
    assert declined.expected_writes == 0
    messages, verification = gold_messages(toy_domain, declined)
    assert verification.passed and verification.value == 1.0
    users = [m.get("content") or "" for m in messages if m["role"] == "user"]
    assert any(u.startswith(("No", "Actually, no")) for u in users), users
    assert not any(c["function"]["name"] == "close_account" for m in messages for c in m.get("tool_calls") or [])
    assert with_closer(declined, messages)[-1]["content"] != messages[-1].get("content")
    # Closing the account anyway, after the user's no, is a forbidden action.
    rash = [*messages[:-2], *_call(declined.plan[1].calls[0]), *messages[-2:]]
    score = verify(declined, rash)
    assert not score.passed and score.value == 0.0


def test_an_unavailable_task_withholds_only_a_write_its_first_request_asks_for():
    from toolgym.envs import withholdable

    write = [ToolCall(name="cancel_order", arguments={"order_id": "W1"})]
    assert withholdable(Step(calls=write))
    assert not withholdable(Step(calls=write, evidence=["status: suspended"]))  # a fix for a fault found first
    assert not withholdable(Step(calls=write, segment=1))  # a later request: not in the unavailable chat
    assert not withholdable(Step(calls=write, caller="user"))
