"""Composing a Task from segments: one segment per request the user makes in the conversation.

A generator draws segments (a request, its gold steps, the closing reply, what the user knows)
and `compose` joins them into one Task. What every domain needs done the same way lives here:
segment numbers on the steps, identifying the user once before the first segment that needs it,
facts merged so that each key names one value, world edits merged to one per row, and
minefields that the gold plan itself would step on dropped (a segment may forbid what a later
one asks for). How a domain identifies its users is an `Identity` it passes in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .phrasing import lower_first
from .task import Fact, Forbidden, Revision, Step, Task, ToolCall, Utterance, WorldEdit

if TYPE_CHECKING:
    from .generation import GenContext


def call(name: str, /, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


@dataclass(kw_only=True)
class Segment:
    """One request of the user and what answers it."""

    request: str
    goal: str
    reply: Utterance
    steps: list[Step] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)  # required outputs: what the reply must state
    facts: list[Fact] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)  # fact keys the user gives only when asked
    unknown: list[str] = field(default_factory=list)  # labels of what the user cannot tell
    forbidden: list[Forbidden] = field(default_factory=list)
    setup: list[WorldEdit] = field(default_factory=list)
    identifies: bool = True  # the user must be identified before this segment's steps
    lookups: list[Fact] = field(default_factory=list)  # ids the user cannot tell and a tool finds (see Scenario)
    revises: Literal["revise", "correct"] | None = None  # the request takes back or corrects the one before
    abandoned: list[ToolCall] = field(default_factory=list)  # what the taken-back request would have called

    @property
    def tools(self) -> set[str]:
        """Names of the tools the steps call (agent and user side)."""
        return {c.name for s in self.steps for c in s.calls}


@dataclass(kw_only=True)
class Identity:
    """How the user proves who they are, in the domain's terms."""

    facts: list[Fact]
    step: Step | None = None  # the gold call that identifies them; None where nothing is called
    fragment: str = ""  # how the user says it, joined to the request unless withheld
    withhold: bool = False  # the facts are given only when asked
    lead: bool = False  # the fragment comes before the request rather than after it
    goal: str = ""  # who the user is, put first in the goal


def _joined_goals(who: Sequence[str], goals: Sequence[str], joiner: str) -> str:
    """The user's goal: who they are, then each request's goal in turn, the requests after the first
    joined by `joiner` ("Then"). The joiner comes between requests, not after who the user is ("You
    are Wayne Hardy. Then Find out ..."); a goal that opens with it ("Then, instead: ...") is not
    given it twice, and a goal after it reads on ("Then book ...")."""
    link = joiner.strip()
    said: list[str] = [g for g in who if g]
    for index, goal in enumerate(g for g in goals if g):
        if index == 0 or not link or goal.startswith(link):
            said.append(goal)
        else:
            said.append(f"{link} {lower_first(goal)}")
    return " ".join(said)


def compose(
    ctx: GenContext,
    segments: Sequence[Segment],
    *,
    identify: Identity | None = None,
    setup: Sequence[WorldEdit] = (),
    forbidden: Sequence[Forbidden] = (),
    goal_joiner: str = " ",
    closing: str | None = None,
    **fields: Any,
) -> Task:
    """Segment i of the task is `segments[i]`; `fields` go to the Task as they are (kind, tools, no_tool)."""
    requests: list[str] = []
    facts: list[Fact] = []
    withheld: list[str] = []
    identity: list[str] = []
    plan: list[Step] = []
    goals: list[str] = []
    revisions: list[Revision] = []
    pending = identify  # until the first segment that needs it
    for index, segment in enumerate(segments):
        request = segment.request
        if index > 0:  # a later request in the same chat is not greeted again
            request = _split_greeting(request)[1]
        if segment.revises is not None:
            if index == 0:
                raise ValueError("the first request cannot revise an earlier one")
            revisions.append(Revision(segment=index, kind=segment.revises, abandoned=list(segment.abandoned)))
        if pending is not None and segment.identifies:
            goals.append(pending.goal)
            renamed = _merge_facts(facts, pending.facts, index)
            identity += [renamed.get(f.key, f.key) for f in pending.facts]
            if pending.withhold:
                withheld += [renamed.get(f.key, f.key) for f in pending.facts]
            elif pending.fragment:
                if pending.lead:  # a greeting that opens the request still opens the message
                    greeting, rest = _split_greeting(request)
                    said = [greeting, pending.fragment, rest] if greeting else [pending.fragment, request]
                else:
                    said = [request, pending.fragment]
                request = " ".join(said)
            if pending.step is not None:
                plan.append(_placed(pending.step, index, renamed))
            pending = None
        requests.append(request)
        renamed = _merge_facts(facts, segment.facts, index)
        withheld += [renamed.get(k, k) for k in segment.withheld]
        plan += [_placed(s, index, renamed) for s in segment.steps]
    lookups = list({f.key: f for s in segments for f in s.lookups}.values())
    abandoned = [
        Forbidden(reason="made a call of a request the user took back", tool=c.name, arguments=c.arguments)
        for r in revisions
        for c in r.abandoned
    ]
    return ctx.task(
        scenario={
            "persona": ctx.persona(),
            "goal": _joined_goals(goals, [s.goal for s in segments], goal_joiner),
            "requests": requests,
            "facts": facts,
            "withheld": list(dict.fromkeys(withheld)),
            "unknown": list(dict.fromkeys([*(u for s in segments for u in s.unknown), *(f.label for f in lookups)])),
            "identity": identity,
            "lookups": lookups,
            "revisions": revisions,
            **({} if closing is None else {"closing": closing}),
        },
        setup=_merge_edits([e for s in segments for e in s.setup] + list(setup)),
        plan=plan,
        replies=[s.reply for s in segments],
        required_outputs=list(dict.fromkeys(o for s in segments for o in s.outputs)),
        forbidden=_minefields([r for s in segments for r in s.forbidden] + abandoned + list(forbidden), plan),
        **fields,
    )


def _merge_facts(known: list[Fact], new: Sequence[Fact], segment: int) -> dict[str, str]:
    """Add `new` to `known`, in place. A fact already known is not repeated; one whose key names
    another value gets a fresh key, so that each key names one value. Returns old -> new keys."""
    values = {f.key: f.value for f in known}
    renamed: dict[str, str] = {}
    for fact in new:
        if values.get(fact.key, fact.value) == fact.value:
            if fact.key not in values:
                values[fact.key] = fact.value
                known.append(fact)
            continue
        key, n = f"{fact.key}_{segment}", segment
        while key in values:
            n += 1
            key = f"{fact.key}_{n}"
        renamed[fact.key] = key
        values[key] = fact.value
        known.append(fact.model_copy(update={"key": key}))
    return renamed


def _placed(step: Step, segment: int, renamed: dict[str, str]) -> Step:
    update: dict[str, Any] = {"segment": segment, "needs": [renamed.get(k, k) for k in step.needs]}
    if step.choice is not None:
        update["choice"] = step.choice.model_copy(update={"fact": renamed.get(step.choice.fact, step.choice.fact)})
    return step.model_copy(update=update)


def _merge_edits(edits: Sequence[WorldEdit]) -> list[WorldEdit]:
    """One edit per row: updates that touch the same row (faults on one phone) become one; inserts stay."""
    merged: list[WorldEdit] = []
    where: dict[tuple[str, str], int] = {}
    for edit in edits:
        row = (edit.table, repr(edit.key))
        if edit.insert is None and row in where:
            earlier = merged[where[row]]
            merged[where[row]] = earlier.model_copy(update={"set": {**earlier.set, **edit.set}, "plants": edit.plants or earlier.plants})
            continue
        if edit.insert is None:
            where[row] = len(merged)
        merged.append(edit)
    return merged


def _minefields(rules: Sequence[Forbidden], plan: Sequence[Step]) -> list[Forbidden]:
    """The rules the gold plan does not itself break, one per minefield (the first reason is kept)."""
    # the verifier's own matching, so a rule kept here is one the gold plan passes; imported here
    # because the verifiers import the engine
    from toolgym.verifiers.matching import subset_matches

    gold = [c for s in plan if s.caller == "agent" for c in s.calls]
    seen: set[str] = set()
    kept: list[Forbidden] = []
    for rule in rules:
        if any(rule.tool == c.name and subset_matches(rule.arguments, c.arguments) for c in gold):
            continue
        key = rule.model_dump_json(exclude={"reason"})
        if key not in seen:
            seen.add(key)
            kept.append(rule)
    return kept


_GREETING = re.compile(
    r"^((?:hi|hello|hey|hiya|good (?:morning|afternoon|evening|day)|greetings|morning|evening)(?: there)?[.!,]+)\s+(?=\S)",
    re.IGNORECASE,
)


def _split_greeting(request: str) -> tuple[str, str]:
    """("Hello.", "Please pause ...") for a request that opens with a greeting, else ("", request)."""
    match = _GREETING.match(request)
    return (match.group(1), request[match.end():]) if match else ("", request)
