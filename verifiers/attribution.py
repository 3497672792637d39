"""A figure said of the right record: a reply that states a required figure beside another record's
name ("312-397-4468: 1.89 GB used" when 1.89 GB is the other line's use) has not stated it, though
every figure is in the reply.

A figure's record is the object of a tool result that shows it under a field (a line's
"data_used_gb"); its peers are the other objects of the chat's results with the same fields (the
other lines; an order item's price is no peer of a variant's). Their *names* are the short texts
each shows and no other does (a phone number, a plan's name, a variant's colour). A reply misattributes the figure when every clause that states it names
a peer and not its own record; a clause that names no record leaves the figure unattributed, and
passes. Only figures are read so: an id or a name that is itself the output is its own record's,
and a figure a page or a mail states in words was read there, whatever field repeats the number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .figures import MIN_CHARACTERS, PROSE_WORDS, figure_in, needles, objects_of, read_json
from .matching import normalize_text, output_stated

# a reply's clauses: a record's figure and its name are said together, within one
_CLAUSE = re.compile(r"[;\n]|(?<=[.!?])\s+|,\s+")


def _figure(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _names(records: Sequence[dict[str, Any]]) -> set[str]:
    """The short texts of records (a nested object's too: a variant's options), normalised."""
    found = set()
    for record in records:
        for value in record.values():
            for text in value.values() if isinstance(value, dict) else [value]:
                if isinstance(text, str) and len(text) >= MIN_CHARACTERS and text.count(" ") < PROSE_WORDS - 1:
                    found.add(normalize_text(text.replace("_", " ")))  # "basic_economy" is said "basic economy"
    return found


def _said(clause: str, names: frozenset[str], shared: frozenset[str]) -> set[str]:
    """The `names` a clause says, longest first: a name said only inside a longer one (a variant's
    "GPS" inside another's "GPS + cellular") is not said."""
    found = set()
    for name in sorted(names | shared, key=len, reverse=True):
        pattern = rf"(?<!\w){re.escape(name)}(?!\w)"
        if re.search(pattern, clause):
            found.add(name)
            clause = re.sub(pattern, " ", clause)
    return found & names


class Attribution:
    """The names of each required figure's record and of its peers, found once per chat."""

    def __init__(self, outputs: Sequence[str], results: Sequence[str]) -> None:
        self.names: dict[str, tuple[frozenset[str], frozenset[str]]] = {}  # output -> (its record's, its peers')
        self.shared: dict[str, frozenset[str]] = {}  # output -> names its record and a peer both show
        self._results = results
        self._lowered = [content.lower() if isinstance(content, str) else "" for content in results]
        self._parsed: dict[int, list[dict[str, Any]]] = {}  # a result's position -> its objects, read on first use
        for output in outputs:
            number = figure_in(output)
            if number is not None:
                self._find(output, number[1])

    def _objects(self, i: int) -> list[dict[str, Any]]:
        if i not in self._parsed:
            self._parsed[i] = list(objects_of(read_json(self._results[i])))
        return self._parsed[i]

    def _find(self, output: str, number: float) -> None:
        forms = needles(output, figure_in(output))
        holding = [i for i, text in enumerate(self._lowered) if any(n in text for n in forms)]
        prose = normalize_text(" ".join(value for i in holding for record in self._objects(i) for value in record.values()
                                        if isinstance(value, str) and value.count(" ") >= PROSE_WORDS - 1))
        if normalize_text(output) in prose:
            return  # read in a page's or a mail's words ("It weighs 17.0 kg"), not off a record's field
        owners = [(key, record) for i in holding for record in self._objects(i) for key, value in record.items() if _figure(value) == number]
        if len({key for key, _ in owners}) != 1:
            return  # shown under several fields (a total and a refund) or none: no one record's figure
        field = owners[0][0]
        kinds = {frozenset(record) for _, record in owners}  # peers have the same fields: a variant's price is no order item's
        peers = [record for i, text in enumerate(self._lowered) if f'"{field}"' in text
                 for record in self._objects(i) if _figure(record.get(field)) is not None and frozenset(record) in kinds]
        own = _names([record for record in peers if _figure(record[field]) == number])
        others = _names([record for record in peers if _figure(record[field]) != number])
        if own - others and others - own:
            self.names[output] = (frozenset(own - others), frozenset(others - own))
            # what both show, and the other names of the results around them (the product a variant
            # belongs to: "Memory Foam Pillow" is not the fill "memory foam" of another)
            around = _names([record for i in holding for record in self._objects(i)])
            self.shared[output] = frozenset((own & others) | (around - (own ^ others)))

    def _named(self, output: str, message: str) -> list[set[str]]:
        """For each clause of `message` that states `output`: the names of its record and its peers it says."""
        own, others = self.names[output]
        stating = [normalize_text(clause) for clause in _CLAUSE.split(message) if output_stated(output, clause)]
        return [_said(clause, own | others, self.shared[output]) for clause in stating]

    def misattributed(self, output: str, message: str) -> bool:
        """Whether every clause of `message` that states `output` names another record and not its own."""
        if output not in self.names:
            return False
        named = self._named(output, message)
        return bool(named) and all(found and not found & self.names[output][0] for found in named)

    def said_of_its_record(self, output: str, message: str) -> bool:
        """Whether a clause of `message` states `output` beside its own record's name."""
        return output in self.names and any(found & self.names[output][0] for found in self._named(output, message))
