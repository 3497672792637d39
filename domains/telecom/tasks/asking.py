"""Requests the agent cannot finish without asking: a value only the customer can give, or a
choice among records of their account.

A missing value (the gold asks for it; no tool could find it):
- `outage_unplaced`: "is there an outage where I am" with no region.

Choices (the gold reads the candidates, names each, asks which; acting before the pick is a guess):
- `refill_unsized`: "add some data to my line" with no size: the refill sizes read are the candidates;
- `plan_unnamed`: "move me to another plan" with no plan named: the other plans (the policy: only
  the plan the customer names);
- `line_usage_which`: the data used on "one of the lines on my account";
- `refill_which_line`: a refill for one of the account's lines;
- `pay_with_which`: the open bill paid with one of two payment methods on file.
"""

from __future__ import annotations

from toolgym.envs import Fact, Forbidden, GenContext, Piece, Utterance, call, money, structures

from ..catalogue import PLANS, REFILLS
from .faults import refill_fact
from .index import AccountLine, Index, Subscriber
from .lookups import outage_answer, pick_region
from .parts import agent, gb, plan_change

LINE_ID_WORDS = ["line id"]
MOST_LINES = 3


def refill_unsized(ctx: GenContext, sub: Subscriber) -> Piece | None:
    """A refill without its size, asked by a customer running low on data (every phrasing says so):
    the sizes read from the catalogue are the candidates, the customer picks."""
    if not sub.runs_low:
        return None
    refill = ctx.pick(REFILLS)
    piece = Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_refill_unsized"),
        goal=ctx.say("goal_refill", gb=refill.gigabytes),
        steps=[
            agent(call("list_data_refills")),  # the sizes and prices the customer chooses from
            agent(
                call("add_data_refill", line_id=sub.line_id, gigabytes=refill.gigabytes),
                confirm=ctx.say("action_refill", gb=refill.gigabytes, price=refill.price, number=sub.phone_number),
            ),
        ],
        reply=Utterance(intent="done_refill_bought", vars={"gb": refill.gigabytes, "price": refill.price}),
        outputs=[money(refill.price)],
        keys=frozenset({"refill", sub.line_id}),
        forbidden=[Forbidden(reason="the customer asked for a refill, not a new plan", tool="change_plan")],
    )
    return structures.ask_which(
        piece, label="refill", what="data refill sizes", options=[gb(r.gigabytes) for r in REFILLS],
        described=[f"{gb(r.gigabytes)} for {money(r.price)}" for r in REFILLS], answer=f"the {gb(refill.gigabytes)} one",
        question="ask_pick",
    )  # fmt: skip


def plan_unnamed(ctx: GenContext, sub: Subscriber) -> Piece | None:
    """A plan change without the plan: every other plan of the catalogue is a candidate, the customer names one
    (the policy: only the plan the customer names)."""
    others = [p for p in PLANS if p.plan_id != sub.plan_id]
    plan = ctx.pick([p for p in others if p.roaming_supported or not sub.roaming_enabled])
    piece = Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_change_plan_unnamed"),
        goal=ctx.say("goal_change_plan", plan=plan.name),
        steps=[
            agent(call("get_line_details", line_id=sub.line_id)),
            agent(call("list_plans")),
            plan_change(ctx, sub, plan),
        ],
        reply=Utterance(intent="done_change_plan", vars={"plan": plan.name, "price": plan.monthly_price}),
        outputs=[plan.name, money(plan.monthly_price)],
        keys=frozenset({"plan", sub.line_id}),
        forbidden=[
            Forbidden(reason="only the plan the customer named", tool="change_plan", arguments={"plan_id": p.plan_id})
            for p in others
            if p.plan_id != plan.plan_id
        ]
        + [Forbidden(reason="the customer asked for a plan, not a refill", tool="add_data_refill")],
    )
    return structures.ask_which(
        piece, label="plan", what="other plans", options=[p.name for p in others],
        described=[f"{p.name} at {money(p.monthly_price)} a month" for p in others], answer=f"the {plan.name} plan",
        question="ask_pick",  # the customer asked for a change of plan, naming none: theirs to pick
    )  # fmt: skip


def outage_unplaced(ctx: GenContext, index: Index) -> Piece:
    """An outage question from someone who does not say where they are: the region is asked."""
    region = pick_region(ctx, index)
    answer, outputs = outage_answer(index, region)
    fact = Fact(key="region", value=region, label="region", keywords=["region", "area", "where"])
    return Piece(
        request=ctx.say("ask_outage_unplaced"),
        goal=ctx.say("goal_outage", region=region) + " " + ctx.say("goal_region_when_asked", region=region),
        steps=[agent(call("check_outages", region=region), needs=(fact.key,))],
        reply=Utterance(intent="answer_outages", vars={"answers": [answer]}),
        outputs=outputs,
        facts=[fact],
        withheld=[fact.key],
        keys=frozenset({f"outage:{region}"}),
    )


def _ending(number: str) -> str:
    return number[-4:]


def _active_lines(sub: Subscriber) -> list[AccountLine]:
    """The account's active lines (of its first `MOST_LINES`), the customer's own first."""
    return [line for line in [sub.own_line, *sub.other_lines][:MOST_LINES] if line.status == "active"]


def _which_line(piece: Piece, lines: list[AccountLine], chosen: AccountLine, step: int = -1) -> Piece | None:
    """`piece` asks which of the account's `lines` (named by number) is meant, and finds its id."""
    if len({_ending(line.phone_number) for line in lines}) < len(lines):
        return None  # the customer tells them apart by the last four digits
    piece = structures.ask_which(
        piece, label="line", what="lines on your account", options=[line.phone_number for line in lines],
        answer=f"the one ending in {_ending(chosen.phone_number)}", step=step,
    )  # fmt: skip
    return structures.looked_up(piece, label="line id", value=chosen.line_id, keywords=LINE_ID_WORDS)


def _others(sub: Subscriber, lines: list[AccountLine]) -> list[AccountLine]:
    """The lines a customer means by "one of the lines on my account": the caller, who gave their
    own number to be found, would have named it."""
    return [line for line in lines if line.line_id != sub.line_id]


def line_usage_which(ctx: GenContext, sub: Subscriber) -> Piece | None:
    """Data use of another line of the account: every active line is a candidate the agent names."""
    lines = _active_lines(sub)
    if len(lines) < 2:
        return None
    chosen = ctx.pick(_others(sub, lines))
    piece = Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_line_usage_which"),
        goal=ctx.say("goal_line_usage_which", ending=_ending(chosen.phone_number)),
        steps=[
            agent(call("get_customer_details", customer_id=sub.customer_id)),
            agent(call("get_line_details", line_id=chosen.line_id)),
        ],
        reply=Utterance(intent="answer_line_usage_which", vars={"number": chosen.phone_number, "used": gb(chosen.data_used_gb)}),
        outputs=[gb(chosen.data_used_gb)],
        keys=frozenset({"lines", *(line.line_id for line in lines)}),
    )
    return _which_line(piece, lines, chosen)


def refill_which_line(ctx: GenContext, sub: Subscriber) -> Piece | None:
    """A refill of a named size for another line of the account: every active line is a candidate the
    agent names, the customer picks one that is not their own."""
    lines = _active_lines(sub)
    # most are running low
    refillable = [line for line in _others(sub, lines) if not line.plan.unlimited]
    if len(lines) < 2 or not refillable:
        return None
    chosen = ctx.pick([line for line in refillable if line.runs_low] or refillable)
    refill = ctx.pick(REFILLS)
    piece = Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_refill_which_line_low" if chosen.runs_low else "ask_refill_which_line", gb=refill.gigabytes),
        goal=ctx.say("goal_refill_which_line", gb=refill.gigabytes, ending=_ending(chosen.phone_number)),
        steps=[
            agent(call("get_customer_details", customer_id=sub.customer_id)),
            agent(call("list_data_refills")),
            agent(
                call("add_data_refill", line_id=chosen.line_id, gigabytes=refill.gigabytes),
                confirm=ctx.say("action_refill", gb=refill.gigabytes, price=refill.price, number=chosen.phone_number),
            ),
        ],
        reply=Utterance(intent="done_refill_line", vars={"gb": refill.gigabytes, "price": refill.price, "number": chosen.phone_number}),
        outputs=[money(refill.price)],
        facts=[refill_fact(refill.gigabytes)],
        keys=frozenset({"refill", "lines", *(line.line_id for line in lines)}),
        forbidden=[Forbidden(reason="the customer asked for a refill, not a new plan", tool="change_plan")],
    )
    return _which_line(piece, lines, chosen)


def pay_with_which(ctx: GenContext, sub: Subscriber) -> Piece | None:
    """The open bill paid in full with one of the payment methods on file, the one the customer picks."""
    if len(sub.methods) < 2 or len({m.last4 for m in sub.methods}) < len(sub.methods):
        return None
    method = ctx.pick(sub.methods)
    bill = sub.open_bill
    named = ctx.say("method_" + method.kind, last4=method.last4)
    piece = Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_pay_bill_which"),
        goal=ctx.say("goal_pay_bill_which", ending=method.last4),
        steps=[
            agent(call("list_bills", account_id=sub.account_id)),
            agent(call("get_customer_details", customer_id=sub.customer_id)),
            agent(
                call("make_payment", bill_id=bill.bill_id, method_id=method.method_id, amount=bill.amount),
                confirm=ctx.say("action_pay", amount=bill.amount, bill_id=bill.bill_id, method=named, suspended=False,
                                number=sub.phone_number),
            ),
        ],
        reply=Utterance(intent="done_pay", vars={"amount": bill.amount, "bill_id": bill.bill_id}),
        outputs=[money(bill.amount)],
        keys=frozenset({"payment", *(m.method_id for m in sub.methods)}),
    )
    return structures.ask_which(
        piece, label="payment method", what="payment methods on your account", options=[m.last4 for m in sub.methods],
        described=[ctx.say("method_" + m.kind, last4=m.last4) for m in sub.methods],
        answer=f"the {method.kind.replace('_', ' ')} ending in {method.last4}", question="ask_pick",
    )  # fmt: skip


CHOICES = {"refill_unsized": refill_unsized, "plan_unnamed": plan_unnamed, "line_usage_which": line_usage_which,
           "refill_which_line": refill_which_line, "pay_with_which": pay_with_which}  # fmt: skip
