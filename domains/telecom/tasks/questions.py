"""Catalogue questions one read answers, with the numbers the customer brings: a budget, a need,
a feature, two plans to compare. The answer is worked out here from the same catalogue the
tool lists, so the reply states exactly what the read shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolgym.envs import GenContext, Piece, Utterance, call, money

from ..catalogue import PLANS, REFILLS, PlanSpec, RefillSpec
from .index import Index
from .parts import agent, gb

Vars = dict[str, Any]


def _ask(ctx: GenContext, tool: str, topic: str, asked: Vars, answer: Vars, outputs: list[str]) -> Piece:
    """A segment from the phrasings `ask_<topic>`, `goal_<topic>`, `answer_<topic>`: one catalogue read."""
    return Piece(
        request=ctx.say(f"ask_{topic}", **asked),
        goal=ctx.say(f"goal_{topic}", **asked),
        steps=[agent(call(tool))],
        reply=Utterance(intent=f"answer_{topic}", vars={**asked, **answer}),
        outputs=outputs,
    )


def _plan_vars(plan: PlanSpec) -> Vars:
    data = "unlimited data" if plan.unlimited else f"{gb(plan.data_gb)} of data"
    return {"plan": plan.name, "price": plan.monthly_price, "data": data}


def _refill_vars(refill: RefillSpec) -> tuple[Vars, list[str]]:
    """What a reply names of a refill, and its required outputs."""
    return {"gb": refill.gigabytes, "price": refill.price}, [gb(refill.gigabytes), money(refill.price)]


def _allowance(plan: PlanSpec) -> str:
    return "unlimited" if plan.unlimited else gb(plan.data_gb)


def _most_data(plans: list[PlanSpec]) -> PlanSpec:
    return max(plans, key=lambda p: (p.unlimited, p.data_gb))


# ---- plans ------------------------------------------------------------------------------------


def plan_allowance(ctx: GenContext, index: Index) -> Piece:
    plan = ctx.pick(PLANS)
    return _ask(ctx, "list_plans", "plan_allowance", {"plan": plan.name}, _plan_vars(plan), [_allowance(plan)])


def plan_roaming(ctx: GenContext, index: Index) -> Piece:
    """Whether a plan roams, and at what daily fee (the three cases are worded apart in the reply)."""
    plan = ctx.pick(PLANS)
    outputs = [plan.name] + ([money(plan.roaming_daily_fee)] if plan.roaming_daily_fee else [])
    answer = {"roams": plan.roaming_supported, "fee": plan.roaming_daily_fee}
    return _ask(ctx, "list_plans", "plan_roaming", {"plan": plan.name}, answer, outputs)


def plan_for_budget(ctx: GenContext, index: Index) -> Piece:
    budget = ctx.rng.randint(15, 90)  # the cheapest plan is $15: every budget affords one
    plan = _most_data([p for p in PLANS if p.monthly_price <= budget])
    outputs = [plan.name, money(plan.monthly_price)]
    return _ask(ctx, "list_plans", "plan_for_budget", {"budget": budget}, _plan_vars(plan), outputs)


def plans_with_5g(ctx: GenContext, index: Index) -> Piece:
    names = [p.name for p in PLANS if p.supports_5g]
    return _ask(ctx, "list_plans", "plans_5g", {}, {"plans": names}, names)


# What a customer may want a plan to have besides data: a key of the `feature_<key>` phrasings.
FEATURES: dict[str, Callable[[PlanSpec], bool]] = {
    "roaming": lambda p: p.roaming_supported,
    "5g": lambda p: p.supports_5g,
    "free_roaming": lambda p: p.roaming_supported and not p.roaming_daily_fee,
}


def cheapest_plan_with(ctx: GenContext, index: Index) -> Piece:
    need = ctx.rng.randint(1, 45)
    key = ctx.pick(sorted(FEATURES))
    fits = [p for p in PLANS if (p.unlimited or p.data_gb >= need) and FEATURES[key](p)]
    plan = min(fits, key=lambda p: p.monthly_price)  # Unlimited fits every need and feature
    asked = {"gb": need, "feature": ctx.say(f"feature_{key}")}
    outputs = [plan.name, money(plan.monthly_price)]
    return _ask(ctx, "list_plans", "cheapest_plan_with", asked, _plan_vars(plan), outputs)


# ---- refills ----------------------------------------------------------------------------------


def refill_for_budget(ctx: GenContext, index: Index) -> Piece:
    amount = ctx.rng.randint(10, 60)  # the smallest refill is $10
    refill = max((r for r in REFILLS if r.price <= amount), key=lambda r: r.gigabytes)
    return _ask(ctx, "list_data_refills", "refill_for_budget", {"amount": amount}, *_refill_vars(refill))


def refill_for_need(ctx: GenContext, index: Index) -> Piece:
    need = ctx.rng.randint(1, 20) / 2  # 0.5 to 10 GB: the biggest refill covers any of them
    refill = min((r for r in REFILLS if r.gigabytes >= need), key=lambda r: r.gigabytes)
    return _ask(ctx, "list_data_refills", "refill_for_need", {"need": f"{need:g}"}, *_refill_vars(refill))


def refill_value(ctx: GenContext, index: Index) -> Piece:
    """The refill cheapest per gigabyte, named with its size and price (a per-GB figure would be
    arithmetic no read shows, so the reply does not state one)."""
    best = min(REFILLS, key=lambda r: r.price / r.gigabytes)
    return _ask(ctx, "list_data_refills", "refill_value", {}, *_refill_vars(best))


# Only questions a read answers: a figure worked out from the catalogue (a price gap, a total of
# several refills) would be a fact no tool showed.
CATALOGUE = (plan_allowance, plan_roaming, plan_for_budget, plans_with_5g, cheapest_plan_with,
             refill_for_budget, refill_for_need, refill_value)  # fmt: skip
