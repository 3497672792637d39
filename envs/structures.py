"""Task structures that teach judgement, for every domain's generators to use.

- **Choices** (`ask_which`): the user's words fit several records (two orders with the item, two
  cards). The gold reads them, asks a question that names every candidate, and acts on the one
  the user picks; the pick is a withheld fact the scripted user gives when asked "which <label>".
  The `chosen` check fails a policy that acts before the user picked: a guess. A request for one
  of several that names none ("change my plan", "pay it with one of my cards") is asked as an open
  choice (`question="ask_pick"`: "Which plan would you like?", not "which do you mean").
- **Revisions** (`revised`, `corrected`): the user takes a request back when asked to confirm and
  asks for another, or corrects a fact they gave; the gold follows the latest request and never
  makes the calls of the one taken back (they are minefields).
- **Missing arguments** (`left_out`): the user asks for a write or a read without a value the tool
  needs and no tool could find (the amount, the new date, the seat); the gold asks for it and the
  value arrives as the user's answer.
- **Lookups** (`looked_up`): the user knows a name, a date or "my last order" but not the id; the
  gold finds it with a list or a search. Asking the user for it scores below 1.0 (`looked_up`).
- **Together** (`together`): two one-step reads asked in one message, made as one parallel step.
- **In sequence** (`in_sequence`): two sub-goals asked in one message, done one after the other.

Each returns a changed piece (or pieces) for `assemble`; the domain builds the reads and the act.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, TypeVar

from toolgym.errors import GeneratorBug

from .compose import Segment
from .conversation import said_before
from .phrasebook import ACK_PARTS, CLOSING_PARTS
from .pieces import Piece, worded_apart
from .task import Choice, Fact, Step, ToolCall, Utterance
from .user_turns import NOT_AFTER_TITLE, THANKS, sentence_key, sentences

JOINED_REPLY = "reply_both"  # the reply to one request that asks two things ("... Then one more: ...")

S = TypeVar("S", bound=Segment)
P = TypeVar("P", bound=Piece)
_SLUG = re.compile(r"[^a-z0-9]+")


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(count: int) -> str:
    """A small count in words: a digit in a reply would read as a fact to ground."""
    return _NUMBER_WORDS[count] if 0 <= count < len(_NUMBER_WORDS) else str(count)


def choice_key(label: str) -> str:
    return "which_" + _SLUG.sub("_", label.lower()).strip("_")


def ask_which(
    piece: S,
    *,
    label: str,
    what: str,
    options: Sequence[str],
    described: Sequence[str] | None = None,
    answer: str,
    step: int = -1,
    question: str = "ask_which",
) -> S:
    """The piece's step `step` (default: the last) waits for the user to pick one of `options`.

    `label` is what is picked ("order": the question asks "which order"); `what` says what the
    candidates are, in the plural ("orders with a Bluetooth speaker"); `options` name each
    candidate briefly (an id, a card's last four) and `described` in full for the question (default:
    the options); `answer` is how the user names the one they mean when asked ("the one placed on
    2024-03-02"). Every option must have been shown by a read before the step, and the answer must
    tell the candidates apart: the gold conversation is proven, so a choice the user cannot make
    fails at generation. `question`: the intent that asks, with ask_which's values, for a choice
    the user did not ask for ("You've used all your data: I can add 1 GB for $10.00, ..."); its
    reasoning is `reason_<question>` where the phrasebook has one.
    """
    if len(options) < 2:
        raise GeneratorBug(f"a choice needs two candidates or more, got {list(options)}")
    steps = list(piece.steps)
    target = steps[step]
    fact = Fact(key=choice_key(label), value=answer, label=label, keywords=[f"which {label}"])
    asked = Utterance(
        intent=question,
        vars={"label": label, "what": what, "options": list(described or options), "count": number_word(len(options))},
    )
    choice = Choice(fact=fact.key, label=label, options=list(options), question=asked)
    steps[step] = target.model_copy(update={"needs": [*target.needs, fact.key], "choice": choice})
    changes: dict[str, Any] = {
        "steps": steps,
        "facts": [*piece.facts, fact],
        "withheld": [*piece.withheld, fact.key],
        "goal": f"{piece.goal} You have more than one {label} that fits; when asked which, say: {answer}.",
    }
    return replace(piece, **changes)


def left_out(piece: S, *, key: str, label: str, value: str, request: str, step: int = -1, keywords: Sequence[str] = ()) -> S:
    """The piece asked for with `request`, which leaves out a value only the user can tell (`label`:
    "transfer amount"; `value` as the user says it): an argument of the call at step `step` (default:
    the last). The step needs the fact, withheld until the gold asks for it by its label or one of
    its `keywords` ("seat" for "preferred seat", so "Which seat would you like?" asks for it)."""
    if said_before(value, request):  # as a whole token: a new day "July 1" is not in "July 19th won't work"
        raise GeneratorBug(f"a left-out {label!r} must not be in the request, got {request!r}")
    fact = Fact(key=key, value=value, label=label, keywords=[label, *keywords])
    steps = list(piece.steps)
    steps[step] = steps[step].model_copy(update={"needs": [*steps[step].needs, fact.key]})
    changes: dict[str, Any] = {
        "request": request,
        "steps": steps,
        "facts": [*piece.facts, fact],
        "withheld": [*piece.withheld, fact.key],
        "goal": f"{piece.goal} Give the {label} only when asked.",
    }
    return replace(piece, **changes)


def looked_up(piece: S, *, label: str, value: str, keywords: Sequence[str] = ()) -> S:
    """The piece's record is named by description only: the user cannot tell its `label` ("order
    number"), which the piece's reads find (`value`). Asking the user for it scores below 1.0."""
    fact = Fact(key=f"lookup_{_SLUG.sub('_', label.lower()).strip('_')}", value=value, label=label,
                keywords=list(keywords) or [label])  # fmt: skip
    changes: dict[str, Any] = {
        "lookups": [*piece.lookups, fact],
        "goal": f"{piece.goal} You do not know the {label}.",
    }
    return replace(piece, **changes)


LEFT_AS_IS = Utterance(intent="reply_left_as_is")  # the engine's reply to a change turned down: nothing done


def changed_mind(ctx: Any, first: S | None, second: S | None) -> list[S] | None:
    """`revised`, for any domain's two write pieces on the same person: None when either is missing,
    when `first` has no step to confirm, or when `second` would make a call `first` makes (the user
    would not be asking for anything else). A `first` its domain built turned down (its confirmed
    step `declined`) keeps its own reply and outputs, which say what stays as it is ("Bill B100324
    stays open"); any other gets the engine's ("I've left it as it is")."""
    if first is None or second is None or not any(s.confirm for s in first.steps):
        return None
    taken_back = first.steps[_last_confirmed(first)]
    if any(c in taken_back.calls for s in second.steps for c in s.calls):
        return None
    if taken_back.declined:
        return revised(ctx, first, second, reply=first.reply, outputs=first.outputs)
    return revised(ctx, first, second, reply=LEFT_AS_IS, outputs=[])


HELD_PREFIX = "held_"  # a domain's reply to a change turned down: `held_cancel` for the reply `done_cancel` (or `reply_cancel`)


def turned_down(piece: S, reply: Utterance | None = None, outputs: Sequence[str] = ()) -> S:
    """`piece` with the change it asks to confirm turned down: its last confirmed step `declined` (the
    gold asks, hears no, makes no call) and `reply` saying what stays as it is, stating `outputs`.
    By default the reply is the domain's `held_<x>` for the piece's `done_<x>` or `reply_<x>` (its
    first word replaced), with its values (a domain's held phrasings use those seen before the
    question). Given to `changed_mind` as its
    first piece, it keeps that reply. A piece its domain built turned down already is kept as it is."""
    steps = list(piece.steps)
    at = _last_confirmed(piece)
    if steps[at].declined:
        return piece
    steps[at] = steps[at].model_copy(update={"declined": True})
    if reply is None:
        intent = HELD_PREFIX + piece.reply.intent.split("_", 1)[-1]
        reply = Utterance(intent=intent, vars=piece.reply.vars)
    return replace(piece, steps=steps, reply=reply, outputs=list(outputs))


def ids_found(piece: P, labels: Mapping[str, tuple[str, Sequence[str]]]) -> P:
    """`looked_up` for every id the piece's later steps pass that the user never gave: an argument
    named in `labels` (argument -> label and the words that ask for it) whose value is in neither the
    request nor the piece's facts, so an earlier step of the piece (a search, a list) found it."""
    said = " ".join([piece.request, *(str(f.value) for f in piece.facts)])
    for step in piece.steps[1:]:
        for call in step.calls:
            for argument, (label, keywords) in labels.items():
                value = call.arguments.get(argument)
                known = {f.label for f in piece.lookups}
                if isinstance(value, str) and value and value not in said and label not in known:
                    piece = looked_up(piece, label=label, value=value, keywords=keywords)
    return piece


def revised(
    ctx: Any, first: S, second: S, *, reply: Utterance, outputs: Sequence[str], kind: Literal["revise", "correct"] = "revise"
) -> list[S]:
    """The user asks for `first`, says no when asked to confirm its change, then asks for `second` instead.

    `first`'s last confirmed step is declined (the gold asks, hears no, makes no call) and its reply
    becomes `reply` (what stays as it was, stating `outputs`); `second`'s request opens with a
    revision's lead-in (`revise_lead`, or `correct_lead` when the user corrects a value they gave:
    `kind="correct"`) and records the calls taken back."""
    index = _last_confirmed(first)
    steps = list(first.steps)
    taken_back = steps[index]
    steps[index] = taken_back.model_copy(update={"declined": True})
    held: dict[str, Any] = {
        "steps": steps,
        "reply": reply,
        "outputs": list(outputs),
        "goal": f"{first.goal} When asked to confirm, change your mind and say no.",
    }
    # "What I'd really prefer is this:" fits another way of doing the same thing; a request for
    # something else entirely gets a lead-in that changes the subject
    other = kind == "revise" and not {c.name for c in taken_back.calls} & {c.name for st in second.steps for c in st.calls}
    revision: dict[str, Any] = {
        "request": f"{ctx.say('revise_lead_other' if other else f'{kind}_lead')} {second.request}".strip(),
        "revises": kind,
        "abandoned": list(taken_back.calls),
        "goal": f"Then, instead: {second.goal}",
    }
    return [replace(first, **held), replace(second, **revision)]


def corrected(ctx: Any, first: S, second: S, *, abandoned: Sequence[ToolCall]) -> list[S]:
    """The user asks with a wrong fact (`first`, usually a read), then corrects it (`second`, asked
    with the right one). `abandoned` are the calls the wrong fact would have led to: minefields."""
    revision: dict[str, Any] = {
        "request": f"{ctx.say('correct_lead')} {second.request}".strip(),
        "revises": "correct",
        "abandoned": list(abandoned),
        "goal": f"Then correct yourself: {second.goal}",
    }
    return [first, replace(second, **revision)]


def _last_confirmed(piece: Segment) -> int:
    for index in range(len(piece.steps) - 1, -1, -1):
        if piece.steps[index].confirm:
            return index
    raise GeneratorBug(f"a revised request needs a step the user confirms; {piece.goal!r} has none")


def together(ctx: Any, first: P, second: P) -> P | None:
    """Two one-step read pieces asked in one message and answered by one parallel step (None when
    they cannot be joined: more than one step each, different people, or an entity in common).

    The reply states both answers: `first`'s reply, then `second`'s without a short opening
    acknowledgement ("Sure.") that would repeat one (see `_without_ack`)."""
    if len(first.steps) != 1 or len(second.steps) != 1 or any(s.confirm or s.caller != "agent" for s in (*first.steps, *second.steps)):
        return None
    if first.subject and second.subject and first.subject != second.subject:
        return None
    if first.keys & second.keys:
        return None
    if {c.name for c in first.steps[0].calls} & {c.name for c in second.steps[0].calls}:
        return None  # the same tool twice reads as one request repeated
    if says_withheld(first, second) or says_withheld(second, first) or not unsaid(first.request, second.request):
        return None
    step = Step(calls=[*first.steps[0].calls, *second.steps[0].calls], needs=[*first.steps[0].needs, *second.steps[0].needs])
    return _joined(ctx, first, second, [step], ctx.say("and_also"))


def in_sequence(ctx: Any, first: P, second: P) -> P | None:
    """Two sub-goals asked in one message and done one after the other (a long chain): `first`'s
    steps, then `second`'s, and one reply stating both. None when they cannot be joined: different
    people, an entity in common, or a write tool in common (a confirmation would not say which)."""
    if first.subject and second.subject and first.subject != second.subject:
        return None
    if first.keys & second.keys or _writes_of(ctx, first) & _writes_of(ctx, second):
        return None
    if says_withheld(first, second) or says_withheld(second, first) or not unsaid(first.request, second.request):
        return None
    joined = _joined(ctx, first, second, [*_parts(first.steps, 0), *_parts(second.steps, _part_count(first.steps))], ctx.say("and_then"))
    return replace(joined, setup=[*first.setup, *second.setup], forbidden=[*first.forbidden, *second.forbidden])


def says_withheld(piece: Segment, other: Segment) -> bool:
    """Whether `other`'s request says what `piece` has the user give only when asked: a candidate of a
    choice (the user would have answered "which one" before being asked) or a withheld value (the
    user, having said it, would not give it again when asked). Such pieces do not go in one chat."""
    request = other.request.lower()
    options = [o.lower() for s in piece.steps if s.choice is not None for o in s.choice.options]
    values = [str(f.value).lower() for f in piece.facts if f.key in piece.withheld]
    return any(said in request for said in [*options, *values])


def unsaid(first: str, second: str) -> str:
    """`second` without the sentences `first` already says: asked in one message, an aside is said once
    ('... It's for a report. Then, a second thing: ... It's for a report.') and a question too ('... in
    #finance recently. Who was it? Then one more: ... in #launch recently. Who was it?')."""
    said = {sentence_key(sentence) for sentence in sentences(first)}
    return " ".join(s for s in sentences(second) if sentence_key(s) not in said)


def asked_apart(pieces: Sequence[Segment], candidate: Segment) -> bool:
    """Whether `candidate` can join `pieces` in one chat with its questions apart from theirs: no value
    it asks for is asked in words of one they ask for (the user answers every withheld fact a question
    names, so two alike would be given at once), and no request says what another keeps back."""
    asked = [k.lower() for p in pieces for f in p.facts if f.key in p.withheld for k in f.keywords or [f.label]]
    new = [k.lower() for f in candidate.facts if f.key in candidate.withheld for k in f.keywords or [f.label]]
    if any(a in b or b in a for a in asked for b in new) or not worded_apart(pieces, candidate):
        return False
    return not any(says_withheld(p, candidate) or says_withheld(candidate, p) for p in pieces)


def _writes_of(ctx: Any, piece: Segment) -> set[str]:
    return {c.name for s in piece.steps for c in s.calls if ctx.domain.tool(c.name).writes}


def _part_count(steps: Sequence[Step]) -> int:
    """How many things, joined one after another, a request with these steps asks."""
    return 1 + max((s.part for s in steps if s.part is not None), default=0)


def _parts(steps: Sequence[Step], first: int) -> list[Step]:
    """The steps numbered as parts of a longer request whose part `first` their own request opens."""
    return [s.model_copy(update={"part": first + (s.part or 0)}) for s in steps]


def _joined(ctx: Any, first: P, second: P, steps: list[Step], link: str) -> P:
    """One piece of two: one request (joined by `link`), the given steps, and one reply stating both."""
    said = ctx.say_without(second.reply.intent, ACK_PARTS, **second.reply.vars)
    answer = _without_ack(said, second.outputs, [str(v) for v in second.reply.vars.values()])
    changes: dict[str, Any] = {
        "request": f"{first.request} {link} {_thanked_once(ctx, first.request, unsaid(first.request, second.request))}",
        "goal": f"{first.goal} Also: {second.goal}",
        "steps": steps,
        "reply": Utterance(intent=JOINED_REPLY, vars={"first": ctx.say_without(first.reply.intent, CLOSING_PARTS, **first.reply.vars), "second": answer,
                                                      "acted": bool(_writes_of(ctx, second))}),
        "outputs": list(dict.fromkeys([*first.outputs, *second.outputs])),
        "facts": [*first.facts, *(f for f in second.facts if f.key not in {g.key for g in first.facts})],
        "withheld": [*first.withheld, *second.withheld],
        "unknown": [*first.unknown, *second.unknown],
        "lookups": [*first.lookups, *second.lookups],
        "keys": first.keys | second.keys,
    }
    if first.subject is None and second.subject is not None:
        changes["subject"] = second.subject
    return replace(first, **changes)


def _thanked_once(ctx: Any, first: str, second: str) -> str:
    """`second` without its thanking asides ("I appreciate your prompt help.") when `first` already
    thanks: one message thanks once ("... I appreciate your prompt help. Next: ... I would be
    grateful if this could be done today.")."""
    if not any(THANKS.search(sentence) for sentence in sentences(first)):
        return second
    asides = ctx.domain.phrasebook.asides
    return " ".join(s for s in sentences(second) if not (THANKS.search(s) and sentence_key(s) in asides))


_SENTENCE_END = re.compile(rf"(?<=[.!]){NOT_AFTER_TITLE}\s+")
_ACK_WORDS = 7


def _without_ack(text: str, outputs: Sequence[str], values: Sequence[str] = ()) -> str:
    """The text without its first sentence when that is a short acknowledgement ("Sure.", "Thanks, got
    it.") stating none of the outputs: the second answer of a joined reply does not acknowledge again.
    A sentence of the reply's own `values` is never one, however short: "The Fiozea Scanner weighs
    13.1 kg." opens an answer whose output is the weight in pounds."""
    parts = _SENTENCE_END.split(text.strip(), maxsplit=1)
    if len(parts) < 2 or len(parts[0].split()) > _ACK_WORDS or any(parts[0] in value for value in values):
        return text
    return parts[1] if all(o in parts[1] for o in outputs if o in text) else text
