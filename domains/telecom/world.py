"""Building a telecom world from a seed: customers, their lines, bills, phones, and outages.

Names come from Faker seeded with the world seed; everything else from one `random.Random`,
so the same seed gives the same rows. Dates count back from the world's `clock(seed)`, never today.
The built world is healthy: every customer's phone works at home, so a task's faults are
exactly the edits it sets up.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from toolgym.envs.clock import seeded_clock
from toolgym.envs.fakes import person_name, seeded_faker

from .catalogue import DEFAULT_APN, DEVICES, OUTAGE_MESSAGES, PLANS, REFILLS, REGION_AREA_CODES, REGIONS
from .tables import (
    Account,
    Bill,
    Customer,
    DataRefill,
    Device,
    Line,
    LineRefill,
    Outage,
    Payment,
    PaymentMethod,
    Phone,
    Plan,
)

if TYPE_CHECKING:
    from faker import Faker

_SPREAD = seeded_clock(dt.datetime(2025, 3, 14, 10, 0), hours=(8, 19))


def clock(seed: int) -> dt.datetime:
    """The world's date: world seed 0 is 2025-03-14 10:00; others the 10th of another month at
    another hour, so the open bill (due the 21st) is still ahead and the last one paid (paid the
    14th to 20th of last month) is inside the 30-day refund window even after a 31-day month."""
    return _SPREAD(seed) if seed == 0 else _SPREAD(seed).replace(day=10)


NOW = clock(0)
CUSTOMERS_PER_SIZE = {"small": 24, "default": 600}
TAX_RATE = 0.08
PLAN_WEIGHTS = {"starter_2": 8, "basic_5": 20, "standard_15": 25, "travel_20": 10, "plus_40": 22, "unlimited": 15}
NICKNAMES = ("Work phone", "Personal", "Kids' phone", "Backup line", "Tablet", "Mum's phone", "Dad's phone")


class _Ids:
    """Sequential ids per prefix, so a row's id never depends on what else was drawn."""

    def __init__(self) -> None:
        self._next: dict[str, int] = {}

    def __call__(self, prefix: str, start: int) -> str:
        value = self._next.get(prefix, start)
        self._next[prefix] = value + 1
        return f"{prefix}{value}"


def billing_cycles(now: dt.datetime) -> list[tuple[dt.date, dt.date, dt.date]]:
    """(start, end, due) of the last three calendar months before `now`'s; each is due on the
    21st of the month after it, so the last one closed is still open."""
    cycles = []
    first = now.date().replace(day=1)
    for _ in range(3):
        end = first - dt.timedelta(days=1)
        start = end.replace(day=1)
        cycles.append((start, end, first.replace(day=21)))
        first = start
    return cycles[::-1]


def build_world(seed: int, size: str) -> Iterator[Any]:
    now = clock(seed)  # the world's history counts back from its own date
    rng = random.Random(seed)
    fake = seeded_faker(seed)
    ids = _Ids()
    for spec in PLANS:
        yield Plan(**spec.__dict__)
    for refill in REFILLS:
        yield DataRefill(**refill.__dict__)
    numbers: set[str] = set()
    for index in range(CUSTOMERS_PER_SIZE[size]):
        yield from _customer(index, rng, fake, ids, numbers, now)
    yield from _outages(rng, ids, size, now)


def _customer(
    index: int, rng: random.Random, fake: Faker, ids: _Ids, numbers: set[str], now: dt.datetime
) -> Iterator[Any]:
    first, last = person_name(fake)
    customer_id, account_id = f"C{1001 + index}", f"A{1001 + index}"
    region = REGIONS[index % len(REGIONS)] if index < len(REGIONS) else rng.choice(REGIONS)
    yield Customer(
        customer_id=customer_id,
        full_name=f"{first} {last}",
        email=f"{first.lower()}.{last.lower()}{rng.randrange(10, 99)}@example.com",
        date_of_birth=now.date() - dt.timedelta(days=rng.randrange(18 * 365, 85 * 365)),
        home_region=region,
    )
    yield Account(account_id=account_id, customer_id=customer_id, status="active", autopay=rng.random() < 0.5)
    methods = _payment_methods(account_id, rng, ids)
    yield from methods
    default_method = next(m for m in methods if m.is_default)

    # The first customers cover every plan and line count, so even a small world has them all.
    line_count = (1, 2, 1, 3)[index % 4] if index < 12 else rng.choices((1, 2, 3), (60, 28, 12))[0]
    lines = []
    for position in range(line_count):
        plan = PLANS[index % len(PLANS)] if position == 0 and index < 12 else _weighted_plan(rng)
        device = DEVICES[rng.randrange(len(DEVICES))]
        device_id = ids("D", 10001)
        yield Device(
            device_id=device_id,
            maker=device[0],
            model=device[1],
            imei="35" + "".join(str(rng.randrange(10)) for _ in range(13)),
            supports_5g=device[2],
            supports_wifi_calling=device[3],
        )
        line = _line(account_id, position, plan, device_id, region, rng, ids, numbers, first, now)
        lines.append((line, plan, device))
        yield line
        if line.refill_gb:
            refill = next(r for r in REFILLS if r.gigabytes == line.refill_gb)
            yield LineRefill(
                purchase_id=ids("R", 100001),
                line_id=line.line_id,
                refill_id=refill.refill_id,
                gigabytes=refill.gigabytes,
                price=refill.price,
                purchased_at=dt.datetime(now.year, now.month, min(rng.randrange(1, 14), now.day - 1), rng.randrange(8, 22)),
            )
    yield from _bills(account_id, [p for _, p, _ in lines], default_method.method_id, rng, ids, billing_cycles(now))
    line, plan, device = lines[0]
    yield Phone(
        customer_id=customer_id,
        line_id=line.line_id,
        device_id=line.device_id,
        location_country="United States",
        location_region=region,
        airplane_mode=False,
        mobile_data=True,
        roaming_switch=rng.random() < 0.4,
        apn_name=DEFAULT_APN,
        sim_status="ready",
        signal_bars=rng.choice((2, 3, 3, 4, 4)),
        data_saver=False,
        wifi_calling=device[3] and rng.random() < 0.5,
        network_mode="5g_preferred" if device[2] else "lte_preferred",
        restart_pending=False,
    )


def _payment_methods(account_id: str, rng: random.Random, ids: _Ids) -> list[PaymentMethod]:
    kinds = rng.sample(("credit_card", "debit_card", "bank_account"), rng.choice((1, 1, 2)))
    return [
        PaymentMethod(
            method_id=ids("PM", 1001),
            account_id=account_id,
            kind=kind,
            last4=f"{rng.randrange(10000):04d}",
            is_default=position == 0,
        )
        for position, kind in enumerate(kinds)
    ]


def _weighted_plan(rng: random.Random):
    return rng.choices(PLANS, [PLAN_WEIGHTS[p.plan_id] for p in PLANS])[0]


def _phone_number(region: str, rng: random.Random, numbers: set[str]) -> str:
    while True:
        number = f"{REGION_AREA_CODES[region]}-{rng.randrange(200, 1000)}-{rng.randrange(10000):04d}"
        if number not in numbers:
            numbers.add(number)
            return number


def _line(account_id, position, plan, device_id, region, rng, ids, numbers, first_name, now) -> Line:
    status, reason = "active", None
    if position > 0:  # the phone in the customer's hand (position 0) always works
        status, reason = rng.choices(
            (("active", None), ("suspended", "customer_request"), ("suspended", "lost_or_stolen"),
             ("pending_activation", None)),
            (90, 5, 2, 3),
        )[0]
    allowance = 60.0 if plan.unlimited else plan.data_gb
    refill = 0 if plan.unlimited or rng.random() < 0.85 else rng.choice((1, 3))
    nickname = ""
    if rng.random() < 0.3:
        nickname = rng.choice((f"{first_name}'s phone", *NICKNAMES))
    return Line(
        line_id=ids("L", 10001),
        account_id=account_id,
        phone_number=_phone_number(region, rng, numbers),
        plan_id=plan.plan_id,
        status=status,
        suspension_reason=reason,
        # up to 97% of the allowance: some customers are running low, the ones who ask for a refill
        data_used_gb=0.0 if status == "pending_activation" else round(allowance * rng.uniform(0.05, 0.97), 2),
        refill_gb=float(refill),
        roaming_enabled=plan.roaming_supported and rng.random() < 0.4,
        device_id=device_id,
        nickname=nickname,
        activated_on=now.date() - dt.timedelta(days=rng.randrange(120, 3000)),
    )


def _bills(account_id: str, plans, method_id: str, rng: random.Random, ids: _Ids, cycles) -> Iterator[Any]:
    monthly = sum(p.monthly_price for p in plans)
    for number, (start, end, due) in enumerate(cycles):
        extra = rng.choice((0.0, 0.0, 0.0, 10.0, 20.0))
        amount = round(monthly * (1 + TAX_RATE) + extra, 2)
        bill_id = ids("B", 100001)
        settled = number < len(cycles) - 1
        yield Bill(
            bill_id=bill_id,
            account_id=account_id,
            period_start=start,
            period_end=end,
            due_date=due,
            amount=amount,
            amount_paid=amount if settled else 0.0,
            status="paid" if settled else "open",
        )
        if settled:  # paid a few days before the due date
            day = due - dt.timedelta(days=rng.randrange(1, 7))
            yield Payment(
                payment_id=ids("PAY", 100001),
                account_id=account_id,
                bill_id=bill_id,
                method_id=method_id,
                amount=amount,
                paid_at=dt.datetime.combine(day, dt.time(rng.randrange(7, 23), rng.randrange(60))),
                status="completed",
            )


def _outages(rng: random.Random, ids: _Ids, size: str, now: dt.datetime) -> Iterator[Any]:
    """Past outages everywhere; an active one in a few regions (never the small world's first)."""
    active = set(rng.sample(REGIONS[1:], 1 if size == "small" else 2))
    for region in REGIONS:
        for _ in range(rng.randrange(1, 3)):
            start = now - dt.timedelta(days=rng.randrange(3, 60), hours=rng.randrange(24))
            yield _outage(rng, ids, region, start, "resolved", ends=(start, 2, 12))
        if region in active:
            start = now - dt.timedelta(hours=rng.randrange(1, 5))
            yield _outage(rng, ids, region, start, "active", ends=(now, 2, 9))


def _outage(
    rng: random.Random, ids: _Ids, region: str, start: dt.datetime, status: str, ends: tuple[dt.datetime, int, int]
) -> Outage:
    """One outage, ending a random number of hours (in the range `ends` gives) after a moment.

    The draws keep their order (service, length, message): a world is the same for the same seed."""
    after, low, high = ends
    return Outage(
        outage_id=ids("OUT-", 1001),
        region=region,
        service=rng.choice(("data", "voice_and_data")),
        started_at=start,
        expected_end=after + dt.timedelta(hours=rng.randrange(low, high)),
        status=status,
        message=rng.choice(OUTAGE_MESSAGES),
    )
