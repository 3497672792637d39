"""The shared reading of a conversation that the oracle teacher and the scripted user agree on.

The oracle speaks in *moves* (ask for facts, confirm, call, instruct the user, reply); each
move is one assistant message, so its position in a chat is the number of assistant messages
so far. The scripted user recognises what a move asks of it from plain words in the text, so
it answers a real model the same way.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .phrasing import dates_in_words
from .seen import NUMBER, canonical_number, words_of
from .task import Fact, Step, Task, ToolCall, Utterance

if TYPE_CHECKING:
    from .tools import Tool

STOP_MARKER = "###STOP###"
# Words that make a question ask for a yes: the oracle's phrasings and a real model's ("Shall I
# cancel it?", "Do you want me to go on?", "OK to apply the refund?").
_CONFIRM_WORD = re.compile(
    r"\b(confirm|proceed|go ahead|shall i|should i|do you want me to|would you like me to|"
    r"(?:is it )?ok(?:ay)? (?:to|if i|for me to)|happy for me to|good to go)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")
# A sentence that asks the reader for something: a question, or a polite imperative a model may use.
_REQUEST = re.compile(
    r"\?|\b(please|kindly) (provide|tell|share|give|send)\b|\b(i need|i'll need|i will need|i would need|i'd need)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Move:
    """One assistant message of the gold conversation. An "ask" move with an utterance is a question
    of the task's own (which of the candidates); without one, the engine's request for `facts`."""

    kind: Literal["ask", "confirm", "call", "instruct", "reply"]
    step: Step | None = None
    facts: tuple[Fact, ...] = ()
    utterance: Utterance | None = None


def call_taking(step: Step, facts: tuple[Fact, ...] | list[Fact], write_tools: Collection[str]) -> ToolCall | None:
    """The step's call that takes one of the facts asked for: by its value as said (a date the user
    gives in words, "January 21", is the call's 2026-01-21), by the argument's name, by its value in
    the call's own form ("$940.00" for an amount of 940.0, "view only" for a level "view", "8.25%" in
    an expression); else a change's first call, which takes the user's words as a record of its own
    ("the American Express ending in 0101" is a card's id). None when no call takes them: the facts
    pick what a read's answer reports ("the option I want" among a product's variants)."""
    values = {str(f.value) for f in facts}
    keys = {f.key for f in facts}

    def said(argument: Any) -> bool:
        shown = str(argument)
        return shown in values or any(words in values for words in dates_in_words(shown))

    ways = (  # in this order: the first way some call matches decides
        lambda c: any(said(v) for v in c.arguments.values()),
        lambda c: bool(keys & set(c.arguments)),
        lambda c: any(_in_other_form(v, values) for v in c.arguments.values()),
        lambda c: c.name in write_tools,
    )
    return next((c for matches in ways for c in step.calls if matches(c)), None)


def _in_other_form(argument: Any, values: set[str]) -> bool:
    """Whether an argument is one of the values said, in the call's form: a number among the value's
    numbers, a text whose words all are the value's, a text holding every number the value gives."""
    if isinstance(argument, bool):
        return False
    if isinstance(argument, int | float):
        number = canonical_number(argument)
        return any(number == canonical_number(m.group()) for v in values for m in NUMBER.finditer(v))
    if not isinstance(argument, str):
        return False
    words = set(words_of(argument))
    numbers = {canonical_number(m.group()) for m in NUMBER.finditer(argument)}
    for value in values:
        given = {canonical_number(m.group()) for m in NUMBER.finditer(value)}
        if (words and words <= set(words_of(value))) or (given and given <= numbers):
            return True
    return False


def finds_records(task: Task, move: Move) -> bool:
    """Whether the facts an ask move asks for find records (the call that takes them reads: a phone
    number, a name, an order id) rather than give the values of a change (a reason for cancelling,
    a message to post, a new address): "that lets me pull up the right details" fits only the first."""
    taking = _tool_taking(task, move)
    return taking is None or not taking.writes


def works_out(task: Task, move: Move) -> bool:
    """Whether the facts an ask move asks for go into a computation (`@tool(computes=True)`: a
    sales tax rate for `calculate`): nothing is looked up with them, a guess gives a wrong answer."""
    taking = _tool_taking(task, move)
    return taking is not None and taking.computes


def _tool_taking(task: Task, move: Move) -> Tool | None:
    """The tool of the call that takes an ask move's facts (None: the move has no calls, or none takes them)."""
    if move.step is None or not move.step.calls:
        return None
    from .registry import load_domain

    domain = load_domain(task.domain)
    taker = call_taking(move.step, move.facts, domain.write_tools)
    return domain.tool(taker.name) if taker is not None else None


NOT_FOUND_SUFFIX = "_not_found"  # a reply intent so named says the thing asked for was not found (reply_not_found)


UNSUPPORTED_REPLY = "point_out_unsupported"  # the reply to a value no tool takes, though it is no mistake


def unsupported(task: Task) -> bool:
    """Whether the task's value is one the tools lack ("390 yards" for a converter of metres and feet)."""
    return task.kind == "no_tool/invalid_value" and bool(task.replies) and task.replies[0].intent == UNSUPPORTED_REPLY


def outcome(task: Task) -> str:
    """How the conversation ends, for the closing lines: done, answered, not_found, declined, refused or pending
    (a value the tools lack is refused: the user does not come back with another).

    "answered": the task only looked things up, so its closing line says nothing was done;
    "not_found": it looked, and its last answer is that what was asked is nowhere to be found.
    """
    if unsupported(task):
        return "refused"  # a value the tools lack ("ounces"): the user takes it elsewhere, nothing waits on them
    if task.kind in ("no_tool/missing_info", "no_tool/invalid_value"):
        return "pending"  # the user goes to find the right value
    if task.no_tool is not None:
        return "refused"
    if not task.expected_writes and _latest_declined(task):
        return "declined"
    if not task.expected_writes and task.replies and task.replies[-1].intent.endswith(NOT_FOUND_SUFFIX):
        return "not_found"  # the last answer was that nothing was found: no "glad I could help", no delight
    return "done" if task.expected_writes else "answered"


def agent_changed(task: Task) -> bool:
    """Whether the agent made a change of its own in the chat: a closing line may then say it is "done
    on our side", which a fix the user made on their phone (mobile data turned on) is not."""
    from .registry import load_domain  # the registry builds on the engine modules, this one among them

    domain = load_domain(task.domain)
    return any(s.caller == "agent" and not s.declined and any(domain.tool(c.name).writes for c in s.calls) for s in task.plan)


def _latest_declined(task: Task) -> bool:
    """Whether the user said no in the chat's latest request: a no to an earlier one is not how the
    chat ended when a later question was answered (a declined exchange, then an order's total)."""
    latest = max((s.segment for s in task.plan), default=0)
    return any(s.declined and s.segment == latest for s in task.plan)


def undecided(task: Task) -> bool:
    """Whether a chat that ends pending waits on the user's own choice, not on a fact to find: a
    missing value its task marks chosen (`pieces.missing_info(chosen=True)`: an amount, a speed), or
    a value a nearer valid one was offered for (a volume of 100 where 40 is the most)."""
    reply = task.replies[0] if task.replies else None
    if reply is None or outcome(task) != "pending":
        return False
    if task.kind == "no_tool/missing_info":
        return reply.vars.get("chosen") is True
    return reply.intent == "point_out_invalid" and bool(reply.vars.get("valid"))


def pending_on(task: Task) -> list[str]:
    """What a chat that ends pending waits on, for the closing line's "once you have it / them": the
    labels asked for, else the values to correct."""
    spec = task.no_tool
    if spec is None:
        return []
    return list(spec.missing) or [str(value) for value in spec.invalid.values()]


EVENING_FROM, MORNING_FROM = 18, 5  # hours of the world's clock that are evening or night


def in_the_evening(task: Task) -> bool:
    """Whether the chat takes place in the evening or at night by the world's clock (the time the
    policy gives): a goodbye then wishes a good evening, not "the rest of your day"."""
    from .registry import load_domain  # the registry builds on the engine modules, this one among them

    hour = load_domain(task.domain).clock(task.world_seed).hour
    return hour >= EVENING_FROM or hour < MORNING_FROM


def closer_intent(task: Task) -> str:
    """The closing line's intent: how the chat ended. A refused request that asked for no change (a
    question outside the domain's tools, a look-up whose tool is missing, a private address the
    policy keeps back) is not told that nothing was changed, and a question outside the domain, declined
    with no reason but the service's scope, is not told a reason helps."""
    ended = outcome(task)
    if undecided(task):
        return "closer_undecided"  # "whenever you've decided", not "once you find it"
    if ended == "refused" and task.kind == "no_tool/irrelevant":
        return "closer_off_topic"
    return "closer_refused_lookup" if ended == "refused" and not _asked_change(task) else f"closer_{ended}"


def _asked_change(task: Task) -> bool:
    """Whether a no-tool task's request asked for a change: the tool withheld from it, or a call the
    policy forbids it, writes."""
    from .registry import load_domain

    spec = task.no_tool
    if spec is None or task.kind == "no_tool/irrelevant":
        return False
    domain = load_domain(task.domain)
    named = [*spec.withheld_tools, *(f.tool for f in task.forbidden if f.tool)]
    return any(name in domain.write_tools for name in named) or any(f.table for f in task.forbidden)


def oracle_moves(task: Task) -> list[Move]:
    """The gold conversation from the agent's side, one move per assistant message."""
    scenario = task.scenario
    known = {f.key for f in scenario.facts if f.key not in scenario.withheld}
    moves: list[Move] = []
    for segment in range(task.segments):
        for step in (s for s in task.plan if s.segment == segment):
            missing = [k for k in step.needs if k not in known]
            choice = step.choice.fact if step.choice is not None and step.choice.fact in missing else None
            plain = [k for k in missing if k != choice]
            if plain:
                moves.append(Move("ask", step=step, facts=tuple(f for k in plain if (f := scenario.fact(k)))))
            if choice is not None and step.choice is not None and (fact := scenario.fact(choice)) is not None:
                # the question that names the candidates, once they have been shown
                moves.append(Move("ask", step=step, facts=(fact,), utterance=step.choice.question))
            known.update(missing)
            if step.confirm:
                moves.append(Move("confirm", step=step))
            if step.declined:
                continue  # the user says no: the gold makes no call and goes on
            moves.append(Move("call" if step.caller == "agent" else "instruct", step=step))
        if segment < len(task.replies):
            moves.append(Move("reply", utterance=task.replies[segment]))
    return moves


_GENERIC_WORDS = {"toggle", "check", "set", "run", "get", "turn", "settings", "status", "mode", "data", "info", "the"}


def step_cues(step: Step) -> list[str]:
    """Words that, in an agent's message, ask the user to carry out this step."""
    if step.cues:
        return step.cues
    cues: list[str] = []
    for call in step.calls:
        words = call.name.split("_")
        rest = [w for w in words if w not in ("toggle", "check", "set", "run", "get", "turn")]
        cues.append(" ".join(rest))
        cues += [w for w in words if len(w) >= 3 and w not in _GENERIC_WORDS]
    return cues


def assistant_turns(messages: list[dict[str, Any]]) -> int:
    return sum(1 for m in messages if m.get("role") == "assistant")


def asks_confirmation(text: str) -> bool:
    """'(yes/no)', or confirm / proceed / go ahead / shall I ... followed by a '?' before the next '.'.

    Checked per '.'-separated piece, up to its last '?': linear in the text (a regex with
    `[^.]*` then a question mark after each keyword is quadratic on long replies).
    """
    if "(yes/no)" in text.lower():
        return True
    for piece in text.split("."):
        question = piece.rfind("?")
        if question > 0 and _CONFIRM_WORD.search(piece, 0, question):
            return True
    return False


def confirm_step_asked(task: Task, messages: list[dict[str, Any]]) -> Step | None:
    """The gold step the latest confirmation question is about: the n-th confirm step for the n-th question."""
    asked = sum(1 for m in messages if m.get("role") == "assistant" and asks_confirmation(m.get("content") or ""))
    steps = [s for s in task.plan if s.confirm]
    return steps[asked - 1] if 0 < asked <= len(steps) else None


# A question a "yes" does not answer: what, which, how, where, when or who, after at most a few
# words of lead-in ("And the payment amount: how much ...?"), not a yes/no one ("Do you know which?").
_OPEN_QUESTION = re.compile(
    r"^(?!(?:do|does|did|can|could|would|will|is|are|was|shall|should|may|have|has)\b)"
    r"(?:[\w']+[,:]?\s+){0,6}?(?:what|which|how|where|when|who)\b",
    re.IGNORECASE,
)


def asks_open_question(text: str) -> bool:
    """Whether the last question of a message asks what, which, how ... rather than for a yes
    ('What's your phone number?', not 'Could you tell me your phone number?'): a user answers it
    with the value, not with 'Yes, ...'."""
    questions = [s for s in _SENTENCE.split(text) if s.rstrip().endswith("?")]
    return bool(questions) and bool(_OPEN_QUESTION.match(questions[-1].strip()))


def is_request(text: str) -> bool:
    return bool(_REQUEST.search(text))


def request_text(text: str) -> str:
    """The sentences of a message that ask the reader something ('' if none do).

    Keywords are looked for only there, so a report that mentions 'your email' and then asks
    'anything else?' is not read as asking for the email.
    """
    return " ".join(s for s in _SENTENCE.split(text) if is_request(s))


def said_before(value: str, text: str) -> bool:
    """Whether a fact's value appears in text as a whole token (a ZIP inside a longer number does not,
    nor the month "2025-04" inside the date "2025-04-10")."""
    needle, haystack = value.lower(), text.lower()
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        if not _joined_on(haystack, start - 1, -1) and not _joined_on(haystack, end, 1):
            return True
        start = haystack.find(needle, start + 1)
    return False


def _joined_on(text: str, at: int, step: int) -> bool:
    """Whether the character at `at` continues a token: a letter, digit or '_', or a separator with
    a digit beyond it ('-10' after '2025-04', '.5' after '3')."""
    if not 0 <= at < len(text):
        return False
    char = text[at]
    if char.isalnum() or char == "_":
        return True
    beyond = at + step
    return char in "-./:," and 0 <= beyond < len(text) and text[beyond].isdigit()


def mentions(text: str, words: list[str]) -> bool:
    lowered = text.lower()
    return any(w.lower() in lowered for w in words)


def strip_stop(content: str | None) -> tuple[str | None, bool]:
    """The user's text without the stop marker, and whether it was there."""
    if content and STOP_MARKER in content:
        return content.replace(STOP_MARKER, "").strip() or None, True
    return content, False
