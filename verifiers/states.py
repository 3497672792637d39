"""`current_states`: a record's state said as it stands when the reply is written.

"Booking FB100124 is still confirmed" after the cancel that a tool result showed, or "order
#W1 is delivered" while the order's last result says "pending", states every id and amount
correctly and says a state that is false. The other checks read facts (ids, figures, dates) and
acts ("I cancelled"); this one reads a record's *state*: the values of its status fields.

What the check knows comes from the chat's tool results, in order:

- a *record* is a JSON object of a result with an id (its first id field: an order's "id", a
  booking's "booking_id"); the same id in a later result is the same record;
- its *state* is its status fields ("status", "*_status"), as the last result showing them said;
  a write on the record whose result leaves them out makes them unknown, not stale;
- a state word means something only among records of the same shape (the same fields), so
  a state's *vocabulary* is every value that field took in objects shaped like this record in the
  chat, and every state the world's table of such records holds (verifiers/state_words.py): a
  booking's "confirmed" and "cancelled", never a flight's "delayed";
- a record is *named* by its id or a name it shows that no other record of the chat shows (a phone
  number, a flight number, a card's last digits, an event's title), or by its noun ("your line"
  for a record of "line_id") when no other record of the chat has one. A name two records share
  (a weekly meeting's title) names the one whose other values (its start, its room) the sentence
  says and the other's do not.

A reply says a record is in a state when a state word of its vocabulary stands in a sentence that
names it: the record named right after the word ("the pending order #W1"), else the nearest one
named before it, else one named after it. A state said with a negation ("is not cancelled", "no
longer confirmed") is denied: wrong when it is the state the record is in. Not statements of the
state as it stands: a question, a class of records ("off your open tasks"), someone's act ("you ordered the lamp"), a modal, condition or
intention ("it will be cancelled", "once cancelled"), the past ("it was pending", "changed from
pending"), quoted words. A state only the world knows for a record's shape (no result showed it)
that another record of its kind is in is said of that one: "the old transfer is cancelled and
$150.00 is now scheduled" speaks of the new transfer. So a lone pending order said to be
"delivered", or "pending or processed, or delivered", is wrong, and hedging over states does not pay.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from toolgym.envs.claim_tokens import CONDITIONS, Tokens, tokenize
from toolgym.envs.claim_words import RECORD_NOUNS, singular
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.envs.tools import Tool, is_error_output
from toolgym.envs.trajectory import Trajectory

from .chat_calls import as_read
from .figures import objects_of, read_json
from .score import Score, binary, vacuous
from .state_words import world_states

_SUBORDINATORS = frozenset(CONDITIONS)
# Words that put a state in the past: "it was pending", "had been confirmed", "originally scheduled".
_PAST = {"was", "were", "had", "previously", "originally", "formerly", "earlier", "used", "initially"}
# Words a state stands after when said as one: "is cancelled", "now frozen", "marked as done".
_COPULAS = ("is", "are", "now", "still", "again", "as", "remains", "stays", "been")
_BE = {"was", "were", "be", "being"}
_PERSONS = {"i", "you", "we", "they", "he", "she"}
_BETWEEN_PERSON_AND_ACT = {"have", "has", "had", "just", "already", "also"}  # "I've just cancelled"
_JOINS = {"and", "or", "but", "while", "whereas", "nor"}
_AFTER_REACH = 3  # "the cancelled flight SW1370": a name this close after the word is what it describes
_NEAREST = 8  # names looked at on each side of a word: the record meant is named close by, and a long reply stays linear
_MIN_NAME = 3  # a shorter text names nothing reliably
_MARK_WORDS = 4  # a value of more words is prose (a note, a subject line), not one that tells a record apart


def _is_id(key: str) -> bool:
    return key == "id" or key.endswith("_id")


def _is_state(key: str) -> bool:
    return key == "status" or key.endswith("_status")


def _is_name(key: str) -> bool:
    return key.endswith(("number", "name", "title"))


def _said(value: str) -> str:
    """A value as a reply would say it, lower case: "pending_activation" -> pending activation, "****0547" -> 0547."""
    return value.replace("_", " ").lstrip("#*").lower()


@lru_cache(maxsize=8192)
def _words(said: str) -> tuple[str, ...]:
    """A said value in the reader's tokens."""
    return tuple(tokenize(said, _SUBORDINATORS).words)


@dataclass(frozen=True)
class StateSaid:
    """A state a reply says a record is in, and the state its last result showed."""

    record_id: str
    value: str
    now: dict[str, str]  # the record's status fields that take such a value, as last shown
    denied: bool = False  # said with a negation: "is not cancelled", "no longer confirmed"
    start: int = 0  # where the state's words stand in the reply
    end: int = 0

    @property
    def wrong(self) -> bool:
        """A state affirmed that the record is not in, or denied that it is in."""
        return (self.value in self.now.values()) == self.denied

    def describe(self) -> str:
        shown = ", ".join(f"{k} {v!r}" for k, v in self.now.items())
        return f"it says {self.record_id} is {'not ' if self.denied else ''}{self.value!r}, but its last result shows {shown}"


@dataclass
class _Record:
    shapes: set[frozenset[str]] = field(default_factory=set)
    names: set[str] = field(default_factory=set)  # as said (`_said`)
    nouns: set[str] = field(default_factory=set)  # what its id field calls it: "line" for "line_id"
    marks: set[str] = field(default_factory=set)  # its other short values, as said: a start, a room
    state: dict[str, str] = field(default_factory=dict)  # status field -> value, as last shown
    keys: set[str] = field(default_factory=set)  # its id field: records with one are of one kind


class _Chat:
    """The records of the results read so far, their states, and each shape's state vocabulary."""

    def __init__(self, tools: dict[str, Tool], known: Callable[[frozenset[str], str], frozenset[str]] | None = None) -> None:
        self.tools = tools
        self.known = known  # a record's keys and status field -> the states its kind takes in the world
        self.records: dict[str, _Record] = {}
        self.vocabulary: dict[tuple[frozenset[str], str], set[str]] = {}
        self.shown: dict[tuple[frozenset[str], str], set[str]] = {}  # of the vocabulary, what the chat's results showed
        self.first: dict[tuple[str, str], str] = {}  # (record id, status field) -> the value first shown

    def read(self, name: str, arguments: dict[str, Any], result: str) -> None:
        """A call's result: the records it shows; a write's record it leaves unshown loses its state."""
        if is_error_output(result):
            return
        shown = set()
        for record in objects_of(read_json(result)):
            key = next((k for k, v in record.items() if _is_id(k) and isinstance(v, str) and v), None)
            if key is None:
                continue
            states = {k: v for k, v in record.items() if _is_state(k) and isinstance(v, str)}
            found = self.records.setdefault(record[key], _Record())
            found.keys.add(key)
            shape = frozenset(record)
            found.shapes.add(shape)
            found.names.add(_said(record[key]))
            if key != "id":
                found.nouns.add(_said(key.removesuffix("_id")))
            found.marks.update(_said(v) for k, v in record.items()
                               if isinstance(v, str) and len(v) >= _MIN_NAME and k not in states and v.count(" ") < _MARK_WORDS)
            found.names.update(_said(v) for k, v in record.items() if _is_name(k) and isinstance(v, str) and len(v) >= _MIN_NAME)
            for state_key, value in states.items():
                found.state[state_key] = value
                self.first.setdefault((record[key], state_key), value)
                vocabulary = self.vocabulary.get((shape, state_key))
                if vocabulary is None:
                    vocabulary = self.vocabulary[(shape, state_key)] = set(self.known(shape, state_key) if self.known else ())
                vocabulary.add(value)
                self.shown.setdefault((shape, state_key), set()).add(value)
                shown.add(record[key])
        tool = self.tools.get(name)
        if tool is not None and tool.writes:
            named = [v for value in arguments.values() for v in (value if isinstance(value, list) else [value])]
            for value in named:
                if isinstance(value, str) and value in self.records and value not in shown:
                    self.records[value].state.clear()  # "item_ids": ["IT1"] returned only the order

    def stated(self, text: str) -> list[str]:
        """Each state `text` says a named record is in that it is not in now."""
        return [said.describe() for said in self.states_said(text) if said.wrong]

    def states_said(self, text: str) -> list[StateSaid]:
        """Each state `text` says a named record is in, as it stands."""
        lowered = text.lower()
        states = sorted({v for values in self.vocabulary.values() for v in values if _said(v) in lowered})  # each once
        owners = self._names_in(lowered) if states else {}
        if not owners:
            return []
        tokens = tokenize(text, _SUBORDINATORS)
        named = self._named(tokens, owners)
        past = _last_past(tokens.words)
        found = []
        for value in states:
            size = len(_words(_said(value)))
            for index in _occurrences(tokens.words, _words(_said(value))):
                if tokens.quoted[index] or tokens.word(tokens.sentence_end[index]) == "?" or _names_a_class(tokens, index + size) or _an_act(tokens, index):
                    continue
                said = self._said_of(tokens, past, index, value, named)
                if said is not None:
                    found.append(replace(said, start=tokens.starts[index], end=tokens.ends[index + size - 1]))
        return found

    def _names_in(self, lowered: str) -> dict[str, set[str]]:
        """The names a text holds, each with the records that show it.

        A record's noun ("line" for a record of "line_id") names it too where no other record has it."""
        owners: dict[str, set[str]] = {}
        for record_id, record in self.records.items():
            for name in (*record.names, *record.nouns):
                if name and name in lowered:
                    owners.setdefault(name, set()).add(record_id)
        return owners

    def _named(self, tokens: Tokens, owners: dict[str, set[str]]) -> list[tuple[int, str]]:
        """Where the text names a record: (token index, record id), in order.

        A name two records share ("Support demo", a weekly meeting) names the one whose other values
        (its start, its room) its sentence says and the other's do not; else neither."""
        found = []
        for name, ids in owners.items():
            for index in _occurrences(tokens.words, _words(name)):
                if len(ids) == 1:
                    found.append((index, next(iter(ids))))
                    continue
                sentence = tokens.text[tokens.starts[tokens.sentence[index]] : tokens.ends[tokens.sentence_end[index]]].lower()
                told = [r for r in ids if any(m in sentence for m in self.records[r].marks - self._marks_of(ids - {r}))]
                if len(told) == 1:
                    found.append((index, told[0]))
        return sorted(found)

    def _marks_of(self, ids: set[str]) -> set[str]:
        return {m for r in ids for m in self.records[r].marks}

    def _said_of(self, tokens: Tokens, past: list[int], index: int, value: str, named: list[tuple[int, str]]) -> StateSaid | None:
        """The record the state word at token `index` is said of, as it stands; None for none.

        The nearest record named that takes such a state, unless one of another kind named in the
        sentence is in it: "order #W1, with the Desk Lamp, is return requested" says it of the order,
        though the lamp, an item that could be "return requested" too, is named nearer. Of two
        records of one kind ("FB1 is cancelled and FB2 confirmed"), the nearer one is meant."""
        sentence, end = tokens.sentence[index], tokens.sentence_end[index]
        split = bisect.bisect_right(named, (index, "\uffff"))  # named[:split] stand at or before the word
        later = [(i, r) for i, r in named[split : split + _NEAREST] if i <= end]
        after = [(i, r) for i, r in later if i <= min(index + _AFTER_REACH, tokens.clause_end[index]) and _describes(tokens, index, i)]
        before = [(i, r) for i, r in reversed(named[max(0, split - _NEAREST) : split]) if sentence <= i < index]
        nearest = None
        for position, record_id in after + before + later:
            record = self.records[record_id]
            fields = [k for k in record.state if any(value in self.vocabulary.get((s, k), ()) for s in record.shapes)]
            if not fields:
                continue  # not a state this kind of record takes: the word is about something else
            clause = tokens.clause[min(position, index)]
            if self._not_as_it_stands(tokens, past, clause, index):
                return None
            # denied by a negation in the word's own clause: "I haven't cancelled FB1; it's still confirmed" affirms
            denied = tokens.any_between(tokens.last_negator, tokens.clause[index], index)
            said = StateSaid(record_id, value, {k: record.state[k] for k in fields}, denied=denied)
            if said.wrong and not denied and not _id_in_sentence(tokens, index, record_id) and self._another_is(record_id, value):
                continue  # a state no result showed for this record's shape, that another of its kind is in: said of that one
            if not said.wrong and (nearest is None or record.shapes.isdisjoint(self.records[nearest.record_id].shapes)):
                return said  # a record of another kind is in it: of two peers, the nearer one is meant
            nearest = nearest or said
        return nearest

    def _another_is(self, record_id: str, value: str) -> bool:
        """Whether `value` is a state only the world knows for this record's shapes (no result of the
        chat showed it for them), and another record of its kind is in it: "... is cancelled and $150.00
        is now scheduled to the account ending in 4190" says "scheduled" of the new transfer, though the
        old one is the one the account names."""
        record = self.records[record_id]
        if any(value in self.shown.get((shape, key), ()) for shape in record.shapes for key in record.state):
            return False
        return any(other_id != record_id and other.keys & record.keys and value in other.state.values()
                   for other_id, other in self.records.items())

    @staticmethod
    def _not_as_it_stands(tokens: Tokens, past: list[int], clause: int, index: int) -> bool:
        """The past or "from" in the clause up to the word; a modal, condition or intention in its sentence."""
        sentence = tokens.sentence[index]
        if tokens.word(index - 1) == "from" or tokens.any_between(past, clause, index):
            return True
        return any(tokens.any_between(last, sentence, index) for last in (tokens.last_modal, tokens.last_condition, tokens.last_frame))


def _id_in_sentence(tokens: Tokens, index: int, record_id: str) -> bool:
    """Whether the sentence of the word at `index` names the record by its id ("transfer S60039")."""
    sentence = tokens.words[tokens.sentence[index] : tokens.sentence_end[index] + 1]
    return bool(_occurrences(sentence, _words(_said(record_id))))


def _describes(tokens: Tokens, index: int, name: int) -> bool:
    """Whether the state word at `index` describes the record named at `name` after it ("the cancelled
    flight SW1370"), not the subject before it ("item I1 is active and item I2 ..." says it of I1)."""
    if tokens.word(index - 1) in _COPULAS or tokens.word(index - 1) in _BE:
        return False
    return not any(tokens.words[i] in _JOINS for i in range(index + 1, name))


def _an_act(tokens: Tokens, index: int) -> bool:
    """The word is someone's act, not a state: "you ordered the lamp", "I've cancelled FB1" (acts are `claims`' to judge)."""
    before = tokens.word(index - 1)
    if before in _BETWEEN_PERSON_AND_ACT:
        before = tokens.word(index - 2)
    return before in _PERSONS


def _last_past(words: list[str]) -> list[int]:
    """For each token, the position of the last word of the past at or before it (-1: none)."""
    last, found = -1, []
    for index, word in enumerate(words):
        last = index if word in _PAST else last
        found.append(last)
    return found


def _names_a_class(tokens: Tokens, following_index: int) -> bool:
    """The word before `following_index` describes a class of records, not one: "off your open tasks", "your pending orders"."""
    following = tokens.word(following_index)
    return singular(following) != following and singular(following) in RECORD_NOUNS


def _occurrences(words: list[str], phrase: tuple[str, ...]) -> list[int]:
    """Where `phrase` starts in `words`, as whole tokens."""
    if not phrase:
        return []
    size = len(phrase)
    return [i for i, word in enumerate(words) if word == phrase[0] and tuple(words[i : i + size]) == phrase]


@lru_cache(maxsize=64)
def _domain_tools(domain: str) -> dict[str, Tool]:
    try:
        return load_domain(domain).tools
    except Exception:  # noqa: BLE001 - an unknown domain: no tool is known to write
        return {}


def _replies(chat: _Chat, messages: list[dict[str, Any]]) -> Iterator[tuple[int, str]]:
    """The assistant's words, in order, each with its position, `chat` having read every result before it."""
    for position, arrived, content in as_read(messages):
        for call in arrived:
            chat.read(call.name, call.arguments, call.result or "")
        if content:
            yield position, content


def current_states(task: Task, trajectory: Trajectory) -> Score:
    """Every state a reply says a named record is in is the state its last result showed."""
    chat = _Chat(_domain_tools(task.domain), world_states(task.domain, getattr(task, "world_seed", None), getattr(task, "world_size", None)))
    wrong: list[str] = []
    judged = 0
    for position, content in _replies(chat, trajectory.messages):
        if chat.vocabulary:
            judged += 1
            wrong += [f"message {position}: {why}" for why in chat.stated(content)]
    if not judged:
        return vacuous()
    if not wrong:
        return binary(True)
    return binary(False, misstated=wrong[:5])


def stale_reply(domain: str, messages: list[dict[str, Any]], index: int) -> str | None:
    """Reply `index` with a state it says of a record put back to the one the chat's writes took the
    record out of ("booking FB100124 is confirmed" after the cancel); None where it says none."""
    chat = _Chat(_domain_tools(domain), world_states(domain))
    for position, content in _replies(chat, messages[: index + 1]):
        if position != index:
            continue
        for said in chat.states_said(content):
            before = content[: said.start].split()
            if said.denied or not before or before[-1].lower() not in _COPULAS:
                continue  # said as a state ("is cancelled"), so the state it left reads as a reply would say it
            left = [chat.first[(said.record_id, k)] for k, v in said.now.items() if v == said.value and chat.first.get((said.record_id, k), v) != v]
            if left:
                return content[: said.start] + _said(left[0]) + content[said.end :]
    return None
