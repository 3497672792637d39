"""Generators of the acting kinds: single, parallel, multi_step, multi_turn."""

from __future__ import annotations

from dataclasses import replace

from toolgym.envs import GenContext, Piece, Task, draw, independent, structures

from .choices import CHOICES
from .index import Index, Person, index_of
from .parallel import PARALLEL, PARALLEL_WEIGHTS
from .parts import assemble
from .reads import (
    READS,
    account_opened,
    balance,
    card_status,
    kb_question,
    loan_due,
    next_scheduled,
    recent_transfers,
    spending,
)
from .writes import WRITES, freeze_which

# One request, answered by a read or done by one write after the read that finds its record.
SINGLE = (balance, card_status, loan_due, next_scheduled, kb_question, recent_transfers, account_opened, spending,
          *(WRITES[n] for n in ("new_payee", "new_email", "card_limit", "statement", "freeze", "unfreeze", "report_lost",
                                "transfer_own", "schedule", "cancel_schedule", "pay_payee", "loan_payment")),
          freeze_which, *CHOICES)  # fmt: skip
SINGLE_WEIGHTS = (1,) * (len(SINGLE) - len(CHOICES)) + (2,) * len(CHOICES)  # a choice often fails to fit: drawn more
# Find, then act on what was found.
MULTI_STEP = tuple(b for n, b in WRITES.items() if n not in ("new_payee", "new_email")) + (spending, account_opened, freeze_which) + CHOICES


def _person(ctx: GenContext, index: Index) -> Person:
    return ctx.pick(index.people)


def _build(ctx: GenContext, builders, index: Index) -> tuple[Person | None, Piece]:
    person = _person(ctx, index)
    piece = draw(ctx, builders, person, index, tries=40)
    return (person if piece.subject else None), piece


def single(ctx: GenContext) -> Task:
    index = index_of(ctx.world)
    person = _person(ctx, index)
    piece = draw(ctx, SINGLE, person, index, weights=SINGLE_WEIGHTS, tries=40)
    return assemble(ctx, person if piece.subject else None, [piece])


CHAIN_SHARE = 0.75
CHAIN_TRIES = 4  # second sub-goals drawn until one can follow the first (other records, other writes)


def multi_step(ctx: GenContext) -> Task:
    """Find, then act; in most, a second sub-goal in the same message, done after the first."""
    index = index_of(ctx.world)
    person, piece = _build(ctx, MULTI_STEP, index)
    if person is not None and ctx.rng.random() < CHAIN_SHARE:
        for _ in range(CHAIN_TRIES):
            more = ctx.pick(MULTI_STEP)(ctx, person, index)
            chained = structures.in_sequence(ctx, piece, more) if more is not None and not more.withheld else None
            if chained is not None:
                piece = chained
                break
    return assemble(ctx, person, [piece])


REVISION_SHARE = 0.3


def _changed_mind(ctx: GenContext, person: Person, index: Index) -> list[Piece] | None:
    """A change turned down when asked to confirm, then another asked for instead (about other records)."""
    first = ctx.pick(list(WRITES.values()))(ctx, person, index)
    second = ctx.pick(list(WRITES.values()))(ctx, person, index)
    if first is None or second is None or first.keys & second.keys or not structures.asked_apart([first], second):
        return None
    if first.withheld and second.withheld and second.steps[0].confirm:
        return None  # five turns in a row without a call (ask, confirm, "left as is", ask, confirm): the caller would give up
    # turned down, the write says what stays as it is (utterances.yaml's held_<x>)
    return structures.changed_mind(ctx, structures.turned_down(first), second)


def multi_turn(ctx: GenContext) -> Task:
    """Two or three requests in a row; in some, the customer turns a change down and asks for another."""
    index = index_of(ctx.world)
    person = _person(ctx, index)
    if ctx.rng.random() < REVISION_SHARE:
        for _ in range(12):
            if (pair := _changed_mind(ctx, person, index)) is not None:
                return assemble(ctx, person, [_without_outputs(pair[0]), pair[1]])
    builders = (*READS, *WRITES.values(), freeze_which, *CHOICES)
    parts: list[Piece] = []
    for _ in range(2 if ctx.rng.random() < 0.8 else 3):
        parts.append(draw(ctx, builders, person, index, tries=40, accept=lambda p: independent(parts, p) and structures.asked_apart(parts, p)))
    subject = person if any(p.subject for p in parts) else None
    return assemble(ctx, subject, parts)


def _without_outputs(piece: Piece) -> Piece:
    return replace(piece, outputs=[])


PERSON_TRIES = 8  # customers tried for the family drawn (two cards, two payees...) before any family will do


def parallel(ctx: GenContext) -> Task:
    """A family drawn by weight, then customers tried until one fits it: a family that fits few
    customers keeps its share instead of passing it to those that fit everyone."""
    index = index_of(ctx.world)
    family = ctx.rng.choices(PARALLEL, weights=PARALLEL_WEIGHTS)[0]
    for _ in range(PERSON_TRIES):
        person = _person(ctx, index)
        if (piece := family(ctx, person, index)) is not None:
            return assemble(ctx, person if piece.subject else None, [piece])
    piece = draw(ctx, PARALLEL, person, index, weights=PARALLEL_WEIGHTS, tries=40)
    return assemble(ctx, person if piece.subject else None, [piece])

