"""What every banking world offers: products (fees drawn per world), merchants, banks, cities,
and the knowledge-base articles written from them."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from toolgym.envs import money

from . import rules

# (name, kind): the fees and rates of each are drawn per world seed.
PRODUCT_NAMES = (
    ("Everyday Checking", "checking"), ("Premier Checking", "checking"), ("Student Checking", "checking"),
    ("Basic Checking", "checking"), ("Plus Checking", "checking"),
    ("High-Yield Savings", "savings"), ("Goal Saver", "savings"), ("Kids Savings", "savings"),
    ("Money Market Savings", "savings"), ("Holiday Saver", "savings"),
    ("Cashback Card", "credit_card"), ("Travel Rewards Card", "credit_card"), ("Platinum Card", "credit_card"),
    ("Student Card", "credit_card"), ("Secured Card", "credit_card"),
    ("Personal Loan", "personal_loan"), ("Auto Loan", "auto_loan"), ("Home Improvement Loan", "personal_loan"),
)  # fmt: skip

# The ages (in years, at the world's date) a holder of these products has: a student's account and
# card, a child's savings; any other product fits any customer.
AGES = {"Student Checking": (17, 26), "Student Card": (18, 26), "Kids Savings": (0, 17)}


def fits_age(product: dict, age: int) -> bool:
    low, high = AGES.get(product["name"], (0, 200))
    return low <= age <= high


# (merchant, category, low, high): what card and checking transactions look like.
MERCHANTS = (
    ("Blue Bottle Coffee", "dining", 4, 18), ("Corner Bistro", "dining", 18, 90), ("Pizza Palace", "dining", 12, 55),
    ("Sushi Go", "dining", 20, 110), ("Green Bowl Salads", "dining", 9, 24), ("FreshMart", "groceries", 25, 210),
    ("Whole Harvest", "groceries", 30, 260), ("Value Grocer", "groceries", 15, 140), ("Shell", "fuel", 30, 95),
    ("Chevron", "fuel", 28, 90), ("QuickFuel", "fuel", 25, 80), ("Amazon", "shopping", 9, 350),
    ("Target", "shopping", 12, 280), ("Best Buy", "electronics", 30, 1400), ("Apple Store", "electronics", 29, 1900),
    ("IKEA", "home", 20, 900), ("Home Depot", "home", 15, 650), ("Netflix", "subscriptions", 15.49, 22.99),
    ("Spotify", "subscriptions", 11.99, 16.99), ("City Gym", "fitness", 29, 79), ("Yoga Loft", "fitness", 18, 120),
    ("Metro Transit", "transport", 2.75, 60), ("Uber", "transport", 9, 75), ("Lyft", "transport", 8, 70),
    ("Delta Air Lines", "travel", 140, 1300), ("Hilton Hotels", "travel", 120, 900), ("Airbnb", "travel", 90, 1100),
    ("CVS Pharmacy", "health", 6, 120), ("City Dental", "health", 60, 600), ("PetSmart", "pets", 12, 180),
    ("Bookshop Central", "books", 8, 90), ("Cinema 9", "entertainment", 12, 60), ("Steam Games", "entertainment", 5, 70),
    ("Verizon", "utilities", 45, 160), ("City Power & Light", "utilities", 50, 240), ("Water Utility", "utilities", 25, 90),
    ("Zara", "clothing", 25, 240), ("Nike", "clothing", 40, 260), ("Etsy", "shopping", 10, 160), ("eBay", "shopping", 8, 400),
)  # fmt: skip

BANKS = ("First Coastal Bank", "River Valley Credit Union", "Summit National", "Pinecrest Bank", "Union Harbor Bank",
         "Golden Plains Bank", "Bayview Savings", "Northgate Credit Union", "Redwood Trust", "Keystone Bank")  # fmt: skip
CITIES = ("Portland", "Denver", "Austin", "Boston", "Seattle", "Chicago", "Atlanta", "Phoenix", "San Diego", "Miami",
          "Nashville", "Columbus", "Raleigh", "Omaha", "Tucson", "Madison", "Boise", "Richmond", "Tampa", "Detroit",
          "Albuquerque", "Baltimore", "Charlotte", "Cleveland", "Dallas", "El Paso", "Fresno", "Houston", "Indianapolis",
          "Jacksonville", "Kansas City", "Las Vegas", "Louisville", "Memphis", "Milwaukee", "Minneapolis", "New Orleans",
          "Oakland", "Pittsburgh", "Sacramento", "Salt Lake City", "San Antonio", "Spokane", "St. Louis", "Tulsa")  # fmt: skip


@dataclass(frozen=True)
class Facet:
    """One fact of a product that the knowledge base states, and how a customer names it."""

    key: str  # the product column
    label: str  # in an article title and a customer's words: "overdraft fee"
    percent: bool = False


FACETS = {
    "checking": (Facet("monthly_fee", "monthly fee"), Facet("overdraft_fee", "overdraft fee"),
                 Facet("foreign_fee_pct", "foreign transaction fee", True), Facet("atm_fee", "out-of-network ATM fee"),
                 Facet("minimum_balance", "minimum balance"), Facet("replacement_card_fee", "replacement card fee")),
    "savings": (Facet("interest_rate", "interest rate", True), Facet("monthly_fee", "monthly fee"),
                Facet("minimum_balance", "minimum balance"), Facet("atm_fee", "out-of-network ATM fee")),
    "credit_card": (Facet("interest_rate", "interest rate", True), Facet("monthly_fee", "monthly fee"),
                    Facet("foreign_fee_pct", "foreign transaction fee", True), Facet("replacement_card_fee", "replacement card fee")),
    "personal_loan": (Facet("interest_rate", "interest rate", True),),
    "auto_loan": (Facet("interest_rate", "interest rate", True),),
}  # fmt: skip


def draw_products(rng: random.Random) -> list[dict]:
    """Each product's fees and rates for this world."""
    products = []
    for number, (name, kind) in enumerate(PRODUCT_NAMES, start=1):
        deposit = kind in ("checking", "savings")
        rate = {"checking": 0.0, "savings": rng.choice((0.5, 1.25, 2.1, 3.4, 4.05, 4.35)),
                "credit_card": rng.choice((18.99, 21.49, 24.99, 27.24)),
                "personal_loan": rng.choice((7.99, 9.49, 11.25, 13.5)), "auto_loan": rng.choice((5.49, 6.25, 6.99, 7.75))}[kind]  # fmt: skip
        products.append({
            "product_id": f"PR{number:02d}", "name": name, "kind": kind,
            "monthly_fee": rng.choice((0.0, 4.95, 5.0, 9.95, 12.0, 15.0)) if deposit else rng.choice((0.0, 0.0, 7.95, 12.5)),
            "interest_rate": rate,
            "overdraft_fee": rng.choice((25.0, 29.0, 34.0, 36.0)) if kind == "checking" else 0.0,
            "foreign_fee_pct": rng.choice((0.0, 1.0, 2.5, 3.0)),
            "atm_fee": rng.choice((0.0, 2.0, 2.5, 3.0, 3.5)) if deposit else 0.0,
            "minimum_balance": rng.choice((0.0, 100.0, 500.0, 1500.0, 2500.0)) if deposit else 0.0,
            "replacement_card_fee": rng.choice((0.0, 5.0, 10.0, 15.0)),
        })  # fmt: skip
    return products


def fact_text(facet: Facet, value: float) -> str:
    """How an article (and a reply) writes a facet's value."""
    return f"{value:g}%" if facet.percent else money(value)


def articles(products: list[dict]) -> Iterator[tuple[str, str]]:
    """(title, body) of every article: a product's facts, its overview, the bank's procedures, branches."""
    for p in products:
        facets = FACETS[p["kind"]]
        for facet in facets:
            value = fact_text(facet, p[facet.key])
            yield f"{p['name']}: {facet.label}", f"The {facet.label} of the {p['name']} is {value}. This applies to every {p['name']} opened with us."
        listing = "; ".join(f"{f.label} {fact_text(f, p[f.key])}" for f in facets)
        yield f"{p['name']}: overview", f"The {p['name']} is one of our {p['kind'].replace('_', ' ')} products. At a glance: {listing}."
        yield f"{p['name']}: how to open", f"Verified customers can open a {p['name']} in the app or at any branch with photo ID."
        yield f"{p['name']}: closing", f"Any {p['name']} can be closed at a branch once its balance is settled; closing is free."
    yield from _procedures()
    for city in CITIES:
        yield f"Branches in {city}: opening hours", f"Our {city} branches open 9:00 to 17:00 on weekdays and 9:00 to 13:00 on Saturdays."
        yield f"ATMs in {city}", f"Every branch in {city} has a 24-hour ATM; withdrawals at our own ATMs are free."


def _procedures() -> Iterator[tuple[str, str]]:
    r = rules
    yield "Transfer limits", (f"A single transfer or payment may move at most {money(r.PER_TRANSFER_LIMIT)}, and at most "
                              f"{money(r.DAILY_TRANSFER_LIMIT)} may leave a customer's accounts in one day.")  # fmt: skip
    yield "Disputing a card or account charge", (f"A charge can be disputed within {r.DISPUTE_WINDOW_DAYS} days of the day it "
                                                 "posted. After that, no dispute can be opened.")  # fmt: skip
    yield "New payees: cooling-off period", f"A new payee can be paid {r.PAYEE_COOLING_OFF_HOURS} hours after it was added."
    yield "Card daily spending limits", (f"A card's daily limit can be set from {money(r.CARD_LIMIT_MIN)} to "
                                         f"{money(r.CARD_LIMIT_MAX)}.")  # fmt: skip
    yield "Lost or stolen cards", "A card reported lost is blocked for good, and a replacement with a new number is sent by post."
    yield "Freezing a card", "A frozen card is declined everywhere until it is unfrozen; nothing else about the account changes."
    yield "Statements", f"Statements can be ordered for any of the last {r.STATEMENT_MONTHS} full months, by email or by post."
    yield "Suspected fraud", "If you see a charge you do not recognise, we freeze the card and our fraud team calls you back."
    yield "Frozen accounts", "No money can leave a frozen account. A frozen account is reviewed by our account security team."
    yield "Verifying your identity", ("We verify callers with their registered phone number and date of birth, plus the last "
                                      "four digits of their id number or their security answer.")  # fmt: skip
