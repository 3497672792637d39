"""A reply does one thing: the act its turn needs, and nothing that contradicts it or is copied.

`no_echo` (every kind) fails an assistant turn that says the user's message back (a run covering
`USER_ECHO_SHARE` of a user message of four words or more, making up half the turn or more) or the system prompt (a run of
`SYSTEM_ECHO_WORDS` words: gold replies quote the policy's scope line, at most 16 words of it).

`reply_acts` fails a no-tool reply that
- performs a contradicting act: declines and asks for details at once (irrelevant, unavailable,
  policy_refusal ask for nothing; missing_info and invalid_value do not decline);
- asks for facts the task does not miss (only the missing labels, or the invalid value's label);
- runs past a length bound relative to the gold reply (`LENGTH_FACTOR` times its words plus
  `LENGTH_SLACK`): stuffing every kind's keywords into one reply does not pay.

It is a conduct check: failing it is a violation, whatever `reply_content` finds said.
"""

from __future__ import annotations

import math
import re

from toolgym.envs.caches import Bounded
from toolgym.envs.conversation import asks_confirmation, is_request, mentions
from toolgym.envs.task import Task
from toolgym.envs.trajectory import Trajectory

from .score import Score, binary, vacuous

USER_ECHO_SHARE = 0.9  # gold replies quote at most 71% of a user message (a message text to send)
SYSTEM_ECHO_WORDS = 24
LENGTH_FACTOR = 3.0
LENGTH_SLACK = 40
_WORD = re.compile(r"[a-z0-9]+(?:['.@-][a-z0-9]+)*")
_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")
# A sentence that asks the reader for information (not an offer of more help).
_ASKS_FOR = re.compile(
    r"\b(details|information|info|number|address|email|name|date|birth|code|id|phone|zip|password|pin|"
    r"reference|account|card|amount|value|which|what|when|where)\b",
    re.I,
)
_OFFER = re.compile(r"\b(anything else|something else|else i can|let me know if|if you need|would you like me to|happy to help)\b", re.I)
# Saying no, as opposed to regret: "Sorry this has been a hassle" declines nothing.
_REFUSES = re.compile(
    r"\b(can(no|')t|cannot|unable|not able|isn't possible|is not possible|not allowed|won't be able|"
    r"not available|isn't available|outside (?:this|my|our)|not (?:something|anything) (?:i|we) can|"
    r"(?:i|we) (?:don't|do not) (?:handle|do|offer|support|cover))\b",
    re.I,
)
_DECLINE_KINDS = ("no_tool/irrelevant", "no_tool/unavailable", "no_tool/policy_refusal")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _shingles(tokens: list[str], size: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)}


def echoes(reply: list[str], source: list[str], size: int) -> bool:
    """Whether `reply` copies a run of `size` words of `source` (hashing: linear in both)."""
    if len(reply) < size or len(source) < size:
        return False
    return not _shingles(source, size).isdisjoint(_shingles(reply, size))


_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”')


def fact_requests(text: str) -> list[str]:
    """The sentences of a reply that ask the reader for information (offers of more help left out).

    Quoted text is someone else's words (a message to send), not the reply's own question.
    """
    text = _QUOTED.sub('""', text)
    return [s for s in _SENTENCE.split(text) if is_request(s) and _ASKS_FOR.search(s) and not _OFFER.search(s)]


_GOLD_WORDS: Bounded[str, int] = Bounded(lambda: 2048)


def _gold_words(task: Task) -> int:
    """Words the gold conversation's assistant says (the oracle's text moves), remembered by task id."""
    from toolgym.generators.oracle import OracleTeacher

    key = task.id or task.content_id()
    found = _GOLD_WORDS.get(key)
    if found is not None:
        return found
    oracle = OracleTeacher()
    total = 0
    for turn, move in enumerate(oracle.moves(task)):
        if move.kind != "call":
            total += len(words(oracle.message_at(task, turn).get("content") or ""))
    _GOLD_WORDS[key] = total
    return total


def reply_acts(task: Task, trajectory: Trajectory) -> Score:
    """The no-tool reply performs its kind's act alone, echoes nothing and stays within bounds."""
    spec = task.no_tool
    if spec is None:
        return vacuous()
    said = " ".join(m.get("content") or "" for m in trajectory.agent_messages)
    reply = words(said)
    problems: list[str] = []
    asks = fact_requests(said)
    if task.kind in _DECLINE_KINDS:
        for message in trajectory.agent_messages:
            text = message.get("content") or ""
            mixed = fact_requests(text) if _REFUSES.search(text) else []
            if mixed:
                problems.append(f"declines and asks for information in one turn: {mixed[0][:80]!r}")
                break
    elif _REFUSES.search(said) and not any(is_request(s) for s in _SENTENCE.split(said)):
        problems.append("declines where it should ask for the value")
    label = task.replies[0].vars.get("label") if task.replies else None
    wanted = [*spec.missing, *(str(k).replace("_", " ") for k in spec.invalid), *([str(label)] if label else [])]
    if task.kind in ("no_tool/missing_info", "no_tool/invalid_value"):
        labels = [w for label in wanted for w in words(label) if len(w) >= 3]
        stray = [s for s in asks if not mentions(s, labels)]
        if stray:
            problems.append(f"asks for something that is not missing: {stray[0][:80]!r}")
    bound = _bound(task)
    if bound is not None and len(reply) > bound:
        problems.append(f"{len(reply)} words where the gold reply needs about {round((bound - LENGTH_SLACK) / LENGTH_FACTOR)}")
    return binary(not problems, **({"problems": problems} if problems else {}))


def no_echo(task: Task, trajectory: Trajectory) -> Score:
    """No assistant turn says the user's message or the system prompt back (every kind)."""
    problems: list[str] = []
    # A value the reply must state is no echo of the user who gave it ("It's 6508 Oak Street, ..." /
    # "From now on, orders go to 6508 Oak Street, ... by default."): such values are left out of both.
    outputs = [o.lower() for o in task.required_outputs if len(o) >= 4]
    sources = [_Source(m["role"], _without(m["content"], outputs) if m["role"] == "user" else m["content"])
               for m in trajectory.messages if m.get("role") in ("user", "system") and isinstance(m.get("content"), str)]
    for message in trajectory.agent_messages:
        text = message.get("content") or ""
        # A confirmation reads the request back on purpose ("I would now post '...' in #data: OK?").
        problems += _echoes(sources, words(_without(text, outputs)), users=not asks_confirmation(text))
    problems = list(dict.fromkeys(problems))
    return binary(not problems, **({"problems": problems} if problems else {}))


def _without(text: str, values: list[str]) -> str:
    """The text (lower case) with the given lower-case values taken out."""
    lowered = text.lower()
    for value in values:
        if value in lowered:
            lowered = lowered.replace(value, " ")
    return lowered


class _Source:
    """A user or system text and its words, read once for all the assistant's turns."""

    def __init__(self, role: str, text: str):
        self.role, self.text = role, text
        self._words: list[str] | None = None
        self._joined = ""

    @property
    def words(self) -> list[str]:
        if self._words is None:
            self._words = words(self.text)
            self._joined = f" {' '.join(self._words)} "
        return self._words

    def copied_into(self, reply: list[str], size: int) -> bool:
        """Whether `reply` copies a run of `size` of these words (as `echoes`; a run is looked up in the
        joined words, so a long system prompt is not cut into runs for every reply)."""
        if len(reply) < size or len(self.words) < size:
            return False
        return any(f" {' '.join(reply[i : i + size])} " in self._joined for i in range(len(reply) - size + 1))


def _echoes(sources: list[_Source], reply: list[str], users: bool = True) -> list[str]:
    found: list[str] = []
    if not reply:
        return found
    for source in sources:
        if source.role == "user" and not users:
            continue
        if source.role == "system":
            copied = source.copied_into(reply, SYSTEM_ECHO_WORDS)
        else:
            run = math.ceil(USER_ECHO_SHARE * len(source.words))
            # A confirmation may read a short request back inside its own words; a turn that is
            # mostly the user's message is an echo.
            copied = len(source.words) >= 4 and 2 * run >= len(reply) and echoes(reply, source.words, run)
        if copied:
            found.append(f"repeats the {'system prompt' if source.role == 'system' else 'user'}'s words back")
    return list(dict.fromkeys(found))


def _bound(task: Task) -> int | None:
    try:
        gold = _gold_words(task)
    except Exception:  # noqa: BLE001 - a task of an unknown domain has no gold to measure against
        return None
    return int(LENGTH_FACTOR * gold + LENGTH_SLACK)
