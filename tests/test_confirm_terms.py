"""The amounts a question asking for a yes states are named in the trace before it, under the result
that showed them (generators/confirm_terms.py)."""

from __future__ import annotations

import json

from toolgym.generators.confirm_terms import terms_stated


def _read(call_id: str, name: str, result: object) -> list[dict]:
    return [{"role": "assistant", "content": "", "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result, separators=(",", ":"))}]


def test_the_amounts_a_confirmation_states_are_named_under_the_result_that_showed_them():
    """'On record: the user gave "FB100057".' came before "I'll cancel booking FB100057 with a refund
    of $436.00 (fee $100.00)": the refund and the fee the yes is asked for were not traced to the quote."""
    chat = [{"role": "user", "content": "Please cancel booking FB100057."},
            *_read("c1", "get_booking", {"booking_id": "FB100057", "fare_paid": 536.0}),
            *_read("c2", "quote_cancellation", {"booking_id": "FB100057", "fee": 100.0, "refund": 436.0})]
    question = "I'll cancel booking FB100057 with a refund of $436.00 (fee $100.00). Okay to proceed?"
    # each as the field that shows it: which of the quote's figures is the refund, which the fee
    assert terms_stated(chat, question, 'the user gave "FB100057"') == 'quote_cancellation returned "refund":436.0 and "fee":100.0'
    # a question that states no amount names none; a whole number that names a card is no amount
    assert terms_stated(chat, "I'll cancel booking FB100057 on the card ending 3726. Okay?", "") == ""


def test_an_amount_the_user_gave_is_not_named_as_a_results_term():
    """A $500.00 loan payment the user asked for is theirs: the loan's monthly payment of 500.0 in a
    later result is not where it came from."""
    chat = [{"role": "user", "content": "Please pay $500.00 toward my loan."},
            *_read("c1", "list_loans", [{"loan_id": "L80036", "balance": 15205.61, "monthly_payment": 500.0}])]
    assert terms_stated(chat, "I'll pay $500.00 toward your loan, leaving $14,705.61. Proceed?", "") == ""
    # an amount shown only as a whole number is not found either (a gigabyte count, not a price)
    refills = [{"role": "user", "content": "I need more data."}, *_read("c1", "list_data_refills", [{"gigabytes": 10, "price": 45.0}])]
    assert terms_stated(refills, "I can add a 10 GB refill for $45.00. Okay?", "") == 'list_data_refills returned "price":45.0'


def test_the_trace_before_a_confirmation_names_its_terms():
    import toolgym
    from toolgym.envs.conversation import Move
    from toolgym.envs.task import Step, ToolCall
    from toolgym.generators.reasoning import trace

    domain = toolgym.load_domain("travel")
    task = next(iter(domain.generate_tasks(1, seed=3, kinds=["single"], size="small")))
    chat = [{"role": "user", "content": task.scenario.requests[0]},
            *_read("c1", "quote_cancellation", {"booking_id": "FB100057", "fee": 100.0, "refund": 436.0})]
    step = Step(calls=[ToolCall(name="cancel_booking", arguments={"booking_id": "FB100057"})], confirm="cancel FB100057")
    question = "I'll cancel booking FB100057 with a refund of $436.00 (fee $100.00). Okay to proceed?"
    traces = {trace(task, Move("confirm", step=step), domain.phrasebook, seed, chat, question) for seed in range(40)}
    assert all('quote_cancellation returned "refund":436.0 and "fee":100.0' in t for t in traces), sorted(traces)[:2]


def test_an_amount_is_named_by_a_field_of_money_where_another_field_shows_the_same_number():
    """'list_plans returned "data_gb":5.0' named the roaming fee of "$5.00 for each day you use it
    abroad": a plan's 5 GB came first in the result."""
    plans = [{"plan_id": "basic_5", "data_gb": 5.0, "monthly_price": 25.0, "roaming_daily_fee": 0.0},
             {"plan_id": "travel_20", "data_gb": 20.0, "monthly_price": 50.0, "roaming_daily_fee": 5.0}]
    chat = [{"role": "user", "content": "My phone has no service abroad."}, *_read("c1", "list_plans", plans)]
    question = "I'm ready to enable roaming on line 312-334-8194 ($5.00 for each day you use it abroad). Shall I?"
    assert terms_stated(chat, question, "") == 'list_plans returned "roaming_daily_fee":5.0'
