"""What an agent has seen so far in a chat, indexed for looking argument values up.

A text is the system prompt, a user turn, a tool result (its values, not its field names) or an
earlier call's arguments. Each index is made on first use: most values are found by one phrase
search; words are compared by `word_key` (ids exactly, other words by their stem's first letters),
numbers in canonical form (the user's "two" is 2), dates, times and phone numbers through
grounding's fact index (envs/grounding.py), and "tomorrow" or a weekday against the world's date.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from .grounding import SeenFacts, StatedFact

_NUMBER_WORDS = {
    word: number
    for number, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
     "dozen": 12, "single": 1, "twice": 2}  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")
NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RELATIVE_DAY = re.compile(r"\b(today|tonight|tomorrow|yesterday|" + "|".join(_WEEKDAYS) + r")\b", re.I)


def stem(word: str) -> str:
    """A crude stem, enough to meet a value's words in other forms: accepted/accept, lights/light, flagged/flag."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) >= 4 and word[-1] == word[-2] and not word[-1].isdigit():
        word = word[:-1]
    return word


@lru_cache(maxsize=65536)
def word_key(word: str) -> str:
    """How words are compared: a word with a digit exactly (an id), others by the first five letters
    of their stem (insured/insurance, declined/decline, tentatively/tentative)."""
    if any(c.isdigit() for c in word):
        return word
    return stem(word)[:5]


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def canonical_number(value: Any) -> str | None:
    """A number as compared: '1,250.50', 1250.5 and a float read back as 1250.5000000000002 are '1250.5'."""
    try:
        # a float to 12 significant digits: a JSON decoder that is not float-exact (pandas' ujson, which
        # `datasets.load_dataset` uses) turns 1.7 into 1.7000000000000002
        number = Decimal(format(value, ".12g") if isinstance(value, float) else str(value).replace(",", ""))
    except (InvalidOperation, ValueError):
        return None
    if not number.is_finite():
        return None
    return format(number.normalize(), "f")


def relative_days(text: str, today: dt.date) -> list[str]:
    """The dates a text names relative to today: tomorrow, yesterday, a weekday (the coming one or the one after)."""
    days: list[dt.date] = []
    for match in _RELATIVE_DAY.finditer(text):
        word = match.group(1).lower()
        if word in ("today", "tonight"):
            days.append(today)
        elif word == "tomorrow":
            days.append(today + dt.timedelta(days=1))
        elif word == "yesterday":
            days.append(today - dt.timedelta(days=1))
        else:
            ahead = (_WEEKDAYS.index(word) - today.weekday()) % 7 or 7
            days += [today + dt.timedelta(days=ahead), today + dt.timedelta(days=ahead + 7)]
    return [d.isoformat() for d in days]



class _Text:
    """One text the agent saw, made and indexed on first use (most values are found by a phrase search)."""

    __slots__ = ("_make", "_text", "named", "today", "_lowered", "_keys", "_positions", "_numbers", "_days")

    def __init__(self, make: Callable[[], str], named: bool, today: dt.date | None = None):
        self._make = make  # a tool result's values are drawn from its JSON only if a lookup needs them
        self._text: str | None = None
        self.named = named  # names enum values: a user turn, a tool result, an earlier argument (not the system prompt)
        self.today = today
        self._lowered: str | None = None
        self._keys: tuple[str, ...] | None = None
        self._positions: dict[str, list[int]] = {}
        self._numbers: frozenset[str] | None = None
        self._days: frozenset[str] | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._make()
        return self._text

    @property
    def days(self) -> frozenset[str]:
        """The dates the text names relative to the world's today ("tomorrow", "on Friday")."""
        if self._days is None:
            self._days = frozenset(relative_days(self.text, self.today)) if self.today is not None else frozenset()
        return self._days

    @property
    def lowered(self) -> str:
        if self._lowered is None:
            self._lowered = " ".join(self.text.lower().split())
        return self._lowered

    @property
    def keys(self) -> tuple[str, ...]:
        if self._keys is None:
            self._keys, self._positions = _word_index(self.lowered)
        return self._keys

    @property
    def numbers(self) -> frozenset[str]:
        if self._numbers is None:
            numbers = {n for raw in set(NUMBER.findall(self.text)) if (n := canonical_number(raw)) is not None}
            numbers.update(str(_NUMBER_WORDS[w]) for w in set(words_of(self.lowered)) if w in _NUMBER_WORDS)
            self._numbers = frozenset(numbers)
        return self._numbers

    def has_phrase(self, phrase: str) -> bool:
        """The phrase appears as whole tokens (case and spacing aside)."""
        haystack = self.lowered
        start = haystack.find(phrase)
        while start >= 0:
            end = start + len(phrase)
            before = haystack[start - 1] if start else " "
            after = haystack[end] if end < len(haystack) else " "
            if not before.isalnum() and not after.isalnum():
                return True
            start = haystack.find(phrase, start + 1)
        return False

    def has_words(self, keys: Iterable[str]) -> bool:
        self.keys  # noqa: B018 - builds the positions
        return all(k in self._positions for k in keys)

    def has_sequence(self, keys: tuple[str, ...]) -> bool:
        """The words one after the other ("rear right" in "the rear right seat")."""
        sequence = self.keys
        for start in self._positions.get(keys[0], ()) if keys else ():
            if sequence[start : start + len(keys)] == keys:
                return True
        return False


@lru_cache(maxsize=1024)  # the policy and common tool results open many chats of a world
def _word_index(lowered: str) -> tuple[tuple[str, ...], dict[str, list[int]]]:
    """A text's word keys in order, and where each key stands."""
    keys = tuple(map(word_key, words_of(lowered)))
    positions: dict[str, list[int]] = {}
    for position, key in enumerate(keys):
        positions.setdefault(key, []).append(position)
    return keys, positions


def tool_result_values(content: str) -> str:
    """The values of a JSON tool result, without its field names (a key names no value)."""
    try:
        decoded = json.loads(content)
    except (ValueError, RecursionError):
        return content
    return values_text(decoded)


def values_text(value: Any) -> str:
    """The leaf values of decoded JSON (or call arguments), one per line, in order."""
    parts: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif item is not None:
            parts.append(str(item))
    return " \n ".join(parts)


@dataclass
class Seen:
    """Everything in front of the agent so far, by source."""

    today: dt.date | None = None  # the world's date, for "tomorrow" and weekdays
    texts: list[_Text] = field(default_factory=list)
    facts: SeenFacts = field(default_factory=SeenFacts)  # every source, for facts inside values
    named_facts: SeenFacts = field(default_factory=SeenFacts)  # the user's turns, results and the agent's own calls

    def add(self, text: str | None, *, named: bool) -> None:
        if text:
            self.texts.append(_Text(lambda: text, named, self.today))
            self.facts.add(text)
            if named:
                self.named_facts.add(text)

    def add_result(self, content: str | None) -> None:
        """A tool result: its values name things; grounding's fact index reads it whole."""
        if content:
            self.texts.append(_Text(lambda: tool_result_values(content), True, self.today))
            self.facts.add(content)
            self.named_facts.add(content)

    def sources(self, named_only: bool) -> Iterator[_Text]:
        for text in reversed(self.texts):  # the newest first: a value is usually seen just before its use
            if text.named or not named_only:
                yield text

    def phrase(self, value: str, named_only: bool = False) -> bool:
        phrase = " ".join(value.lower().split())
        return bool(phrase) and any(t.has_phrase(phrase) for t in self.sources(named_only))

    def words(self, words: Iterable[str], named_only: bool = False) -> bool:
        """All the words in one text, in any order (a name split over a record's fields still counts)."""
        keys = [word_key(w) for w in words]
        return bool(keys) and any(t.has_words(keys) for t in self.sources(named_only))

    def sequence(self, words: Iterable[str], named_only: bool = False) -> bool:
        """The words one after the other in one text."""
        keys = tuple(word_key(w) for w in words)
        return bool(keys) and any(t.has_sequence(keys) for t in self.sources(named_only))

    def number(self, value: Any, named_only: bool = False) -> bool:
        canonical = canonical_number(value)
        return canonical is not None and any(canonical in t.numbers for t in self.sources(named_only))

    def fact(self, fact: StatedFact) -> bool:
        """A fact in canonical form: amounts and quantities as numbers, ids as tokens (cheap indexes of
        our own); dates, times, phone numbers and card endings through grounding's fact index; a month
        only where the user, a result or the agent's own call named it."""
        if fact.kind in ("money", "quantity"):
            return self.number(fact.value)
        if fact.kind == "month":  # the policy's "statements from June 2024 to May 2025" picks no month for anyone
            return self.named_facts.has(fact)
        if fact.kind == "identifier" and self.phrase(fact.value):
            return True
        if self.facts.has(fact):
            return True
        if fact.kind != "date" or len(fact.value) != 10:
            return False
        # a date the user gave without its year ("March 10") is in the world's year; "tomorrow" is a date
        return self.facts.has(StatedFact("date", "", fact.value[5:])) or any(fact.value in t.days for t in self.sources(True))

