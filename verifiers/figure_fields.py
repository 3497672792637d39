"""`figure_fields`: an amount said as a field's is that field's.

"Cancel booking FB100124 with a refund of $100.00 (fee $202.00)" states two amounts a tool result
showed, each grounded, with the refund and the fee traded: the confirmation asks a yes for terms
that are not the booking's, and "$202.00 is the fee" in a report misleads as much. `grounded`
sees two figures it has seen; this check reads which field each is said to be.

An amount is *said as a field's* when a word naming one of the results' numeric fields is bound to
it: next to it, or with only a linking word between ("refund of $202.00", "fee: $100.00", "$202.00
is the fee", "$202.00 will be refunded", "a $100.00 fee"). A field's words are the parts of its key
("cancel_fee": cancel, fee), and a word names it in any form that starts with one ("refunded").
The amount is misattributed when every field word bound to it names fields whose values never were
that amount, in any result of the chat before the reply; an amount no result showed under a field
(one the agent worked out) is not read, nor one a text of a result states in a sentence with the
same word (an article's "The minimum balance of the Holiday Saver is $500.00." read back as "a
minimum balance of $500.00" beside a loan's balance after a $500.00 payment). Only money is read (a
currency sign): counts and units are said with the fields' words far less tightly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from toolgym.envs.task import Task
from toolgym.envs.trajectory import Trajectory

from .chat_calls import as_read
from .figures import objects_of, read_json
from .score import Score, binary, vacuous

_MONEY = re.compile(r"[$€£]\s?(\d[\d,]*(?:\.\d+)?)")
_WORD = re.compile(r"[a-z]+|[^\sa-z$€£\d]")
# Words that link a field's word to its amount without naming anything ("refund of", "fee is the").
_LINKS = {"of", "is", "was", "are", "were", "be", "will", "would", "the", "a", "an", "your", "just", "only", "now", ":", "as"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_REACH = 3  # words looked at on each side, links included
# Key parts that are units or joints, not what a field is: "data_used_gb", "price_per_night".
_NOT_NAMES = {"id", "gb", "pct", "kwh", "km", "kmh", "per", "at", "of", "to", "and", "the", "is", "new", "old", "usd"}
_MIN_PART = 3
# Fields counted in a unit other than money: a line's 20 GB allowance is no "$20.00" ("data_allowance_gb").
_UNITS = {"gb", "mb", "gigabytes", "pct", "percent", "km", "kmh", "kwh", "kg", "lb", "minutes", "hours", "days", "nights",
          "count", "level", "year", "pages", "stops", "bags", "points", "seats", "items", "quantity", "volume"}


def _records(data: Any) -> Iterable[dict[str, float]]:
    """Every object of a result that has amounts: its numeric fields not counted in another unit,
    absolute and rounded to the cent."""
    for value in objects_of(data):
        numbers = {k: round(abs(float(v)), 2) for k, v in value.items()
                   if isinstance(v, int | float) and not isinstance(v, bool) and k.lower().rsplit("_", 1)[-1] not in _UNITS}
        if numbers:
            yield numbers


def _amount(match: re.Match[str]) -> float:
    return round(float(match.group(1).replace(",", "")), 2)


def _parts(key: str) -> set[str]:
    return {p for p in key.lower().split("_") if len(p) >= _MIN_PART and p not in _NOT_NAMES}


def _names(word: str, part: str) -> bool:
    """Whether a reply's word names a key part: "refunded" names refund, "fees" fee."""
    return word == part or (word.startswith(part) and len(part) >= 4 and len(word) - len(part) <= 3)


class _Fields:
    """The objects with numeric fields the chat's results showed so far, field parts to amounts."""

    def __init__(self) -> None:
        self.records: list[dict[str, set[float]]] = []
        self.held: dict[str, set[float]] = {}  # field part -> every amount a field with it held
        self.beside: dict[float, set[str]] = {}  # amount -> the field parts of every record that holds it
        self.stated: dict[float, set[str]] = {}  # amount -> the words of every sentence of a result's text stating it

    def read(self, result: str) -> None:
        data = read_json(result)
        for value in (v for o in objects_of(data) for v in o.values()):
            if isinstance(value, str):
                for sentence in _SENTENCE.split(value.lower()):
                    for match in _MONEY.finditer(sentence):
                        self.stated.setdefault(_amount(match), set()).update(_WORD.findall(sentence))
        for numbers in _records(data):
            record: dict[str, set[float]] = {}
            for key, value in numbers.items():
                for part in _parts(key):
                    record.setdefault(part, set()).add(value)
                    self.held.setdefault(part, set()).add(value)
            for value in numbers.values():
                self.beside.setdefault(value, set()).update(record)
            self.records.append(record)

    def misattributed(self, text: str) -> list[str]:
        """Each amount of `text` said as another field of the record that holds it ("a refund of $100.00"
        where the quote's fee is $100.00 and its refund $202.00), and as no field that ever held it."""
        found = []
        lowered = text.lower()
        for match in _MONEY.finditer(lowered):
            amount = _amount(match)
            words = _bound_words(lowered, match.start(), match.end())
            if not words:
                continue
            named = {part for part in self.held for word in words if _names(word, part)}
            if any(amount in self.held[part] for part in named):
                continue  # some field of that name held it
            if self.stated.get(amount, set()) & {w for w in words if any(_names(w, part) for part in named)}:
                continue  # said with the word a text of a result states it with
            clash = named & self.beside.get(amount, set())
            if clash:
                found.append(f"{match.group(0)} said as the {'/'.join(sorted(clash))} of a record whose {'/'.join(sorted(clash))} is not {match.group(0)}")
        return found


def _bound_words(text: str, start: int, end: int) -> list[str]:
    """The words next to an amount, or beyond only linking words, on either side (up to a stop)."""
    before = _WORD.findall(text[max(0, start - 60) : start])[::-1]
    after = _WORD.findall(text[end : end + 60])
    bound = []
    for side in (before, after):
        for word in side[:_REACH]:
            if word in _LINKS:
                continue
            if word.isalpha():
                bound.append(word)
            break  # the first word that is no link, or a stop: nothing beyond it is bound
    return bound


def figure_fields(task: Task, trajectory: Trajectory) -> Score:
    """Every amount a reply says as a field's ("a refund of $202.00") is an amount that field held."""
    fields = _Fields()
    wrong: list[str] = []
    judged = False
    for position, arrived, content in as_read(trajectory.messages):
        for call in arrived:
            fields.read(call.result or "")
        if content and fields.records:
            judged = True
            wrong += [f"message {position}: {why}" for why in fields.misattributed(content)]
    if not judged:
        return vacuous()
    return binary(not wrong, **({"misattributed": wrong[:5]} if wrong else {}))


def swapped_amounts(messages: list[dict[str, Any]], index: int) -> str | None:
    """Reply `index` with two amounts of one record traded, each said with its own field's word
    ("a refund of $100.00 (fee $202.00)" for the quote's $202.00 refund and $100.00 fee); None where
    the reply says no two such amounts."""
    fields = _Fields()
    for message in messages[:index]:
        if message.get("role") == "tool" and isinstance(message.get("content"), str):
            fields.read(message["content"])
    text = messages[index].get("content") or ""
    lowered = text.lower()
    said = []  # (match, the parts its words name under which it was held)
    for match in _MONEY.finditer(lowered):
        amount = _amount(match)
        words = _bound_words(lowered, match.start(), match.end())
        said.append((match, amount, {p for p in fields.held for w in words if _names(w, p) and amount in fields.held[p]}))
    for record in fields.records:
        own = [(m, a, parts) for m, a, parts in said if any(a in record.get(p, ()) for p in parts)]
        for first, second in ((x, y) for x in own for y in own if x[1] != y[1] and not x[2] & y[2]):
            (one, two) = sorted((first[0], second[0]), key=lambda m: m.start())
            return text[: one.start()] + text[two.start() : two.end()] + text[one.end() : two.start()] + text[one.start() : one.end()] + text[two.end() :]
    return None
