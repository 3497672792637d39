"""A telecom task is built from pieces (`toolgym.envs.Piece`): one per thing the customer asks.

`assemble` hands them to the engine's `assemble` with what is telecom's own: the call session
on the customer's phone, identification by the phone number (the policy's first rule), and a
short lead-in before each request after the first.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from toolgym.envs import (
    Fact,
    GenContext,
    Identity,
    Piece,
    Step,
    Task,
    ToolCall,
    WorldEdit,
    call,
    lookup_identity,
    pieces,
)
from toolgym.envs import assemble as engine_assemble
from toolgym.envs.phrasing import register_of

from ..catalogue import PlanSpec
from ..tools.common import CALL_ID
from .index import Subscriber, index_of

PHONE_FACT = "phone"


def agent(
    *calls: ToolCall, needs: tuple[str, ...] = (), confirm: str | None = None, evidence: tuple[str, ...] = (),
    disclose: tuple[str, ...] = (),
) -> Step:
    """An agent step; `evidence`: for a fix, the words of a tool result or the customer showing the fault;
    `disclose`: what the confirmation must warn of."""
    return Step(calls=list(calls), needs=list(needs), confirm=confirm, evidence=list(evidence), disclose=list(disclose))


def user(
    ctx: GenContext,
    name: str,
    intent: str,
    args: dict[str, Any] | None = None,
    *,
    evidence: tuple[str, ...] = (),
    **words: Any,
) -> Step:
    """An on-phone step the agent asks the customer to do, in the domain's words (`evidence` as for `agent`)."""
    args = args or {}
    return Step(
        caller="user", calls=[call(name, **args)], instruction=ctx.say(intent, **args, **words), evidence=list(evidence)
    )


def gb(value: float) -> str:
    return f"{value:g} GB"


def plan_change(ctx: GenContext, sub: Subscriber, plan: PlanSpec) -> Step:
    """The confirmed move of the line to `plan`. A plan with less data than the line has used this
    cycle cuts its data off: the confirmation warns of it (the policy), and `consent` holds it to that."""
    over = not plan.unlimited and sub.data_used_gb >= plan.data_gb + sub.refill_gb
    used = gb(sub.data_used_gb) if over else ""
    confirm = ctx.say("action_change_plan", number=sub.phone_number, plan=plan.name, price=plan.monthly_price,
                      used=used, plan_data=gb(plan.data_gb))  # fmt: skip
    return agent(call("change_plan", line_id=sub.line_id, plan_id=plan.plan_id), confirm=confirm, disclose=(used,) if over else ())


def phone_fact(sub: Subscriber) -> Fact:
    return Fact(key=PHONE_FACT, value=sub.phone_number, label="phone number", keywords=["phone number", "number"])


def session_edit(sub: Subscriber) -> WorldEdit:
    return WorldEdit(table="call_session", insert={"call_id": CALL_ID, "customer_id": sub.customer_id})


def by_phone(ctx: GenContext, customer_id: str) -> Identity:
    """The customer gives the number of their line; the agent looks them up by it."""
    sub = index_of(ctx.world).by_customer[customer_id]
    return lookup_identity(
        [phone_fact(sub)],
        "find_customer_by_phone",
        {"phone_number": sub.phone_number},
        fragment=ctx.say("give_number", number=sub.phone_number),
    )


# ids a customer never knows: the agent finds them from the number and the account
FOUND_IDS = {"bill_id": ("bill id", ["bill id"]), "payment_id": ("payment id", ["payment id"]),
             "method_id": ("payment method id", ["method id"])}  # fmt: skip


def assemble(
    ctx: GenContext,
    sub: Subscriber | None,
    parts: list[Piece],
    *,
    withhold_phone: bool = False,
    setup: list[WorldEdit] | None = None,
    **options: Any,
) -> Task:
    """The task of `parts` with the customer `sub` on the call (None: nobody's phone is in play).

    A piece about the customer (`subject`) has them identified by their number first. The
    customer's persona is drawn first so that the call opens in their register ("Quick one."
    from a terse customer, "Good afternoon." from a formal one)."""
    persona = ctx.persona()
    parts = [replace(p, request=f"{ctx.say('next_request')} {p.request}") if i else p for i, p in enumerate(parts)]
    parts = pieces.without_repeated_reads(ctx, parts)
    task = engine_assemble(
        ctx,
        parts,
        identify=by_phone,
        withhold_identity=withhold_phone,
        found_ids=FOUND_IDS,
        setup=([session_edit(sub)] if sub else []) + list(setup or ()),
        goal_joiner=" Then ",
        closing="",
        **options,
    )
    opening = ctx.say(ctx.domain.phrasebook.voiced("opening", register_of(persona)))
    requests = list(task.scenario.requests)
    requests[0] = f"{opening} {requests[0]}".strip()
    scenario = task.scenario.model_copy(update={"persona": persona, "requests": requests})
    return task.model_copy(update={"scenario": scenario})
