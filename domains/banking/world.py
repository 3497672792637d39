"""Building a banking world from a seed: products and their articles, customers and their money.

Names come from Faker seeded with the world seed; everything else from one `random.Random`.
Dates count back (or forward) from the world's own date `rules.CLOCK(seed)`, never the wall clock.
Every built payee is past its cooling-off period, and every account and card is active unless
drawn frozen here.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from typing import Any

from toolgym.envs.fakes import person_name, seeded_faker, state_and_zip, undoubled
from toolgym.envs.record_numbers import next_number

from .catalogue import BANKS, MERCHANTS, articles, draw_products, fits_age
from .rules import CLOCK
from .tables import Account, Article, Card, Customer, Loan, Payee, Product, ScheduledTransfer, Transaction

GAPPED = ("T", "P", "S")  # the kinds of record a task adds a look-alike of (accounts are counted on in place)

CUSTOMERS_PER_SIZE = {"small": 30, "default": 400}
TRANSACTIONS_PER_ACCOUNT = {"small": 14, "default": 16}
HISTORY_DAYS = 150
AREA_CODES = ("206", "303", "312", "404", "415", "503", "512", "602", "617", "619", "702", "713", "786", "919")
SECURITY_ANSWERS = ("Rex", "Bella", "Maple", "Lincoln", "Cooper", "Juniper", "Harbor", "Willow", "Ranger", "Pepper",
                    "Biscuit", "Nova", "Atlas", "Clover", "Shadow", "Ziggy", "Mango", "Otis", "Pixel", "Tango")  # fmt: skip
ADULT_AGE = 18  # no account is opened before its holder is this old (a student's, say, not at 12)
NICKNAMES = ("", "", "", "Bills", "Rainy day", "Holiday fund", "Everyday", "House deposit", "Car fund", "Emergency")


def build_world(seed: int, size: str) -> Iterator[Any]:
    now = CLOCK(seed)  # the world's history counts back from its own date
    today = now.date()
    rng = random.Random(seed)
    fake = seeded_faker(seed)
    products = draw_products(rng)
    for p in products:
        yield Product, p
    for number, (title, body) in enumerate(articles(products), start=1):
        yield Article, {"article_id": f"KB{number:04d}", "title": title, "body": body}
    by_kind: dict[str, list[dict]] = {}
    for p in products:
        by_kind.setdefault(p["kind"], []).append(p)
    phones: set[str] = set()
    ids = {"A": 20001, "K": 30001, "T": 400001, "P": 50001, "S": 60001, "L": 80001}

    def next_id(prefix: str) -> str:
        if prefix in GAPPED:  # with gaps, as a real system's numbers run: a look-alike a task adds takes one
            ids[prefix] = next_number(prefix, ids[prefix])
        ids[prefix] += 1
        return f"{prefix}{ids[prefix] - 1}"

    for number in range(1, CUSTOMERS_PER_SIZE[size] + 1):
        customer_id = f"C{10000 + number}"
        phone = f"{rng.choice(AREA_CODES)}-555-{rng.randrange(10000):04d}"
        while phone in phones:
            phone = f"{rng.choice(AREA_CODES)}-555-{rng.randrange(10000):04d}"
        phones.add(phone)
        first, last = person_name(fake)
        born = today - dt.timedelta(days=rng.randrange(19 * 365, 82 * 365))
        age = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
        adult_days = (today - born).days - round(ADULT_AGE * 365.25)  # above 300: every customer is 19 or near it
        yield Customer, {
            "customer_id": customer_id, "full_name": f"{first} {last}", "phone": phone,
            "email": f"{first}.{last}{number}@example.com".lower(),
            "date_of_birth": born,
            "id_last4": f"{rng.randrange(10000):04d}", "security_answer": rng.choice(SECURITY_ANSWERS),
            "address": f"{fake.street_address()}, {fake.city()}, {' '.join(state_and_zip(fake))}",
        }  # fmt: skip
        kinds = ["checking"] + (["savings"] if rng.random() < 0.75 else []) + (["credit_card"] if rng.random() < 0.6 else [])
        if rng.random() < 0.2:
            kinds.append("savings")
        last4s: set[str] = set()
        checking_id = ""
        for kind in kinds:
            product = rng.choice([p for p in by_kind[kind] if fits_age(p, age)])
            account_id = next_id("A")
            digits = f"{rng.randrange(10**9, 10**10)}"
            while digits[-4:] in last4s:
                digits = f"{rng.randrange(10**9, 10**10)}"
            last4s.add(digits[-4:])
            credit = kind == "credit_card"
            limit = float(rng.choice((2000, 3500, 5000, 8000))) if credit else 0.0
            balance = round(rng.uniform(40, limit * 0.9) if credit else rng.uniform(150, 6000 if kind == "checking" else 18000), 2)
            yield Account, {
                "account_id": account_id, "customer_id": customer_id, "product_id": product["product_id"], "kind": kind,
                "number": digits, "nickname": rng.choice(NICKNAMES) if kind == "savings" else "", "balance": balance,
                "credit_limit": limit,
                "status": "frozen" if rng.random() < 0.05 else "active",
                "opened": today - dt.timedelta(days=rng.randrange(200, min(4000, adult_days))),
            }  # fmt: skip
            if kind == "checking" and not checking_id:
                checking_id = account_id
            if kind in ("checking", "credit_card"):
                brand = "Visa" if kind == "checking" or rng.random() < 0.5 else "Mastercard"
                card_number = f"{'4' if brand == 'Visa' else '5'}{rng.randrange(10**14, 10**15)}"
                while card_number[-4:] in last4s:
                    card_number = f"{'4' if brand == 'Visa' else '5'}{rng.randrange(10**14, 10**15)}"
                last4s.add(card_number[-4:])
                yield Card, {
                    "card_id": next_id("K"), "account_id": account_id, "customer_id": customer_id, "brand": brand,
                    "number": card_number, "status": "frozen" if rng.random() < 0.1 else "active",
                    "daily_limit": float(rng.choice((500, 750, 1000, 1500, 2000, 2500))),
                }  # fmt: skip
                for merchant, category, low, high in rng.sample(MERCHANTS, TRANSACTIONS_PER_ACCOUNT[size]):
                    yield Transaction, {
                        "txn_id": next_id("T"), "account_id": account_id, "merchant": merchant, "category": category,
                        "posted": today - dt.timedelta(days=rng.randrange(1, HISTORY_DAYS)),
                        "amount": round(rng.uniform(low, high), 2),
                    }  # fmt: skip
        for _ in range(rng.choice((0, 1, 2, 2, 3, 4))):
            yield Payee, {
                "payee_id": next_id("P"), "customer_id": customer_id, "name": undoubled(fake.name), "bank": rng.choice(BANKS),
                "account_number": f"{rng.randrange(10**7, 10**10)}",
                "added_at": now - dt.timedelta(days=rng.randrange(10, 700), hours=rng.randrange(24)),
            }  # fmt: skip
        savings = [i for i, k in enumerate(kinds) if k == "savings"]
        if savings and rng.random() < 0.5:
            yield ScheduledTransfer, {
                "schedule_id": next_id("S"), "customer_id": customer_id, "from_account": checking_id,
                "to_account": f"A{ids['A'] - len(kinds) + savings[0]}", "amount": float(rng.choice((50, 100, 150, 200, 250, 400, 500))),
                "run_on": today + dt.timedelta(days=rng.randrange(2, 40)),
            }  # fmt: skip
        if rng.random() < 0.35:
            product = rng.choice(by_kind["personal_loan"] + by_kind["auto_loan"])
            principal = float(rng.choice((5000, 8000, 12000, 18000, 25000, 32000)))
            yield Loan, {
                "loan_id": next_id("L"), "customer_id": customer_id, "product_id": product["product_id"], "principal": principal,
                "balance": round(principal * rng.uniform(0.2, 0.95), 2), "monthly_payment": round(principal / rng.choice((36, 48, 60)), 2),
                "next_due": today + dt.timedelta(days=rng.randrange(3, 28)),
            }  # fmt: skip
