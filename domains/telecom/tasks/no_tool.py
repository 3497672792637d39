"""The no-tool kinds: point out a bad value, refuse by policy, or say a needed tool is unavailable
(asking for what is missing lives in `missing.py`). None of them changes the world."""

from __future__ import annotations

from toolgym.envs import Forbidden, GenContext, NoToolSpec, Segment, Task, Utterance, WorldEdit, call
from toolgym.errors import GeneratorBug

from ..catalogue import REFILLS, REGIONS
from .faults import unpaid_bill_edits
from .index import Subscriber, index_of
from .kinds import main_part
from .parts import agent, assemble, phone_fact
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
        bad = ctx.pick(BAD_REFILL_SIZES)
        request = f"{ctx.say('ask_refill', gb=bad)} {ctx.say('give_number', number=sub.phone_number)}"
        sizes = [r.gigabytes for r in REFILLS]
        parameter, label, problem = "gigabytes", "refill size", ctx.say("problem_refill_size", sizes=sizes)
    else:
        bad = ctx.pick(UNSERVED_CITIES)
        request = ctx.say("ask_outage", region=bad)
        parameter, label, problem = "region", "service region", ctx.say("problem_region", regions=list(REGIONS))
    part = Segment(
        request=request,
        goal=ctx.say("goal_invalid_value"),
        reply=Utterance(intent="point_out_invalid", vars={"value": f"{bad} GB" if parameter == "gigabytes" else bad,
                                                          "label": label, "problem": problem}),
        identifies=False,
    )  # fmt: skip
    spec = NoToolSpec(reason=f"{bad!r} is not a valid {label}: {problem}", invalid={parameter: bad})
    return assemble(ctx, None, [part], no_tool=spec)


# ---- policy_refusal ----------------------------------------------------------------------------


def _fraud_resume(ctx: GenContext, sub: Subscriber) -> Segment:
    return Segment(
        request=ctx.say("ask_resume_fraud"),
        goal=ctx.say("goal_resume_refused"),
        setup=[WorldEdit(table="line", key=sub.line_id, set={"status": "suspended", "suspension_reason": "fraud"})],
        steps=[agent(call("get_line_details", line_id=sub.line_id))],
        reply=Utterance(intent="refuse_policy", vars={"rule": ctx.say("rule_fraud")}),
        forbidden=[Forbidden(reason="never resume a line suspended for fraud", tool="resume_line")],
    )


def _resume_without_paying(ctx: GenContext, sub: Subscriber) -> Segment:
    return Segment(
        request=ctx.say("ask_resume_without_paying"),
        goal=ctx.say("goal_resume_refused"),
        setup=unpaid_bill_edits(sub),
        steps=[agent(call("get_line_details", line_id=sub.line_id)), agent(call("list_bills", account_id=sub.account_id))],
        reply=Utterance(intent="refuse_policy", vars={"rule": ctx.say("rule_unpaid")}),
        forbidden=[
            Forbidden(reason="overdue bills are paid before a resume", tool="resume_line"),
            Forbidden(reason="the customer did not agree to pay now", tool="make_payment"),
        ],
    )


def _old_refund(ctx: GenContext, sub: Subscriber) -> Segment:
    bill = sub.oldest_paid_bill
    assert bill.paid_at is not None
    return Segment(
        request=ctx.say("ask_refund_old", month=f"{bill.paid_at:%B}"),
        goal=ctx.say("goal_refund_refused"),
        steps=[agent(call("list_payments", account_id=sub.account_id))],
        reply=Utterance(intent="refuse_policy", vars={"rule": ctx.say("rule_refund_window")}),
        forbidden=[Forbidden(reason="refunds only for recent payments made in error", tool="refund_payment")],
    )


def policy_refusal(ctx: GenContext) -> Task:
    sub = ctx.pick(index_of(ctx.world).healthy)
    part = ctx.pick((_fraud_resume, _resume_without_paying, _old_refund))(ctx, sub)
    spec = NoToolSpec(reason=part.reply.vars["rule"])
    return assemble(ctx, sub, [part], withhold_phone=ctx.rng.random() < 0.3, no_tool=spec)


# ---- unavailable -------------------------------------------------------------------------------


def unavailable(ctx: GenContext) -> Task:
    """The account change the customer needs has its tool withheld: say so, call nothing."""
    index = index_of(ctx.world)
    for _ in range(50):  # a troubleshooting draw may need only phone steps: draw until one changes the account
        sub, part = main_part(ctx, index, 0.3, sorted(SERVICES))
        write = _first_account_change(ctx, part)
        if write is not None:
            break
    else:
        raise GeneratorBug("telecom unavailable: no draw needed an account change")
    # The customer was never identified (no call is made), so the reply names the action in
    # general words, never the account's amounts, bills or card endings.
    tool = write
    action = ctx.say(f"unavailable_{tool}")
    request = Segment(
        request=f"{part.request} {ctx.say('give_number', number=sub.phone_number)}",
        goal=part.goal,
        reply=Utterance(intent="decline_unavailable", vars={"action": action}),
        setup=part.setup,
        facts=[phone_fact(sub), *part.facts],
        withheld=part.withheld,
        identifies=False,
    )
    offered = [t.name for t in ctx.domain.agent_tools if t.name != tool]
    spec = NoToolSpec(reason=f"the tool {tool!r} is not available", withheld_tools=[tool], action=action)
    return assemble(ctx, sub, [request], tools=offered, no_tool=spec)


def _first_account_change(ctx: GenContext, part: Segment) -> str | None:
    """The name of the first account-changing tool the part calls."""
    for step in part.steps:
        for c in step.calls:
            if step.caller == "agent" and ctx.domain.tool(c.name).writes:
                return c.name
    return None
