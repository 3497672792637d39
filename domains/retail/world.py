"""Building the shop: customers with payment methods, a catalog, and a history of orders.

Everything is drawn from one seeded `random.Random` and a Faker seeded with the same seed, so
the same (seed, size) always yields the same rows.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from sqlalchemy.orm import configure_mappers

from toolgym.envs.fakes import person_name, seeded_faker, state_and_zip

from .rules import CANCEL_REASONS, CLOCK, OPTION_NAMES, iso
from .tables import Customer, Order, OrderItem, PaymentMethod, Product, Transaction, Variant

if TYPE_CHECKING:
    from faker import Faker

SIZES: dict[str, dict[str, int]] = {
    "small": {"customers": 40, "products": 24},
    "default": {"customers": 520, "products": 70},
}
STATUS_WEIGHTS = {
    "pending": 26,
    "processed": 10,
    "shipped": 12,
    "delivered": 34,
    "cancelled": 8,
    "return requested": 5,
    "exchange requested": 5,
}
CARRIERS = ("UPS", "FedEx", "USPS", "DHL")
CARD_BRANDS = ("visa", "mastercard", "amex", "discover")
EMAIL_DOMAINS = ("example.com", "example.org", "example.net", "mail.example.com")
NOTES = (
    "Please leave the package at the side door.",
    "Gift for my sister, please include a gift receipt.",
    "Ring the bell twice, the buzzer is broken.",
    "Deliver to the front desk of the building.",
    "Happy birthday, Sam! Love, Mom.",
    "Please do not bend, fragile contents.",
)


@cache
def catalog() -> list[dict[str, Any]]:
    return yaml.safe_load((Path(__file__).parent / "catalog.yaml").read_text())


def build_world(seed: int, size: str) -> Iterator[Any]:
    # Rows are made with `model_construct`: the values are typed here already, and a validated
    # table instance costs ~25 µs against ~4 µs (the world has ~10,000 rows). Reading their
    # attributes needs the mappers configured, which a validated instance would have done.
    configure_mappers()
    counts = SIZES[size]
    rng = random.Random(f"retail:{seed}:{size}")
    fake = seeded_faker(seed)
    products, variants = _catalog_rows(rng, counts["products"])
    yield from products
    yield from variants
    by_product: dict[str, list[Variant]] = {}
    for variant in variants:
        by_product.setdefault(variant.product_id, []).append(variant)
    names = {p.id: p.name for p in products}
    ids = _UniqueNumbers(rng)
    counters = {"item": itertools.count(1_000_001), "transaction": itertools.count(1_000_001)}
    seen_name_zip: set[tuple[str, str, str]] = set()
    seen_emails: set[str] = set()
    now = CLOCK(seed)  # the world's history counts back from its own date
    for customer_id in sorted(ids.draw("C", 5, counts["customers"])):
        customer = _customer(fake, rng, customer_id, seen_name_zip, seen_emails, now)
        yield customer
        methods = _payment_methods(rng, ids, customer)
        yield from methods
        for _ in range(rng.choice((1, 1, 2, 2, 2, 3, 3, 4))):
            yield from _order(rng, ids, counters, customer, methods, variants, by_product, names, now)


class _UniqueNumbers:
    """Random ids that never repeat within one world."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()

    def one(self, prefix: str, digits: int) -> str:
        while True:
            value = f"{prefix}{self.rng.randrange(10 ** (digits - 1), 10**digits):0{digits}d}"
            if value not in self.used:
                self.used.add(value)
                return value

    def draw(self, prefix: str, digits: int, n: int) -> list[str]:
        return [self.one(prefix, digits) for _ in range(n)]


def _catalog_rows(rng: random.Random, n_products: int) -> tuple[list[Product], list[Variant]]:
    lines = catalog()
    if n_products < len(lines):  # a smaller shop keeps every category: take lines in turn
        by_category: dict[str, list[dict]] = {}
        for line in lines:
            by_category.setdefault(line["category"], []).append(line)
        ordered = [line for group in itertools.zip_longest(*by_category.values()) for line in group if line]
        lines = ordered[:n_products]
    products, variants = [], []
    variant_number = itertools.count(100_001)
    for number, line in enumerate(lines, start=1001):
        product = Product.model_construct(
            id=f"P{number}", name=line["name"], category=line["category"], description=line["description"]
        )
        products.append(product)
        names = [n for n in OPTION_NAMES if n in line["options"]]
        combos = list(itertools.product(*(line["options"][n] for n in names)))
        chosen = sorted(rng.sample(range(len(combos)), min(len(combos), rng.randint(8, 14))))
        price = _pricing(rng, line, names)
        for index in chosen:
            roll = rng.random()
            values: dict[str, Any] = {
                "id": f"V{next(variant_number)}",
                "product_id": product.id,
                "price": price(combos[index]),
                "available": roll >= 0.1,
                "stock": 0 if roll < 0.2 else rng.randint(1, 60),
                **dict(zip(names, (str(v) for v in combos[index]), strict=True)),
            }
            variants.append(Variant.model_construct(**values))
    return products, variants


LADDER_SHARE = 0.6  # of a line's price range: what the steps up its ladder add at the top
LADDER_NOISE = 0.3  # of the smallest step: two variants alike on the ladder differ by less than a step
OPTION_SPREAD = 0.05  # of a product's base price: the most one option's value adds or takes off


def _pricing(rng: random.Random, line: dict[str, Any], names: list[str]) -> Callable[[tuple[Any, ...]], float]:
    """How a line prices a combination of its options (`names` in order): a base price somewhere in its
    range and a small drawn surcharge or discount per option value (a black pen and a blue one cost
    about the same), or, with a `ladder`, a base price plus a drawn step per rung of each laddered
    option and noise below a third of the smallest step, so one rung up (a bigger capacity, a second
    burner) always costs more."""
    low, high = line["price"]
    ladder = [(names.index(n), line["options"][n]) for n in line.get("ladder", [])]
    if not ladder:
        return _spread_pricing(rng, low, high, [line["options"][n] for n in names])
    weights = [rng.uniform(0.5, 1.5) for _ in ladder]
    span = (high - low) * LADDER_SHARE
    unit = span / sum(w * (len(values) - 1) for w, (_, values) in zip(weights, ladder, strict=True))
    steps = [w * unit for w in weights]
    noise = LADDER_NOISE * min(steps)
    base = rng.uniform(low + noise, high - span - noise)

    def price(combo: tuple[Any, ...]) -> float:
        up = sum(step * values.index(combo[at]) for step, (at, values) in zip(steps, ladder, strict=True))
        return round(base + up + rng.uniform(-noise, noise), 2)

    return price


def _spread_pricing(
    rng: random.Random, low: float, high: float, options: list[list[Any]]
) -> Callable[[tuple[Any, ...]], float]:
    """A base price, kept far enough inside [low, high] that every option's surcharge stays in it."""
    reach = OPTION_SPREAD * len(options)
    base = rng.uniform(low / (1 - reach), high / (1 + reach))  # a narrow range: clamped below
    share = [{value: rng.uniform(-OPTION_SPREAD, OPTION_SPREAD) for value in values} for values in options]

    def price(combo: tuple[Any, ...]) -> float:
        shift = sum(share[at][value] for at, value in enumerate(combo))
        return round(min(max(base * (1 + shift), low), high), 2)

    return price


def _customer(
    fake: Faker, rng: random.Random, customer_id: str, seen: set[tuple[str, str, str]], emails: set[str],
    now: dt.datetime,
) -> Customer:
    while True:  # name + zip identifies a customer, so it must be unique; the ZIP lies in the state
        first, last = person_name(fake)
        state, zip_code = state_and_zip(fake)
        if (first, last, zip_code) not in seen:
            seen.add((first, last, zip_code))
            break
    while True:  # so must the email: two namesakes would otherwise share one and log in as each other
        email = _email(rng, first, last)
        if email not in emails:
            emails.add(email)
            break
    return Customer.model_construct(
        id=customer_id,
        first_name=first,
        last_name=last,
        email=email,
        phone=fake.numerify("###-###-####"),
        address1=fake.street_address(),
        address2=fake.secondary_address() if rng.random() < 0.3 else "",
        city=fake.city(),
        state=state,
        zip=zip_code,
        member_since=(now - dt.timedelta(days=rng.randint(30, 2500))).date().isoformat(),
    )


def _email(rng: random.Random, first: str, last: str) -> str:
    style = rng.randrange(3)
    local = (
        f"{first}.{last}",
        f"{first}{last}{rng.randint(1, 99)}",
        f"{first[0]}{last}{rng.randint(100, 999)}",
    )[style]
    return f"{local.lower()}@{rng.choice(EMAIL_DOMAINS)}".replace("'", "")


def _payment_methods(rng: random.Random, ids: _UniqueNumbers, customer: Customer) -> list[PaymentMethod]:
    methods = []
    for _ in range(rng.choice((0, 1, 1, 1, 2))):
        methods.append(
            PaymentMethod.model_construct(
                id=ids.one("credit_card_", 7),
                customer_id=customer.id,
                kind="credit_card",
                brand=rng.choice(CARD_BRANDS),
                last_four=f"{rng.randint(0, 9999):04d}",
            )
        )
    if rng.random() < 0.4 or not methods:
        methods.append(
            PaymentMethod.model_construct(
                id=ids.one("paypal_", 7), customer_id=customer.id, kind="paypal", paypal_email=customer.email
            )
        )
    if rng.random() < 0.4:
        balance = 0.0 if rng.random() < 0.1 else round(rng.uniform(5, 400), 2)
        methods.append(
            PaymentMethod.model_construct(
                id=ids.one("gift_card_", 7), customer_id=customer.id, kind="gift_card", balance=balance
            )
        )
    return methods


def _order(rng, ids, counters, customer, methods, variants, by_product, names, now) -> Iterator[Any]:
    status = rng.choices(list(STATUS_WEIGHTS), weights=list(STATUS_WEIGHTS.values()))[0]
    placed, delivered = _dates(rng, status, now)
    order_id = ids.one("#W", 7)
    picked = rng.sample(variants, rng.choice((1, 1, 1, 2, 2, 2, 3, 4)))
    # returns and exchanges already asked for cover the first item(s) of the order
    affected = 0
    if status == "return requested":
        affected = rng.randint(1, len(picked))
    elif status == "exchange requested":
        affected = 1
    items = []
    for position, v in enumerate(picked):
        exchange_to = None
        if status == "exchange requested" and position < affected:
            others = [o for o in by_product[v.product_id] if o.id != v.id and o.available]
            exchange_to = rng.choice(others).id if others else v.id
        items.append(
            OrderItem.model_construct(
                id=f"IT{next(counters['item'])}",
                order_id=order_id,
                product_id=v.product_id,
                variant_id=v.id,
                name=names[v.product_id],
                options=describe_options(v),
                price=v.price,
                status=status if position < affected else "delivered" if delivered else "ordered",
                exchange_variant_id=exchange_to,
            )
        )
    method = rng.choice(methods)
    total = round(sum(i.price for i in items), 2)
    shipped = status not in ("pending", "processed", "cancelled")
    other_address = rng.random() < 0.1
    order = Order.model_construct(
        id=order_id,
        customer_id=customer.id,
        status=status,
        placed_at=iso(placed),
        payment_method_id=method.id,
        total=total,
        ship_address1=customer.address1 if not other_address else f"{rng.randint(10, 999)} Market Street",
        ship_address2=customer.address2 if not other_address else "",
        ship_city=customer.city,
        ship_state=customer.state,
        ship_zip=customer.zip,
        modified=status == "pending" and rng.random() < 0.2,
        note=rng.choice(NOTES) if rng.random() < 0.15 else "",
        carrier=rng.choice(CARRIERS) if shipped or status == "processed" else None,
        tracking_number=f"{rng.randrange(10**11, 10**12)}" if shipped else None,
        delivered_at=iso(delivered) if delivered else None,
        cancel_reason=rng.choice(CANCEL_REASONS) if status == "cancelled" else None,
    )

    def transaction(kind: str, amount: float, at: dt.datetime) -> Transaction:
        return Transaction.model_construct(
            id=f"TX{next(counters['transaction'])}",
            order_id=order_id,
            payment_method_id=method.id,
            kind=kind,
            amount=round(amount, 2),
            created_at=iso(at),
        )

    history = [transaction("payment", total, placed)]
    if status == "cancelled":
        history.append(transaction("refund", total, placed + dt.timedelta(hours=rng.randint(1, 40))))
    elif status == "return requested":
        assert delivered is not None
        asked = min(delivered + dt.timedelta(days=rng.randint(1, 5)), now)
        history.append(transaction("refund", sum(i.price for i in items[:affected]), asked))
    yield order
    yield from items
    yield from history


def _dates(rng: random.Random, status: str, now: dt.datetime) -> tuple[dt.datetime, dt.datetime | None]:
    """When an order was placed and, if it arrived, delivered; consistent with its status."""
    hours = {
        "pending": (1, 60),
        "processed": (20, 100),
        "shipped": (50, 200),
        "cancelled": (48, 1500),
    }.get(status)
    if hours is not None:
        return now - dt.timedelta(hours=rng.randint(*hours), minutes=rng.randint(0, 59)), None
    days_ago = rng.randint(5, 27) if status != "delivered" or rng.random() < 0.6 else rng.randint(36, 120)
    placed = now - dt.timedelta(days=days_ago, hours=rng.randint(0, 23), minutes=rng.randint(0, 59))
    delivered = placed + dt.timedelta(days=rng.randint(2, 4), hours=rng.randint(0, 10))
    return placed, min(delivered, now - dt.timedelta(hours=3))


def describe_options(variant: Any) -> str:
    """A variant's options in a few words: 'navy, M'."""
    return ", ".join(str(getattr(variant, n)) for n in OPTION_NAMES if getattr(variant, n) is not None)
