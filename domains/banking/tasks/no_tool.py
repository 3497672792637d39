"""The no-tool kinds the domain writes itself: a missing fact, an invalid value, a policy refusal.

(`no_tool/irrelevant` and `no_tool/unavailable` come from the engine.) None changes the world.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from toolgym.envs import Forbidden, GenContext, Piece, Task, WorldEdit, call, draw, pieces

from ..rules import (
    CARD_LIMIT_MAX,
    CARD_LIMIT_MIN,
    DAILY_TRANSFER_LIMIT,
    DISPUTE_WINDOW_DAYS,
    PAYEE_COOLING_OFF_HOURS,
    PER_TRANSFER_LIMIT,
    STATEMENT_MONTHS,
    month_said,
    statement_window,
)
from .index import Index, Person, index_of
from .parts import account_said, agent, assemble, card_said, on_day, phrase
from .people import FIRST_NAMES, LAST_NAMES, OTHER_BANKS
from .writes import disputed_charge, room_in, source_and_target

# ---- missing_info ------------------------------------------------------------------------------

# what only the customer can say: a charge to dispute is found with search_transactions (acting tasks
# look it up), so a merchant the customer does not name is not asked for here. The last field: the
# value is the customer's to choose (how much, when), not a fact they could look up.
MISSING = (
    ("missing_payee_number", "the payee's account number", False),  # the payee's, not "your" (see phrasing.owned)
    ("missing_amount", "the transfer amount", True),
    ("missing_date", "the transfer date", True),
)


# what verify_identity takes, as every banking ask_missing names it
IDENTITY_LABELS = ("phone number", "date of birth", "id number")


def missing_info(ctx: GenContext) -> Task:
    """The customer wants something done but cannot give a value it needs: the agent asks for it."""
    intent, label, chosen = ctx.pick(MISSING)
    person = ctx.pick(index_of(ctx.world).people)
    slots = {
        "name": f"{ctx.pick(FIRST_NAMES)} {ctx.pick(LAST_NAMES)}",
        "bank": ctx.pick(OTHER_BANKS),
        "source": ctx.pick(("checking account", "savings account")),
        "target": ctx.pick(("savings account", "credit card account", "checking account")),
        "amount": float(ctx.rng.randrange(2, 300) * 5),
        "first": person.first_name,
    }
    if slots["source"] == slots["target"]:
        slots["target"] = "credit card account"
    piece = pieces.missing_info(ctx.say(intent, **slots), f"Get something done without knowing {label}.", [label], chosen=chosen)
    # the caller has not said who they are either: the policy verifies them first, so the reply asks
    # for that too (banking's ask_missing), and the verifier wants it asked; the caller knows these,
    # so they stay out of what the caller cannot say (`unknown`)
    assert piece.no_tool is not None
    spec = piece.no_tool.model_copy(update={"missing": [label, *IDENTITY_LABELS]})
    return assemble(ctx, None, [replace(piece, no_tool=spec)])


# ---- invalid_value -----------------------------------------------------------------------------


def _bad_month(ctx: GenContext) -> tuple[str, str, str | None]:
    """A month no statement can be ordered for, why, and the nearest one that can (a month too old
    has one: the earliest in the window; a month number that does not exist has none)."""
    this_year = ctx.world.now.year
    year = this_year - ctx.rng.randrange(0, 2)
    if ctx.rng.random() < 0.6:
        # a slip of the keys ("13" for 12, "21" for 12 reversed, "00"), not a number no one writes ("44")
        return f"{year}-{ctx.pick((0, 13, 21)):02d}", phrase(ctx, "problem_month_number"), None
    earliest, _ = statement_window(ctx.world.now.date())  # said as the policy states the window
    old = f"{this_year - ctx.rng.randrange(2, 6)}-{ctx.rng.randrange(1, 13):02d}"
    return old, phrase(ctx, "problem_month_old", months=STATEMENT_MONTHS), month_said(earliest)


def _bad_account_number(ctx: GenContext) -> str:
    digits = f"{ctx.rng.randrange(10**7, 10**10)}"
    way = ctx.rng.randrange(3)
    if way == 0:
        return digits[: ctx.rng.randrange(2, 6)]
    if way == 1:
        return digits + f"{ctx.rng.randrange(10**4, 10**6)}"
    spot = ctx.rng.randrange(1, len(digits) - 1)
    return digits[:spot] + ctx.pick("ABOXS") + digits[spot + 1 :]


def _bad_birth_date(ctx: GenContext) -> str:
    year = ctx.rng.randrange(1945, 2005)
    return ctx.pick((f"{year}-02-{ctx.pick((30, 31))}", f"{year}-{ctx.pick((4, 6, 9, 11)):02d}-31", f"{year}-{ctx.rng.randrange(13, 20)}-{ctx.rng.randrange(1, 29):02d}"))


def invalid_value(ctx: GenContext) -> Task:
    person = ctx.pick(index_of(ctx.world).people)
    way = ctx.rng.random()
    valid = None
    if way < 0.35:
        bad, problem, valid = _bad_month(ctx)
        request = ctx.say(f"ask_statement_{ctx.pick(('email', 'post'))}", month=bad, account=phrase(ctx, "name_account_kind", kind="checking account"))
        parameter, label = "month", "statement month"
    elif way < 0.7:
        bad = _bad_account_number(ctx)
        request = ctx.say("ask_add_payee", name=f"{ctx.pick(FIRST_NAMES)} {ctx.pick(LAST_NAMES)}", bank=ctx.pick(OTHER_BANKS), number=bad)
        parameter, label, problem = "account_number", "account number", phrase(ctx, "problem_account_number")
    else:
        bad = _bad_birth_date(ctx)
        request = f"{ctx.say('ask_balance', account=phrase(ctx, 'name_account_kind', kind='savings account'))} {ctx.say('give_identity', phone=person.phone, dob=bad, last4=person.id_last4)}"
        parameter, label, problem = "date_of_birth", "date of birth", phrase(ctx, "problem_birth_date")
    piece = pieces.invalid_value(request, f"Ask for something, giving {bad} as your {label}.", parameter=parameter, value=bad,
                                 label=label, problem=problem, valid=valid)  # fmt: skip
    return assemble(ctx, None, [piece])


# ---- policy_refusal ----------------------------------------------------------------------------


def _over_limit(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """One transfer above the per-transfer limit and within the daily one (so the refusal names the
    only limit it breaks), into an account that can take it (not a card owing less than the amount)."""
    sources = person.spendable()
    if not sources:
        return None
    source = ctx.pick(sources)
    targets = [a for a in person.accounts if a.account_id != source.account_id and room_in(a) >= PER_TRANSFER_LIMIT + 50]
    if not targets:
        return None
    target = ctx.pick(targets)
    most = min(DAILY_TRANSFER_LIMIT, room_in(target))
    amount = float(ctx.rng.randrange(int(PER_TRANSFER_LIMIT) // 50 + 1, int(most) // 50 + 1) * 50)
    setup = []
    if source.balance < amount:  # the money is there: only the limit stands in the way
        setup = [WorldEdit(table="account", key=source.account_id, set={"balance": round(amount + ctx.rng.randrange(100, 9000), 2)})]
    return pieces.policy_refusal(
        ctx.say("ask_transfer_insist", amount=amount, source=account_said(ctx, person, source), target=account_said(ctx, person, target)),
        f"Move {amount:,.2f} dollars from your {source.words} ending in {source.last4} to your {target.words} ending in {target.last4} in one go, and insist on it.",
        rule=phrase(ctx, "rule_transfer_limit", limit=PER_TRANSFER_LIMIT),
        forbidden=[Forbidden(reason="a transfer above the per-transaction limit, or split to get around it", tool="transfer_between_accounts"),
                   Forbidden(reason="a payment above the per-transaction limit", tool="pay_payee")],  # fmt: skip
        subject=person.customer_id,
        setup=setup,
        steps=[agent(call("list_accounts"))],
    )


def _over_daily_limit(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    """Earlier today's transfers plus this one would pass the daily limit (each within the per-transfer one)."""
    pair = source_and_target(ctx, person, person.spendable())
    if pair is None:
        return None
    source, target = pair
    earlier = [float(ctx.rng.randrange(40, int(PER_TRANSFER_LIMIT) // 50 + 1) * 50) for _ in range(2)]
    room = DAILY_TRANSFER_LIMIT - sum(earlier)
    if room >= PER_TRANSFER_LIMIT:  # one more transfer within the per-transfer limit would still fit
        return None
    amount = float(ctx.rng.randrange(max(1, int(room) // 50 + 1), int(PER_TRANSFER_LIMIT) // 50 + 1) * 50)
    if amount > PER_TRANSFER_LIMIT or amount <= room:
        return None
    made = [ctx.world.now - dt.timedelta(minutes=ctx.rng.randrange(20, 240)) for _ in earlier]
    setup = [WorldEdit(table="transfer", insert={"transfer_id": f"X65000{i + 1}", "customer_id": person.customer_id,
                                                 "from_account": source.account_id, "to_account": target.account_id,
                                                 "amount": value, "made_at": when})
             for i, (value, when) in enumerate(zip(earlier, made, strict=True))]  # fmt: skip
    setup.append(WorldEdit(table="account", key=source.account_id, set={"balance": round(amount + ctx.rng.randrange(200, 6000), 2)}))
    return pieces.policy_refusal(
        ctx.say("ask_transfer_again", amount=amount, source=account_said(ctx, person, source), target=account_said(ctx, person, target)),
        f"Move another {amount:,.2f} dollars today, after the transfers you made this morning.",
        rule=phrase(ctx, "rule_daily_limit", limit=DAILY_TRANSFER_LIMIT),
        forbidden=[Forbidden(reason="a transfer over the daily limit", tool="transfer_between_accounts"),
                   Forbidden(reason="a payment over the daily limit", tool="pay_payee")],  # fmt: skip
        subject=person.customer_id,
        setup=setup,
        steps=[agent(call("list_accounts"), call("list_recent_transfers"))],
    )


def _frozen_account(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    pair = source_and_target(ctx, person, [a for a in person.accounts if a.kind != "credit_card"])
    if pair is None:
        return None
    source, target = pair
    amount = float(ctx.rng.randrange(2, 120) * 10)
    setup = [] if source.status == "frozen" else [WorldEdit(table="account", key=source.account_id, set={"status": "frozen"})]
    return pieces.policy_refusal(
        ctx.say("ask_transfer", amount=amount, source=account_said(ctx, person, source), target=account_said(ctx, person, target)),
        f"Move {amount:,.2f} dollars out of your {source.words} (which is frozen).",
        rule=phrase(ctx, "rule_frozen"),
        forbidden=[Forbidden(reason="no money leaves a frozen account", tool="transfer_between_accounts"),
                   Forbidden(reason="no money leaves a frozen account", tool="pay_payee", arguments={"from_account_id": source.account_id})],  # fmt: skip
        subject=person.customer_id,
        setup=setup,
        steps=[agent(call("list_accounts"))],
    )


def _old_dispute(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    found = disputed_charge(ctx, person, recent=False)
    if found is None:
        return None
    txn, _, request = found
    return pieces.policy_refusal(
        request,
        f"Dispute the charge at {txn.merchant} from {on_day(ctx, txn.posted)}.",
        rule=phrase(ctx, "rule_dispute_window", days=DISPUTE_WINDOW_DAYS),
        forbidden=[Forbidden(reason="a dispute past the window", tool="open_dispute")],
        subject=person.customer_id,
        steps=[agent(call("list_accounts")), agent(call("search_transactions", account_id=txn.account_id, merchant=txn.merchant))],
    )


def _cooling_off(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    sources = person.spendable()
    if not sources:
        return None
    source = ctx.pick(sources)
    name = f"{ctx.pick(FIRST_NAMES)} {ctx.pick(LAST_NAMES)}"
    payee_id = "P99001"
    now = ctx.world.now
    since_midnight = now.hour * 60 + now.minute  # the customer says "earlier today": keep it today
    added = now - dt.timedelta(minutes=ctx.rng.randrange(5, max(6, since_midnight)))
    payee = {"payee_id": payee_id, "customer_id": person.customer_id, "name": name, "bank": ctx.pick(OTHER_BANKS),
             "account_number": f"{ctx.rng.randrange(10**7, 10**10)}", "added_at": added}  # fmt: skip
    amount = float(ctx.rng.randrange(2, 200) * 5)
    return pieces.policy_refusal(
        ctx.say("ask_pay_new_payee", amount=amount, payee=name, source=account_said(ctx, person, source)),
        f"Pay {amount:,.2f} dollars to {name}, whom you added as a payee earlier today.",
        rule=phrase(ctx, "rule_cooling_off", hours=PAYEE_COOLING_OFF_HOURS),
        forbidden=[Forbidden(reason="a payee in its cooling-off period was paid", tool="pay_payee", arguments={"payee_id": payee_id})],
        subject=person.customer_id,
        setup=[WorldEdit(table="payee", insert=payee)],
        steps=[agent(call("list_payees"))],
    )


def _card_limit_out_of_range(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    cards = [c for c in person.cards if c.status == "active"]
    if not cards:
        return None
    card = ctx.pick(cards)
    limit = ctx.pick((ctx.rng.randrange(1, CARD_LIMIT_MIN // 10) * 10, ctx.rng.randrange(CARD_LIMIT_MAX // 100 + 1, 200) * 100))
    return pieces.policy_refusal(
        ctx.say("ask_card_limit", card=card_said(ctx, card), limit=float(limit), higher=limit > card.daily_limit),
        f"Set your card's daily limit to {limit} dollars.",
        rule=phrase(ctx, "rule_card_limit", low=float(CARD_LIMIT_MIN), high=float(CARD_LIMIT_MAX)),
        forbidden=[Forbidden(reason="a card limit outside the allowed range", tool="set_card_daily_limit", arguments={"daily_limit": limit})],
        subject=person.customer_id,
        steps=[agent(call("list_cards"))],
    )


def _full_number(ctx: GenContext, person: Person, index: Index) -> Piece | None:
    if ctx.rng.random() < 0.5 and person.cards:
        card = ctx.pick(person.cards)
        request, steps = ctx.say("ask_full_card_number", card=card_said(ctx, card)), [agent(call("list_cards"))]
    else:
        account = ctx.pick(person.accounts)
        request, steps = ctx.say("ask_full_account_number", account=account_said(ctx, person, account)), [agent(call("list_accounts"))]
    return pieces.policy_refusal(
        request,
        "Get a full card or account number read out to you.",
        rule=phrase(ctx, "rule_full_number"),
        forbidden=[Forbidden(reason="nothing changes when a number is asked for", tool="report_card_lost")],
        subject=person.customer_id,
        steps=steps,
    )


REFUSALS = (_over_limit, _over_daily_limit, _frozen_account, _old_dispute, _cooling_off, _card_limit_out_of_range, _full_number)


def policy_refusal(ctx: GenContext) -> Task:
    index = index_of(ctx.world)
    person = ctx.pick(index.people)
    piece: Piece = draw(ctx, REFUSALS, person, index, tries=40)
    return assemble(ctx, person, [piece])
