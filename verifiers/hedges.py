"""An output offered beside alternatives of its own kind is not stated.

"The rug is priced at $372.48 (or $173.01 or $468.10)", "you owe $81.00 or $91.00": a reply unsure
which of the figures it read is the answer can name them all, and every output it had to state is
then "stated". A reply commits to a value: where each statement of an output joins it by "or" to
another value of its kind (money to money, a date to a date, a number or id to another), it names
no answer. A question offering a choice ("FB1 or FB2?") asks rather than answers, and is no hedge;
nor is one value said again in another unit ("$381.00, or 510.54 SGD"): money is only money's
alternative.
"""

from __future__ import annotations

import re

_MONEY = r"\$\d[\d,]*(?:\.\d+)?"
_DATE = (r"(?:\d{4}-\d{2}-\d{2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:, \d{4})?"
         r"|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*(?: \d{4})?)")
_TOKEN = r"(?<![$\w.,])[#*]?[a-z0-9][a-z0-9._:/-]*\d[a-z0-9._:/-]*"  # a number or an id (has a digit), no amount of money
_KINDS = [re.compile(rf"^(?:{pattern})$") for pattern in (_MONEY, _DATE, _TOKEN)]
_ALTERNATIVE = {kind: re.compile(rf"^\s*(?:,\s*{value}\s*)*,?\s*\(?\s*(?:or|or else|either)\s+{value}")
                for kind, value in zip(_KINDS, (_MONEY, _DATE, _TOKEN), strict=True)}
_BEFORE = {kind: re.compile(rf"{value}\s*(?:,\s*{value}\s*)*,?\s*\(?\s*or\s*$")
           for kind, value in zip(_KINDS, (_MONEY, _DATE, _TOKEN), strict=True)}
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_REACH = 80  # characters looked at on each side of a statement


def _kind(output: str) -> re.Pattern[str] | None:
    said = output.strip().lower()
    return next((kind for kind in _KINDS if kind.match(said)), None)


def _asks(text: str, end: int) -> bool:
    """Whether the sentence holding position `end` ends in a question mark."""
    found = _SENTENCE_END.search(text, end)
    return found is not None and text[found.start()] == "?"


def hedged(output: str, reply: str) -> bool:
    """Whether `reply` says `output` (as written) and every time joins it by "or" to another value of
    its kind outside a question; False where it says it plainly once, or not at all."""
    kind = _kind(output)
    if kind is None:
        return False
    lowered, needle = reply.lower(), output.strip().lower()
    starts = [m.start() for m in re.finditer(re.escape(needle), lowered)]
    if not starts:
        return False
    for start in starts:
        end = start + len(needle)
        after, before = lowered[end : end + _REACH], lowered[max(0, start - _REACH) : start]
        offered = _ALTERNATIVE[kind].match(after) or _BEFORE[kind].search(before)
        if not offered or _asks(lowered, end):
            return False  # said plainly here, or asked about
    return True
