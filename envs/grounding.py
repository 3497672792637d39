"""Grounding: the checkable facts an assistant states, and which of them it had not seen.

A fact is an identifier (order, line or account id, phone number), a money amount, a number with
a unit, a date, a month of a year, a time, a card ending ("ending in 1234") or a card brand. A
fact is *grounded* when the same value appears in what the assistant had seen before the turn
that states it: the system prompt, the user's turns, tool results and its own earlier tool-call
arguments. Values are compared in a canonical form, so `$1,234.50` matches `1234.5` in a tool
result, `March 4, 2026` matches `2026-03-04` and `March 2025` matches `2025-03`.

Everything here is a handful of compiled regular expressions over short texts: it runs on every
gold conversation at generation time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
# The month names as a trie (longest spelling first within each branch, as a sorted alternation
# would try them): the regular expression engine tries 8 first letters at each word instead of 23 names.
_MONTH = (
    r"\b(?P<month>j(?:an(?:uary)?|une?|uly?)|feb(?:ruary)?|ma(?:r(?:ch)?|y)|a(?:pr(?:il)?|ug(?:ust)?)"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# Card brands as agents name them, and the spellings a tool result may use for each.
BRAND_ALIASES: dict[str, tuple[str, ...]] = {
    "visa": ("visa",),
    "mastercard": ("mastercard", "master card"),
    "american express": ("american express", "amex"),
    "amex": ("american express", "amex"),
    "discover": ("discover",),
}
_UNITS = (
    r"gb|mb|kb|tb|gigabytes?|megabytes?|mbps|bars?|days?|weeks?|months?|years?|hours?|minutes?|mins?|seconds?|"
    r"%|percent|items?|units?|pieces?|lines?|points?|miles?|km|kg|lbs?|pounds?|ounces?|oz|inch(?:es)?|cm|mm|gbps"
)

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("money", re.compile(r"(?:US)?\$\s?(?P<value>\d[\d,]*(?:\.\d+)?)|(?<![\d,.])(?P<value2>\d[\d,]*(?:\.\d+)?)\s?(?:USD|dollars)\b", re.I)),
    ("ending", re.compile(r"\bending (?:in|with) (?P<value>\d{2,})\b", re.I)),
    (
        "brand",
        re.compile(
            r"\b(?P<value>visa|master\s?card|american express|amex|discover)\b(?=\s+(?:credit\s+|debit\s+)?(?:card|ending))",
            re.I,
        ),
    ),
    # a time after a date ("2025-03-20 13:00") is a fact of its own: read with the date, it went unchecked
    ("date", re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?=T\d|\b)")),
    ("date", re.compile(_MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<year>\d{4}))?\b", re.I)),
    ("date", re.compile(r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+(?P<year>\d{4}))?\b", re.I)),
    # a month of a year, after the dates took theirs: "March 2025" is "2025-03" (a statement month)
    ("month", re.compile(r"(?<![\w-])(?P<y>\d{4})-(?P<m>\d{2})(?![\w-])")),
    ("month", re.compile(_MONTH + r",?\s+(?P<year>\d{4})(?![\w,.]\d)", re.I)),
    ("time", re.compile(r"\b(?P<h>\d{1,2}):(?P<mi>\d{2})(?::\d{2})?\s*(?P<ampm>[ap]\.?m\.?)?(?![\w:])", re.I)),
    ("time", re.compile(r"\b(?P<h>\d{1,2})\s*(?P<ampm>[ap]\.?m\.?)(?!\w)", re.I)),
    ("phone", re.compile(r"(?<![\w-])(?:\+?1[\s.-]?)?\(?(?P<a>\d{3})\)?[\s.-]?(?P<b>\d{3})[\s.-](?P<c>\d{4})(?![\w-])")),
    # A number said as rounded ("about 1,765 feet" for 1,765.09) is grounded by a seen number it rounds
    # to, at the precision it is said in (canonical value "~1765")
    ("quantity", re.compile(r"\b(?:about|roughly|approximately) (?P<approx>\d[\d,]*(?:\.\d+)?)(?!\d|[.,]\d)", re.I)),
    # A number written with thousands separators ("114,555 visitors") is one number, with or without
    # a unit: read as its digits, it would be the identifiers "114" and "555", which no text showed.
    ("quantity", re.compile(r"(?<![\w.,$])(?P<value>\d{1,3}(?:,\d{3})+(?:\.\d+)?)(?!\d|[.,]\d)")),
    ("quantity", re.compile(r"(?<![\w.$])(?P<value>\d+(?:\.\d+)?)\s?(?:" + _UNITS + r")(?!\w)", re.I)),
    # A whole word of letters, digits, `_` and `-` is read at once (possessive: no backtracking into
    # it, no retrying from each `-`); one without a digit after its first character is dropped later.
    ("identifier", re.compile(r"(?<![\w#])#?(?P<value>[A-Za-z0-9][\w-]*+|\d{3,})", re.I)),
]
_WORD_ONLY_PATTERNS = [(kind, pattern) for kind, pattern in _PATTERNS if kind == "brand"]
# What a seen text is indexed by beside its numbers, digit runs and tokens (see `_index`)
_SHOWN_PATTERNS = [(kind, pattern) for kind, pattern in _PATTERNS if kind in ("date", "month", "time", "phone")]
_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
_DIGITS = re.compile(r"\d+")
_TOKEN = re.compile(r"[A-Za-z0-9][\w-]*")
_ISO_TIME = re.compile(r"\d[T ](\d{2}):(\d{2})")
_SEPARATED_DIGITS = re.compile(r"\d[\d\s().-]{8,}\d")


def _number(text: str) -> str | None:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    return format(value.normalize(), "f")


def _hour(hour: str, ampm: str | None) -> int:
    h = int(hour) % 24
    if ampm:
        pm = ampm.lower().startswith("p")
        h = h % 12 + (12 if pm else 0)
    return h


@dataclass(frozen=True)
class StatedFact:
    """One fact in a text: its kind, the words that state it, and its canonical value."""

    kind: str
    text: str
    value: str


def extract_facts(text: str) -> list[StatedFact]:
    """The facts a text states, each with a canonical value (the spans of earlier kinds win)."""
    return list(_extract(text))


@lru_cache(maxsize=256)  # the verifiers read the same final reply more than once
def _extract(text: str) -> tuple[StatedFact, ...]:
    # every kind but a card brand has a digit: a text without one needs only the brand pattern
    return _extract_with(text, _PATTERNS if _DIGIT.search(text) else _WORD_ONLY_PATTERNS)


def _extract_with(text: str, patterns: list[tuple[str, re.Pattern[str]]]) -> tuple[StatedFact, ...]:
    facts: list[StatedFact] = []
    taken = bytearray(len(text))  # 1 where an earlier fact's span lies: linear in the text, however many facts
    for kind, pattern in patterns:
        # A pattern's groups depend only on the words it matched: a fact repeated thousands of
        # times is read once (None: words that state no fact)
        read: dict[str, StatedFact | None] = {}
        for match in pattern.finditer(text):
            start, end = match.span()
            if taken.find(1, start, end) >= 0:
                continue
            words = match.group(0)
            if words in read:
                fact = read[words]
            else:
                value = _canonical(kind, match)
                fact = read[words] = None if value is None else StatedFact(kind, words.strip(), value)
            if fact is not None:
                taken[start:end] = b"\x01" * (end - start)
                facts.append(fact)
    return tuple(facts)


def _canonical(kind: str, match: re.Match[str]) -> str | None:
    groups = match.groupdict()
    if kind == "money":
        return _number(groups.get("value") or groups.get("value2") or "")
    if kind == "quantity":
        if groups.get("approx"):
            said = _number(groups["approx"])
            return None if said is None else f"~{said}"
        return _number(groups["value"])
    if kind == "ending":
        return groups["value"]
    if kind == "brand":
        return " ".join(groups["value"].lower().split()).replace("master card", "mastercard")
    if kind == "date":
        if groups.get("y"):
            return f"{groups['y']}-{groups['m']}-{groups['d']}"
        month, day = _MONTHS[groups["month"].lower()], int(groups["day"])
        if not 1 <= day <= 31:
            return None
        year = groups.get("year")
        return f"{year}-{month:02d}-{day:02d}" if year else f"{month:02d}-{day:02d}"
    if kind == "month":
        month = int(groups["m"]) if groups.get("m") else _MONTHS[groups["month"].lower()]
        year = groups.get("y") or groups["year"]
        return f"{year}-{month:02d}" if 1 <= month <= 12 else None
    if kind == "time":
        minute = int(groups.get("mi") or 0)
        if int(groups["h"]) > 24 or minute > 59:
            return None
        return f"{_hour(groups['h'], groups.get('ampm')):02d}:{minute:02d}"
    if kind == "phone":
        return groups["a"] + groups["b"] + groups["c"]
    value = groups["value"]
    if not _DIGIT.search(value, 1):  # an identifier has a digit past its first character ("A1", "12", not "5abc")
        return None
    value = value.rstrip("-_").lower()
    if value.isdigit() and len(value) < 3:
        return None
    return value


def stated_facts(text: str | None) -> list[str]:
    """The checkable facts a text states, as worded there ('$59.40', 'ending in 3289', 'Visa', '#W123')."""
    return [f.text for f in extract_facts(text or "")]


class _TextIndex:
    """The values a text shows, by kind, each read on first use: a fact is looked up by its kind, so
    a text asked only about amounts never runs the date, time and phone patterns."""

    __slots__ = ("text", "_lowered", "_numbers", "_tokens", "_shown")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lowered: str | None = None
        self._numbers: frozenset[str] | None = None
        self._tokens: frozenset[str] | None = None
        self._shown: tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]] | None = None

    @property
    def lowered(self) -> str:
        if self._lowered is None:
            self._lowered = self.text.lower()
        return self._lowered

    @property
    def numbers(self) -> frozenset[str]:
        if self._numbers is None:
            self._numbers = frozenset(n for raw in _NUMBER.findall(self.text) if (n := _number(raw)) is not None)
        return self._numbers

    @property
    def tokens(self) -> frozenset[str]:
        if self._tokens is None:
            self._tokens = frozenset(t.rstrip("-_") for t in _TOKEN.findall(self.lowered))
        return self._tokens

    @property
    def digit_runs(self) -> frozenset[str]:
        return self._read_shown()[0]

    @property
    def dates(self) -> frozenset[str]:
        return self._read_shown()[1]

    @property
    def times(self) -> frozenset[str]:
        return self._read_shown()[2]

    @property
    def months(self) -> frozenset[str]:
        return self._read_shown()[3]

    def _read_shown(self) -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
        """Digit runs, dates, times and months: one pass of the date, month, time and phone patterns (a
        phone is a digit run too, and a span an earlier kind took is not read again)."""
        if self._shown is None:
            text = self.text
            digit_runs = set(_DIGITS.findall(text))
            dates: set[str] = set()
            times: set[str] = set()
            months: set[str] = set()
            # Only dates, months, times and phones are read as facts here (numbers, digit runs and tokens cover
            # the other kinds): the long policy and schema texts skip the identifier and money patterns.
            # Without the spans of those kinds a text shows a date or time it might not as a stated
            # fact: a lenient reading of what was seen, never a stricter one.
            for fact in _extract_with(text, _SHOWN_PATTERNS) if _DIGIT.search(text) else ():
                if fact.kind == "date":
                    dates.update((fact.value, fact.value[-5:]))  # with the month and day alone
                elif fact.kind == "month":
                    months.add(fact.value)
                elif fact.kind == "time":
                    times.add(fact.value)
                elif fact.kind == "phone":
                    digit_runs.add(fact.value)
            times.update(f"{h}:{m}" for h, m in _ISO_TIME.findall(text))
            # A phone number written with separators is also seen as its bare digits.
            digit_runs.update(re.sub(r"\D", "", run) for run in _SEPARATED_DIGITS.findall(text))
            self._shown = (frozenset(digit_runs), frozenset(dates), frozenset(times), frozenset(months))
        return self._shown


@lru_cache(maxsize=2048)
def _index(text: str) -> _TextIndex:
    """A text's index. Cached: the policy and the tool schemas open every chat of a world."""
    return _TextIndex(text)


@dataclass
class SeenFacts:
    """What the assistant has seen so far, indexed lazily.

    A text is indexed only when a fact is looked up, newest text first, and the search stops at the
    first text that shows it: the long texts at the front of every chat (the policy, the offered
    tool schemas) are indexed only for a fact that nothing later showed.
    """

    texts: list[str] = field(default_factory=list)
    indexes: list[_TextIndex | None] = field(default_factory=list)
    # answers since the last text was added, by (kind, value): a reply repeating one fact
    # thousands of times is looked up once
    answers: dict[tuple[str, str], bool] = field(default_factory=dict)

    def add(self, text: str | None) -> None:
        if text:
            self.texts.append(text)
            self.indexes.append(None)
            self.answers.clear()

    def has(self, fact: StatedFact) -> bool:
        key = (fact.kind, fact.value)
        known = self.answers.get(key)
        if known is None:
            known = self.answers[key] = self._search(fact)
        return known

    def _search(self, fact: StatedFact) -> bool:
        for position in range(len(self.texts) - 1, -1, -1):
            index = self.indexes[position]
            if index is None:
                index = self.indexes[position] = _index(self.texts[position])
            if _shows(index, fact):
                return True
        return False


def _shows(index: _TextIndex, fact: StatedFact) -> bool:
    kind, value = fact.kind, fact.value
    if kind == "quantity" and value.startswith("~"):
        return any(_rounds_to(seen, value[1:]) for seen in index.numbers)
    if kind in ("money", "quantity"):
        return value in index.numbers
    if kind == "ending":
        return any(run.endswith(value) for run in index.digit_runs)
    if kind == "brand":
        return any(alias in index.lowered for alias in BRAND_ALIASES.get(value, (value,)))
    if kind == "date":
        return value in index.dates
    if kind == "time":
        return value in index.times
    if kind == "month":
        return value in index.months
    if kind == "phone":
        return any(value in run for run in index.digit_runs)
    return value in index.tokens or (value in index.digit_runs and value.isdigit())  # a set lookup first: isdigit reads it all


def _rounds_to(seen: str, said: str) -> bool:
    """Whether the number `seen` rounds to `said` at the decimals `said` has ("1765.09" to "1765")."""
    places = Decimal(1).scaleb(-len(said.partition(".")[2]))
    return Decimal(seen).quantize(places, rounding=ROUND_HALF_UP) == Decimal(said)


@dataclass(frozen=True)
class UngroundedFact:
    """A fact an assistant turn stated without having seen it."""

    message_index: int  # position in the chat
    turn: int  # number of the assistant message (0 = first)
    fact: str
    kind: str

    def describe(self) -> str:
        return f"assistant turn {self.turn} (message {self.message_index}) states {self.kind} {self.fact!r} not seen before"


def _arguments_text(message: dict[str, Any]) -> Iterable[str]:
    for call in message.get("tool_calls") or ():
        function = call.get("function", call)
        arguments = function.get("arguments")
        yield arguments if isinstance(arguments, str) else _flatten(arguments)


def _flatten(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k} {_flatten(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return " ".join(_flatten(v) for v in value)
    return str(value)


def ungrounded_facts(messages: list[dict[str, Any]]) -> list[UngroundedFact]:
    """For each assistant turn, the facts it states that nothing before it showed."""
    seen = SeenFacts()
    found: list[UngroundedFact] = []
    turn = 0
    for index, message in enumerate(messages):
        role = message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else None
        if role == "assistant":
            # a fact repeated in one turn is the same object (read once by `_extract`): judged and named once
            for fact in {id(fact): fact for fact in extract_facts(text or "")}.values():
                if not seen.has(fact):
                    found.append(UngroundedFact(index, turn, fact.text, fact.kind))
            for arguments in _arguments_text(message):
                seen.add(arguments)
            turn += 1
        else:  # system, user, tool: all of it is in front of the assistant
            seen.add(text)
    return found
