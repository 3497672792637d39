"""Account requests without a broken phone: refunds, plan changes, suspensions, payments, roaming."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from toolgym.envs import Forbidden, GenContext, Piece, Utterance, WorldEdit, call, money

from ..catalogue import DESTINATIONS, PLANS, REFILLS
from .faults import payment_steps, refill_fact
from .index import Subscriber
from .parts import agent, plan_change, user

DUPLICATE_PAYMENT_ID = "PAY800001"
DECLINE_SHARE = 0.25  # requests where the customer, told the price, says no: the gold makes no change


def _declines(ctx: GenContext, declines: bool | None) -> bool:
    """Whether the customer says no to the change (`declines`, else drawn)."""
    return ctx.rng.random() < DECLINE_SHARE if declines is None else declines


def refund_duplicate(ctx: GenContext, sub: Subscriber) -> Piece:
    """The last bill was charged twice; the later charge is refunded, the first kept."""
    bill = sub.last_paid_bill
    assert bill.payment_id and bill.paid_at
    duplicate = {
        "payment_id": DUPLICATE_PAYMENT_ID,
        "account_id": sub.account_id,
        "bill_id": bill.bill_id,
        "method_id": sub.method_id,
        "amount": bill.amount,
        "paid_at": (bill.paid_at + dt.timedelta(minutes=ctx.rng.randrange(2, 600))).isoformat(),
        "status": "completed",
    }
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_refund_duplicate", month=f"{bill.due_date - dt.timedelta(days=21):%B}"),
        goal=ctx.say("goal_refund_duplicate"),
        setup=[
            WorldEdit(table="payment", insert=duplicate),
            WorldEdit(table="bill", key=bill.bill_id, set={"amount_paid": round(2 * bill.amount, 2)}),
        ],
        steps=[
            agent(call("list_payments", account_id=sub.account_id)),
            agent(
                call("refund_payment", payment_id=DUPLICATE_PAYMENT_ID),
                confirm=ctx.say("action_refund", payment_id=DUPLICATE_PAYMENT_ID, amount=bill.amount),
            ),
        ],
        reply=Utterance(intent="done_refund", vars={"amount": bill.amount, "payment_id": DUPLICATE_PAYMENT_ID}),
        outputs=[money(bill.amount)],
        forbidden=[Forbidden(reason="the first payment was the right one", tool="refund_payment", arguments={"payment_id": bill.payment_id})],
    )


def change_plan(ctx: GenContext, sub: Subscriber, declines: bool | None = None) -> Piece:
    choices = [p for p in PLANS if p.plan_id != sub.plan_id and (p.roaming_supported or not sub.roaming_enabled)]
    plan = ctx.pick(choices)
    # the line's plan and the catalogue's price are read before the price is quoted
    steps = [agent(call("get_line_details", line_id=sub.line_id)), agent(call("list_plans"))]
    steps.append(plan_change(ctx, sub, plan))
    reply = Utterance(intent="done_change_plan", vars={"plan": plan.name, "price": plan.monthly_price})
    outputs = [plan.name, money(plan.monthly_price)]
    if _declines(ctx, declines):  # the price heard, the customer keeps the plan they have
        steps[-1] = steps[-1].model_copy(update={"declined": True})
        reply = Utterance(intent="declined_change_plan", vars={"plan": plan.name, "current": sub.plan.name})
        outputs = [sub.plan.name]
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_change_plan", plan=plan.name),
        goal=ctx.say("goal_change_plan", plan=plan.name),
        steps=steps,
        reply=reply,
        outputs=outputs,
        forbidden=[
            Forbidden(reason="only the plan the customer named", tool="change_plan", arguments={"plan_id": p.plan_id})
            for p in PLANS
            if p.plan_id != plan.plan_id
        ]
        + [Forbidden(reason="the customer asked for a plan, not a refill", tool="add_data_refill")],
    )


def suspend_lost(ctx: GenContext, sub: Subscriber) -> Piece:
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_suspend_lost"),
        goal=ctx.say("goal_suspend_lost"),
        steps=[
            agent(
                call("suspend_line", line_id=sub.line_id, reason="lost_or_stolen"),
                confirm=ctx.say("action_suspend", number=sub.phone_number),
            )
        ],
        reply=Utterance(intent="done_suspend", vars={"number": sub.phone_number}),
        outputs=[sub.phone_number, "suspended"],
        forbidden=[Forbidden(reason="the phone was lost", tool="suspend_line", arguments={"reason": "customer_request"})],
    )


def resume_paused(ctx: GenContext, sub: Subscriber) -> Piece:
    """The customer paused the line themselves and wants it back: resume, then a speed test."""
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_resume_paused"),
        goal=ctx.say("goal_resume_paused"),
        setup=[WorldEdit(table="line", key=sub.line_id, set={"status": "suspended", "suspension_reason": "customer_request"})],
        steps=[
            agent(call("get_line_details", line_id=sub.line_id)),
            agent(call("resume_line", line_id=sub.line_id), confirm=ctx.say("action_resume", number=sub.phone_number)),
            user(ctx, "run_speed_test", "do_speed_test"),
        ],
        reply=Utterance(intent="done_resume", vars={"number": sub.phone_number}),
        outputs=[sub.phone_number, "active"],
        forbidden=[Forbidden(reason="nothing is owed", tool="make_payment")],
    )


def pay_open_bill(ctx: GenContext, sub: Subscriber, declines: bool | None = None) -> Piece:
    bill = sub.open_bill
    steps = payment_steps(ctx, sub, bill)
    reply = Utterance(intent="done_pay", vars={"amount": bill.amount, "bill_id": bill.bill_id})
    if _declines(ctx, declines):  # told the amount and the card, the customer would rather pay later
        steps[-1] = steps[-1].model_copy(update={"declined": True})
        reply = Utterance(intent="declined_pay", vars={"amount": bill.amount, "bill_id": bill.bill_id})
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_pay_bill"),
        goal=ctx.say("goal_pay_bill"),
        steps=steps,
        reply=reply,
        outputs=[money(bill.amount)],
    )


def roaming_for_trip(ctx: GenContext, sub: Subscriber) -> Piece:
    """Roaming before a trip; on a plan without roaming, the customer agrees to Travel 20 first."""
    country, _ = ctx.pick(DESTINATIONS)
    # the line shows its plan and roaming setting; the catalogue shows whether it roams and the fee
    steps = [agent(call("get_line_details", line_id=sub.line_id)), agent(call("list_plans"))]
    fee = sub.plan.roaming_daily_fee
    intent = "ask_roaming_trip"
    if not sub.plan.roaming_supported:
        travel = next(p for p in PLANS if p.plan_id == "travel_20")
        intent, fee = "ask_roaming_trip_new_plan", travel.roaming_daily_fee
        steps.append(plan_change(ctx, sub, travel))
    steps.append(
        agent(call("enable_roaming", line_id=sub.line_id), confirm=ctx.say("action_roaming", number=sub.phone_number, fee=fee))
    )
    return Piece(
        subject=sub.customer_id,
        request=ctx.say(intent, country=country),
        goal=ctx.say("goal_roaming_trip", country=country),
        steps=steps,
        reply=Utterance(intent="done_roaming_trip", vars={"country": country, "fee": fee}),
        outputs=[country] + ([money(fee)] if fee else []),
        forbidden=[Forbidden(reason="roaming is wanted on", tool="disable_roaming")],
    )


def roaming_off(ctx: GenContext, sub: Subscriber) -> Piece:
    """Back from a trip: roaming turned off on the line (read first: it shows roaming is on)."""
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_roaming_off"),
        goal=ctx.say("goal_roaming_off"),
        steps=[
            agent(call("get_line_details", line_id=sub.line_id)),
            agent(call("disable_roaming", line_id=sub.line_id), confirm=ctx.say("action_roaming_off", number=sub.phone_number)),
        ],
        reply=Utterance(intent="done_roaming_off", vars={"number": sub.phone_number}),
        outputs=["roaming"],
        forbidden=[Forbidden(reason="the customer asked for roaming off, not a suspended line", tool="suspend_line")],
    )


def buy_refill(ctx: GenContext, sub: Subscriber, declines: bool | None = None) -> Piece:
    refill = ctx.pick(REFILLS)
    steps = [
        agent(call("list_data_refills")),  # the price quoted is read, never assumed
        agent(
            call("add_data_refill", line_id=sub.line_id, gigabytes=refill.gigabytes),
            confirm=ctx.say("action_refill", gb=refill.gigabytes, price=refill.price, number=sub.phone_number),
        ),
    ]
    reply = Utterance(intent="done_refill_bought", vars={"gb": refill.gigabytes, "price": refill.price})
    if _declines(ctx, declines):  # the price heard, the customer does without
        steps[-1] = steps[-1].model_copy(update={"declined": True})
        reply = Utterance(intent="declined_refill", vars={"gb": refill.gigabytes, "price": refill.price})
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_refill_low" if sub.runs_low else "ask_refill", gb=refill.gigabytes),
        goal=ctx.say("goal_refill", gb=refill.gigabytes),
        facts=[refill_fact(refill.gigabytes)],
        steps=steps,
        reply=reply,
        outputs=[money(refill.price)],
        forbidden=[Forbidden(reason="the customer asked for a refill, not a new plan", tool="change_plan")],
    )


@dataclass(frozen=True)
class Service:
    build: Callable[[GenContext, Subscriber], Piece | None]
    fits: Callable[[Subscriber], bool] = lambda sub: True
    # the change built turned down, its reply saying what stays as it is (None: no price to say no to)
    declined: Callable[[GenContext, Subscriber], Piece | None] | None = None


SERVICES = {
    "refund_duplicate": Service(refund_duplicate),
    "change_plan": Service(change_plan, declined=partial(change_plan, declines=True)),
    "suspend_lost": Service(suspend_lost),
    "resume_paused": Service(resume_paused),
    "pay_open_bill": Service(pay_open_bill, declined=partial(pay_open_bill, declines=True)),
    "roaming_for_trip": Service(roaming_for_trip, lambda sub: not (sub.plan.roaming_supported and sub.roaming_enabled)),
    "buy_refill": Service(buy_refill, lambda sub: not sub.plan.unlimited, partial(buy_refill, declines=True)),
    "roaming_off": Service(roaming_off, lambda sub: sub.roaming_enabled),
}
