"""Names and texts a world draws from Faker never say a word twice in a row ('Kelly Kelly'), and are
spelled as their bearers spell them ('McCarthy', not Faker's 'Mccarthy')."""

from __future__ import annotations

import re

import pytest

from toolgym.envs.fakes import person_name, seeded_faker, undoubled
from toolgym.envs.registry import load_domain

_DOUBLED = re.compile(r"\b([A-Z][a-z]+) \1\b")


class _Names:
    """A Faker stand-in that hands out the names it is given, in order."""

    def __init__(self, firsts: list[str], lasts: list[str]):
        self._firsts, self._lasts = iter(firsts), iter(lasts)

    def first_name(self) -> str:
        return next(self._firsts)

    def last_name(self) -> str:
        return next(self._lasts)


def test_a_last_name_equal_to_the_first_is_drawn_again():
    assert person_name(_Names(["Kelly"], ["Kelly", "Kelly", "Moore"])) == ("Kelly", "Moore")
    assert person_name(_Names(["Ann"], ["Lee"])) == ("Ann", "Lee")


def test_a_text_with_a_doubled_word_is_drawn_again():
    drawn = iter(["1077 Hill Hill Apt. 261", "Dr. Austin Austin", "12 Oak Street"])
    assert undoubled(lambda: next(drawn)) == "12 Oak Street"


# Each of these worlds drew a doubled name or address before names were drawn again: a payee
# 'Austin Austin', customers and employees 'Kelly Kelly', a place at '1077 Hill Hill Apt. 261'.
@pytest.mark.parametrize("domain, seed", [("banking", 4), ("telecom", 3), ("travel", 3), ("workplace", 3), ("vehicle", 0)])
def test_no_world_text_says_a_word_twice(domain, seed):
    connection = load_domain(domain).template(seed, "default").connection()
    found = []
    for (table,) in connection.execute("select name from sqlite_master where type = 'table'").fetchall():
        columns = [info[1] for info in connection.execute(f"pragma table_info('{table}')")]
        for row in connection.execute(f"select * from '{table}'"):
            found += [f"{table}.{column}: {value!r}" for column, value in zip(columns, row, strict=True)
                      if isinstance(value, str) and _DOUBLED.search(value)]
    assert not found, found[:5]


def test_a_mc_name_is_spelled_with_its_capital_and_nothing_else_a_world_draws_changes():
    """"Wendy Mccarthy", "Mcbride Grand Hotel", "Rachel Mclaughlin": Faker's en_US lists spell them so."""
    from faker import Faker

    ours, faker = seeded_faker(3), Faker("en_US")
    faker.seed_instance(3)
    drawn = [(ours.name(), faker.name()) for _ in range(2000)] + [(ours.address(), faker.address()) for _ in range(500)]
    respelled = [(a, b) for a, b in drawn if a != b]
    assert respelled and all(re.search(r"\bMc[A-Z]", a) and a.replace("Mc", "mc").lower() == b.lower() for a, b in respelled)
    assert not [a for a, _ in drawn if re.search(r"\bMc[a-z]", a)]


@pytest.mark.parametrize("domain", ["travel", "research"])
def test_no_world_spells_a_mc_name_in_lower_case(domain):
    connection = load_domain(domain).template(11, "default").connection()
    found = []
    for (table,) in connection.execute("select name from sqlite_master where type = 'table'").fetchall():
        for row in connection.execute(f"select * from '{table}'"):
            found += [value for value in row if isinstance(value, str) and re.search(r"\bMc[a-z]", value)]
    assert not found, found[:5]


@pytest.mark.parametrize("name", ["banking", "retail"])
@pytest.mark.parametrize(("seed", "size"), [(0, "small"), (11, "default")])
def test_an_address_has_a_zip_code_of_its_own_state(name, seed, size):
    """'Lake Kevin, GA 50822' (an Iowa ZIP): state and ZIP were drawn apart."""
    from faker.providers.address.en_US import Provider

    world = load_domain(name).new_world(seed=seed, size=size)
    if name == "banking":
        pairs = [tuple(a.rsplit(" ", 2)[-2:]) for (a,) in world.query("SELECT address FROM customer")]
    else:
        pairs = world.query("SELECT state, zip FROM customer")
    assert len(pairs) >= 10
    wrong = [(state, zip_code) for state, zip_code in pairs
             if not Provider.states_postcode[state][0] <= int(zip_code) <= Provider.states_postcode[state][1]]
    assert not wrong, wrong[:5]
