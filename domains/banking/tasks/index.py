"""What task generators draw from: every customer of a built world with their money, read once.

Generators must cost about a millisecond, so they never scan tables per task: the index is
built on first use from a few queries, once per world template (`world_index`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from toolgym.envs import World, world_index

from ..catalogue import FACETS, Facet, fact_text


@dataclass(frozen=True)
class Acct:
    account_id: str
    kind: str  # checking | savings | credit_card
    product: str
    last4: str
    balance: float
    credit_limit: float
    status: str
    opened: dt.date

    @property
    def spendable(self) -> bool:
        return self.status == "active" and self.kind != "credit_card"

    @property
    def words(self) -> str:
        """How the customer names it: 'savings account', 'credit card account'."""
        return {"checking": "checking account", "savings": "savings account", "credit_card": "credit card account"}[self.kind]


@dataclass(frozen=True)
class CardInfo:
    card_id: str
    account_id: str
    brand: str
    last4: str
    status: str
    daily_limit: float


# Categories of goods that can fail to arrive (a "not received" dispute, worded as "the order never
# arrived"): no hotel or airline, whose charge is for a stay or a flight, not an order
DELIVERED = frozenset({"shopping", "electronics", "home", "clothing", "books", "pets"})


@dataclass(frozen=True)
class Txn:
    txn_id: str
    account_id: str
    posted: dt.date
    merchant: str
    category: str
    amount: float


@dataclass(frozen=True)
class PayeeInfo:
    payee_id: str
    name: str
    bank: str
    last4: str


@dataclass(frozen=True)
class Sched:
    schedule_id: str
    from_account: str
    to_account: str
    amount: float
    run_on: dt.date


@dataclass(frozen=True)
class LoanInfo:
    loan_id: str
    product: str
    balance: float
    monthly_payment: float
    next_due: dt.date


@dataclass(frozen=True)
class Person:
    customer_id: str
    name: str
    phone: str
    dob: str
    id_last4: str
    security_answer: str
    email: str
    accounts: tuple[Acct, ...]
    cards: tuple[CardInfo, ...]
    txns: tuple[Txn, ...]  # newest first
    payees: tuple[PayeeInfo, ...]
    schedules: tuple[Sched, ...]
    loans: tuple[LoanInfo, ...]

    @property
    def first_name(self) -> str:
        return self.name.split()[0]

    def account(self, account_id: str) -> Acct:
        return next(a for a in self.accounts if a.account_id == account_id)

    def spendable(self) -> list[Acct]:
        return [a for a in self.accounts if a.spendable]

    def unique_kind(self, account: Acct) -> bool:
        """Whether 'my savings account' names this one account (else the customer says its last four)."""
        return sum(a.kind == account.kind for a in self.accounts) == 1

    def txns_of(self, account_id: str) -> list[Txn]:
        return [t for t in self.txns if t.account_id == account_id]

    def card_of(self, account_id: str) -> CardInfo | None:
        return next((c for c in self.cards if c.account_id == account_id), None)


@dataclass(frozen=True)
class KbFact:
    product: str
    facet: Facet
    article_id: str
    value: str  # as the article writes it: "$35.00", "4.35%"


class Index:
    def __init__(self, people: list[Person], facts: list[KbFact], next_card: int):
        self.people = people
        self.by_id = {p.customer_id: p for p in people}
        self.facts = facts
        self.next_card = next_card  # the number the next replacement card gets
        self._where: dict[str, list[Person]] = {}

    def where(self, name: str, fits: Callable[[Person], bool]) -> list[Person]:
        """The customers that fit a named condition (computed once per name)."""
        found = self._where.get(name)
        if found is None:
            found = self._where[name] = [p for p in self.people if fits(p)]
        return found


def _group(rows, key: int) -> dict[str, list]:
    grouped: dict[str, list] = {}
    for row in rows:
        grouped.setdefault(row[key], []).append(row)
    return grouped


@world_index
def index_of(world: World) -> Index:
    products = {pid: name for pid, name in world.query("SELECT product_id, name FROM product")}
    accounts = _group(world.query(
        "SELECT customer_id, account_id, kind, product_id, number, balance, credit_limit, status, opened FROM account ORDER BY account_id"), 0)
    cards = _group(world.query(
        "SELECT customer_id, card_id, account_id, brand, number, status, daily_limit FROM card ORDER BY card_id"), 0)
    txns = _group(world.query(
        "SELECT a.customer_id, t.txn_id, t.account_id, t.posted, t.merchant, t.category, t.amount FROM txn t "
        "JOIN account a ON a.account_id = t.account_id ORDER BY t.posted DESC, t.txn_id DESC"), 0)
    payees = _group(world.query("SELECT customer_id, payee_id, name, bank, account_number FROM payee ORDER BY payee_id"), 0)
    schedules = _group(world.query(
        "SELECT customer_id, schedule_id, from_account, to_account, amount, run_on FROM scheduled_transfer "
        "WHERE status = 'scheduled' ORDER BY schedule_id"), 0)
    loans = _group(world.query(
        "SELECT customer_id, loan_id, product_id, balance, monthly_payment, next_due FROM loan ORDER BY loan_id"), 0)
    people = []
    for cid, name, phone, dob, last4, answer, email in world.query(
        "SELECT customer_id, full_name, phone, date_of_birth, id_last4, security_answer, email FROM customer ORDER BY customer_id"
    ):
        people.append(Person(
            customer_id=cid, name=name, phone=phone, dob=dob, id_last4=last4, security_answer=answer, email=email,
            accounts=tuple(Acct(a, k, products[p], n[-4:], b, lim, s, dt.date.fromisoformat(o)) for _, a, k, p, n, b, lim, s, o in accounts.get(cid, [])),
            cards=tuple(CardInfo(c, a, br, n[-4:], s, lim) for _, c, a, br, n, s, lim in cards.get(cid, [])),
            txns=tuple(Txn(t, a, dt.date.fromisoformat(d), m, c, amt) for _, t, a, d, m, c, amt in txns.get(cid, [])),
            payees=tuple(PayeeInfo(p, n, b, num[-4:]) for _, p, n, b, num in payees.get(cid, [])),
            schedules=tuple(Sched(s, f, t, amt, dt.date.fromisoformat(d)) for _, s, f, t, amt, d in schedules.get(cid, [])),
            loans=tuple(LoanInfo(lo, products[p], b, m, dt.date.fromisoformat(d)) for _, lo, p, b, m, d in loans.get(cid, [])),
        ))  # fmt: skip
    titles = {title: article_id for article_id, title in world.query("SELECT article_id, title FROM kb_article")}
    facts = []
    for _, name, kind, *values in world.query(
        "SELECT product_id, name, kind, monthly_fee, interest_rate, overdraft_fee, foreign_fee_pct, atm_fee, "
        "minimum_balance, replacement_card_fee FROM product ORDER BY product_id"
    ):
        columns = dict(zip(("monthly_fee", "interest_rate", "overdraft_fee", "foreign_fee_pct", "atm_fee",
                            "minimum_balance", "replacement_card_fee"), values, strict=True))  # fmt: skip
        for facet in FACETS[kind]:
            facts.append(KbFact(name, facet, titles[f"{name}: {facet.label}"], fact_text(facet, columns[facet.key])))
    top_card = world.query("SELECT MAX(CAST(substr(card_id, 2) AS INTEGER)) FROM card")[0][0] or 30000
    return Index(people, facts, top_card + 1)
