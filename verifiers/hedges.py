"""An output offered beside alternatives of its own kind is not stated.

"The rug is priced at $372.48 (or $173.01 or $468.10)", "you owe $81.00 or $91.00", "the owner is
Paul Henderson or Martha Matthews": a reply unsure which of the values it read is the answer can
name them all, and every output it had to state is then "stated". A reply commits to a value: where
each statement of an output joins it by "or" to another value of its kind, it names no answer.

A value's kind: money to money, a date or a month to a date or a month (in any format: "March 5
or March 15" hedges "2026-03-05", "March 2025 or April 2025" hedges "2025-03"), an id or a bare
number to another, a figure with a unit to one with the same unit ("22.38 GB or 0.84 GB"), and a
text (a name, a title, a plan) to another value that the chat's results show in a field of the
same name as the output (another "owner", another "plan_name").

A question offering the value among others ("Is it FB1 or FB2 you mean?") answers nothing either:
where the reply says it plainly elsewhere, it is stated there. Not hedges: one value said again in
another unit ("$381.00, or 510.54 SGD"): money is only money's alternative; and other
answers joined by "or" ("$10 or $20" when both are outputs to state) list what was asked for.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterator, Sequence

from toolgym.envs.grounding import extract_facts

from .figures import MIN_CHARACTERS, result_fields
from .matching import CALENDAR_KINDS, calendar_fact, normalize_text, states_day

_MONEY = r"\$\d[\d,]*(?:\.\d+)?"
_MONTH_NAME = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
# a date or a month of a year ("2025-03", "March 2025"), in any of the formats grounding reads
_DATE = (rf"(?:\d{{4}}-\d{{2}}(?:-\d{{2}})?|{_MONTH_NAME},? \d{{4}}|{_MONTH_NAME} \d{{1,2}}(?:st|nd|rd|th)?(?:, \d{{4}})?"
         rf"|\d{{1,2}} {_MONTH_NAME}(?: \d{{4}})?)")
_TOKEN = r"(?<![$\w.,])[#*]?[a-z0-9][a-z0-9._:/-]*\d[a-z0-9._:/-]*"  # a number or an id (has a digit), no amount of money
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_NUMBER_ONLY = re.compile(rf"^{_NUMBER}$")
_KINDS = [(re.compile(rf"^(?:{pattern})$"), pattern) for pattern in (_MONEY, _DATE, _TOKEN)]
_CURRENCY_CODE = re.compile(r"\s?([A-Z]{3})\b")  # "288,077.50 INR": an amount, not a bare number
_NO_CURRENCY = rf"(?!(?-i:{_CURRENCY_CODE.pattern}))"
_OPEN, _CLOSE = r"[\"'“‘(]?", r"[\"'”’)]?"  # a value may stand in quotes or brackets
_OR = re.compile(r"\b(?:or|either)\b", re.I)
_REACH = 80  # characters looked at on each side of a statement


def _value_pattern(output: str, alternatives: Collection[str], currency: str = "") -> str | None:
    """The words a value of `output`'s kind is written with, or None where nothing is its alternative.

    `currency`: the code a bare number is said with here ("288,077.50 INR"), which its alternatives
    carry too; a bare number said without one has no amount of money for its alternative."""
    said = output.strip().lower()
    for kind, pattern in _KINDS:
        if kind.match(said) and not (pattern == _TOKEN and _NUMBER_ONLY.match(said)):  # a count's alternative: any number ("26 or 4")
            return pattern
    patterns = []
    if re.search(r"\d", said):  # a figure with its unit ("22.38 gb", "13.5%", "level 1"): the same words, any number
        parts = re.split(_NUMBER, said)
        # money is no bare number's alternative, nor an amount in another currency ("$3,475.00, or 288,077.50 INR")
        unit = (rf"(?-i:\s?{currency})\b" if currency else _NO_CURRENCY) if parts[-1] == "" else ""
        patterns.append(r"(?<![\w.,$])" + _NUMBER.join(re.escape(part) for part in parts) + r"(?!\w)" + unit)
    if alternatives:  # a name or a title ("Basic 5" for "Travel 20"): the other values of its fields
        ordered = sorted({normalize_text(a) for a in alternatives}, key=len, reverse=True)
        patterns.append(r"(?<!\w)(?:" + "|".join(re.escape(a) for a in ordered) + r")(?!\w)")
    return "(?:" + "|".join(patterns) + ")" if patterns else None


def _statements(output: str, reply: str) -> Iterator[tuple[int, int]]:
    """Where `reply` states `output`: as written (case aside), or (a date or a month) the same one in any format."""
    wanted = calendar_fact(output)
    if wanted is not None:
        for fact in extract_facts(reply):
            if states_day(fact, wanted):
                for found in re.finditer(rf"(?<!\w){re.escape(fact.text)}(?!\w)", reply):
                    yield found.span()
        return
    needle, lowered = output.strip().lower(), reply.lower()
    start = lowered.find(needle)
    while start >= 0 and needle:
        end = start + len(needle)
        inside_word = (needle[0].isalnum() and start > 0 and lowered[start - 1].isalnum()) or (
            needle[-1].isalnum() and end < len(lowered) and lowered[end].isalnum())
        if not inside_word:
            yield start, end
        start = lowered.find(needle, start + 1)


def _same(value: str, other: str) -> bool:
    if normalize_text(value) == normalize_text(other):
        return True
    said, output = ([f for f in extract_facts(v) if f.kind in CALENDAR_KINDS] for v in (value, other))
    return len(said) == len(output) > 0 and all(states_day(a, b) for a, b in zip(said, output, strict=True))


@functools.lru_cache(maxsize=256)  # a chat's outputs are looked for in every reply
def _offers(value: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The words that offer a value beside alternatives of its kind (`value`: their pattern): after the
    value, before it, and each value of the kind."""
    run = rf"(?:{_OPEN}\s*{value}\s*{_CLOSE}\s*,\s*)*"
    after = re.compile(rf"{_CLOSE}\s*(?:,\s*{_OPEN}{value}{_CLOSE}\s*)*,?\s*\(?\s*(?:or|or else|either)\s+{_OPEN}\s*{value}", re.I)
    before = re.compile(rf"{run}{_OPEN}{value}{_CLOSE}\s*,?\s*\(?\s*or\s+{_OPEN}\s*$", re.I)
    return after, before, re.compile(value, re.I)


def hedged(output: str, reply: str, alternatives: Collection[str] = (), answers: Collection[str] = ()) -> bool:
    """Whether `reply` says `output` and every time joins it by "or" to another value of its kind
    (in a question too); False where it says it plainly once, or not at all.

    `alternatives`: the values a text output's kind takes in the chat (others of its fields);
    `answers`: the other outputs to state, which may be joined to it by "or" without hedging."""
    stated = False
    for start, end in _statements(output, reply):
        code = _CURRENCY_CODE.match(reply, end) if _NUMBER_ONLY.match(output.strip()) else None
        if code:
            end = code.end()  # the statement runs to its currency's code
        window = reply[max(0, start - _REACH) : min(len(reply), end + _REACH)]
        if not _OR.search(window):
            return False  # said plainly here (most statements: no "or" near them, no pattern built)
        value = _value_pattern(output, alternatives, code.group(1) if code else "")
        if value is None:
            return False  # a text nothing in the chat is an alternative to
        after, before, values = _offers(value)
        offered = after.match(reply, end, min(len(reply), end + _REACH)) or before.search(reply[max(0, start - _REACH) : start])
        others = [v.group(0) for v in values.finditer(offered.group(0))] if offered else []
        if not any(not _same(other, output) and not any(_same(other, answer) for answer in answers) for other in others):
            return False  # said plainly here, or beside other answers only
        stated = True
    return stated


class Hedges:
    """The alternatives of a chat's text outputs (the other values of the fields that show each),
    found once per chat, and whether a reply hedges an output among them."""

    def __init__(self, outputs: Sequence[str], results: Sequence[str]) -> None:
        self.outputs = list(outputs)
        self.results = results

    @functools.cached_property
    def alternatives(self) -> dict[str, set[str]]:
        """Each text output's alternatives: read from the results only for a reply that says "or"."""
        texts = [o for o in self.outputs if len(o.strip()) >= MIN_CHARACTERS and not any(kind.match(o.strip().lower()) for kind, _ in _KINDS)]
        if not texts:
            return {}
        by_field: dict[str, set[str]] = {}
        for key, value in result_fields(self.results):
            if isinstance(value, str):
                by_field.setdefault(key, set()).add(normalize_text(value))
        answers = {normalize_text(o) for o in self.outputs}
        found = {}
        for output in texts:
            said = normalize_text(output)
            shown = set().union(*(values for values in by_field.values() if said in values))
            found[output] = {a for a in shown - answers if len(a) >= MIN_CHARACTERS}
        return found

    def hedged(self, output: str, reply: str) -> bool:
        if not _OR.search(reply):
            return False  # nothing offered beside anything
        return hedged(output, reply, self.alternatives.get(output, ()), [o for o in self.outputs if o != output])
