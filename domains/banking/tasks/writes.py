"""Pieces that change something, each after the customer's yes: money moves, payees, cards,
disputes, loan payments, statements, contact details, and fraud handed to a person."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from toolgym.envs import Fact, Forbidden, GenContext, Piece, Utterance, WorldEdit, call, money, structures

from ..rules import DISPUTE_WINDOW_DAYS, FRAUD_CALLBACK, PAYEE_COOLING_OFF_HOURS, month_said, past_month
from ..tools.common import clock
from .index import DELIVERED, Acct, Index, Person, Txn
from .parts import account_said, agent, card_said, dispute_consent, leaves_out, on_day, phrase
from .people import FIRST_NAMES, LAST_NAMES, OTHER_BANKS
from .reads import a_schedule

MAX_ACTING_AMOUNT = 3000  # acting transfers stay inside the limits, even three in one day


def draw_amount(ctx: GenContext, ceiling: float) -> float | None:
    """A round-ish amount the customer would name, at most `ceiling`."""
    top = min(ceiling, MAX_ACTING_AMOUNT)
    step = ctx.pick((5, 10, 25, 50)) if top >= 200 else 1
    if top < 10:
        return None
    return float(ctx.rng.randrange(1, int(top // step) + 1) * step) if top // step >= 1 else None


def room_in(target: Acct) -> float:
    """The most a transfer into `target` would carry: what a credit card owes (paying it more would
    leave the bank owing the customer, which nobody asks for), no bound for another account."""
    return target.balance if target.kind == "credit_card" else float("inf")


def source_and_target(ctx: GenContext, person: Person, sources: list[Acct]) -> tuple[Acct, Acct] | None:
    """An account money leaves (one of `sources`) and another of the customer's that it goes to."""
    if not sources or len(person.accounts) < 2:
        return None
    source = ctx.pick(sources)
    return source, ctx.pick([a for a in person.accounts if a.account_id != source.account_id])


def transfer_own(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    pair = source_and_target(ctx, person, [a for a in person.spendable() if a.balance >= 20])
    if pair is None:
        return None
    source, target = pair
    amount = draw_amount(ctx, min(source.balance * 0.9, room_in(target)))
    if amount is None:
        return None
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_transfer", amount=amount, source=account_said(ctx, person, source), target=account_said(ctx, person, target)),
        goal=f"Move {money(amount)} from your {source.words} ending in {source.last4} to your {target.words} ending in {target.last4}.",
        steps=[
            agent(call("list_accounts")),
            agent(
                call("transfer_between_accounts", from_account_id=source.account_id, to_account_id=target.account_id, amount=amount),
                confirm=phrase(ctx, "action_transfer", amount=amount, source=source.last4, target=target.last4),
            ),
        ],
        reply=Utterance(intent="done_transfer", vars={"amount": amount, "source": source.last4, "target": target.last4}),
        outputs=[money(amount)],
        keys=frozenset({source.account_id, target.account_id}),
    )
    if leaves_out(ctx):
        said = {"source": account_said(ctx, person, source), "target": account_said(ctx, person, target)}
        return structures.left_out(piece, key="transfer_amount", label="transfer amount", value=money(amount),
                                   request=ctx.say("ask_transfer_no_amount", **said))  # fmt: skip
    return piece


def pay_payee(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    sources = [a for a in person.spendable() if a.balance >= 20]
    if not sources or not person.payees:
        return None
    source, payee = ctx.pick(sources), ctx.pick(person.payees)
    amount = draw_amount(ctx, min(source.balance * 0.9, 2500))
    if amount is None:
        return None
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_pay_payee", amount=amount, payee=payee.name, source=account_said(ctx, person, source)),
        goal=f"Pay {money(amount)} to {payee.name} from your {source.words} ending in {source.last4}.",
        steps=[
            agent(call("list_payees"), call("list_accounts")),
            agent(
                call("pay_payee", from_account_id=source.account_id, payee_id=payee.payee_id, amount=amount),
                confirm=phrase(ctx, "action_pay_payee", amount=amount, payee=payee.name, source=source.last4),
            ),
        ],
        reply=Utterance(intent="done_pay_payee", vars={"amount": amount, "payee": payee.name, "source": source.last4}),
        outputs=[money(amount)],
        forbidden=[Forbidden(reason="only the payee the customer named", tool="pay_payee", arguments={"payee_id": p.payee_id})
                   for p in person.payees if p.payee_id != payee.payee_id],  # fmt: skip
        keys=frozenset({source.account_id, payee.payee_id}),
    )
    if leaves_out(ctx):
        request = ctx.say("ask_pay_payee_no_amount", payee=payee.name, source=account_said(ctx, person, source))
        return structures.left_out(piece, key="payment_amount", label="payment amount", value=money(amount), request=request)
    return piece


def new_payee(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    name = f"{ctx.pick(FIRST_NAMES)} {ctx.pick(LAST_NAMES)}"
    bank = ctx.pick(OTHER_BANKS)
    number = f"{ctx.rng.randrange(10**7, 10**10)}"
    day, time = clock(ctx.world.now + dt.timedelta(hours=PAYEE_COOLING_OFF_HOURS)).split(" ")  # "2024-12-11 09:00"
    ready = f"{on_day(ctx, day)} at {time}"
    ask = leaves_out(ctx)
    request = ctx.say("ask_add_payee_no_number", name=name, bank=bank) if ask else ctx.say("ask_add_payee", name=name, bank=bank, number=number)
    return Piece(
        subject=person.customer_id,
        request=request,
        goal=f"Add {name} at {bank} (account {number}) as a payee.",
        facts=[Fact(key="payee_number", value=number, label="payee's account number", keywords=["account number"])],
        withheld=["payee_number"] if ask else [],
        steps=[agent(call("add_payee", name=name, bank=bank, account_number=number),
                     confirm=phrase(ctx, "action_add_payee", name=name, bank=bank, last4=number[-4:]), needs=("payee_number",))],  # fmt: skip
        reply=Utterance(intent="done_add_payee", vars={"name": name, "ready": ready, "hours": PAYEE_COOLING_OFF_HOURS}),
        outputs=[on_day(ctx, day), time],
        forbidden=[Forbidden(reason="a new payee cannot be paid during its cooling-off period", tool="pay_payee")],
        keys=frozenset({"new_payee"}),
    )


def schedule(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    pair = source_and_target(ctx, person, [a for a in person.spendable() if a.balance >= 50])
    if pair is None:
        return None
    source, target = pair
    amount = draw_amount(ctx, min(1500, room_in(target)))
    if amount is None:
        return None
    day = (ctx.world.now.date() + dt.timedelta(days=ctx.rng.randrange(2, 75))).isoformat()
    when = ctx.typed_day(day)
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_schedule", amount=amount, date=when, source=account_said(ctx, person, source), target=account_said(ctx, person, target)),
        goal=f"Schedule {money(amount)} from your {source.words} to your {target.words} on {on_day(ctx, day)}.",
        steps=[
            agent(call("list_accounts")),
            agent(
                call("schedule_transfer", from_account_id=source.account_id, to_account_id=target.account_id, amount=amount, run_on=day),
                confirm=phrase(ctx, "action_schedule", amount=amount, source=source.last4, target=target.last4, date=on_day(ctx, day)),
            ),
        ],
        reply=Utterance(intent="done_schedule", vars={"amount": amount, "date": on_day(ctx, day), "target": target.last4}),
        outputs=[money(amount), on_day(ctx, day)],
        keys=frozenset({"new_schedule", source.account_id, target.account_id}),
    )
    if leaves_out(ctx):
        said = {"source": account_said(ctx, person, source), "target": account_said(ctx, person, target)}
        return structures.left_out(piece, key="transfer_date", label="transfer date", value=when,
                                   request=ctx.say("ask_schedule_no_date", amount=amount, **said))  # fmt: skip
    return piece


def cancel_schedule(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    found = a_schedule(ctx, person)
    if found is None:
        return None
    sched, target = found
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_cancel_schedule", amount=sched.amount, date=ctx.typed_day(sched.run_on), kind=target.words),
        goal=f"Cancel the {money(sched.amount)} transfer to your {target.words} planned for {on_day(ctx, sched.run_on)}.",
        steps=[
            agent(call("list_scheduled_transfers")),
            agent(call("cancel_scheduled_transfer", schedule_id=sched.schedule_id),
                  confirm=phrase(ctx, "action_cancel_schedule", amount=sched.amount, date=on_day(ctx, sched.run_on),
                                 source=person.account(sched.from_account).last4, target=target.last4)),  # fmt: skip
        ],
        reply=Utterance(intent="done_cancel_schedule", vars={"amount": sched.amount, "date": on_day(ctx, sched.run_on)}),
        outputs=[money(sched.amount)],
        keys=frozenset({sched.schedule_id}),
    )


def _card_change(ctx: GenContext, person: Person, status: str, tool: str, ask: str, action: str, done: str, out: str) -> Piece | None:
    cards = [c for c in person.cards if c.status == status]
    if not cards:
        return None
    card = ctx.pick(cards)
    return Piece(
        subject=person.customer_id,
        request=ctx.say(ask, card=card_said(ctx, card)),
        goal=f"{tool.split('_')[0].capitalize()} your {card.brand} card ending in {card.last4}.",
        steps=[agent(call("list_cards")), agent(call(tool, card_id=card.card_id), confirm=phrase(ctx, action, brand=card.brand, last4=card.last4))],
        reply=Utterance(intent=done, vars={"brand": card.brand, "last4": card.last4}),
        outputs=[out],
        keys=frozenset({card.card_id}),
    )


def freeze(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    return _card_change(ctx, person, "active", "freeze_card", "ask_freeze", "action_freeze", "done_freeze", "frozen")


def unfreeze(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """Unfreeze a frozen card: one the world froze, or an active one frozen before the episode."""
    piece = _card_change(ctx, person, "frozen", "unfreeze_card", "ask_unfreeze", "action_unfreeze", "done_unfreeze", "active")
    if piece is not None or not (active := [c for c in person.cards if c.status == "active"]):
        return piece
    card = ctx.pick(active)
    frozen = replace(person, cards=tuple(replace(c, status="frozen") if c.card_id == card.card_id else c for c in person.cards))
    piece = _card_change(ctx, frozen, "frozen", "unfreeze_card", "ask_unfreeze", "action_unfreeze", "done_unfreeze", "active")
    assert piece is not None
    return replace(piece, setup=[WorldEdit(table="card", key=card.card_id, set={"status": "frozen"})])


def freeze_which(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """"Freeze my card" from a customer with two active cards or more: list them, ask which (naming
    each), freeze the one picked. The customer never knows a card id: the list finds it."""
    cards = [c for c in person.cards if c.status == "active"]
    if len(cards) < 2 or len({c.last4 for c in cards}) < len(cards):
        return None
    card = ctx.pick(cards)
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_freeze_a_card"),
        goal=f"Freeze one of your cards: the {card.brand} card ending in {card.last4}.",
        steps=[agent(call("list_cards")), agent(call("freeze_card", card_id=card.card_id),
                                                confirm=phrase(ctx, "action_freeze", brand=card.brand, last4=card.last4))],  # fmt: skip
        reply=Utterance(intent="done_freeze", vars={"brand": card.brand, "last4": card.last4}),
        outputs=["frozen"],
        keys=frozenset(c.card_id for c in cards),
    )
    piece = structures.ask_which(
        piece, label="card", what="active cards", options=[c.last4 for c in cards],
        described=[f"{c.brand} ending in {c.last4}" for c in cards], answer=f"the one ending in {card.last4}",
    )  # fmt: skip
    return structures.looked_up(piece, label="card id", value=card.card_id, keywords=["card id", "card number"])


def report_lost(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    cards = [c for c in person.cards if c.status in ("active", "frozen")]
    if not cards:
        return None
    card = ctx.pick(cards)
    new_last4 = f"{index.next_card * 7919 % 10**15:015d}"[-4:]
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_report_lost", card=card_said(ctx, card)),
        goal=f"Report your {card.brand} card ending in {card.last4} lost and get a replacement.",
        steps=[agent(call("list_cards")), agent(call("report_card_lost", card_id=card.card_id),
                                                 confirm=phrase(ctx, "action_report_lost", brand=card.brand, last4=card.last4))],  # fmt: skip
        reply=Utterance(intent="done_report_lost", vars={"brand": card.brand, "last4": card.last4, "new_last4": new_last4}),
        outputs=[new_last4],
        forbidden=[Forbidden(reason="a lost card is reported, not just frozen", tool="freeze_card", arguments={"card_id": card.card_id})],
        keys=frozenset({card.card_id, "new_card"}),
    )


def card_limit(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    cards = [c for c in person.cards if c.status == "active"]
    if not cards:
        return None
    card = ctx.pick(cards)
    limit = ctx.pick([v for v in range(150, 3001, 50) if v != card.daily_limit])
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_card_limit", card=card_said(ctx, card), limit=float(limit), higher=limit > card.daily_limit),
        goal=f"Set the daily limit of your card ending in {card.last4} to {money(limit)}.",
        steps=[agent(call("list_cards")), agent(call("set_card_daily_limit", card_id=card.card_id, daily_limit=limit),
                                                 confirm=phrase(ctx, "action_card_limit", last4=card.last4, limit=float(limit)))],  # fmt: skip
        reply=Utterance(intent="done_card_limit", vars={"last4": card.last4, "limit": float(limit)}),
        outputs=[money(limit)],
        keys=frozenset({card.card_id}),
    )
    if leaves_out(ctx):
        return structures.left_out(piece, key="new_limit", label="new daily limit", value=money(limit),
                                   request=ctx.say("ask_card_limit_no_limit", card=card_said(ctx, card)))  # fmt: skip
    return piece


def disputed_charge(ctx: GenContext, person: Person, recent: bool) -> tuple[Txn, str, str] | None:
    """A charge inside (or past) the dispute window, the only one of its merchant on its account, so
    the customer's words name it; its dispute reason, and the request."""
    window = ctx.world.now.date() - dt.timedelta(days=DISPUTE_WINDOW_DAYS)
    charges = [t for t in person.txns if t.amount > 0 and (t.posted >= window) == recent]
    if not charges:
        return None
    txn = ctx.pick(charges)
    if sum(t.merchant == txn.merchant for t in person.txns_of(txn.account_id)) != 1:
        return None
    reason = ctx.pick(("wrong_amount", "not_received")) if txn.category in DELIVERED else "wrong_amount"
    said = account_said(ctx, person, person.account(txn.account_id))
    request = ctx.say(f"ask_dispute_{reason}", merchant=txn.merchant, amount=txn.amount, date=ctx.typed_day(txn.posted), account=said)
    return txn, reason, request


def dispute(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    found = disputed_charge(ctx, person, recent=True)
    if found is None:
        return None
    txn, reason, request = found
    account = person.account(txn.account_id)
    date = on_day(ctx, txn.posted)
    return Piece(
        subject=person.customer_id,
        request=request,
        goal=f"Dispute the {money(txn.amount)} charge at {txn.merchant} on {date}.",
        steps=[
            agent(call("list_accounts")),
            agent(call("search_transactions", account_id=account.account_id, merchant=txn.merchant)),
            agent(call("open_dispute", txn_id=txn.txn_id, reason=reason),
                  confirm=dispute_consent(ctx, account, txn.merchant, txn.amount, date, reason)),  # fmt: skip
        ],
        reply=Utterance(intent="done_dispute", vars={"merchant": txn.merchant, "amount": txn.amount, "dispute_id": "D900001"}),
        outputs=["D900001"],
        forbidden=[Forbidden(reason="a dispute is not a fraud case", tool="transfer_to_human")],
        keys=frozenset({txn.txn_id, "new_dispute"}),
    )


def loan_payment(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    sources = [a for a in person.spendable() if a.balance >= 50]
    if not person.loans or not sources:
        return None
    loan, source = ctx.pick(person.loans), ctx.pick(sources)
    amount = loan.monthly_payment if ctx.rng.random() < 0.5 else draw_amount(ctx, min(loan.balance, source.balance * 0.9))
    if amount is None or amount > source.balance or amount > loan.balance:
        return None
    left = round(loan.balance - amount, 2)
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_loan_payment", amount=amount, product=loan.product, source=account_said(ctx, person, source)),
        goal=f"Pay {money(amount)} toward your {loan.product} from your {source.words} ending in {source.last4}.",
        steps=[
            agent(call("list_loans"), call("list_accounts")),
            agent(call("make_loan_payment", loan_id=loan.loan_id, from_account_id=source.account_id, amount=amount),
                  confirm=phrase(ctx, "action_loan_payment", amount=amount, product=loan.product, source=source.last4)),  # fmt: skip
        ],
        reply=Utterance(intent="done_loan_payment", vars={"amount": amount, "product": loan.product, "left": left}),
        outputs=[money(amount), money(left)],
        keys=frozenset({loan.loan_id, source.account_id}),
    )
    if amount != loan.monthly_payment and leaves_out(ctx):  # the installment is in the list: no question for it
        request = ctx.say("ask_loan_payment_no_amount", product=loan.product, source=account_said(ctx, person, source))
        return structures.left_out(piece, key="loan_amount", label="loan payment amount", value=money(amount), request=request)
    return piece


def statement(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    account = ctx.pick(person.accounts)
    month = past_month(ctx.world.now.date(), ctx.rng.randrange(1, 12))  # the tool's YYYY-MM
    said = month_said(month)  # as people say it: "March 2025"
    delivery = ctx.pick(("email", "post"))
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say(f"ask_statement_{delivery}", month=said, account=account_said(ctx, person, account)),
        goal=f"Get the {said} statement of your {account.words} by {delivery}.",
        steps=[
            agent(call("list_accounts")),
            agent(call("request_statement", account_id=account.account_id, month=month, delivery=delivery),
                  confirm=phrase(ctx, "action_statement", month=said, last4=account.last4, delivery=delivery)),  # fmt: skip
        ],
        reply=Utterance(intent="done_statement", vars={"month": said, "last4": account.last4, "delivery": delivery}),
        outputs=[month],
        keys=frozenset({account.account_id + ":statement", "new_statement"}),
    )
    if leaves_out(ctx):
        request = ctx.say(f"ask_statement_{delivery}_no_month", account=account_said(ctx, person, account))
        return structures.left_out(piece, key="statement_month", label="statement month", value=said, request=request)
    return piece


def new_email(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    first, last = person.name.lower().split()[0], person.name.lower().split()[-1]
    email = f"{ctx.pick((first, first[0] + last, first + '.' + last, last + first[0]))}{ctx.rng.randrange(1, 99)}@{ctx.pick(('mail.com', 'inbox.net', 'post.org', 'example.com'))}"
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_new_email", email=email),
        goal=f"Change your email address to {email}.",
        steps=[agent(call("update_contact_details", email=email), confirm=phrase(ctx, "action_new_email", email=email))],
        reply=Utterance(intent="done_new_email", vars={"email": email}),
        outputs=[email],
        keys=frozenset({"contact"}),
    )
    if leaves_out(ctx):
        return structures.left_out(piece, key="new_email", label="new email address", value=email, request=ctx.say("ask_new_email_no_email"))
    return piece


def fraud(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """A charge the customer does not recognise: find it, freeze the card, hand it to the fraud team."""
    with_card = [t for t in person.txns if t.amount > 0 and (c := person.card_of(t.account_id)) and c.status == "active"]
    if not with_card:
        return None
    txn = ctx.pick(with_card)
    if sum(t.merchant == txn.merchant for t in person.txns_of(txn.account_id)) != 1:
        return None
    card = person.card_of(txn.account_id)
    assert card is not None
    account = person.account(txn.account_id)
    return Piece(
        subject=person.customer_id,
        request=ctx.say("ask_fraud", merchant=txn.merchant, amount=txn.amount, account=account_said(ctx, person, account)),
        goal=f"Report the {money(txn.amount)} charge at {txn.merchant}, which you did not make.",
        steps=[
            agent(call("list_accounts")),
            agent(call("search_transactions", account_id=account.account_id, merchant=txn.merchant)),
            agent(call("list_cards")),
            agent(call("freeze_card", card_id=card.card_id), confirm=phrase(ctx, "action_freeze_fraud", brand=card.brand, last4=card.last4)),
            agent(call("transfer_to_human", reason="suspected_fraud", txn_id=txn.txn_id),
                  confirm=phrase(ctx, "action_fraud_team", merchant=txn.merchant, amount=txn.amount)),  # fmt: skip
        ],
        reply=Utterance(intent="done_fraud", vars={"last4": card.last4, "case_id": "F300001", "merchant": txn.merchant,
                                                      "callback": FRAUD_CALLBACK}),
        outputs=["F300001", "frozen"],
        forbidden=[Forbidden(reason="suspected fraud goes to the fraud team, not a dispute", tool="open_dispute")],
        keys=frozenset({txn.txn_id, card.card_id, "new_fraud_case"}),
    )


# name -> builder; acting kinds draw from these
WRITES = {
    "transfer_own": transfer_own, "pay_payee": pay_payee, "new_payee": new_payee, "schedule": schedule,
    "cancel_schedule": cancel_schedule, "freeze": freeze, "unfreeze": unfreeze, "report_lost": report_lost,
    "card_limit": card_limit, "dispute": dispute, "loan_payment": loan_payment, "statement": statement,
    "new_email": new_email, "fraud": fraud,
}  # fmt: skip
