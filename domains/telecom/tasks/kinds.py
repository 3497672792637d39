"""Generators of the acting kinds: single, parallel, multi_step, multi_turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolgym.envs import GenContext, Piece, Task, structures

from .index import Index, Subscriber, index_of
from .lookups import (
    PARALLEL_ACCOUNT,
    PARALLEL_GENERAL,
    SINGLE,
    account_lookup,
    account_overview,
    cheapest_plan,
    lines_usage,
    outage_question,
    plan_price,
    refill_price,
)
from .parts import assemble
from .questions import CATALOGUE
from .service import SERVICES, buy_refill, change_plan, pay_open_bill
from .troubleshoot import choose_faults, troubleshoot

# Outages twice: the question most often asked of the network.
SINGLE_QUESTIONS = (*SINGLE, outage_question, *CATALOGUE)


def single(ctx: GenContext) -> Task:
    """One read answers it: who the customer is on their account, an outage, the catalogue."""
    index = index_of(ctx.world)
    if ctx.rng.random() < 0.2:
        sub = ctx.pick(index.subscribers)
        return assemble(ctx, sub, [account_lookup(ctx, sub)], withhold_phone=ctx.rng.random() < 0.3)
    return assemble(ctx, None, [ctx.pick(SINGLE_QUESTIONS)(ctx, index)])


def parallel(ctx: GenContext) -> Task:
    """Independent reads made together: several regions, plans and refills, lines and bills."""
    index = index_of(ctx.world)
    if ctx.rng.random() < 0.45:
        return assemble(ctx, None, [ctx.pick(PARALLEL_GENERAL)(ctx, index)])
    name = ctx.pick(sorted(PARALLEL_ACCOUNT))
    build, fits = PARALLEL_ACCOUNT[name]
    sub = ctx.pick(index.where(f"parallel:{name}", fits))
    return assemble(ctx, sub, [build(ctx, sub)], withhold_phone=ctx.rng.random() < 0.3)


def main_part(ctx: GenContext, index: Index, troubleshoot_share: float, services: list[str]) -> tuple[Subscriber, Piece]:
    """The customer's main request: a phone that does not work (faults set), or an account change."""
    if ctx.rng.random() < troubleshoot_share:
        sub, faults = choose_faults(ctx, index)
        return sub, troubleshoot(ctx, sub, faults)
    name = ctx.pick(services)
    service = SERVICES[name]
    sub = ctx.pick(index.where(f"service:{name}", service.fits))
    return sub, service.build(ctx, sub)


def multi_step(ctx: GenContext) -> Task:
    sub, part = main_part(ctx, index_of(ctx.world), 0.7, sorted(SERVICES))
    return assemble(ctx, sub, [part], withhold_phone=ctx.rng.random() < 0.25)


@dataclass(frozen=True)
class FollowUp:
    """A second request in the same call, and the first-segment tools it must not follow."""

    build: Callable[[GenContext, Subscriber, Index], Piece]
    fits: Callable[[Subscriber], bool] = lambda sub: True
    conflicts: frozenset[str] = frozenset()


FOLLOW_UPS = {
    "pay_open_bill": FollowUp(lambda c, s, i: pay_open_bill(c, s), conflicts=frozenset({"make_payment"})),
    "change_plan": FollowUp(lambda c, s, i: change_plan(c, s), conflicts=frozenset({"change_plan"})),
    "buy_refill": FollowUp(
        lambda c, s, i: buy_refill(c, s),
        fits=lambda s: not s.plan.unlimited,
        conflicts=frozenset({"change_plan", "add_data_refill"}),
    ),
    "account_overview": FollowUp(lambda c, s, i: account_overview(c, s)),
    # not after a data-cap fix: that fault sets the line's usage apart from what the index holds
    "lines_usage": FollowUp(
        lambda c, s, i: lines_usage(c, s), fits=lambda s: bool(s.other_lines), conflicts=frozenset({"add_data_refill"})
    ),
    "plan_price": FollowUp(lambda c, s, i: plan_price(c, i)),
    "refill_price": FollowUp(lambda c, s, i: refill_price(c, i)),
    "cheapest_plan": FollowUp(lambda c, s, i: cheapest_plan(c, i)),
    "outage_question": FollowUp(lambda c, s, i: outage_question(c, i)),
}
FIRST_SERVICES = sorted(set(SERVICES) - {"suspend_lost"})  # a suspended line would block what follows


# A change the customer turns down when told its price, and what they ask for instead.
CHANGES_OF_MIND = (("change_plan", "change_plan"), ("change_plan", "buy_refill"), ("buy_refill", "buy_refill"),
                   ("buy_refill", "change_plan"), ("pay_open_bill", "buy_refill"))  # fmt: skip
REVISION_SHARE = 0.3


def changed_mind(ctx: GenContext, index: Index) -> Task | None:
    """The customer says no to one change (another plan, another refill size) and asks for another."""
    first_name, second_name = ctx.pick(CHANGES_OF_MIND)
    first, second = SERVICES[first_name], SERVICES[second_name]
    fits = index.where(f"revise:{first_name}:{second_name}", lambda s: first.fits(s) and second.fits(s))
    if not fits:
        return None
    sub = ctx.pick(fits)
    pair = structures.changed_mind(ctx, first.build(ctx, sub), second.build(ctx, sub))
    return None if pair is None else assemble(ctx, sub, pair, withhold_phone=ctx.rng.random() < 0.5)


def multi_turn(ctx: GenContext) -> Task:
    """Two requests in one call: the second comes after the agent has answered the first (or, in
    some, replaces a change the customer turned down)."""
    index = index_of(ctx.world)
    if ctx.rng.random() < REVISION_SHARE:
        for _ in range(4):
            if (task := changed_mind(ctx, index)) is not None:
                return task
    sub, first = main_part(ctx, index, 0.55, FIRST_SERVICES)
    used = first.tools
    options = [n for n, f in FOLLOW_UPS.items() if f.fits(sub) and not (f.conflicts & used)]
    second = FOLLOW_UPS[ctx.pick(options)].build(ctx, sub, index)
    return assemble(ctx, sub, [first, second], withhold_phone=ctx.rng.random() < 0.5)
