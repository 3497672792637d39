"""Tools for cards, disputes, statements, contact details and the fraud team."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from ..rules import FRAUD_CALLBACK, STATEMENT_MONTHS, statement_window
from ..tables import Card, Customer, Dispute, FraudCase, StatementRequest, Transaction
from .common import card_view, mask, own_account, own_card, verified

_MONTH = re.compile(r"(\d{4})-(\d{2})")


def _card_in(world: World, card_id: str, statuses: tuple[str, ...], doing: str):
    card = own_card(world, card_id)
    if card.status not in statuses:
        raise ToolError(f"card {card_id} is {card.status}; only a card that is {' or '.join(statuses)} can {doing}")
    return card


def _switch(world: World, card_id: str, before: str, after: str, doing: str) -> dict[str, Any]:
    _card_in(world, card_id, (before,), doing)
    return card_view(world.update(Card, card_id, status=after))


@tool(writes=True)
def freeze_card(world: World, card_id: str) -> dict[str, Any]:
    """Freeze an active card: it is declined everywhere until unfrozen.

    Args:
        card_id: The card id from list_cards, such as 'K30001'.
    """
    return _switch(world, card_id, "active", "frozen", "be frozen")


@tool(writes=True)
def unfreeze_card(world: World, card_id: str) -> dict[str, Any]:
    """Unfreeze a frozen card so that it works again.

    Args:
        card_id: The card id from list_cards, such as 'K30001'.
    """
    return _switch(world, card_id, "frozen", "active", "be unfrozen")


# A card reported lost is blocked for good: the agent may say it was cancelled, and that a replacement was ordered.
@tool(writes=True, claims=("report", "block", "cancel", "order", "replace"))
def report_card_lost(world: World, card_id: str) -> dict[str, Any]:
    """Report a card lost or stolen: it is blocked for good and a replacement with a new number is ordered.

    Args:
        card_id: The card id from list_cards, such as 'K30001'.
    """
    card = _card_in(world, card_id, ("active", "frozen"), "be reported lost")
    world.update(Card, card_id, status="lost")
    number = world.new_id("card", table="card")
    new_number = f"{'4' if card.brand == 'Visa' else '5'}{number * 7919 % 10**15:015d}"
    replacement = world.insert(Card, {"card_id": f"K{number}", "account_id": card.account_id, "customer_id": card.customer_id,
                                      "brand": card.brand, "number": new_number, "status": "active",
                                      "daily_limit": card.daily_limit, "replaces": card_id})  # fmt: skip
    return {"lost_card": card_view(world.require(Card, card_id)), "replacement": card_view(replacement)}


@tool(writes=True)
def set_card_daily_limit(world: World, card_id: str, daily_limit: int) -> dict[str, Any]:
    """Change an active card's daily spending limit.

    Args:
        card_id: The card id from list_cards, such as 'K30001'.
        daily_limit: The new limit in whole dollars, such as 1500.
    """
    _card_in(world, card_id, ("active",), "have its limit changed")
    if daily_limit <= 0:
        raise ToolError(f"daily limit {daily_limit!r} must be a positive whole number of dollars, such as 1500")
    return card_view(world.update(Card, card_id, daily_limit=float(daily_limit)))


@tool(writes=True)
def open_dispute(
    world: World, txn_id: str, reason: Literal["unrecognized", "duplicate_charge", "wrong_amount", "not_received"]
) -> dict[str, Any]:
    """Open a dispute on a charge on one of the verified customer's accounts.

    Args:
        txn_id: The transaction id from search_transactions, such as 'T400123'.
        reason: Why the charge is disputed: not recognised, charged twice, the wrong amount, or goods or service not received.
    """
    customer = verified(world)
    txn = world.get(Transaction, txn_id)
    if txn is None:
        raise ToolError(f"no transaction {txn_id!r}; search_transactions shows the account's transactions and their ids")
    own_account(world, txn.account_id)
    if txn.amount <= 0:
        raise ToolError(f"transaction {txn_id} is money received, not a charge; only charges can be disputed")
    if world.select(Dispute, {"txn_id": txn_id}, limit=1):
        raise ToolError(f"transaction {txn_id} already has a dispute open")
    dispute_id = f"D{world.new_id('dispute', start=900001)}"
    world.insert(Dispute, {"dispute_id": dispute_id, "txn_id": txn_id, "customer_id": customer.customer_id,
                           "reason": reason, "opened": world.now.date()})  # fmt: skip
    return {"dispute_id": dispute_id, "txn_id": txn_id, "merchant": txn.merchant, "amount": txn.amount, "status": "open"}


@tool(writes=True)
def request_statement(world: World, account_id: str, month: str, delivery: Literal["email", "post"]) -> dict[str, Any]:
    """Order a statement of one account for one past month.

    Args:
        account_id: The account id, such as 'A20001'.
        month: The month as YYYY-MM, within the last 12 months.
        delivery: Sent to the registered email address, or by post to the registered address.
    """
    account = own_account(world, account_id)
    found = _MONTH.fullmatch(month.strip())
    today = world.now.date()
    latest = today.replace(day=1) - dt.timedelta(days=1)  # the last month that has ended
    months_back = (latest.year - int(found[1])) * 12 + latest.month - int(found[2]) if found else -1
    if not found or not 1 <= int(found[2]) <= 12 or not 0 <= months_back < STATEMENT_MONTHS:
        earliest, last = statement_window(today)
        raise ToolError(f"month {month!r} is not one of the last {STATEMENT_MONTHS} full months; give it as YYYY-MM, from {earliest} to {last}")
    request_id = f"R{world.new_id('statement_request', start=500001)}"
    world.insert(StatementRequest, {"request_id": request_id, "account_id": account.account_id, "month": month.strip(), "delivery": delivery})
    return {"request_id": request_id, "account": mask(account.number), "month": month.strip(), "delivery": delivery}


@tool(writes=True)
def update_contact_details(world: World, email: str | None = None, address: str | None = None) -> dict[str, Any]:
    """Change the verified customer's email address or postal address (the registered phone cannot change here).

    Args:
        email: The new email address, such as 'sam.lee@example.com'.
        address: The new postal address on one line.
    """
    customer = verified(world)
    changes: dict[str, str] = {}
    if email is not None:
        if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", email.strip().lower()):
            raise ToolError(f"email {email!r} is not an email address; give it like name@example.com")
        changes["email"] = email.strip().lower()
    if address is not None:
        if len(address.strip()) < 8:
            raise ToolError(f"address {address!r} is too short to be a postal address; give street, city and zip")
        changes["address"] = address.strip()
    if not changes:
        raise ToolError("give a new email or a new address")
    after = world.update(Customer, customer.customer_id, **changes)
    return {"customer_id": after.customer_id, "email": after.email, "address": after.address}


@tool(writes=True)
def transfer_to_human(world: World, reason: Literal["suspected_fraud"], txn_id: str | None = None) -> dict[str, Any]:
    """Hand the verified customer's case to the fraud team, who call back; name the suspicious charge if there is one.

    Args:
        reason: Why the case goes to a person: suspected fraud.
        txn_id: The transaction the customer does not recognise, such as 'T400123', if any.
    """
    customer = verified(world)
    if txn_id is not None:
        txn = world.get(Transaction, txn_id)
        if txn is None:
            raise ToolError(f"no transaction {txn_id!r}; leave txn_id out or take it from search_transactions")
        own_account(world, txn.account_id)
    case_id = f"F{world.new_id('fraud_case', start=300001)}"
    world.insert(FraudCase, {"case_id": case_id, "customer_id": customer.customer_id, "reason": reason, "txn_id": txn_id})
    return {"case_id": case_id, "status": "with the fraud team", "callback": FRAUD_CALLBACK}
