"""An answer singled out, not recited: a reply that states a required output together with the other
values of the list it came from ("purple $43.67, black $30.05, ..., green $26.04" for the cheapest
variant) has not told the user which one it is, whatever else it says.

A value's *siblings* are the other values of the same field in the list of records that shows it
(every variant's "price"), or the other items of a list of plain values (a slot search's
"free_starts"). A message recites an output when it states the output and at least half of its
siblings that are not required outputs themselves, two at the least: the whole list, or half of it
hedged, not the answer with a word of context ("the others run from $30.05 to $68.14"). Short
values (under three characters: a count of bags, a flag's 0) are left out on both sides: they turn
up in any sentence. An output that a result's prose states (a page's text, a mail's body), or that
a result shows outside any list (a calculation's result), was read there, not picked from a list;
a record that holds another required output is another answer's, and its values are no siblings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from .figures import MIN_CHARACTERS, PROSE_WORDS, figures_in, needles, number_of, read_json
from .matching import normalize_text

RECITED = 2  # siblings stated beside the output that make it one of a list, not an answer


def _is_plain(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool) and len(str(value)) >= MIN_CHARACTERS


# A list's values of one field, each with the keys of every value of the record it came from (a
# plain list's item: its own key alone)
Group = list[tuple[Any, frozenset[tuple[str, Any]]]]


def _walk(data: Any, groups: list[Group], prose: list[str], singles: set[tuple[str, Any]], in_list: bool = False) -> None:
    """Collect, at any depth, every field's values across a list of records and every list of plain
    values (`groups`), the texts that are prose (`prose`: a page's text, a mail's body), and the
    keys of the values a result shows outside any list (`singles`: a calculation's result)."""
    if isinstance(data, dict):
        values: Iterable[Any] = data.values()
        if not in_list:
            singles.update(_key(v) for v in values if _is_plain(v))
    elif isinstance(data, list):
        records = [item for item in data if isinstance(item, dict)]
        if len(records) >= 2:
            held = [frozenset(_key(v) for v in record.values() if _is_plain(v)) for record in records]
            for key in dict.fromkeys(k for record in records for k in record):
                groups.append([(record[key], keys) for record, keys in zip(records, held, strict=True)
                               if key in record and _is_plain(record[key])])
        plain = [item for item in data if _is_plain(item)]
        if len(plain) >= 2:
            groups.append([(item, frozenset({_key(item)})) for item in plain])
        values = data
        in_list = True
    else:
        return
    for value in values:
        if isinstance(value, dict | list):
            _walk(value, groups, prose, singles, in_list)
        elif isinstance(value, str) and value.count(" ") >= PROSE_WORDS - 1:
            prose.append(value)


def _key(value: Any) -> tuple[str, Any]:
    """What a field's value is compared by: its text as normalised, or its number."""
    return ("text", _text_key(value)) if isinstance(value, str) else ("number", float(value))


def _text_key(text: str) -> str:
    return " ".join(text.lower().split())


def _keys_of(output: str, number: tuple[str, float] | None) -> frozenset[tuple[str, Any]]:
    """The values a required output matches: its text, and its figure when it is one ("$26.04": 26.04)."""
    return frozenset({("text", _text_key(output)), *([("number", number[1])] if number else [])})


class _Result:
    """A tool result as the recital check reads it: its prose, and its lists' values with their keys."""

    def __init__(self, content: str) -> None:
        groups: list[Group] = []
        prose: list[str] = []
        self.singles: set[tuple[str, Any]] = set()
        _walk(read_json(content), groups, prose, self.singles)
        self.prose = normalize_text(" ".join(prose))
        self.groups = [(group, frozenset(_key(v) for v, _ in group)) for group in groups if len(group) > RECITED]


def _stated(value: Any, kind: str, normalized: str, figures: frozenset[tuple[str, float]]) -> bool:
    """Whether a message states a sibling: a text as a phrase of its own, a number as a figure of the
    output's kind (a price as money: not the 15 of "Standard 15" or of "15:00")."""
    if isinstance(value, str):
        return re.search(rf"(?<!\w){re.escape(normalize_text(value))}(?!\w)", normalized) is not None
    return (kind, float(value)) in figures


class Recitals:
    """The siblings of each required output in a chat's tool results, found once per chat."""

    def __init__(self, outputs: Sequence[str], results: Sequence[str]) -> None:
        self.siblings: dict[str, list[Any]] = {}
        self.kinds: dict[str, str] = {}  # an output's kind of figure ('$', '%', ''), when it is one
        numbers = {output: number_of(output) for output in outputs}
        keys = {output: _keys_of(output, numbers[output]) for output in outputs}
        required = frozenset().union(*keys.values())
        lowered = [content.lower() if isinstance(content, str) else "" for content in results]
        read: dict[int, _Result] = {}  # a result's position -> what it holds, read only if it holds an output
        for output in outputs:
            if len(output.strip()) < MIN_CHARACTERS:
                continue
            forms = needles(output, numbers[output])
            holding = [read.setdefault(i, _Result(results[i])) for i, text in enumerate(lowered) if any(n in text for n in forms)]
            if any(normalize_text(output) in result.prose or keys[output] & result.singles for result in holding):
                # an answer a page or a mail states in words, or a result shows on its own (a
                # calculation's 49.55), was read there: a list that holds it too (a page's links, an
                # order's total that happens to match) offered no choice
                continue
            # a record that holds another required output is another answer's (three hotels asked
            # about), not an alternative to this one
            found = [value for result in holding for group, held in result.groups if keys[output] & held
                     for value, record in group if _key(value) not in required and not record & required]
            if found:
                self.siblings[output] = list(dict.fromkeys(found))
                figure = numbers[output]
                self.kinds[output] = figure[0] if figure is not None else ""

    def recited(self, output: str, message: str) -> bool:
        """Whether `message` states `output` only as one of a list: beside half of its siblings or more."""
        siblings = self.siblings.get(output)
        if not siblings:
            return False
        normalized = normalize_text(message)
        figures = frozenset(figures_in(message))
        kind = self.kinds[output]
        stated = sum(_stated(value, kind, normalized, figures) for value in siblings)
        return stated >= max(RECITED, (len(siblings) + 1) // 2)
