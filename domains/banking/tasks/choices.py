"""Pieces where the caller's words fit several records: the agent reads them, asks which (naming
each), and acts on the one picked. A guess is a write on a record nobody chose.

- `transfer_which`: money moved into "my savings account" when the caller has two of that kind;
- `payee_alike`: "pay Dana" when two payees share that first name (the second one saved long ago);
- `cancel_schedule_which`: "cancel my scheduled transfer to savings" with two planned to it;
- `dispute_which`: a wrong or missing purchase at a merchant the caller bought from twice lately.

Where the second record is not in the built world, the piece adds it before the episode (`setup`):
a payee, a planned transfer, a charge, each of a kind the world holds for other customers.
"""

from __future__ import annotations

import datetime as dt

from toolgym.envs import Forbidden, GenContext, Piece, Utterance, WorldEdit, call, money, structures
from toolgym.envs.record_numbers import unused_near

from ..rules import DISPUTE_WINDOW_DAYS
from .index import DELIVERED, Index, Person
from .parts import account_said, agent, dispute_consent, on_day, phrase
from .people import LAST_NAMES, OTHER_BANKS
from .writes import draw_amount, room_in, source_and_target

MOST_CANDIDATES = 3
TWIN_SHARE = 0.5  # of the pieces that add a look-alike, those where the customer means it


def unused_id(ctx: GenContext, table: str, key: str, near: str) -> str | None:
    """An id for a record added to the world: an unused number among the world's own, near `near`."""
    taken = {int(row[0][1:]) for row in ctx.world.query(f"SELECT {key} FROM {table}")}
    number = unused_near(taken, int(near[1:]), near)
    return None if number is None else f"{near[0]}{number}"


def transfer_which(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """Money into "my <kind>" when the caller has two or more of that kind: which one?"""
    pair = source_and_target(ctx, person, [a for a in person.spendable() if a.balance >= 20])
    if pair is None:
        return None
    source, target = pair
    twins = [a for a in person.accounts if a.kind == target.kind and a.account_id != source.account_id]
    amount = draw_amount(ctx, min(source.balance * 0.9, room_in(target)))
    if len(twins) < 2 or not person.unique_kind(source) or amount is None:
        return None
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_transfer_to_kind", amount=amount, source=phrase(ctx, "name_account_kind", kind=source.words), kind=target.words),
        goal=f"Move {money(amount)} from your {source.words} to your {target.words} ending in {target.last4} (you have more than one).",
        steps=[
            agent(call("list_accounts")),
            agent(call("transfer_between_accounts", from_account_id=source.account_id, to_account_id=target.account_id, amount=amount),
                  confirm=phrase(ctx, "action_transfer", amount=amount, source=source.last4, target=target.last4)),  # fmt: skip
        ],
        reply=Utterance(intent="done_transfer", vars={"amount": amount, "source": source.last4, "target": target.last4}),
        outputs=[money(amount)],
        keys=frozenset({source.account_id, *(a.account_id for a in twins)}),
    )
    return structures.ask_which(
        piece, label="account", what=f"{target.words}s", options=[a.last4 for a in twins],
        described=[f"the {a.product} ending in {a.last4}" for a in twins], answer=f"the one ending in {target.last4}",
    )  # fmt: skip


def payee_alike(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """ "Pay Dana" when the caller saved two payees named Dana: which one? The second is added here."""
    sources = [a for a in person.spendable() if a.balance >= 20]
    if not person.payees or not sources:
        return None
    payee, source = ctx.pick(person.payees), ctx.pick(sources)
    first = payee.name.split()[0]
    if len(payee.name.split()) != 2 or sum(p.name.split()[0] == first for p in person.payees) > 1:
        return None
    twin_name = f"{first} {ctx.pick([n for n in LAST_NAMES if n not in payee.name])}"
    twin_id = unused_id(ctx, "payee", "payee_id", payee.payee_id)
    if twin_id is None:
        return None
    twin = {"payee_id": twin_id, "customer_id": person.customer_id, "name": twin_name,
            "bank": ctx.pick([b for b in OTHER_BANKS if b != payee.bank]), "account_number": f"{ctx.rng.randrange(10**7, 10**10)}",
            "added_at": ctx.world.now - dt.timedelta(days=ctx.rng.randrange(30, 400))}  # fmt: skip
    amount = draw_amount(ctx, min(source.balance * 0.9, 2500))
    if amount is None:
        return None
    pair = [(payee.payee_id, payee.name, payee.bank), (twin["payee_id"], twin_name, twin["bank"])]
    (meant, name, bank), (other, _, _) = pair[::-1] if ctx.rng.random() < TWIN_SHARE else pair
    ctx.rng.shuffle(pair)
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_pay_first_name", payee=first, amount=amount, source=account_said(ctx, person, source)),
        goal=f"Pay {money(amount)} to {name} (at {bank}) from your {source.words} ending in {source.last4}.",
        steps=[
            agent(call("list_payees"), call("list_accounts")),
            agent(call("pay_payee", from_account_id=source.account_id, payee_id=meant, amount=amount),
                  confirm=phrase(ctx, "action_pay_payee", amount=amount, payee=name, source=source.last4)),  # fmt: skip
        ],
        reply=Utterance(intent="done_pay_payee", vars={"amount": amount, "payee": name, "source": source.last4}),
        outputs=[money(amount)],
        forbidden=[Forbidden(reason="the caller picked the other payee of that name", tool="pay_payee", arguments={"payee_id": other})],
        setup=[WorldEdit(table="payee", insert=twin)],
        keys=frozenset({source.account_id, payee.payee_id, "payees"}),
    )
    return structures.ask_which(
        piece, label="payee", what=f"payees named {first}", options=[i for i, _, _ in pair],
        described=[f"{n} at {b}" for _, n, b in pair], answer=f"the one at {bank}",
    )  # fmt: skip


def cancel_schedule_which(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """ "Cancel my scheduled transfer to savings" with two planned to it (the second added here)."""
    if not person.schedules:
        return None
    sched = ctx.pick(person.schedules)
    target = person.account(sched.to_account)
    if any(s.to_account == target.account_id for s in person.schedules if s is not sched):
        return None
    day = ctx.world.now.date() + dt.timedelta(days=ctx.rng.randrange(2, 60))
    amount = float(ctx.pick([v for v in (50, 75, 100, 150, 200, 300, 500) if v != sched.amount]))
    if day == sched.run_on:
        return None
    twin_id = unused_id(ctx, "scheduled_transfer", "schedule_id", sched.schedule_id)
    if twin_id is None:
        return None
    twin = {"schedule_id": twin_id, "customer_id": person.customer_id, "from_account": sched.from_account,
            "to_account": target.account_id, "amount": amount, "run_on": day, "status": "scheduled"}  # fmt: skip
    pair = [(sched.schedule_id, sched.amount, sched.run_on), (twin["schedule_id"], amount, day)]
    (meant, sum_meant, run_on), (other, _, _) = pair[::-1] if ctx.rng.random() < TWIN_SHARE else pair
    planned = sorted(pair, key=lambda p: p[2])
    date = on_day(ctx, run_on)
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say("ask_cancel_schedule_to_kind", kind=target.words),
        goal=f"Cancel the transfer to your {target.words} planned for {date} ({money(sum_meant)}); keep the other one.",
        steps=[
            agent(call("list_scheduled_transfers")),
            agent(call("cancel_scheduled_transfer", schedule_id=meant),
                  confirm=phrase(ctx, "action_cancel_schedule", amount=sum_meant, date=date,
                                 source=person.account(sched.from_account).last4, target=target.last4)),  # fmt: skip
        ],
        reply=Utterance(intent="done_cancel_schedule", vars={"amount": sum_meant, "date": date}),
        outputs=[money(sum_meant)],
        forbidden=[Forbidden(reason="the caller keeps the other planned transfer", tool="cancel_scheduled_transfer",
                             arguments={"schedule_id": other})],  # fmt: skip
        setup=[WorldEdit(table="scheduled_transfer", insert=twin)],
        keys=frozenset({sched.schedule_id, "schedules"}),
    )
    return structures.ask_which(
        piece, label="transfer", what=f"transfers planned to your {target.words}", options=[i for i, _, _ in planned],
        described=[f"{money(a)} on {on_day(ctx, d)}" for _, a, d in planned], answer=f"the one on {date}",
    )  # fmt: skip


def dispute_which(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """A charge to dispute at a merchant the caller bought from twice in the window (the earlier
    purchase added here): the search shows both, the agent asks which, and disputes that one."""
    window = ctx.world.now.date() - dt.timedelta(days=DISPUTE_WINDOW_DAYS)
    charges = [t for t in person.txns if t.amount > 0 and t.posted >= window + dt.timedelta(days=2)]
    if not charges:
        return None
    txn = ctx.pick(charges)
    if sum(txn.merchant.lower() in t.merchant.lower() for t in person.txns_of(txn.account_id)) != 1:
        return None
    day = window + dt.timedelta(days=ctx.rng.randrange(1, (txn.posted - window).days))
    twin_id = unused_id(ctx, "txn", "txn_id", txn.txn_id)
    if twin_id is None:
        return None
    twin = {"txn_id": twin_id, "account_id": txn.account_id, "merchant": txn.merchant, "category": txn.category,
            "posted": day, "amount": round(txn.amount * ctx.rng.uniform(0.4, 0.9), 2)}  # fmt: skip
    disputed = ctx.pick([(txn.txn_id, txn.amount, txn.posted), (twin["txn_id"], twin["amount"], day)])
    both = sorted([(txn.txn_id, txn.amount, txn.posted), (twin["txn_id"], twin["amount"], day)], key=lambda t: t[2])
    reason = ctx.pick(("wrong_amount", "not_received")) if txn.category in DELIVERED else "wrong_amount"
    account = person.account(txn.account_id)
    txn_id, amount, posted = disputed
    date = on_day(ctx, posted)
    piece = Piece(
        subject=person.customer_id,
        request=ctx.say(f"ask_dispute_which_{reason}", merchant=txn.merchant, account=account_said(ctx, person, account)),
        goal=f"Dispute the {money(amount)} charge at {txn.merchant} on {date} ({reason.replace('_', ' ')}); not the other one.",
        steps=[
            agent(call("list_accounts")),
            agent(call("search_transactions", account_id=account.account_id, merchant=txn.merchant)),
            agent(call("open_dispute", txn_id=txn_id, reason=reason),
                  confirm=dispute_consent(ctx, account, txn.merchant, amount, date, reason)),  # fmt: skip
        ],
        reply=Utterance(intent="done_dispute", vars={"merchant": txn.merchant, "amount": amount, "dispute_id": "D900001"}),
        outputs=["D900001"],
        forbidden=[Forbidden(reason="a dispute is not a fraud case", tool="transfer_to_human")],
        setup=[WorldEdit(table="txn", insert=twin)],
        keys=frozenset({txn.txn_id, account.account_id, "new_dispute"}),
    )
    piece = structures.ask_which(
        piece, label="charge", what=f"charges from {txn.merchant}", options=[i for i, _, _ in both],
        described=[f"{money(a)} on {on_day(ctx, d)}" for _, a, d in both], answer=f"the one on {date}",
    )  # fmt: skip
    return structures.looked_up(piece, label="transaction id", value=txn_id, keywords=["transaction id"])


CHOICES = (transfer_which, payee_alike, cancel_schedule_which, dispute_which)
