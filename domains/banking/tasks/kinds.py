"""Generators of the acting kinds: single, parallel, multi_step, multi_turn."""

from __future__ import annotations

from dataclasses import replace

from toolgym.envs import GenContext, Piece, Task, Utterance, call, draw, draw_many, money, structures

from .index import Index, Person, index_of
from .parts import account_said, agent, assemble, phrase
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

# One call answers or does it (after verifying): the quick reads and the one-step writes.
SINGLE = (balance, card_status, loan_due, next_scheduled, kb_question, recent_transfers, WRITES["new_payee"], WRITES["new_email"])
# Find, then act on what was found.
MULTI_STEP = tuple(b for n, b in WRITES.items() if n not in ("new_payee", "new_email")) + (spending, account_opened) + (freeze_which,) * 2


def _person(ctx: GenContext, index: Index) -> Person:
    return ctx.pick(index.people)


def _build(ctx: GenContext, builders, index: Index) -> tuple[Person | None, Piece]:
    person = _person(ctx, index)
    piece = draw(ctx, builders, person, index, tries=40)
    return (person if piece.subject else None), piece


def single(ctx: GenContext) -> Task:
    person, piece = _build(ctx, SINGLE, index_of(ctx.world))
    return assemble(ctx, person, [piece])


CHAIN_SHARE = 0.6


def multi_step(ctx: GenContext) -> Task:
    """Find, then act; in some, a second sub-goal in the same message, done after the first."""
    index = index_of(ctx.world)
    person, piece = _build(ctx, MULTI_STEP, index)
    if person is not None and ctx.rng.random() < CHAIN_SHARE:
        more = ctx.pick(MULTI_STEP)(ctx, person, index)
        chained = structures.in_sequence(ctx, piece, more) if more is not None and not more.withheld else None
        piece = chained or piece
    return assemble(ctx, person, [piece])


REVISION_SHARE = 0.3


def _changed_mind(ctx: GenContext, person: Person, index: Index) -> list[Piece] | None:
    """A change turned down when asked to confirm, then another asked for instead (about other records)."""
    first = ctx.pick(list(WRITES.values()))(ctx, person, index)
    second = ctx.pick(list(WRITES.values()))(ctx, person, index)
    if first is None or second is None or first.keys & second.keys:
        return None
    return structures.changed_mind(ctx, first, second)


def multi_turn(ctx: GenContext) -> Task:
    """Two or three requests in a row; in some, the customer turns a change down and asks for another."""
    index = index_of(ctx.world)
    person = _person(ctx, index)
    if ctx.rng.random() < REVISION_SHARE:
        for _ in range(12):
            if (pair := _changed_mind(ctx, person, index)) is not None:
                return assemble(ctx, person, [_without_outputs(pair[0]), pair[1]])
    builders = (*READS, *WRITES.values(), freeze_which)
    parts = draw_many(ctx, builders, 2 if ctx.rng.random() < 0.8 else 3, person, index, tries=40)
    parts = [p if i == len(parts) - 1 else _without_outputs(p) for i, p in enumerate(parts)]
    subject = person if any(p.subject for p in parts) else None
    return assemble(ctx, subject, parts)


def _without_outputs(piece: Piece) -> Piece:
    return replace(piece, outputs=[])


# ---- parallel: several independent calls made together ----------------------------------------


def two_merchants(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    accounts = [a for a in person.accounts if len({t.merchant for t in person.txns_of(a.account_id)}) >= 2]
    if not accounts:
        return None
    account = ctx.pick(accounts)
    txns = person.txns_of(account.account_id)
    first, second = ctx.rng.sample(sorted({t.merchant for t in txns}), 2)
    totals = {m: round(sum(t.amount for t in txns if m.lower() in t.merchant.lower()), 2) for m in (first, second)}
    counts = {m: sum(m.lower() in t.merchant.lower() for t in txns) for m in (first, second)}
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_two_merchants", first=first, second=second, account=account_said(ctx, person, account)),
        goal=f"Compare what you spent at {first} and at {second} from your {account.words}.",
        steps=[
            agent(call("list_accounts")),
            agent(call("search_transactions", account_id=account.account_id, merchant=first),
                  call("search_transactions", account_id=account.account_id, merchant=second)),  # fmt: skip
        ],
        reply=Utterance(intent="reply_two_merchants", vars={"first": first, "second": second, "first_total": totals[first],
                        "second_total": totals[second], "first_count": counts[first], "second_count": counts[second]}),  # fmt: skip
        outputs=[money(totals[first]), money(totals[second])],
        keys=frozenset({account.account_id}),
    )


def two_facts(ctx: GenContext, person: Person | None, index: Index) -> Piece | None:
    first, second = ctx.rng.sample(index.facts, 2)
    if first.article_id == second.article_id:
        return None
    return Piece(
        request=ctx.say("ask_two_facts", first_product=first.product, first_facet=first.facet.label,
                        second_product=second.product, second_facet=second.facet.label),  # fmt: skip
        goal=f"Find out the {first.facet.label} of the {first.product} and the {second.facet.label} of the {second.product}.",
        steps=[
            agent(call("search_kb", query=f"{first.product} {first.facet.label}"), call("search_kb", query=f"{second.product} {second.facet.label}")),
            agent(call("read_article", article_id=first.article_id), call("read_article", article_id=second.article_id)),
        ],
        reply=Utterance(intent="reply_two_facts", vars={"first_product": first.product, "first_facet": first.facet.label,
                        "first_value": first.value, "second_product": second.product, "second_facet": second.facet.label,
                        "second_value": second.value}),  # fmt: skip
        outputs=[first.value, second.value],
        keys=frozenset({first.article_id, second.article_id}),
    )


def freeze_two(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    cards = [c for c in person.cards if c.status == "active"]
    if len(cards) < 2:
        return None
    first, second = ctx.rng.sample(cards, 2)
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_freeze_two", first=first.last4, second=second.last4),
        goal=f"Freeze both your cards ending in {first.last4} and {second.last4}.",
        steps=[
            agent(call("list_cards")),
            agent(call("freeze_card", card_id=first.card_id), call("freeze_card", card_id=second.card_id),
                  confirm=phrase(ctx, "action_freeze_two", first=first.last4, second=second.last4)),  # fmt: skip
        ],
        reply=Utterance(intent="done_freeze_two", vars={"first": first.last4, "second": second.last4}),
        outputs=["frozen"],
        keys=frozenset({first.card_id, second.card_id}),
    )


def overview(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """Accounts and loans (or cards) read together."""
    others = [n for n, ok in (("list_loans", bool(person.loans)), ("list_cards", bool(person.cards)),
                              ("list_payees", bool(person.payees))) if ok]  # fmt: skip
    if not others:
        return None
    other = ctx.pick(others)
    account = ctx.pick([a for a in person.accounts if a.kind != "credit_card"])
    if other == "list_loans":
        loan = ctx.pick(person.loans)
        intent, vars_ = "reply_balance_and_loan", {"last4": account.last4, "balance": account.balance, "product": loan.product, "loan_balance": loan.balance}
        outputs, ask = [money(account.balance), money(loan.balance)], ctx.say("ask_balance_and_loan", kind=account.words, product=loan.product)
    elif other == "list_cards":
        card = ctx.pick(person.cards)
        intent, vars_ = "reply_balance_and_card", {"last4": account.last4, "balance": account.balance, "card": card.last4, "status": card.status}
        outputs, ask = [money(account.balance), card.status], ctx.say("ask_balance_and_card", kind=account.words, card=card.last4)
    else:
        payee = ctx.pick(person.payees)
        intent, vars_ = "reply_balance_and_payee", {"last4": account.last4, "balance": account.balance, "payee": payee.name, "bank": payee.bank}
        outputs, ask = [money(account.balance), payee.bank], ctx.say("ask_balance_and_payee", kind=account.words, payee=payee.name)
    if not person.unique_kind(account):
        return None
    return Piece(
        subject=person.customer_id,
        request=ask,
        goal="Find out a balance and one more thing about your banking.",
        steps=[agent(call("list_accounts"), call(other))],
        reply=Utterance(intent=intent, vars=vars_),
        outputs=outputs,
        keys=frozenset({account.account_id}),
    )


PARALLEL = (two_merchants, two_facts, freeze_two, overview, overview)


def parallel(ctx: GenContext) -> Task:
    person, piece = _build(ctx, PARALLEL, index_of(ctx.world))
    return assemble(ctx, person, [piece])

