"""The no-tool kinds: point out a bad value, refuse by policy, or say a needed tool is unavailable
(asking for what is missing lives in `missing.py`). None of them changes the world."""

from __future__ import annotations

from toolgym.envs import Forbidden, GenContext, Piece, Task, WorldEdit, call, draw, pieces, withholdable
from toolgym.envs.valid_values import nearest_allowed

from ..catalogue import REFILLS, REGIONS
from .faults import unpaid_bill_edits
from .index import Index, Subscriber, index_of
from .kinds import main_part
from .parts import agent, assemble, phone_fact, session_edit
from .service import SERVICES

# ---- invalid_value -----------------------------------------------------------------------------

UNSERVED_CITIES = ("Springfield", "Albany", "Omaha", "Reno", "Boise", "Tulsa", "Fargo", "Anchorage", "Honolulu")
BAD_REFILL_SIZES = (2, 4, 6, 7, 8, 15, 20, 25)
NUMBER_REQUESTS = ("ask_pay_bill", "ask_suspend_lost", "ask_resume_paused", "ask_lines_usage", "ask_account_overview")


def _mangled_number(ctx: GenContext, number: str) -> str:
    """A phone number that cannot be valid: a digit short, a digit too many, or a letter in it."""
    way = ctx.rng.randrange(3)
    if way == 0:
        return number[:-1]
    if way == 1:
        return number + str(ctx.rng.randrange(10))
    spot = ctx.rng.choice([i for i, ch in enumerate(number) if ch.isdigit()][3:])
    return number[:spot] + ctx.pick("OlIBS") + number[spot + 1 :]


def invalid_value(ctx: GenContext) -> Task:
    index = index_of(ctx.world)
    sub = ctx.pick(index.healthy)
    draw = ctx.rng.random()
    if draw < 0.45:
        bad: object = _mangled_number(ctx, sub.phone_number)
        request = f"{ctx.say(ctx.pick(NUMBER_REQUESTS))} {ctx.say('give_number', number=bad)}"
        parameter, label, problem = "phone_number", "phone number", ctx.say("problem_phone_number")
    elif draw < 0.75:
        size = ctx.pick(BAD_REFILL_SIZES)
        bad = size
        request = f"{ctx.say('ask_refill', gb=bad)} {ctx.say('give_number', number=sub.phone_number)}"
        sizes = [r.gigabytes for r in REFILLS]
        parameter, label, problem = "gigabytes", "refill size", ctx.say("problem_refill_size", sizes=sizes)
    else:
        bad = ctx.pick(UNSERVED_CITIES)
        request = ctx.say("ask_outage", region=bad)
        parameter, label, problem = "region", "service region", ctx.say("problem_region", regions=list(REGIONS))
    # the sizes the reply lists are read from the catalogue first, never said from memory
    steps = [agent(call("list_data_refills"))] if parameter == "gigabytes" else []
    # a city the network does not reach is where the user is, no slip: the reply says so, asks for no other
    goal = ctx.say("goal_unserved_region" if parameter == "region" else "goal_invalid_value")
    part = pieces.invalid_value(request, goal, parameter=parameter, value=bad, label=label,
                                problem=problem, steps=steps, unsupported=parameter == "region")  # fmt: skip
    if parameter == "gigabytes":  # said with its unit; the spec keeps the number the tool would get
        part.reply.vars["value"] = f"{bad} GB"
        part.reply.vars["valid"] = f"{nearest_allowed(size, [r.gigabytes for r in REFILLS]):g} GB"  # the catalogue read
    return assemble(ctx, None, [part])


# ---- policy_refusal ----------------------------------------------------------------------------


def _fraud_resume(ctx: GenContext, sub: Subscriber) -> Piece:
    return pieces.policy_refusal(
        ctx.say("ask_resume_fraud"),
        ctx.say("goal_resume_refused"),
        rule=ctx.say("rule_fraud"),
        forbidden=[Forbidden(reason="never resume a line suspended for fraud", tool="resume_line")],
        subject=sub.customer_id,
        setup=[WorldEdit(table="line", key=sub.line_id, set={"status": "suspended", "suspension_reason": "fraud"})],
        steps=[agent(call("get_line_details", line_id=sub.line_id))],
    )


def _resume_without_paying(ctx: GenContext, sub: Subscriber) -> Piece:
    return pieces.policy_refusal(
        ctx.say("ask_resume_without_paying"),
        ctx.say("goal_resume_refused"),
        rule=ctx.say("rule_unpaid"),
        forbidden=[
            Forbidden(reason="overdue bills are paid before a resume", tool="resume_line"),
            Forbidden(reason="the customer did not agree to pay now", tool="make_payment"),
        ],
        subject=sub.customer_id,
        setup=unpaid_bill_edits(sub),
        steps=[agent(call("get_line_details", line_id=sub.line_id)), agent(call("list_bills", account_id=sub.account_id))],
    )


def _old_refund(ctx: GenContext, sub: Subscriber) -> Piece:
    bill = sub.oldest_paid_bill
    assert bill.paid_at is not None
    return pieces.policy_refusal(
        ctx.say("ask_refund_old", month=f"{bill.paid_at:%B}"),
        ctx.say("goal_refund_refused"),
        rule=ctx.say("rule_refund_window"),
        forbidden=[Forbidden(reason="refunds only for recent payments made in error", tool="refund_payment")],
        subject=sub.customer_id,
        steps=[agent(call("list_payments", account_id=sub.account_id))],
    )


def policy_refusal(ctx: GenContext) -> Task:
    sub = ctx.pick(index_of(ctx.world).healthy)
    part = ctx.pick((_fraud_resume, _resume_without_paying, _old_refund))(ctx, sub)
    return assemble(ctx, sub, [part], withhold_phone=ctx.rng.random() < 0.3)


# ---- unavailable -------------------------------------------------------------------------------


def _needing_an_account_change(ctx: GenContext, index: Index) -> Piece | None:
    """A main request with its first account-changing tool withheld; None if it changes only the phone."""
    sub, part = main_part(ctx, index, 0.3, sorted(SERVICES))
    tool = _first_account_change(ctx, part)
    if tool is None:
        return None
    # The customer was never identified (no call is made), so the reply names the action in
    # general words, never the account's amounts, bills or card endings.
    action = ctx.say(f"unavailable_{tool}")
    piece = pieces.unavailable(
        f"{part.request} {ctx.say('give_number', number=sub.phone_number)}",
        part.goal,
        action=action,
        withheld=[tool],
        setup=[session_edit(sub), *part.setup],
        facts=[phone_fact(sub), *part.facts],
    )
    piece.withheld = list(part.withheld)  # facts given only when asked (`withheld=` above names tools)
    assert piece.no_tool is not None
    piece.no_tool = piece.no_tool.model_copy(update={"action": action})  # what the decline must name
    return piece


def unavailable(ctx: GenContext) -> Task:
    """The account change the customer needs has its tool withheld: say so, call nothing."""
    piece = draw(ctx, [_needing_an_account_change], index_of(ctx.world), tries=50)
    assert piece.no_tool is not None
    withheld = piece.no_tool.withheld_tools
    offered = [t.name for t in ctx.domain.agent_tools if t.name not in withheld]
    return assemble(ctx, None, [piece], tools=offered)


def _first_account_change(ctx: GenContext, part: Piece) -> str | None:
    """The name of the first account-changing tool the part calls to do what the customer asked
    (never a fix found by looking first: see `withholdable`)."""
    for step in part.steps:
        if not withholdable(step):
            continue
        for c in step.calls:
            if ctx.domain.tool(c.name).writes:
                return c.name
    return None
