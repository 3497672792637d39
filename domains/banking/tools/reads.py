"""Tools that read: identity, accounts, transactions, cards, payees, schedules, loans, the knowledge base.

Everything about a customer needs a verified identity first (`verify_identity`); the knowledge
base is public.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any

from pydantic import Field

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from ..tables import Account, Article, ArticleBase, Card, Customer, Loan, Payee, Product, ScheduledTransfer
from .common import (
    SESSION_KEY,
    account_view,
    card_view,
    cents,
    format_phone,
    mask,
    own_account,
    parse_date,
    payee_view,
    verified,
)

_WORDS = re.compile(r"[a-z0-9]+")
KB_RESULTS = 5


@tool(identifies="customer_id")
def verify_identity(
    world: World,
    phone_number: str,
    date_of_birth: str,
    id_last4: str | None = None,
    security_answer: str | None = None,
) -> dict[str, Any]:
    """Verify the caller's identity. Needed before any account information is read or changed.

    Args:
        phone_number: The customer's registered phone number, such as '415-555-0123'.
        date_of_birth: The customer's date of birth as YYYY-MM-DD.
        id_last4: The last four digits of the customer's government id number (this, or security_answer).
        security_answer: The answer to the customer's security question (this, or id_last4).
    """
    phone = format_phone(phone_number)
    born = parse_date(date_of_birth, "date of birth")
    if not id_last4 and not security_answer:
        raise ToolError("give id_last4 or security_answer as well as the phone number and date of birth")
    found = world.select(Customer, {"phone": phone}, limit=1)
    customer = found[0] if found else None
    matches = (
        customer is not None
        and customer.date_of_birth == born
        and (
            (id_last4 is not None and id_last4.strip() == customer.id_last4)
            or (security_answer is not None and security_answer.strip().lower() == customer.security_answer.lower())
        )
    )
    if not matches or customer is None:
        world.session.pop(SESSION_KEY, None)
        raise ToolError("the details do not match our records; ask the customer to check them and try again")
    world.session[SESSION_KEY] = customer.customer_id
    return {"verified": True, "customer_id": customer.customer_id, "full_name": customer.full_name}


@tool
def list_accounts(world: World) -> list[dict[str, Any]]:
    """List the verified customer's accounts: kind, product, masked number, nickname, balance and status."""
    customer = verified(world)
    return [account_view(world, a) for a in world.select(Account, {"customer_id": customer.customer_id}, order_by="account_id")]


@tool
def get_account_details(world: World, account_id: str) -> dict[str, Any]:
    """Details of one of the verified customer's accounts, with the date it was opened.

    Args:
        account_id: The account id, such as 'A20001'.
    """
    account = own_account(world, account_id)
    return {**account_view(world, account), "opened": account.opened.isoformat()}


SEARCH_LIMIT = 50  # the newest transactions one search lists


@tool
def search_transactions(
    world: World,
    account_id: str,
    start_date: str | None = None,
    end_date: str | None = None,
    merchant: str | None = None,
    min_amount: float | None = None,
    max_amount: float | None = None,
) -> dict[str, Any]:
    """Search an account's transactions, newest first (at most 50), with their count and total.

    Args:
        account_id: The account id, such as 'A20001'.
        start_date: Earliest posting date, YYYY-MM-DD (inclusive).
        end_date: Latest posting date, YYYY-MM-DD (inclusive).
        merchant: Part of the merchant name, any case, such as 'coffee'.
        min_amount: Smallest amount in dollars (money out is positive, money in negative).
        max_amount: Largest amount in dollars.
    """
    own_account(world, account_id)
    sql = "SELECT txn_id, posted, merchant, category, amount, memo FROM txn WHERE account_id = ?"
    params: list[Any] = [account_id]
    if start_date:
        sql += " AND posted >= ?"
        params.append(parse_date(start_date, "start date").isoformat())
    if end_date:
        sql += " AND posted <= ?"
        params.append(parse_date(end_date, "end date").isoformat())
    if merchant:
        sql += " AND lower(merchant) LIKE ?"
        params.append(f"%{merchant.strip().lower()}%")
    if min_amount is not None:
        sql += " AND amount >= ?"
        params.append(min_amount)
    if max_amount is not None:
        sql += " AND amount <= ?"
        params.append(max_amount)
    rows = world.query(sql + f" ORDER BY posted DESC, txn_id DESC LIMIT {SEARCH_LIMIT}", params)
    found = [
        {"txn_id": t, "posted": p, "merchant": m, "category": c, "amount": a, "memo": memo}
        for t, p, m, c, a, memo in rows
    ]
    return {"account_id": account_id, "count": len(found), "total": cents(sum(t["amount"] for t in found)), "transactions": found}


@tool
def list_recent_transfers(world: World, days: Annotated[int, Field(ge=1, le=90, description="How many days back to look, 1 to 90.")] = 7) -> dict[str, Any]:
    """The verified customer's transfers and payments of the last days, newest first, and what left their accounts today."""
    customer = verified(world)
    since = world.now - dt.timedelta(days=days)
    rows = world.query(
        "SELECT transfer_id, from_account, to_account, payee_id, amount, made_at FROM transfer "
        "WHERE customer_id = ? AND made_at >= ? ORDER BY made_at DESC, transfer_id DESC",
        [customer.customer_id, since.isoformat()],
    )
    transfers = [
        {"transfer_id": t, "from_account": f, "to_account": to, "payee_id": p, "amount": a, "made_at": str(m)[:16].replace("T", " ")}
        for t, f, to, p, a, m in rows
    ]
    today = world.now.date().isoformat()
    sent_today = cents(sum(t["amount"] for t in transfers if t["made_at"].startswith(today)))
    return {"transfers": transfers, "sent_today": sent_today}


@tool
def list_cards(world: World) -> list[dict[str, Any]]:
    """List the verified customer's cards: brand, masked number, status and daily spending limit."""
    customer = verified(world)
    return [card_view(c) for c in world.select(Card, {"customer_id": customer.customer_id}, order_by="card_id")]


@tool
def list_payees(world: World) -> list[dict[str, Any]]:
    """List the verified customer's saved payees and when each can first be paid."""
    customer = verified(world)
    return [payee_view(p) for p in world.select(Payee, {"customer_id": customer.customer_id}, order_by="payee_id")]


@tool
def list_scheduled_transfers(world: World) -> list[dict[str, Any]]:
    """List the verified customer's scheduled transfers that have not run or been cancelled."""
    customer = verified(world)
    rows = world.select(ScheduledTransfer, {"customer_id": customer.customer_id, "status": "scheduled"}, order_by="schedule_id")
    numbers = {a.account_id: mask(a.number) for a in world.select(Account, {"customer_id": customer.customer_id})}
    return [
        {"schedule_id": s.schedule_id, "from_account": s.from_account, "from_account_number": numbers.get(s.from_account),
         "to_account": s.to_account, "to_account_number": numbers.get(s.to_account), "amount": s.amount, "run_on": s.run_on.isoformat()}
        for s in rows
    ]  # fmt: skip


@tool
def list_loans(world: World) -> list[dict[str, Any]]:
    """List the verified customer's loans: product, balance, monthly payment and next due date."""
    customer = verified(world)
    loans = []
    for loan in world.select(Loan, {"customer_id": customer.customer_id}, order_by="loan_id"):
        product = world.require(Product, loan.product_id, "product")
        loans.append(
            {"loan_id": loan.loan_id, "product": product.name, "balance": loan.balance,
             "monthly_payment": loan.monthly_payment, "next_due": loan.next_due.isoformat()}
        )  # fmt: skip
    return loans


def _words(text: str) -> set[str]:
    return set(_WORDS.findall(text.lower()))


@tool
def search_kb(world: World, query: str) -> list[dict[str, str]]:
    """Search the bank's knowledge base (products, fees, rates, procedures); the best five titles and ids.

    Args:
        query: Words to look for in article titles, such as 'Everyday Checking overdraft fee'.
    """
    wanted = _words(query)
    if not wanted:
        raise ToolError(f"query {query!r} has no words to search for; give a product and a topic, such as 'Goal Saver interest rate'")
    titles = _titles(world)
    ranked = sorted(((-len(wanted & words), article_id) for article_id, (_, words) in titles.items() if wanted & words))
    return [{"article_id": a, "title": titles[a][0]} for _, a in ranked[:KB_RESULTS]]


def _titles(world: World) -> dict[str, tuple[str, set[str]]]:
    cached = world.session.get("kb_titles")  # the knowledge base never changes within an episode
    if cached is None:
        cached = world.session["kb_titles"] = {a: (t, _words(t)) for a, t in world.query("SELECT article_id, title FROM kb_article")}
    return cached


@tool
def read_article(world: World, article_id: str) -> ArticleBase:
    """Read one knowledge-base article.

    Args:
        article_id: The article id from search_kb, such as 'KB0042'.
    """
    return world.require(Article, article_id, "article")

