"""Joining pieces into one Task: how a retail customer proves who they are.

The engine's `assemble` does the joining; what is retail's own is the identity (email, or full
name and ZIP code) and that one task serves one customer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolgym.envs import Fact, GenContext, Identity, Task, lookup_identity, pieces

from .base import shop

# what a user says before a request after the first one, by its place in the conversation
_FOLLOW_UPS = ("follow_up", "last_follow_up")


def voiced(ctx: GenContext, task: Task) -> Task:
    """The task's requests in its persona's voice: the first opens the chat (a greeting or some
    context first, sometimes a remark after), later ones lead in."""
    requests = []
    for index, request in enumerate(task.scenario.requests):
        if index == 0:
            said = [ctx.say("opener"), request, ctx.say("aside")]
        else:
            said = [ctx.say(_FOLLOW_UPS[min(index, len(_FOLLOW_UPS)) - 1]), request]
        requests.append(" ".join(t for t in said if t))
    return task.model_copy(update={"scenario": task.scenario.model_copy(update={"requests": requests})})


def authenticate(ctx: GenContext, customer_id: str, *, by_email: bool) -> Identity:
    """How the user proves who they are: email, or full name and ZIP code."""
    person = shop(ctx).customers[customer_id]
    who = f"You are {person.first_name} {person.last_name} ({person.email}, ZIP {person.zip})."
    if by_email:
        email = Fact(key="email", value=person.email, label="email address", keywords=["email"])
        return lookup_identity(
            [email],
            "find_customer_id_by_email",
            {"email": person.email},
            fragment=ctx.say("auth_email", email=person.email),
            goal=who,
        )
    name = f"{person.first_name} {person.last_name}"
    facts = [
        Fact(key="name", value=name, label="full name", keywords=["full name"]),
        Fact(key="zip", value=person.zip, label="ZIP code", keywords=["zip"]),
    ]
    return lookup_identity(
        facts,
        "find_customer_id_by_name_zip",
        {"first_name": person.first_name, "last_name": person.last_name, "zip": person.zip},
        fragment=ctx.say("auth_name_zip", name=name, zip=person.zip),
        goal=who,
    )


# ids a customer never knows: the agent finds them on the account (a card by its last four)
FOUND_IDS = {"payment_method_id": ("payment method id", ["payment method id"])}


def assemble(
    ctx: GenContext,
    parts: Sequence[pieces.Piece],
    *,
    withhold_auth: bool = False,
    auth_step: bool = True,
    **options: Any,
) -> Task:
    """One task: piece i is segment i; the pieces' customer (if any) authenticates where first needed.

    `auth_step=False` leaves the lookup call out of the plan (a no-tool task makes no call);
    `options` go to the engine's `compose` (setup, forbidden, closing, no_tool).
    """
    said = " ".join(p.request for p in parts)

    def identify(ctx: GenContext, customer_id: str) -> Identity:
        by_email = ctx.rng.random() < 0.6
        identity = authenticate(ctx, customer_id, by_email=by_email)
        if withhold_auth and not by_email and any(f.value in said for f in identity.facts):
            identity = authenticate(ctx, customer_id, by_email=True)  # a withheld value must not be said already
        return identity

    task = pieces.assemble(
        ctx,
        pieces.without_repeated_reads(ctx, parts),
        identify=identify,
        withhold_identity=withhold_auth,
        lookup=auth_step,
        found_ids=FOUND_IDS,
        **options,
    )
    return voiced(ctx, task)
