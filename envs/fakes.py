"""The Faker a world builder draws names and addresses from: seeded, and imported only when a world
is built. Importing faker costs ~0.1 s of CPU (it scans its locales), which every process that only
loads domains (a Ray worker reading cached worlds, a trainer, `toolgym --help`) would otherwise pay."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from faker import Faker


def seeded_faker(seed: int) -> Faker:
    """An en_US Faker seeded with the world's seed, so a world is the same wherever it is built, whose
    names are spelled as people spell them (see `_spelled_names`)."""
    from faker import Faker

    fake = Faker("en_US")
    generator = fake.factories[0]
    names = _spelled_names()(generator)
    names.__use_weighting__ = True  # as Faker sets its own providers: the same draws, in the same order
    names.__lang__ = "en_US"
    generator.add_provider(names)
    fake.seed_instance(seed)
    return fake


def spelled(name: str) -> str:
    """A name as its bearer writes it: Faker's en_US lists give 'Mclaughlin', 'Mccarthy'."""
    return _MC.sub(lambda m: m.group(1) + m.group(2).upper(), name)


_MC = re.compile(r"\b(Mc)([a-z])")


def _spelled_names() -> type:
    """A person provider whose names go through `spelled`; the same draws as Faker's own, so a
    world's other values stay as they were ('{{last_name}}' in Faker's formats calls these too)."""
    from faker.providers.person.en_US import Provider

    class SpelledNames(Provider):
        def first_name(self) -> str:
            return spelled(super().first_name())

        def last_name(self) -> str:
            return spelled(super().last_name())

    return SpelledNames


def person_name(fake: Faker) -> tuple[str, str]:
    """A first and a last name that differ: a person called 'Kelly Kelly' reads as a slip in every
    sentence that names them, and the language checks flag it as a doubled word."""
    first, last = fake.first_name(), fake.last_name()
    while last == first:
        last = fake.last_name()
    return first, last


def undoubled(draw: Callable[[], str]) -> str:
    """A Faker text (`fake.name`, `fake.street_address`) drawn again while a word follows itself:
    'Austin Austin' as a payee, '1077 Hill Hill Apt. 261' as an address."""
    text = draw()
    while any(a == b for a, b in zip(text.split(), text.split()[1:], strict=False)):
        text = draw()
    return text


def state_and_zip(fake: Faker) -> tuple[str, str]:
    """A US state and a ZIP code inside it: Faker's `zipcode()` and `state_abbr()` drawn apart give
    'GA 50822' (an Iowa ZIP), which no real address book holds."""
    state = fake.state_abbr(include_territories=False, include_freely_associated_states=False)
    return state, fake.zipcode_in_state(state)
