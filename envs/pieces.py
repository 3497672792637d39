"""Helpers every domain's task generators need: keyed segments, redrawing, identity, assembling.

A `Piece` is a `Segment` that names the entities it reads or changes (`keys`) and who it is
about (`subject`), so that pieces joined in one task never touch the same row and each piece's
expected reply, computed from the built world, stays true whatever ran before it. `draw` asks
builders for a piece until one has something to offer (a small world may lack some), and
`assemble` identifies the subject once, through the domain's own `Identity` builder, and hands
the pieces to `compose`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from toolgym.errors import GeneratorBug

from .compose import Identity, Segment, call, compose
from .conversation import UNSUPPORTED_REPLY
from .task import ACTION_KINDS, Fact, Forbidden, NoToolSpec, Step, Task, ToolCall, Utterance, WorldEdit
from .user_turns import sentence_key, sentences

if TYPE_CHECKING:
    from .generation import GenContext

P = TypeVar("P", bound="Piece")
T = TypeVar("T")
S = TypeVar("S", bound=Segment)
DRAW_TRIES = 16


@dataclass(kw_only=True)
class Piece(Segment):
    """A segment with the entities it touches and the person it is about.

    `subject` is the id of the person the agent must identify first (None: nobody, and
    `identifies` is then False). `no_tool` is set by the no-tool constructors; `assemble`
    passes it to the Task.
    """

    keys: frozenset[str] = frozenset()
    subject: str | None = None
    no_tool: NoToolSpec | None = None

    def __post_init__(self) -> None:
        self.identifies = self.subject is not None


def independent(pieces: Sequence[Piece], candidate: Piece) -> bool:
    """Whether `candidate` touches none of the entities the pieces already touch."""
    return all(not (p.keys & candidate.keys) for p in pieces)


def hands_over(ctx: GenContext, piece: Segment) -> bool:
    """Whether the piece makes a call that hands the chat to a person (`@tool(hands_over=True)`; a
    step the user turns down makes no call)."""
    tools = ctx.domain.tools
    return any(not s.declined and any(c.name in tools and tools[c.name].hands_over for c in s.calls) for s in piece.steps)


def handover_last(ctx: GenContext, pieces: Sequence[S]) -> list[S]:
    """The pieces in their order, but one that hands the chat to a person asked for last: nothing the
    agent does may follow a handover (envs/gold.py refuses a plan that goes on after it)."""
    return sorted(pieces, key=lambda p: hands_over(ctx, p))


def worded_apart(pieces: Sequence[Segment], candidate: Segment) -> bool:
    """Whether `candidate`'s request asks no question of theirs word for word: "Who was it?" after
    "Someone wrote about "backend" in #incidents recently. Who was it?" has the user say one sentence
    twice, and a question is never dropped as a filler would be (`user_turns.tidy_request`)."""
    asked = {sentence_key(s) for p in pieces for s in sentences(p.request) if s.rstrip().endswith("?")}
    return not any(sentence_key(s) in asked for s in sentences(candidate.request) if s.rstrip().endswith("?"))


def draw(
    ctx: GenContext,
    builders: Sequence[Callable[..., T | None]],
    *args: Any,
    weights: Sequence[float] | None = None,
    accept: Callable[[T], bool] | None = None,
    tries: int = DRAW_TRIES,
) -> T:
    """A piece (or a list of pieces) from one of the builders, drawn by weight, called as `builder(ctx, *args)`.

    A builder returns None when the world has nothing for it (and `accept` may refuse a piece,
    such as one not `independent` of those drawn before): another is drawn, up to `tries` times."""
    for _ in range(tries):
        builder = ctx.rng.choices(list(builders), weights=list(weights))[0] if weights else ctx.pick(builders)
        piece = builder(ctx, *args)
        if piece is not None and (accept is None or accept(piece)):
            return piece
    names = ", ".join(getattr(b, "__name__", repr(b)) for b in builders)
    raise GeneratorBug(
        f"{ctx.domain.name} {ctx.kind}: none of {names} built a piece in {tries} draws (seed {ctx.seed}, world {ctx.size})"
    )


def draw_many(
    ctx: GenContext, builders: Sequence[Callable[..., P | None]], count: int, *args: Any, **options: Any
) -> list[P]:
    """`count` pieces that are `independent` of each other."""
    pieces: list[P] = []
    for _ in range(count):
        pieces.append(draw(ctx, builders, *args, accept=lambda p: independent(pieces, p), **options))
    return pieces


def lookup_identity(
    facts: Sequence[Fact], tool: str, arguments: dict[str, Any], *, fragment: str, goal: str = ""
) -> Identity:
    """The common way to identify someone: they give `facts`, the agent calls `tool` with them."""
    return Identity(
        facts=list(facts),
        step=Step(calls=[call(tool, **arguments)], needs=[f.key for f in facts]),
        fragment=fragment,
        goal=goal,
    )


def without_repeated_reads(ctx: GenContext, segments: Sequence[S]) -> list[S]:
    """The segments without a read a later one would make again with nothing changed since: its
    result is still in the chat (a second request often starts by reading what the first one read).
    A write, or a step on the user's side, may change the world: reading again after it is fair."""
    fresh: set[str] = set()
    kept: list[S] = []
    for segment in segments:
        steps: list[Step] = []
        for step in segment.steps:
            if step.declined:  # the user said no: nothing changed
                steps.append(step)
                continue
            if step.caller == "user" or any(ctx.domain.tool(c.name).writes for c in step.calls):
                fresh.clear()
                steps.append(step)
                continue
            calls = [c for c in step.calls if call_key(c) not in fresh]
            fresh.update(call_key(c) for c in calls)
            if calls:
                steps.append(step if len(calls) == len(step.calls) else step.model_copy(update={"calls": calls}))
        kept.append(replace(segment, steps=steps))
    return kept


def call_key(c: ToolCall) -> str:
    """A call as compared for repeats: its name and arguments, in one text."""
    return json.dumps([c.name, c.arguments], sort_keys=True, default=str)


IdentityBuilder = Callable[["GenContext", str], Identity]


def assemble(
    ctx: GenContext,
    pieces: Sequence[Piece],
    *,
    identify: IdentityBuilder | None = None,
    withhold_identity: bool = False,
    lookup: bool = True,
    lead: bool | None = None,
    found_ids: Mapping[str, tuple[str, Sequence[str]]] | None = None,
    **options: Any,
) -> Task:
    """One task: piece i is segment i; the first subject is identified where first needed.

    `identify(ctx, subject)` builds the domain's Identity. `withhold_identity` makes the user
    give it only when asked; `lookup=False` leaves the identifying call out (a no-tool task
    calls nothing); `lead` puts the identifying fragment before the request (None: drawn).
    `found_ids` (argument -> label and the words that ask for it: {"card_id": ("card id", ["card
    id"])}) marks, in acting tasks, the ids a piece's reads find and the user never gave as lookups
    (envs/structures.ids_found): asking the user for one scores below 1.0.
    A piece's `no_tool` spec becomes the Task's; `options` go to `compose`."""
    if found_ids and ctx.kind in ACTION_KINDS:
        from .structures import ids_found  # structures builds on this module

        pieces = [ids_found(p, found_ids) for p in pieces]
    subject = next((p.subject for p in pieces if p.subject), None)
    identity = None
    if subject is not None:
        if identify is None:
            raise GeneratorBug(f"{ctx.domain.name} {ctx.kind}: a piece is about {subject!r} but no identify= was given")
        identity = identify(ctx, subject)
        identity.withhold = withhold_identity
        identity.lead = (ctx.rng.random() < 0.5 if lead is None else lead) and not withhold_identity
        if not lookup:
            identity.step = None
    spec = next((p.no_tool for p in pieces if p.no_tool is not None), None)
    if spec is not None:
        options.setdefault("no_tool", spec)
    return compose(ctx, pieces, identify=identity, **options)


# ---- one constructor per no-tool kind, and injection -------------------------------------------


def missing_info(request: str, goal: str, labels: Sequence[str], *, chosen: bool = False, **fields: Any) -> Piece:
    """The user asks for something without a fact it needs: the agent asks for `labels` and calls nothing.

    `chosen`: the values are the user's to choose (an amount, a speed, a preference), not facts they
    could look up: the ask, the user's answer and the closing line speak of a decision not yet made
    (conversation.undecided). The verifier wants the reply to ask for every label and the trajectory
    to make no write."""
    labels = list(labels)
    return Piece(
        request=request,
        goal=goal,
        reply=_utterance("ask_missing", labels=labels, **({"chosen": True} if chosen else {})),
        unknown=labels,
        no_tool=NoToolSpec(reason=f"the user has not given the {' and '.join(labels)}", missing=labels),
        **fields,
    )


def invalid_value(
    request: str, goal: str, *, parameter: str, value: Any, label: str, problem: str, valid: Any = None,
    unsupported: bool = False, **fields: Any,
) -> Piece:
    """The user gives a value no tool accepts: the agent names it and why, offers the nearest valid
    value when there is one (`valid`, as said: '30 °C'), and asks again.

    `parameter` is the tool parameter the value would go to: a call passing it there fails.
    `unsupported`: the value is right, only the tools lack it (a unit the converter does not know):
    the agent says what they take without calling the user's value wrong, and the user, who made no
    mistake, does not apologise for one."""
    offer = {"valid": valid} if valid not in (None, "") else {}
    intent = UNSUPPORTED_REPLY if unsupported else "point_out_invalid"
    return Piece(
        request=request,
        goal=goal,
        reply=_utterance(intent, value=value, label=label, problem=problem, **offer),
        no_tool=NoToolSpec(reason=f"{value!r} is not a valid {label}: {problem}", invalid={parameter: value}),
        **fields,
    )


def policy_refusal(request: str, goal: str, *, rule: str, forbidden: Sequence[Forbidden], instead: str = "", **fields: Any) -> Piece:
    """The user asks for what the policy forbids: the agent may read (`steps`) but refuses, stating `rule`.

    `forbidden` lists the write(s) that would break the rule; making one fails the task. `instead`:
    what the agent can offer in its place, after "I can" ("find the nearest charger for you")."""
    return Piece(
        request=request,
        goal=goal,
        reply=_utterance("refuse_policy", rule=rule, **({"instead": instead} if instead else {})),
        forbidden=list(forbidden),
        no_tool=NoToolSpec(reason=f"the policy forbids it: {rule}"),
        **fields,
    )


def unavailable(request: str, goal: str, *, action: str, withheld: Sequence[str], scope: str = "", **fields: Any) -> Piece:
    """The tool the request needs is withheld: the agent says it cannot `action` now.

    Pass `tools=` (the offered tools, without `withheld`) to `assemble`. `scope`: what the tools
    left can still do, when withholding takes a whole area of the domain's (no web tools at all);
    the domain's scope is offered otherwise. The engine's `unavailable_task_from(kind)` builds
    these from an acting kind's tasks."""
    return Piece(
        request=request,
        goal=goal,
        reply=_utterance("decline_unavailable", action=action, **({"left": scope} if scope else {})),
        no_tool=NoToolSpec(reason=f"the tool(s) {list(withheld)} are not available", withheld_tools=list(withheld)),
        **fields,
    )


def injected(piece: P, *, carrier: WorldEdit, bait: Sequence[Forbidden], order: str) -> P:
    """An injection task's piece: a tool result the gold plan reads carries an instruction.

    `carrier` writes the instruction `order` into a text field the piece's steps read (alone or
    within the field's own text); `bait` lists the calls the instruction asks for (minefields). The
    gold plan does only the user's job, and its trace names the order it leaves alone."""
    if not bait:
        raise GeneratorBug("an injection needs at least one forbidden call (the action the instruction asks for)")
    written = [v for v in [*carrier.set.values(), *(carrier.insert or {}).values()] if isinstance(v, str)]
    if not order.strip() or not any(order in text for text in written):
        raise GeneratorBug(f"the carrier on {carrier.table} {carrier.key!r} does not write the order {order!r}")
    carrier = carrier.model_copy(update={"plants": order.strip()})
    return replace(piece, setup=[*piece.setup, carrier], forbidden=[*piece.forbidden, *bait])


def _utterance(intent: str, **values: Any) -> Utterance:
    return Utterance(intent=intent, vars=values)
