"""What the banking tools share: the verified session, ownership checks, masking, parsing."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from toolgym.envs import World
from toolgym.errors import ToolError

from ..rules import PAYEE_COOLING_OFF_HOURS
from ..tables import Account, AccountBase, Card, CardBase, Customer, CustomerBase, PayeeBase, Product

_NON_DIGITS = re.compile(r"\D")
SESSION_KEY = "verified_customer"


def mask(number: str) -> str:
    """Only the last four digits are ever shown."""
    return f"****{number[-4:]}"


def clock(moment: dt.datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M}"


def cents(amount: float) -> float:
    return round(amount + 0.0, 2)


def format_phone(raw: str) -> str:
    digits = _NON_DIGITS.sub("", raw)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) != 10 or re.search(r"[A-Za-z]", raw):
        raise ToolError(f"phone number {raw!r} is not a valid 10-digit number; give it like 415-555-0123")
    return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"


def parse_date(raw: str, what: str) -> dt.date:
    try:
        return dt.date.fromisoformat(raw.strip())
    except (ValueError, AttributeError):
        raise ToolError(f"{what} {raw!r} is not a date; give it as YYYY-MM-DD, such as 2025-03-07") from None


def positive_amount(amount: float, what: str = "amount") -> float:
    if not amount > 0 or amount != amount:
        raise ToolError(f"{what} {amount!r} must be a positive number of dollars, such as 250.00")
    if round(amount, 2) != amount:
        raise ToolError(f"{what} {amount!r} has more than two decimals; give dollars and cents, such as 250.75")
    return float(amount)


def verified(world: World) -> CustomerBase:
    """The customer who proved their identity in this session; a ToolError before that."""
    customer_id = world.session.get(SESSION_KEY)
    if customer_id is None:
        raise ToolError(
            "the customer's identity is not verified; call verify_identity first with their registered "
            "phone number, date of birth, and the last four digits of their id number or their security answer"
        )
    return world.require(Customer, customer_id, "customer")


def own_account(world: World, account_id: str) -> AccountBase:
    customer = verified(world)
    account = world.get(Account, account_id)
    if account is None or account.customer_id != customer.customer_id:
        raise ToolError(f"{account_id!r} is not an account of the verified customer; list_accounts shows their accounts")
    return account


def own_card(world: World, card_id: str) -> CardBase:
    customer = verified(world)
    card = world.get(Card, card_id)
    if card is None or card.customer_id != customer.customer_id:
        raise ToolError(f"{card_id!r} is not a card of the verified customer; list_cards shows their cards")
    return card


def account_view(world: World, account: AccountBase) -> dict[str, Any]:
    product = world.require(Product, account.product_id, "product")
    view: dict[str, Any] = {
        "account_id": account.account_id,
        "kind": account.kind,
        "product": product.name,
        "account_number": mask(account.number),
        "nickname": account.nickname,
        "status": account.status,
    }
    if account.kind == "credit_card":
        view.update(amount_owed=account.balance, credit_limit=account.credit_limit)
    else:
        view["balance"] = account.balance
    return view


def card_view(card: CardBase) -> dict[str, Any]:
    return {
        "card_id": card.card_id,
        "account_id": card.account_id,
        "brand": card.brand,
        "card_number": mask(card.number),
        "status": card.status,
        "daily_limit": card.daily_limit,
    }


def can_pay_from(payee: PayeeBase) -> dt.datetime:
    return payee.added_at + dt.timedelta(hours=PAYEE_COOLING_OFF_HOURS)


def payee_view(payee: PayeeBase) -> dict[str, Any]:
    return {
        "payee_id": payee.payee_id,
        "name": payee.name,
        "bank": payee.bank,
        "account_number": mask(payee.account_number),
        "can_pay_from": clock(can_pay_from(payee)),
    }


def spend_from(world: World, account: AccountBase, amount: float) -> None:
    """Money leaves an account: it must be active, a deposit account, and hold enough."""
    if account.status == "frozen":
        raise ToolError(f"account {account.account_id} is frozen; no money can leave it until it is unfrozen")
    if account.kind == "credit_card":
        raise ToolError(f"account {account.account_id} is a credit card; money can only be sent from checking or savings")
    if account.balance < amount:
        raise ToolError(
            f"account {account.account_id} holds ${account.balance:,.2f}, less than ${amount:,.2f}; choose a smaller amount"
        )
    world.update(Account, account.account_id, balance=cents(account.balance - amount))


def receive_into(world: World, account: AccountBase, amount: float) -> None:
    """Money arrives: a deposit grows, a credit card's amount owed shrinks."""
    change = -amount if account.kind == "credit_card" else amount
    world.update(Account, account.account_id, balance=cents(account.balance + change))
