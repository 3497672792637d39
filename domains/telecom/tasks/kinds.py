"""Generators of the acting kinds: single, parallel, multi_step, multi_turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolgym.envs import GenContext, Piece, Task, structures
from toolgym.errors import GeneratorBug

from .account_reads import ACCOUNT_READS, Read
from .asking import CHOICES, line_usage_which, outage_unplaced, plan_unnamed, refill_unsized
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
from .service import SERVICES, Service, buy_refill, change_plan, pay_open_bill
from .troubleshoot import choose_faults, troubleshoot

# Outages twice: the question most often asked of the network.
SINGLE_QUESTIONS = (*SINGLE, outage_question, *CATALOGUE)
TRIES = 8

# Account requests that need a question: a value only the customer has, or a pick among records.
ASKING = {
    "refill_unsized": Service(refill_unsized, lambda sub: sub.runs_low),
    "plan_unnamed": Service(plan_unnamed),
    "pay_with_which": Service(CHOICES["pay_with_which"], lambda sub: len(sub.methods) >= 2),
    "refill_which_line": Service(CHOICES["refill_which_line"], lambda sub: bool(sub.other_lines)),
}
ALL_SERVICES = {**SERVICES, **ASKING}
# What a customer asks of their own account in one request (`single`): reads, the account
# requests that need a question, and the short changes (a suspension, roaming off).
SINGLE_ACCOUNT = {
    **{name: Service(read.build) for name, read in ACCOUNT_READS.items()},
    "line_usage_which": Service(line_usage_which, lambda sub: bool(sub.other_lines)),
    **ASKING,
    "suspend_lost": SERVICES["suspend_lost"],
    "roaming_off": SERVICES["roaming_off"],
}
ACCOUNT_SHARE = 0.78  # of single tasks, about the customer's own account (the rest: the network, the catalogue)


def _on_account(ctx: GenContext, index: Index, services: dict[str, Service], names: list[str]) -> tuple[Subscriber, Piece]:
    """A customer and a piece one of the named services builds for them (drawn again when it has nothing)."""
    for _ in range(TRIES):
        name = ctx.pick(names)
        service = services[name]
        fits = index.where(f"service:{name}", service.fits)
        if not fits:
            continue
        sub = ctx.pick(fits)
        piece = service.build(ctx, sub)
        if piece is not None:
            return sub, piece
    raise GeneratorBug(f"telecom {ctx.kind}: none of {names} built a piece in {TRIES} draws (seed {ctx.seed})")


def single(ctx: GenContext) -> Task:
    """One request: who the customer is, a read or a change on their account (some need a question
    or a pick among their lines and cards), an outage (with or without the region), the catalogue."""
    index = index_of(ctx.world)
    draw = ctx.rng.random()
    if draw < 0.06:
        sub = ctx.pick(index.subscribers)
        return assemble(ctx, sub, [account_lookup(ctx, sub)], withhold_phone=ctx.rng.random() < 0.3)
    if draw < ACCOUNT_SHARE:
        sub, piece = _on_account(ctx, index, SINGLE_ACCOUNT, sorted(SINGLE_ACCOUNT))
        return assemble(ctx, sub, [piece], withhold_phone=ctx.rng.random() < 0.3)
    if draw < ACCOUNT_SHARE + 0.07:
        return assemble(ctx, None, [outage_unplaced(ctx, index)])
    return assemble(ctx, None, [ctx.pick(SINGLE_QUESTIONS)(ctx, index)])


# One-step reads two of which are asked in one message: on the account (the customer's) or general.
PAIRED_GENERAL = (outage_question, outage_unplaced, outage_unplaced, plan_price, refill_price, cheapest_plan)
PAIRED_ACCOUNT = sorted(name for name, read in ACCOUNT_READS.items() if read.one_step)


def _paired(ctx: GenContext, index: Index) -> tuple[Subscriber | None, Piece] | None:
    """Two one-step reads asked together (None when the two drawn cannot be joined)."""
    sub = ctx.pick(index.healthy)
    def one(general_share: float) -> Piece | None:
        if ctx.rng.random() < general_share:
            return ctx.pick(PAIRED_GENERAL)(ctx, index)
        return ACCOUNT_READS[ctx.pick(PAIRED_ACCOUNT)].build(ctx, sub)
    first, second = one(0.4), one(0.5)
    if first is None or second is None:
        return None
    joined = structures.together(ctx, first, second)
    if joined is None:
        return None
    return (sub if joined.subject else None), joined


def parallel(ctx: GenContext) -> Task:
    """Independent reads made together: several regions, plans and refills, lines and bills, or
    two questions of the account and the network asked in one message."""
    index = index_of(ctx.world)
    draw = ctx.rng.random()
    if draw < 0.55:
        for _ in range(TRIES):
            if (found := _paired(ctx, index)) is not None:
                sub, piece = found
                return assemble(ctx, sub, [piece], withhold_phone=ctx.rng.random() < 0.3)
    if draw < 0.75:
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
    return _on_account(ctx, index, ALL_SERVICES, services)


def multi_step(ctx: GenContext) -> Task:
    sub, part = main_part(ctx, index_of(ctx.world), 0.6, sorted(ALL_SERVICES))
    return assemble(ctx, sub, [part], withhold_phone=ctx.rng.random() < 0.25)


@dataclass(frozen=True)
class FollowUp:
    """A second request in the same call, and the first-segment tools it must not follow."""

    build: Callable[[GenContext, Subscriber, Index], Piece | None]
    fits: Callable[[Subscriber], bool] = lambda sub: True
    conflicts: frozenset[str] = frozenset()


def _read_after(read: Read) -> FollowUp:
    """An account read as a second request: not after a change to what it reads (usage, bills,
    payments, the plan and its allowance)."""

    def build(ctx: GenContext, sub: Subscriber, index: Index) -> Piece | None:
        return read.build(ctx, sub)

    return FollowUp(build, conflicts=frozenset({"add_data_refill", "make_payment", "refund_payment", "change_plan"}))


FOLLOW_UPS = {
    "pay_open_bill": FollowUp(lambda c, s, i: pay_open_bill(c, s), conflicts=frozenset({"make_payment"})),
    # not after a refill (or a data-cap fix): the warning of data a smaller plan cuts off reads the index's usage;
    # not after roaming was turned on: the plans offered keep roaming where the index has it on (`service.change_plan`)
    "change_plan": FollowUp(lambda c, s, i: change_plan(c, s), conflicts=frozenset({"change_plan", "add_data_refill", "enable_roaming"})),
    "buy_refill": FollowUp(
        lambda c, s, i: buy_refill(c, s),
        fits=lambda s: not s.plan.unlimited,
        conflicts=frozenset({"change_plan", "add_data_refill"}),
    ),
    # the plan and the open bill, as the world had them: not after a change to either
    "account_overview": FollowUp(lambda c, s, i: account_overview(c, s),
                                 conflicts=frozenset({"change_plan", "make_payment", "refund_payment"})),
    # not after a data-cap fix: that fault sets the line's usage apart from what the index holds
    "lines_usage": FollowUp(
        lambda c, s, i: lines_usage(c, s), fits=lambda s: bool(s.other_lines), conflicts=frozenset({"add_data_refill"})
    ),
    "plan_price": FollowUp(lambda c, s, i: plan_price(c, i)),
    "refill_price": FollowUp(lambda c, s, i: refill_price(c, i)),
    "cheapest_plan": FollowUp(lambda c, s, i: cheapest_plan(c, i)),
    "outage_question": FollowUp(lambda c, s, i: outage_question(c, i)),
    # not after a connection problem: the customer has said where they are, and may be abroad
    "outage_unplaced": FollowUp(
        lambda c, s, i: outage_unplaced(c, i), conflicts=frozenset({"check_outages", "run_speed_test", "transfer_to_technician"})
    ),
    "refill_unsized": FollowUp(
        lambda c, s, i: refill_unsized(c, s),
        fits=lambda s: s.runs_low,
        conflicts=frozenset({"change_plan", "add_data_refill"}),
    ),
    "plan_unnamed": FollowUp(lambda c, s, i: plan_unnamed(c, s),
                             conflicts=frozenset({"change_plan", "add_data_refill", "enable_roaming"})),
    "line_usage_which": FollowUp(
        lambda c, s, i: line_usage_which(c, s), fits=lambda s: bool(s.other_lines), conflicts=frozenset({"add_data_refill"})
    ),
    **{f"read_{name}": _read_after(read) for name, read in ACCOUNT_READS.items()},
}
FIRST_SERVICES = sorted(set(ALL_SERVICES) - {"suspend_lost"})  # a suspended line would block what follows


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
    assert first.declined is not None, f"{first_name} has no reply to a no"
    # the first change built turned down: its reply says what stays as it is (the bill still open)
    pair = structures.changed_mind(ctx, first.declined(ctx, sub), second.build(ctx, sub))
    return None if pair is None else assemble(ctx, sub, pair, withhold_phone=ctx.rng.random() < 0.5)


def multi_turn(ctx: GenContext) -> Task:
    """Two requests in one call: the second comes after the agent has answered the first (or, in
    some, replaces a change the customer turned down)."""
    index = index_of(ctx.world)
    if ctx.rng.random() < REVISION_SHARE:
        for _ in range(4):
            if (task := changed_mind(ctx, index)) is not None:
                return task
    sub, first = main_part(ctx, index, 0.5, FIRST_SERVICES)
    used = first.tools
    options = [n for n, f in FOLLOW_UPS.items() if f.fits(sub) and not (f.conflicts & used)]
    for _ in range(TRIES):
        second = FOLLOW_UPS[ctx.pick(options)].build(ctx, sub, index)
        if second is not None and not (second.keys & first.keys) and not (set(second.withheld) & set(first.withheld)):
            return assemble(ctx, sub, [first, second], withhold_phone=ctx.rng.random() < 0.5)
    return multi_turn(ctx)
