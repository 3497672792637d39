"""Questions answered by reading: outages, the plan catalogue, refills, usage and bills.

`SINGLE` parts make exactly one call (`account_lookup` none of its own: identifying the customer
is the one call); `PARALLEL` parts make independent calls together.
"""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Step, Utterance, call, money

from ..catalogue import PLANS, REFILLS, REGIONS
from .index import Index, Subscriber
from .parts import agent, gb
from .people import CONTACTS


def outage_answer(index: Index, region: str) -> tuple[str, list[str]]:
    end = index.outages.get(region)
    if end is None:
        clear = f"{region} has no active outage"  # the region with its state: a bare "no outage" could be another's
        return clear, [clear]
    return f"{region} has an outage that should end by {end:%H:%M}", [f"{end:%H:%M}"]


def pick_region(ctx: GenContext, index: Index) -> str:
    if index.outages and ctx.rng.random() < 0.35:
        return ctx.pick(sorted(index.outages))
    return ctx.pick(REGIONS)


def outage_question(ctx: GenContext, index: Index) -> Piece:
    region = pick_region(ctx, index)
    answer, outputs = outage_answer(index, region)
    # asked for the customer's own sake, or for someone they know who is there
    intent = ctx.pick(("ask_outage", "ask_outage_for"))
    return Piece(
        request=ctx.say(intent, region=region, who=ctx.pick(CONTACTS)),
        goal=ctx.say("goal_outage", region=region),
        steps=[agent(call("check_outages", region=region))],
        reply=Utterance(intent="answer_outages", vars={"answers": [answer]}),
        outputs=outputs,
    )


def plan_price(ctx: GenContext, index: Index) -> Piece:
    plan = ctx.pick(PLANS)
    data = "unlimited data" if plan.unlimited else f"{gb(plan.data_gb)} of data"
    return Piece(
        request=ctx.say("ask_plan_price", plan=plan.name),
        goal=ctx.say("goal_plan_price", plan=plan.name),
        steps=[agent(call("list_plans"))],
        reply=Utterance(intent="answer_plan_price", vars={"plan": plan.name, "price": plan.monthly_price, "data": data}),
        outputs=[money(plan.monthly_price)],
    )


def roaming_plans(ctx: GenContext, index: Index) -> Piece:
    names = [p.name for p in PLANS if p.roaming_supported]
    return Piece(
        request=ctx.say("ask_roaming_plans"),
        goal=ctx.say("goal_roaming_plans"),
        steps=[agent(call("list_plans"))],
        reply=Utterance(intent="answer_roaming_plans", vars={"plans": names}),
        outputs=names,
    )


def cheapest_plan(ctx: GenContext, index: Index) -> Piece:
    need = ctx.pick((3, 5, 10, 15, 20, 30, 40))
    plan = _cheapest_with(need)
    return Piece(
        request=ctx.say("ask_cheapest_plan", gb=need),
        goal=ctx.say("goal_cheapest_plan", gb=need),
        steps=[agent(call("list_plans"))],
        reply=Utterance(intent="answer_cheapest_plan", vars={"plan": plan.name, "price": plan.monthly_price, "gb": need}),
        outputs=[plan.name, money(plan.monthly_price)],
    )


def refill_price(ctx: GenContext, index: Index) -> Piece:
    refill = ctx.pick(REFILLS)
    return Piece(
        request=ctx.say("ask_refill_price", gb=refill.gigabytes),
        goal=ctx.say("goal_refill_price", gb=refill.gigabytes),
        steps=[agent(call("list_data_refills"))],
        reply=Utterance(intent="answer_refill_price", vars={"gb": refill.gigabytes, "price": refill.price}),
        outputs=[money(refill.price)],
    )


def _cheapest_with(gigabytes: float):
    return min((p for p in PLANS if p.unlimited or p.data_gb >= gigabytes), key=lambda p: p.monthly_price)


# What a customer may ask about their own account that identifying them answers: the topic of
# the `ask_my_<topic>` phrasings, and the fields of `find_customer_by_phone` the reply states.
# Only what a customer meets on paper (a customer or account number on a letter or bill, the
# holder's name): the line id is internal and no customer asks for it.
ACCOUNT_TOPICS = {
    "customer_id": ("customer_id",),
    "account_id": ("account_id",),
    "holder": ("full_name",),
    "account": ("account_id", "full_name"),
}


def account_lookup(ctx: GenContext, sub: Subscriber) -> Piece:
    """The customer wants an id or the name on their account: the lookup by phone number is the whole job."""
    topic = ctx.pick(sorted(ACCOUNT_TOPICS))
    record = {"customer_id": sub.customer_id, "account_id": sub.account_id, "full_name": sub.full_name,
              "line_id": sub.line_id, "number": sub.phone_number}  # fmt: skip
    return Piece(
        subject=sub.customer_id,
        request=ctx.say(f"ask_my_{topic}"),
        goal=ctx.say(f"goal_my_{topic}"),
        reply=Utterance(intent=f"answer_my_{topic}", vars=record),
        outputs=[record[f] for f in ACCOUNT_TOPICS[topic]],
    )


# ---- parallel ------------------------------------------------------------------------------


def lines_usage(ctx: GenContext, sub: Subscriber) -> Piece:
    lines = [(sub.line_id, sub.phone_number, sub.data_used_gb)] + [
        (o.line_id, o.phone_number, o.data_used_gb) for o in sub.other_lines
    ]
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_lines_usage"),
        goal=ctx.say("goal_lines_usage"),
        steps=[
            agent(call("get_customer_details", customer_id=sub.customer_id)),
            Step(calls=[call("get_line_details", line_id=line_id) for line_id, _, _ in lines]),
        ],
        reply=Utterance(intent="answer_lines_usage", vars={"usage": [f"{n} has used {gb(u)}" for _, n, u in lines]}),
        outputs=[gb(u) for _, _, u in lines],
    )


def outages_in_regions(ctx: GenContext, index: Index) -> Piece:
    first = pick_region(ctx, index)
    others = ctx.rng.sample([r for r in REGIONS if r != first], ctx.rng.choice((1, 1, 2)))
    regions = [first, *others]
    answers = [outage_answer(index, r) for r in regions]
    return Piece(
        request=ctx.say("ask_outages_many", regions=regions),
        goal=ctx.say("goal_outages_many", regions=regions),
        steps=[Step(calls=[call("check_outages", region=r) for r in regions])],
        reply=Utterance(intent="answer_outages", vars={"answers": [a for a, _ in answers]}),
        outputs=[o for _, outs in answers for o in outs],
    )


def catalogue_overview(ctx: GenContext, index: Index) -> Piece:
    need = ctx.pick((5, 10, 15, 20, 40))
    plan = _cheapest_with(need)
    refill = ctx.pick(REFILLS)
    return Piece(
        request=ctx.say("ask_plan_and_refill", gb=need, refill_gb=refill.gigabytes),
        goal=ctx.say("goal_plan_and_refill"),
        steps=[Step(calls=[call("list_plans"), call("list_data_refills")])],
        reply=Utterance(
            intent="answer_plan_and_refill",
            vars={"plan": plan.name, "price": plan.monthly_price, "gb": need, "refill_gb": refill.gigabytes,
                  "refill_price": refill.price},
        ),  # fmt: skip
        outputs=[plan.name, money(plan.monthly_price), money(refill.price)],
    )


def account_overview(ctx: GenContext, sub: Subscriber) -> Piece:
    bill = sub.open_bill
    return Piece(
        subject=sub.customer_id,
        request=ctx.say("ask_account_overview"),
        goal=ctx.say("goal_account_overview"),
        steps=[
            Step(calls=[call("get_line_details", line_id=sub.line_id), call("list_bills", account_id=sub.account_id)])
        ],
        reply=Utterance(
            intent="answer_account_overview",
            vars={"plan": sub.plan.name, "amount": bill.amount, "due": f"{bill.due_date:%B %d}"},
        ),
        outputs=[sub.plan.name, money(bill.amount)],
    )


# Questions about the catalogue or the network: no customer needed (more in `questions.CATALOGUE`).
SINGLE = (outage_question, plan_price, roaming_plans, cheapest_plan, refill_price)
PARALLEL_GENERAL = (outages_in_regions, catalogue_overview)
# Questions about the customer's own account: (build, which subscribers fit).
PARALLEL_ACCOUNT = {
    "lines_usage": (lines_usage, lambda sub: bool(sub.other_lines)),
    "account_overview": (account_overview, lambda sub: True),
}
