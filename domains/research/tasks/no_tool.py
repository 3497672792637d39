"""The no-tool kinds the domain writes itself: a missing fact, an invalid value, a policy refusal.

(`no_tool/irrelevant` and `no_tool/unavailable` come from the engine.)
"""

from __future__ import annotations

from toolgym.envs import Forbidden, GenContext, Task, assemble, pieces

from .index import index_of
from .pieces import by_email, item_fact


def missing_info(ctx: GenContext) -> Task:
    """The member wants to pause an item but cannot say which: the agent asks for the item id."""
    member = ctx.pick(list(index_of(ctx.world).members.values()))
    request = ctx.say("req_pause_unknown", email_said=ctx.say("give_email", email=member.email))
    piece = pieces.missing_info(request, "Pause one of your items; you do not know its id.", ["item id"])
    return assemble(ctx, [piece])


def _bad_item_id(ctx: GenContext, good: str) -> str:
    digits = good[1:]
    return ctx.pick([digits, f"I{digits[:-1]}", f"I{digits}{ctx.rng.randrange(10)}", f"X{digits}"])


def invalid_value(ctx: GenContext) -> Task:
    """The member gives an item id that cannot be one: the agent names it and why, and asks again."""
    item = ctx.pick(list(index_of(ctx.world).items.values()))
    bad = _bad_item_id(ctx, item.id)
    piece = pieces.invalid_value(
        ctx.say("req_status", item_id=bad),
        f"Ask about your item, which you believe is {bad}.",
        parameter="item_id",
        value=bad,
        label="item id",
        problem=ctx.say("problem_item_id"),
    )
    return assemble(ctx, [piece])


def policy_refusal(ctx: GenContext) -> Task:
    """A member with an unpaid balance asks to pause: the agent looks them up, sees it, and refuses."""
    index = index_of(ctx.world)
    item = ctx.pick([i for i in index.active(can_pause=False) if index.owes(i.member_id)])
    piece = pieces.policy_refusal(
        ctx.say("req_pause", item_id=item.id),
        f"Pause item {item.id} (you have an unpaid balance).",
        rule=ctx.say("rule_unpaid_balance"),
        forbidden=[Forbidden(reason="paused an item of a member with an unpaid balance", tool="pause_item", arguments={"item_id": item.id})],
        facts=[item_fact(item)],
        subject=item.member_id,
    )
    return assemble(ctx, [piece], identify=by_email)
