"""Names and texts a world draws from Faker never say a word twice in a row ('Kelly Kelly')."""

from __future__ import annotations

import re

import pytest

from toolgym.envs.fakes import person_name, undoubled
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
