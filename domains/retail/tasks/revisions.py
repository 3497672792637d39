"""Pairs of requests where the customer changes their mind: the gold follows the second, never the first.

When asked to confirm the first change, the customer says no; the agent says the order is as it
was; then the customer asks for something else about the same order:

- `other_option`: an exchange (or a pending order's item change) to another option than the first;
- `address_fixed`: a shipping address with a wrong detail, corrected (the customer's own slip);
- `cancel_instead`: an address change turned down, then the order cancelled instead;
- `refund_to_gift_card`: a return to the original payment method turned down, then to the gift card.
"""

from __future__ import annotations

from toolgym.envs import GenContext, Utterance
from toolgym.envs.structures import revised

from . import writes
from .base import Piece, shop


def _held(ctx: GenContext, order_id: str) -> tuple[Utterance, list[str]]:
    """The reply to a change turned down: the order as it was (its status was read before asking)."""
    status = shop(ctx).orders[order_id].status
    return Utterance(intent="reply_declined", vars={"order_id": order_id, "status": status}), [order_id, status]


def other_option(ctx: GenContext, customer_id: str | None) -> list[Piece] | None:
    build = ctx.pick((writes.exchange_items, writes.modify_items))
    first = build(ctx, customer_id)
    if not isinstance(first, Piece) or first.chosen is None:
        return None
    second = build(ctx, first.subject, like=first.chosen)
    if not isinstance(second, Piece):
        return None
    reply, outputs = _held(ctx, first.chosen.order.id)
    return revised(ctx, first, second, reply=reply, outputs=outputs)


def address_fixed(ctx: GenContext, customer_id: str | None) -> list[Piece] | None:
    first = writes.modify_address(ctx, customer_id)
    if not isinstance(first, Piece) or first.order_id is None or first.withheld:
        return None
    order = shop(ctx).orders[first.order_id]
    second = writes.modify_address(ctx, first.subject, order=order)
    if not isinstance(second, Piece) or second.withheld:
        return None
    reply, outputs = _held(ctx, order.id)
    return revised(ctx, first, second, reply=reply, outputs=outputs, kind="correct")


def cancel_instead(ctx: GenContext, customer_id: str | None) -> list[Piece] | None:
    first = writes.modify_address(ctx, customer_id)
    if not isinstance(first, Piece) or first.order_id is None:
        return None
    second = writes.cancel(ctx, first.subject, order=shop(ctx).orders[first.order_id])
    if not isinstance(second, Piece):
        return None
    reply, outputs = _held(ctx, first.order_id)
    return revised(ctx, first, second, reply=reply, outputs=outputs)


def refund_to_gift_card(ctx: GenContext, customer_id: str | None) -> list[Piece] | None:
    first = writes.return_items(ctx, customer_id, to_card=False)
    if not isinstance(first, Piece) or first.order_id is None:
        return None
    second = writes.return_items(ctx, first.subject, to_card=True, like=first)
    if not isinstance(second, Piece):
        return None
    reply, outputs = _held(ctx, first.order_id)
    return revised(ctx, first, second, reply=reply, outputs=outputs)


REVISIONS = (other_option, address_fixed, cancel_instead, refund_to_gift_card)
REVISION_WEIGHTS = (4, 2, 2, 2)
