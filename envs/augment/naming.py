"""Renaming tools and parameters in a naming convention, with a row's own vocabulary.

A name is read as words (`get_order_details` -> get, order, details). A row draws one word
choice per entry of `words.yaml` (so "order" reads "purchase" in every tool and parameter of that
row), then a convention writes the words:

- `snake`: fetch_purchase_details          - `camel`: fetchPurchaseDetails
- `verb_first`: FetchPurchaseDetails (the verb leads, PascalCase; parameters in camelCase)
- `object_first`: purchase_details_fetch (the object leads, the verb after it, qualifiers last)
- `abbreviated`: fetch_purch_dtls          - `masked`: random letters and digits (kyq7tzm)
- `original`: the names as the domain wrote them
"""

from __future__ import annotations

import keyword
import random
import string
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import yaml

CONVENTIONS = ("snake", "camel", "verb_first", "object_first", "abbreviated", "masked", "original")
_PREPOSITIONS = frozenset({"by", "to", "for", "from", "of", "with", "in", "on", "between", "and"})
_RESERVED = frozenset({"self"})  # TRL's tool methods take `self` first
_MASK_LETTERS = string.ascii_lowercase
_MASK_CHARS = string.ascii_lowercase + string.digits


@dataclass(frozen=True)
class Vocabulary:
    synonyms: dict[str, tuple[str, ...]]
    uncountable: frozenset[str]
    abbreviations: dict[str, str]


@cache
def vocabulary() -> Vocabulary:
    data: dict[str, Any] = yaml.safe_load((Path(__file__).parent / "words.yaml").read_text())
    return Vocabulary(
        synonyms={k: tuple(v) for k, v in data["synonyms"].items()},
        uncountable=frozenset(data.get("uncountable") or ()),
        abbreviations=dict(data.get("abbreviations") or {}),
    )


def plural(word: str, uncountable: frozenset[str]) -> str:
    head, _, last = word.rpartition("_")
    if last in uncountable or word in uncountable:
        return word
    if last.endswith("y") and len(last) > 1 and last[-2] not in "aeiou":
        last = last[:-1] + "ies"
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        last += "es"
    else:
        last += "s"
    return f"{head}_{last}" if head else last


def _singular(word: str, known: dict[str, Any]) -> str | None:
    """The entry a plural word belongs to ('orders' -> 'order', 'properties' -> 'property'), if any."""
    candidates = []
    if word.endswith("ies"):
        candidates.append(word[:-3] + "y")
    if word.endswith("es"):
        candidates.append(word[:-2])
    if word.endswith("s"):
        candidates.append(word[:-1])
    return next((c for c in candidates if c in known), None)


@lru_cache(maxsize=4096)
def words_of(name: str) -> tuple[tuple[str, bool], ...]:
    """A snake_case name as (entry or word, plural) units, compounds of words.yaml matched first."""
    vocab = vocabulary()
    known = vocab.synonyms
    singulars = {**vocab.abbreviations, **known}  # a plural of any word words.yaml knows is read as that word
    parts = [p for p in name.split("_") if p]
    units: list[tuple[str, bool]] = []
    index = 0
    while index < len(parts):
        pair = "_".join(parts[index:index + 2])
        if index + 1 < len(parts) and pair in known:
            units.append((pair, False))
            index += 2
            continue
        word = parts[index]
        if word in known:
            units.append((word, False))
        else:
            single = _singular(word, singulars)
            units.append((single, True) if single else (word, False))
        index += 1
    return tuple(units)


class Renamer:
    """A row's naming: one convention and one word choice per vocabulary entry, drawn from `rng`."""

    def __init__(self, convention: str, rng: random.Random):
        if convention not in CONVENTIONS:
            raise ValueError(f"unknown naming convention {convention!r}; known: {', '.join(CONVENTIONS)}")
        self.convention = convention
        self.rng = rng
        self._choices: dict[str, str] = {}

    def _word(self, entry: str, many: bool, plain: bool) -> str:
        vocab = vocabulary()
        choice = entry if plain else self._choices.get(entry)
        if choice is None:
            options = vocab.synonyms.get(entry, (entry,))
            choice = self._choices[entry] = self.rng.choice(options)
        if self.convention == "abbreviated":  # the singular is shortened, then made plural: accounts -> accts
            short = "_".join(vocab.abbreviations.get(w) or _shortened(w) for w in choice.split("_"))
            return short + "s" if many and short != choice and choice not in vocab.uncountable else (
                plural(short, vocab.uncountable) if many else short)
        return plural(choice, vocab.uncountable) if many else choice

    def _units(self, name: str, plain: bool) -> list[list[str]]:
        """The name's units in this row's words, each a list of words ('look_up' stays one unit)."""
        return [self._word(entry, many, plain).split("_") for entry, many in words_of(name)]

    def tool(self, name: str, plain: bool = False) -> str:
        """A tool's name in this row's convention (`plain`: in the domain's own words)."""
        if self.convention == "original":
            return name
        if self.convention == "masked":
            return self.masked(7)
        units = self._units(name, plain)
        if self.convention == "object_first":
            units = _object_first(units)
        words = [w for unit in units for w in unit]
        return _write(words, "pascal" if self.convention == "verb_first" else self._case())

    def param(self, name: str, plain: bool = False) -> str:
        """A parameter's name in this row's convention (`plain`: in the domain's own words)."""
        if self.convention == "original":
            return name
        if self.convention == "masked":
            return self.masked(5)
        return _write([w for unit in self._units(name, plain) for w in unit], self._case())

    def _case(self) -> str:
        return "camel" if self.convention in ("camel", "verb_first") else "snake"

    def masked(self, length: int) -> str:
        """A random identifier: a letter, then letters and digits."""
        return self.rng.choice(_MASK_LETTERS) + "".join(self.rng.choice(_MASK_CHARS) for _ in range(length - 1))


def _shortened(word: str) -> str:
    """A word of six letters or more without its inner vowels and a final vowel (report -> rprt,
    article -> artcl); a shorter one as it is."""
    if len(word) < 6 or not word.isalpha():
        return word
    inner = "".join(c for c in word[1:-1] if c not in "aeiou")
    return word[0] + inner + (word[-1] if word[-1] not in "aeiou" else "")


def _object_first(units: list[list[str]]) -> list[list[str]]:
    """verb + object + qualifier -> object + verb + qualifier: get_order_details -> order_details_get."""
    verb, rest = units[:1], units[1:]
    if not verb or any(w in _PREPOSITIONS for w in verb[0]):  # escalate_to_human: the verb needs what follows
        return units
    cut = next((i for i, unit in enumerate(rest) if unit[0] in _PREPOSITIONS), len(rest))
    if cut == 0:  # transfer_to_human: nothing to put first
        return units
    return [*rest[:cut], *verb, *rest[cut:]]


def _write(words: list[str], case: str) -> str:
    if case == "snake":
        return "_".join(words)
    capitalised = "".join(w[:1].upper() + w[1:] for w in words)
    if case == "pascal":
        return capitalised
    return words[0] + capitalised[len(words[0]):]


def usable(name: str) -> bool:
    """A name a model can call and a Python method can carry."""
    return name.isidentifier() and not keyword.iskeyword(name) and name not in _RESERVED and not name.startswith("_")
