"""Pieces that only read: balances, what was spent where, cards, loans, schedules, and the bank's articles."""

from __future__ import annotations

import datetime as dt

from toolgym.envs import GenContext, Piece, Utterance, WorldEdit, call, money

from .index import Acct, Index, Person, Sched
from .parts import account_said, account_state, agent, on_day


def balance(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    account = ctx.pick(person.accounts)
    said = account_said(ctx, person, account)
    if account.kind == "credit_card":
        intent, vars_ = "reply_owed", {"last4": account.last4, "owed": account.balance, "limit": account.credit_limit}
    else:
        intent, vars_ = "reply_balance", {"kind": account.words, "last4": account.last4, "balance": account.balance}
    outputs = [money(account.balance), *account_state(account)]
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_balance", account=said),
        goal=f"Find out how much is in (or owed on) your {account.words} ending in {account.last4}.",
        steps=[agent(call("list_accounts"))],
        reply=Utterance(intent=intent, vars={**vars_, "account_status": account.status}),
        outputs=outputs,
        keys=frozenset({account.account_id}),
    )


def spending(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """What was spent at one merchant since a date, or in a date range: the search's count and total."""
    accounts = [a for a in person.accounts if person.txns_of(a.account_id)]
    if not accounts:
        return None
    account = ctx.pick(accounts)
    txns = person.txns_of(account.account_id)
    said = account_said(ctx, person, account)
    if ctx.rng.random() < 0.6:
        merchant = ctx.pick(txns).merchant
        since = ctx.world.now.date() - dt.timedelta(days=ctx.rng.randrange(20, 150))
        found = [t for t in txns if merchant.lower() in t.merchant.lower() and t.posted >= since]
        args = {"account_id": account.account_id, "start_date": since.isoformat(), "merchant": merchant}
        request = ctx.say("ask_spent_at", merchant=merchant, since=ctx.typed_day(since), account=said)
        what = f"at {merchant} since {on_day(ctx, since)}"
    else:
        end = ctx.world.now.date() - dt.timedelta(days=ctx.rng.randrange(0, 60))
        start = end - dt.timedelta(days=ctx.rng.randrange(7, 45))
        found = [t for t in txns if start <= t.posted <= end]
        args = {"account_id": account.account_id, "start_date": start.isoformat(), "end_date": end.isoformat()}
        request = ctx.say("ask_spent_between", start=ctx.typed_day(start), end=ctx.typed_day(end), account=said)
        what = f"between {on_day(ctx, start)} and {on_day(ctx, end)}"
    total = round(sum(t.amount for t in found), 2)
    return Piece(
        subject=person.customer_id,
        request=request,
        goal=f"Find out how much went out of your {account.words} ending in {account.last4} {what}.",
        steps=[agent(call("list_accounts")), agent(call("search_transactions", **args))],
        reply=Utterance(intent="reply_spent", vars={"count": len(found), "total": total, "what": what}),
        outputs=[money(total)],
        keys=frozenset({account.account_id}),
    )


def account_opened(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """When an account was opened: the list gives its id, the details give the date."""
    account = ctx.pick(person.accounts)
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_opened", account=account_said(ctx, person, account)),
        goal=f"Find out when you opened your {account.words} ending in {account.last4}.",
        steps=[agent(call("list_accounts")), agent(call("get_account_details", account_id=account.account_id))],
        reply=Utterance(intent="reply_opened", vars={"kind": account.words, "last4": account.last4, "opened": on_day(ctx, account.opened)}),
        outputs=[on_day(ctx, account.opened)],
        keys=frozenset({account.account_id}),
    )


def card_status(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    if not person.cards:
        return None
    card = ctx.pick(person.cards)
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_card_status", brand=card.brand, last4=card.last4),
        goal=f"Find out the status and daily limit of your card ending in {card.last4}.",
        steps=[agent(call("list_cards"))],
        reply=Utterance(intent="reply_card_status", vars={"brand": card.brand, "last4": card.last4, "status": card.status,
                                                          "limit": card.daily_limit}),  # fmt: skip
        outputs=[card.status, money(card.daily_limit)],
        keys=frozenset({card.card_id}),
    )


def loan_due(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    if not person.loans:
        return None
    loan = ctx.pick(person.loans)
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_loan_due", product=loan.product),
        goal=f"Find out when the next payment on your {loan.product} is due and how much it is.",
        steps=[agent(call("list_loans"))],
        reply=Utterance(intent="reply_loan_due", vars={"product": loan.product, "due": on_day(ctx, loan.next_due),
                                                       "payment": loan.monthly_payment, "balance": loan.balance}),  # fmt: skip
        outputs=[on_day(ctx, loan.next_due), money(loan.monthly_payment)],
        keys=frozenset({loan.loan_id}),
    )


def a_schedule(ctx: GenContext, person: Person) -> tuple[Sched, Acct] | None:
    """One of the customer's scheduled transfers and the account it pays into."""
    if not person.schedules:
        return None
    sched = ctx.pick(person.schedules)
    return sched, person.account(sched.to_account)


def next_scheduled(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    found = a_schedule(ctx, person)
    if found is None:
        return None
    sched, target = found
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_scheduled", kind=target.words),
        goal=f"Find out when your scheduled transfer to your {target.words} runs and for how much.",
        steps=[agent(call("list_scheduled_transfers"))],
        reply=Utterance(intent="reply_scheduled", vars={"amount": sched.amount, "date": on_day(ctx, sched.run_on), "last4": target.last4}),
        outputs=[money(sched.amount), on_day(ctx, sched.run_on)],
        keys=frozenset({sched.schedule_id}),
    )


def kb_question(ctx: GenContext, person: Person | None, index: Index) -> Piece | None:
    """A fee or rate question, answered only from the article that states it."""
    fact = ctx.pick(index.facts)
    return Piece(
        request=ctx.say("ask_product_fact", product=fact.product, facet=fact.facet.label),
        goal=f"Find out the {fact.facet.label} of the {fact.product}.",
        steps=[agent(call("search_kb", query=f"{fact.product} {fact.facet.label}")), agent(call("read_article", article_id=fact.article_id))],
        reply=Utterance(intent="reply_product_fact", vars={"product": fact.product, "facet": fact.facet.label, "value": fact.value}),
        outputs=[fact.value],
        keys=frozenset({fact.article_id}),
    )


def recent_transfers(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """The newest of the transfers made between the customer's accounts in the last days (made before the episode)."""
    own = [a for a in person.accounts if a.kind != "credit_card"]
    if len(own) < 2:
        return None
    days = ctx.pick((3, 7, 14))
    made = sorted((ctx.world.now - dt.timedelta(days=ctx.rng.randrange(0, days), minutes=ctx.rng.randrange(30, 600))
                   for _ in range(ctx.rng.randrange(2, 4))), reverse=True)  # fmt: skip
    amounts = [float(ctx.rng.randrange(2, 80) * 25) for _ in made]
    if len(set(amounts)) < len(amounts):
        return None  # the newest is told by its amount too
    setup = []
    for n, (when, amount) in enumerate(zip(made, amounts, strict=True)):
        source, target = ctx.rng.sample(own, 2)
        setup.append(WorldEdit(table="transfer", insert={"transfer_id": f"X66000{n + 1}", "customer_id": person.customer_id,
                                                         "from_account": source.account_id, "to_account": target.account_id,
                                                         "amount": amount, "made_at": when}))  # fmt: skip
    day = on_day(ctx, made[0].date())
    intent = "reply_recent_transfer_today" if made[0].date() == ctx.world.now.date() else "reply_recent_transfer"
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_recent_transfers", days=days),
        goal=f"Find out the amount and date of the last transfer you made in the past {days} days.",
        steps=[agent(call("list_recent_transfers", days=days))],
        reply=Utterance(intent=intent, vars={"amount": amounts[0], "date": day, "count": len(made)}),
        outputs=[money(amounts[0]), day],
        setup=setup,
        keys=frozenset({"transfers"}),
    )


READS = (balance, spending, account_opened, card_status, loan_due, next_scheduled, kb_question)
