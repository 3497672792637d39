"""A task is built from parts: one part per thing the customer asks, one segment each.

A part holds its request, its steps, its closing reply and what it needs set into the world.
`assemble` joins parts into a Task: it opens the call session on the customer's phone, adds
the identification step once (the policy's first rule), numbers the segments, and drops
minefields that the gold plan itself steps on (a part may forbid what a later part asks for).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolgym.envs import Fact, Forbidden, GenContext, NoToolSpec, Step, Task, ToolCall, Utterance, WorldEdit
from toolgym.verifiers.matching import subset_matches

from ..tools.common import CALL_ID
from .index import Subscriber

PHONE_FACT = "phone"


@dataclass
class Part:
    request: str
    goal: str
    reply: Utterance
    steps: list[Step] = field(default_factory=list)
    setup: list[WorldEdit] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    forbidden: list[Forbidden] = field(default_factory=list)
    identifies: bool = True  # the customer must be identified before its steps

    def calls(self) -> list[ToolCall]:
        return [c for s in self.steps for c in s.calls]

    def first_agent_write(self, ctx: GenContext) -> tuple[str, str | None] | None:
        """(tool name, confirmation text) of the first account change this part makes."""
        for step in self.steps:
            for c in step.calls:
                if step.caller == "agent" and ctx.domain.tool(c.name).writes:
                    return c.name, step.confirm
        return None


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def agent(*calls: ToolCall, needs: tuple[str, ...] = (), confirm: str | None = None) -> Step:
    return Step(calls=list(calls), needs=list(needs), confirm=confirm)


def user(ctx: GenContext, name: str, intent: str, args: dict[str, Any] | None = None, **words: Any) -> Step:
    """An on-phone step the agent asks the customer to do, in the domain's words."""
    args = args or {}
    return Step(caller="user", calls=[call(name, **args)], instruction=ctx.say(intent, **args, **words))


def money(amount: float) -> str:
    return f"${amount:,.2f}"


def phone_fact(sub: Subscriber) -> Fact:
    return Fact(key=PHONE_FACT, value=sub.phone_number, label="phone number", keywords=["phone number", "number"])


def session_edit(sub: Subscriber) -> WorldEdit:
    return WorldEdit(table="call_session", insert={"call_id": CALL_ID, "customer_id": sub.customer_id})


def identify(sub: Subscriber) -> Step:
    return agent(call("find_customer_by_phone", phone_number=sub.phone_number), needs=(PHONE_FACT,))


def assemble(
    ctx: GenContext,
    sub: Subscriber | None,
    parts: list[Part],
    *,
    withhold_phone: bool = False,
    kind: str | None = None,
    tools: list[str] | None = None,
    extra_setup: list[WorldEdit] | None = None,
    extra_forbidden: list[Forbidden] | None = None,
    no_tool: NoToolSpec | None = None,
    unknown: list[str] | None = None,
) -> Task:
    setup: list[WorldEdit] = [session_edit(sub)] if sub else []
    facts: list[Fact] = []
    withheld: list[str] = []
    steps: list[Step] = []
    requests: list[str] = []
    identified = False
    for segment, part in enumerate(parts):
        request = part.request
        if part.identifies and not identified:
            assert sub is not None, "a part that identifies the customer needs a subscriber"
            facts.append(phone_fact(sub))
            if withhold_phone:
                withheld.append(PHONE_FACT)
            else:
                request = f"{request} {ctx.say('give_number', number=sub.phone_number)}"
            steps.append(identify(sub))
            identified = True
        if segment:
            request = f"{ctx.say('next_request')} {request}"
        requests.append(request)
        steps.extend(s.model_copy(update={"segment": segment}) for s in part.steps)
        setup.extend(part.setup)
        facts.extend(f for f in part.facts if f.key not in {g.key for g in facts})
        withheld.extend(part.withheld)
    gold = [c for s in steps if s.caller == "agent" for c in s.calls]
    rules = [r for p in parts for r in p.forbidden] + list(extra_forbidden or ())
    forbidden = [r for r in rules if not any(r.tool == c.name and subset_matches(r.arguments, c.arguments) for c in gold)]
    fields: dict[str, Any] = {}
    if kind:
        fields["kind"] = kind
    if tools is not None:
        fields["tools"] = tools
    if no_tool is not None:
        fields["no_tool"] = no_tool
    return ctx.task(
        scenario={
            "persona": ctx.persona(),
            "goal": " Then ".join(p.goal for p in parts),
            "requests": requests,
            "facts": facts,
            "withheld": withheld,
            "unknown": list(unknown or ()),
            "closing": "",
        },
        setup=_merge_edits(setup + list(extra_setup or ())),
        plan=steps,
        replies=[p.reply for p in parts],
        required_outputs=[o for p in parts for o in p.outputs],
        forbidden=_unique(forbidden),
        **fields,
    )


def _merge_edits(edits: list[WorldEdit]) -> list[WorldEdit]:
    """One edit per row: faults that touch the same row (the phone) become one update."""
    merged: list[WorldEdit] = []
    where: dict[tuple[str, str], int] = {}
    for edit in edits:
        row = (edit.table, repr(edit.key))
        if edit.insert is None and row in where:
            earlier = merged[where[row]]
            merged[where[row]] = earlier.model_copy(update={"set": {**earlier.set, **edit.set}})
            continue
        if edit.insert is None:
            where[row] = len(merged)
        merged.append(edit)
    return merged


def _unique(rules: list[Forbidden]) -> list[Forbidden]:
    """One rule per minefield: the first reason given for it is kept."""
    seen, kept = set(), []
    for rule in rules:
        key = rule.model_dump_json(exclude={"reason"})
        if key not in seen:
            seen.add(key)
            kept.append(rule)
    return kept
