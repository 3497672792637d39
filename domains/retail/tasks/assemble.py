"""Joining pieces into one Task: drawing them, and the customer's authentication.

The engine's `compose` does the joining; what is retail's own is how a customer proves who
they are (email, or full name and ZIP code) and that one task serves one customer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from toolgym.envs import Fact, GenContext, Identity, Step, Task, call, compose
from toolgym.errors import GeneratorBug

from .base import Piece, shop
from .shop import Shop

_TRIES = 16


def first_piece(
    ctx: GenContext,
    builders: Sequence[Callable[[GenContext, str | None], Piece | None]],
    weights: Sequence[int] | None = None,
    customer_id: str | None = None,
) -> Piece:
    """A piece from one of the builders (drawn by weight); builders with nothing to offer are redrawn."""
    for _ in range(_TRIES):
        builder = ctx.rng.choices(list(builders), weights=weights)[0] if weights else ctx.pick(builders)
        piece = builder(ctx, customer_id)
        if piece is not None:
            return piece
    raise GeneratorBug(f"retail {ctx.kind}: no piece could be built (seed {ctx.seed}, world {ctx.size})")


def independent(pieces: Sequence[Piece], candidate: Piece) -> bool:
    return all(not (p.keys & candidate.keys) for p in pieces)


def authenticate(ctx: GenContext, s: Shop, customer_id: str, *, by_email: bool) -> Identity:
    """How the user proves who they are: email, or full name and ZIP code."""
    person = s.customers[customer_id]
    who = f"You are {person.first_name} {person.last_name} ({person.email}, ZIP {person.zip})."
    if by_email:
        return Identity(
            facts=[Fact(key="email", value=person.email, label="email address", keywords=["email"])],
            step=Step(calls=[call("find_customer_id_by_email", email=person.email)], needs=["email"]),
            fragment=ctx.say("auth_email", email=person.email),
            goal=who,
        )
    name = f"{person.first_name} {person.last_name}"
    names = {"first_name": person.first_name, "last_name": person.last_name}
    found = call("find_customer_id_by_name_zip", **names, zip=person.zip)
    return Identity(
        facts=[
            Fact(key="name", value=name, label="full name", keywords=["full name"]),
            Fact(key="zip", value=person.zip, label="ZIP code", keywords=["zip"]),
        ],
        step=Step(calls=[found], needs=["name", "zip"]),
        fragment=ctx.say("auth_name_zip", name=name, zip=person.zip),
        goal=who,
    )


def assemble(
    ctx: GenContext,
    pieces: Sequence[Piece],
    *,
    withhold_auth: bool = False,
    auth_step: bool = True,
    **options: Any,
) -> Task:
    """One task: piece i is segment i; the pieces' customer (if any) authenticates where first needed.

    `auth_step=False` leaves the lookup call out of the plan (a no-tool task makes no call);
    `options` go to the engine's `compose` (setup, forbidden, closing, no_tool).
    """
    customer_id = next((p.customer_id for p in pieces if p.customer_id), None)
    identity = None
    if customer_id:
        s = shop(ctx)
        email = ctx.rng.random() < 0.6
        identity = authenticate(ctx, s, customer_id, by_email=email)
        said = " ".join(p.request for p in pieces)
        if withhold_auth and not email and any(f.value in said for f in identity.facts):
            # a withheld value must not be said already
            identity = authenticate(ctx, s, customer_id, by_email=True)
        identity.withhold = withhold_auth
        identity.lead = not withhold_auth and ctx.rng.random() < 0.5  # drawn only when the fragment is said
        if not auth_step:
            identity.step = None
    task = compose(ctx, pieces, identify=identity, **options)
    return task.model_copy(update={"plan": _without_repeated_reads(ctx, task.plan)})


def _without_repeated_reads(ctx: GenContext, plan: Sequence[Step]) -> list[Step]:
    """The plan without a read made a second time (two requests of one customer may both need
    their payment methods): the agent already has its result."""
    seen: set[str] = set()
    kept: list[Step] = []
    for step in plan:
        calls = []
        for c in step.calls:
            key = json.dumps([c.name, c.arguments], sort_keys=True)
            if step.caller == "agent" and not ctx.domain.tool(c.name).writes and key in seen:
                continue
            seen.add(key)
            calls.append(c)
        if calls:
            kept.append(step if len(calls) == len(step.calls) else step.model_copy(update={"calls": calls}))
    return kept
