"""Building a research world: once per (seed, size), then kept as a SQLite image."""

from __future__ import annotations

import random
from collections.abc import Iterator

from faker import Faker

from .tables import Item, Member

MEMBERS = {"small": 80, "default": 400}
TITLES = (
    "Starter plan",
    "Weekly delivery",
    "Magazine subscription",
    "Cloud backup",
    "Gym pass",
    "Streaming bundle",
    "Coffee club",
    "Language course",
    "Meal kit",
    "Parking permit",
)


def build_world(seed: int, size: str) -> Iterator[Member | Item]:
    fake = Faker()
    fake.seed_instance(seed)
    rng = random.Random(seed)
    item_number = 0
    for number in range(1, MEMBERS[size] + 1):
        first, last = fake.first_name(), fake.last_name()
        member_id = f"M{number:04d}"
        owes = rng.random() < 0.3
        yield Member(
            id=member_id,
            name=f"{first} {last}",
            email=f"{first}.{last}{number}@example.com".lower(),
            balance=round(rng.uniform(5, 80), 2) if owes else 0.0,
        )
        for title in rng.sample(TITLES, rng.randint(1, 3)):
            item_number += 1
            status = "paused" if rng.random() < 0.3 else "active"
            yield Item(id=f"I{item_number:05d}", member_id=member_id, title=title, status=status)
