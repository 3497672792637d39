"""Pieces of the parallel kind: independent calls made together in one step. Reads a caller asks
in one breath (two merchants, two articles, a balance and a loan), and writes of one kind on two
records that share a value (one daily limit for two cards, one month's statements, one amount moved
into two accounts), where in most the caller leaves that value out and the agent asks once for both.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from toolgym.envs import GenContext, Piece, Utterance, WorldEdit, call, money, structures

from ..rules import month_said, past_month
from .index import CardInfo, Index, Person
from .parts import account_said, account_state, agent, card_said, on_day, phrase
from .reads import a_schedule, balance, card_status, loan_due, next_scheduled, recent_transfers
from .writes import draw_amount, room_in


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


def _two_active(ctx: GenContext, person: Person) -> tuple[CardInfo, CardInfo] | None:
    """Two of the caller's active cards, in a drawn order (None: fewer than two)."""
    cards = [c for c in person.cards if c.status == "active"]
    if len(cards) < 2:
        return None
    first, second = ctx.rng.sample(cards, 2)
    return first, second


def freeze_two(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    pair = _two_active(ctx, person)
    if pair is None:
        return None
    first, second = pair
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
        other_key = loan.loan_id
        intent, vars_ = "reply_balance_and_loan", {"last4": account.last4, "balance": account.balance, "product": loan.product, "loan_balance": loan.balance}
        outputs, ask = [money(account.balance), money(loan.balance)], ctx.say("ask_balance_and_loan", kind=account.words, product=loan.product)
    elif other == "list_cards":
        card = ctx.pick(person.cards)
        other_key = card.card_id
        intent, vars_ = "reply_balance_and_card", {"last4": account.last4, "balance": account.balance, "card": card.last4, "status": card.status}
        outputs, ask = [money(account.balance), card.status], ctx.say("ask_balance_and_card", kind=account.words, card=card.last4)
    else:
        payee = ctx.pick(person.payees)
        other_key = payee.payee_id
        intent, vars_ = "reply_balance_and_payee", {"last4": account.last4, "balance": account.balance, "payee": payee.name, "bank": payee.bank}
        outputs, ask = [money(account.balance), payee.bank], ctx.say("ask_balance_and_payee", kind=account.words, payee=payee.name)
    vars_["account_status"] = account.status
    outputs += [state for state in account_state(account) if state not in outputs]
    if not person.unique_kind(account):
        return None
    return Piece(
        subject=person.customer_id,
        request=ask,
        goal="Find out a balance and one more thing about your banking.",
        steps=[agent(call("list_accounts"), call(other))],
        reply=Utterance(intent=intent, vars=vars_),
        outputs=outputs,
        keys=frozenset({account.account_id, other_key}),  # a later request on the card, loan or payee read here would make this answer stale
    )


PARALLEL_ASK_SHARE = 0.85  # parallel writes asked without the value they share: the agent asks once for both
MAX_TOGETHER = 1000  # an amount moved twice at once stays well inside the daily limits

# one-step reads a caller may ask together (recent_transfers adds its transfers first: it leads a pair)
PAIRABLE = (balance, card_status, loan_due, next_scheduled)


def read_pair(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """Two one-step reads the caller has records for, asked in one message, made as one parallel step."""
    built = [p for p in (b(ctx, person, index) for b in (recent_transfers, *PAIRABLE)) if p is not None]
    if len(built) < 2:
        return None
    one, two = sorted(ctx.rng.sample(built, 2), key=lambda p: not p.setup)  # the one that adds transfers leads
    return structures.together(ctx, one, two)


def _asked_for(ctx: GenContext, piece: Piece, key: str, label: str, value: str, intent: str, **said: Any) -> Piece:
    """The piece, in most draws asked for with `intent` (which leaves out the value both calls share)."""
    if ctx.rng.random() < PARALLEL_ASK_SHARE:
        return structures.left_out(piece, key=key, label=label, value=value, request=ctx.say(intent, **said))
    return piece


def limits_on_two(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """The same daily limit on two cards, set together; in some, the caller says the limit only when asked."""
    pair = _two_active(ctx, person)
    if pair is None:
        return None
    first, second = pair
    limit = ctx.pick([v for v in range(250, 3001, 250) if v not in (first.daily_limit, second.daily_limit)])
    said = {"first": card_said(ctx, first), "second": card_said(ctx, second)}
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_limit_two", limit=float(limit), **said),
        goal=f"Set the daily limit of both your cards, ending in {first.last4} and {second.last4}, to {money(limit)}.",
        steps=[
            agent(call("list_cards")),
            agent(call("set_card_daily_limit", card_id=first.card_id, daily_limit=limit),
                  call("set_card_daily_limit", card_id=second.card_id, daily_limit=limit),
                  confirm=phrase(ctx, "action_limit_two", first=first.last4, second=second.last4, limit=float(limit))),  # fmt: skip
        ],
        reply=Utterance(intent="done_limit_two", vars={"first": first.last4, "second": second.last4, "limit": float(limit)}),
        outputs=[money(limit)],
        keys=frozenset({first.card_id, second.card_id}),
    )
    return _asked_for(ctx, piece, "new_limit", "new daily limit", money(limit), "ask_limit_two_no_limit", **said)


def statements_for_two(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """One month's statements of two accounts, asked together; in some, the month only when asked."""
    if len(person.accounts) < 2:
        return None
    first, second = ctx.rng.sample(person.accounts, 2)
    back = ctx.rng.randrange(1, 12)
    month = past_month(ctx.world.now.date(), back)  # the tool's YYYY-MM
    in_words = month_said(month)  # as people say it: "March 2025"
    delivery = ctx.pick(("email", "post"))
    said = {"first": account_said(ctx, person, first), "second": account_said(ctx, person, second), "delivery": delivery}
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_statements_two", month=in_words, **said),
        goal=f"Get the {in_words} statements of your {first.words} and your {second.words} by {delivery}.",
        steps=[
            agent(call("list_accounts")),
            agent(call("request_statement", account_id=first.account_id, month=month, delivery=delivery),
                  call("request_statement", account_id=second.account_id, month=month, delivery=delivery),
                  confirm=phrase(ctx, "action_statements_two", month=in_words, first=first.last4, second=second.last4, delivery=delivery)),
        ],  # fmt: skip
        reply=Utterance(intent="done_statements_two", vars={"month": in_words, "first": first.last4, "second": second.last4, "delivery": delivery}),
        outputs=[month],
        keys=frozenset({first.account_id + ":statement", second.account_id + ":statement", "new_statement"}),
    )
    return _asked_for(ctx, piece, "statement_month", "statement month", in_words, "ask_statements_two_no_month", **said)


def _into_two(ctx: GenContext, person: Person, *, later: bool) -> Piece | None:
    """The same amount from one account into two others, made together (`later`: scheduled for one
    day). In most, the caller leaves out the amount (or, scheduled, the day) and the agent asks."""
    sources = [a for a in person.spendable() if a.balance >= 100 and person.unique_kind(a)]
    if not sources or len(person.accounts) < 3:
        return None
    source = ctx.pick(sources)
    first, second = ctx.rng.sample([a for a in person.accounts if a.account_id != source.account_id], 2)
    amount = draw_amount(ctx, min(MAX_TOGETHER, source.balance * 0.45, room_in(first), room_in(second)))
    if amount is None:
        return None
    said = {"source": account_said(ctx, person, source), "first": account_said(ctx, person, first), "second": account_said(ctx, person, second)}
    day = (ctx.world.now.date() + dt.timedelta(days=ctx.rng.randrange(2, 60))).isoformat()
    tool, topic, on = ("schedule_transfer", "schedule_two", {"run_on": day}) if later else ("transfer_between_accounts", "transfer_two", {})
    when, typed_when = on_day(ctx, day), ctx.typed_day(day)  # as the agent writes it, as the customer types it
    shown = {"amount": amount, "source": source.last4, "first": first.last4, "second": second.last4, "date": when}
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say(f"ask_{topic}", amount=amount, date=typed_when, **said),
        goal=(f"{'Schedule' if later else 'Move'} {money(amount)} from your {source.words} into each of your accounts ending in "
              f"{first.last4} and {second.last4}{f' on {when}' if later else ''}."),  # fmt: skip
        steps=[
            agent(call("list_accounts")),
            agent(*(call(tool, from_account_id=source.account_id, to_account_id=a.account_id, amount=amount, **on) for a in (first, second)),
                  confirm=phrase(ctx, f"action_{topic}", **shown)),
        ],  # fmt: skip
        reply=Utterance(intent=f"done_{topic}", vars=shown),
        outputs=[money(amount), *([shown["date"]] if later else [])],
        keys=frozenset({source.account_id, first.account_id, second.account_id, *(["new_schedule"] if later else [])}),
    )
    if later:
        return _asked_for(ctx, piece, "transfer_date", "transfer date", typed_when, "ask_schedule_two_no_date", amount=amount, **said)
    return _asked_for(ctx, piece, "transfer_amount_each", "transfer amount", money(amount), "ask_transfer_two_no_amount", **said)


def transfer_to_two(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    return _into_two(ctx, person, later=False)


def schedule_two(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    return _into_two(ctx, person, later=True)


def pay_two_payees(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """The same amount to two payees from one account; in most, the amount only when asked."""
    sources = [a for a in person.spendable() if a.balance >= 100]
    if len(person.payees) < 2 or not sources:
        return None
    source = ctx.pick(sources)
    first, second = ctx.rng.sample(person.payees, 2)
    amount = draw_amount(ctx, min(source.balance * 0.45, 1000))
    if amount is None:
        return None
    said = {"source": account_said(ctx, person, source), "first": first.name, "second": second.name}
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_pay_two", amount=amount, **said),
        goal=f"Pay {money(amount)} each to {first.name} and {second.name} from your {source.words} ending in {source.last4}.",
        steps=[
            agent(call("list_payees"), call("list_accounts")),
            agent(*(call("pay_payee", from_account_id=source.account_id, payee_id=p.payee_id, amount=amount) for p in (first, second)),
                  confirm=phrase(ctx, "action_pay_two", amount=amount, first=first.name, second=second.name, source=source.last4)),
        ],  # fmt: skip
        reply=Utterance(intent="done_pay_two", vars={"amount": amount, "first": first.name, "second": second.name, "source": source.last4}),
        outputs=[money(amount)],
        keys=frozenset({source.account_id, first.payee_id, second.payee_id}),
    )
    return _asked_for(ctx, piece, "payment_amount_each", "payment amount", money(amount), "ask_pay_two_no_amount", **said)


def move_schedule(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """A planned transfer moved to another day: the old one cancelled and the same one scheduled anew,
    together. In most, the caller names no new day, and the agent asks for it."""
    found = a_schedule(ctx, person)
    if found is None:
        return None
    sched, target = found
    old = sched.run_on.isoformat()
    day = (ctx.world.now.date() + dt.timedelta(days=ctx.rng.randrange(2, 60))).isoformat()
    if day == old:
        return None
    source = person.account(sched.from_account)
    shown = {"amount": sched.amount, "old": on_day(ctx, old), "date": on_day(ctx, day), "kind": target.words, "target": target.last4,
             "source": source.last4}
    asked = {**shown, "old": ctx.typed_day(old), "date": ctx.typed_day(day)}  # as the customer types them
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_move_schedule", **asked),
        goal=f"Move your {money(sched.amount)} transfer to your {target.words} planned for {shown['old']} to {shown['date']}.",
        steps=[
            agent(call("list_scheduled_transfers"), call("list_accounts")),
            agent(call("cancel_scheduled_transfer", schedule_id=sched.schedule_id),
                  call("schedule_transfer", from_account_id=source.account_id, to_account_id=target.account_id, amount=sched.amount, run_on=day),
                  confirm=phrase(ctx, "action_move_schedule", **shown)),
        ],  # fmt: skip
        reply=Utterance(intent="done_move_schedule", vars=shown),
        outputs=[money(sched.amount), shown["date"]],
        keys=frozenset({sched.schedule_id, "new_schedule", source.account_id, target.account_id}),
    )
    return _asked_for(ctx, piece, "transfer_date", "new transfer date", asked["date"], "ask_move_schedule_no_date", **asked)


def card_swap(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """One card frozen and another (frozen before) made to work again, together: "use this one instead"."""
    pair = _two_active(ctx, person)
    if pair is None:
        return None
    off, on = pair
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_card_swap", off=card_said(ctx, off), on=card_said(ctx, on)),
        goal=f"Freeze your card ending in {off.last4} and unfreeze the one ending in {on.last4}.",
        steps=[
            agent(call("list_cards")),
            agent(call("freeze_card", card_id=off.card_id), call("unfreeze_card", card_id=on.card_id),
                  confirm=phrase(ctx, "action_card_swap", off=off.last4, on=on.last4)),
        ],  # fmt: skip
        reply=Utterance(intent="done_card_swap", vars={"off": off.last4, "on": on.last4}),
        outputs=["frozen", "active"],
        setup=[WorldEdit(table="card", key=on.card_id, set={"status": "frozen"})],
        keys=frozenset({off.card_id, on.card_id}),
    )


def opened_two(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """When two accounts were opened: the list gives their ids, the details (read together) the dates."""
    if len(person.accounts) < 2:
        return None
    first, second = ctx.rng.sample(person.accounts, 2)
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_opened_two", first=account_said(ctx, person, first), second=account_said(ctx, person, second)),
        goal=f"Find out when you opened your accounts ending in {first.last4} and {second.last4}.",
        steps=[agent(call("list_accounts")),
               agent(call("get_account_details", account_id=first.account_id), call("get_account_details", account_id=second.account_id))],  # fmt: skip
        reply=Utterance(intent="reply_opened_two", vars={"first": first.last4, "second": second.last4,
                                                         "first_opened": on_day(ctx, first.opened), "second_opened": on_day(ctx, second.opened)}),  # fmt: skip
        outputs=[on_day(ctx, first.opened), on_day(ctx, second.opened)],
        keys=frozenset({first.account_id, second.account_id}),
    )


PARALLEL = (two_merchants, two_facts, freeze_two, overview, read_pair, opened_two, card_swap,
            limits_on_two, statements_for_two, transfer_to_two, pay_two_payees, schedule_two, move_schedule)  # fmt: skip
# read pairs spread over many sequences; each other family is one (the writes that share a value, which may ask for it, a little more)
PARALLEL_WEIGHTS = (1, 1, 1, 1, 2.5, 1, 1, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3)
