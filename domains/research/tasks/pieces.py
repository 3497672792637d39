"""The pieces research tasks are made of: one per request, and how a member is identified."""

from __future__ import annotations

from toolgym.envs import Fact, GenContext, Identity, Piece, Step, Utterance, call, lookup_identity

from ..tables import ItemBase
from .index import index_of


def by_email(ctx: GenContext, member_id: str) -> Identity:
    """The member gives their email; the agent looks them up by it."""
    member = index_of(ctx.world).members[member_id]
    email = Fact(key="email", value=member.email, label="email address", keywords=["email"])
    return lookup_identity(
        [email],
        "find_member_by_email",
        {"email": member.email},
        fragment=ctx.say("give_email", email=member.email),
        goal=f"You are {member.name} ({member.email}).",
    )


def item_fact(item: ItemBase) -> Fact:
    return Fact(key="item_id", value=item.id, label="item id", keywords=["item id", "item number"])


def status(ctx: GenContext, item: ItemBase) -> Piece:
    """The member asks how one item stands; the agent reads it and says."""
    return Piece(
        request=ctx.say("req_status", item_id=item.id),
        goal=f"Find out whether item {item.id} is active or paused.",
        steps=[Step(calls=[call("get_item", item_id=item.id)])],
        reply=Utterance(intent="reply_status", vars={"item_id": item.id, "title": item.title, "status": item.status}),
        outputs=[item.status],
        facts=[item_fact(item)],
        keys=frozenset({item.id}),
        subject=item.member_id,
    )


def pause(ctx: GenContext, item: ItemBase) -> Piece:
    """The member asks to pause an active item by its id; the agent reads it (whose it is), confirms, then pauses."""
    return Piece(
        request=ctx.say("req_pause", item_id=item.id),
        goal=f"Pause item {item.id}.",
        steps=[
            Step(calls=[call("get_item", item_id=item.id)]),  # a write acts on the member's own item, read first
            Step(calls=[call("pause_item", item_id=item.id)], confirm=f"pause item {item.id}"),
        ],
        reply=Utterance(intent="reply_paused", vars={"item_id": item.id, "title": item.title}),
        outputs=[item.id],
        facts=[item_fact(item)],
        keys=frozenset({item.id}),
        subject=item.member_id,
    )


def resume(ctx: GenContext, item: ItemBase) -> Piece:
    """The member asks to resume a paused item; the agent reads it (whose it is), confirms, then resumes."""
    return Piece(
        request=ctx.say("req_resume", item_id=item.id),
        goal=f"Resume item {item.id}.",
        steps=[
            Step(calls=[call("get_item", item_id=item.id)]),
            Step(calls=[call("resume_item", item_id=item.id)], confirm=f"resume item {item.id}"),
        ],
        reply=Utterance(intent="reply_resumed", vars={"item_id": item.id, "title": item.title}),
        outputs=[item.id],
        facts=[item_fact(item)],
        keys=frozenset({item.id}),
        subject=item.member_id,
    )
