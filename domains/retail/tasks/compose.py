"""Joining pieces into one Task: authentication, segments, facts, replies and minefields."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolgym.envs import GenContext, NoToolSpec, Task, WorldEdit
from toolgym.errors import GeneratorBug

from .base import Piece, authenticate, shop

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


def compose(
    ctx: GenContext,
    pieces: Sequence[Piece],
    *,
    customer_id: str | None = None,
    withhold_auth: bool = False,
    by_email: bool | None = None,
    auth_step: bool = True,
    setup: Sequence[WorldEdit] = (),
    no_tool: NoToolSpec | None = None,
    closing: str | None = None,
) -> Task:
    """One task: piece i is segment i; the customer (if any) authenticates where first needed."""
    requests = [p.request for p in pieces]
    facts, withheld, plan, goals = [], [], [], []
    auth_segment = next((i for i, p in enumerate(pieces) if p.customer_id), 0)
    for index, piece in enumerate(pieces):
        rename = {f.key: f"{f.key}_{index}" for f in piece.facts} if index else {}
        facts += [f.model_copy(update={"key": rename.get(f.key, f.key)}) for f in piece.facts]
        withheld += [rename.get(k, k) for k in piece.withheld]
        goals.append(piece.goal)
        for step in piece.steps:
            plan.append(
                step.model_copy(update={"segment": index, "needs": [rename.get(k, k) for k in step.needs]})
            )
    if customer_id:
        s = shop(ctx)
        email = ctx.rng.random() < 0.6 if by_email is None else by_email
        auth = authenticate(ctx, s, customer_id, by_email=email)
        if withhold_auth and not email and any(f.value in " ".join(requests) for f in auth.facts):
            auth = authenticate(
                ctx, s, customer_id, by_email=True
            )  # a withheld value must not be said already
        facts = auth.facts + facts
        if withhold_auth:
            withheld = [f.key for f in auth.facts] + withheld
        else:
            parts = [auth.fragment, requests[auth_segment]]
            requests[auth_segment] = " ".join(parts if ctx.rng.random() < 0.5 else parts[::-1])
        if auth_step:
            first = next((i for i, step in enumerate(plan) if step.segment >= auth_segment), len(plan))
            plan.insert(first, auth.step.model_copy(update={"segment": auth_segment}))
        person = s.customers[customer_id]
        who = f"You are {person.first_name} {person.last_name} ({person.email}, ZIP {person.zip})."
        goals.insert(0, who)
    return ctx.task(
        scenario={
            "persona": ctx.persona(),
            "goal": " ".join(goals),
            "requests": requests,
            "facts": facts,
            "withheld": withheld,
            "unknown": [label for p in pieces for label in p.unknown],
            **({"closing": closing} if closing else {}),
        },
        plan=plan,
        replies=[p.reply for p in pieces],
        required_outputs=list(dict.fromkeys(o for p in pieces for o in p.required)),
        forbidden=[f for p in pieces for f in p.forbidden],
        setup=list(setup),
        no_tool=no_tool,
    )
