"""The Faker a world builder draws names and addresses from: seeded, and imported only when a world
is built. Importing faker costs ~0.1 s of CPU (it scans its locales), which every process that only
loads domains (a Ray worker reading cached worlds, a trainer, `toolgym --help`) would otherwise pay."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from faker import Faker


def seeded_faker(seed: int) -> Faker:
    """An en_US Faker seeded with the world's seed, so a world is the same wherever it is built."""
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(seed)
    return fake
