"""no_tool/policy_refusal: the user asks for what the policy forbids; the agent checks, then declines.

The gold plan holds the reads that reveal the rule applies; the forbidden write is a minefield.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolgym.envs import Forbidden, GenContext, Step, Task, call, draw, pieces
from toolgym.envs.phrasing import article, said_day

from ..access import options_of
from ..rules import RETURN_WINDOW_DAYS
from ..tables import OrderBase
from .assemble import assemble
from .base import about_order, card_number, clause, details, item_text, shop
from .places import new_address
from .shop import Shop

_MINEFIELD = "the policy forbids this action"


def _forbid(tool: str, **arguments: Any) -> Forbidden:
    return Forbidden(reason=_MINEFIELD, tool=tool, arguments=arguments)


def _refusal(
    order: OrderBase,
    request: str,
    goal: str,
    rule: str,
    forbidden: Sequence[Forbidden],
    reads: Sequence[Step] = (),
    customer_id: str | None = None,
) -> pieces.Piece:
    """The agent reads the order (and `reads`), sees that `rule` applies, and declines."""
    return pieces.policy_refusal(
        request,
        goal,
        rule=rule,
        forbidden=forbidden,
        steps=[details(order.id), *reads],
        **about_order(order, customer_id=customer_id),
    )


def _choose(ctx: GenContext, candidates: Sequence[Any]) -> Any:
    """One of the candidates, or None when this world has none (a small world may lack some)."""
    return ctx.pick(candidates) if candidates else None


def _cancel_reason(ctx: GenContext) -> str:
    return clause(ctx, ctx.pick(("say_reason_no_longer_needed", "say_reason_ordered_by_mistake")))


def _everything(s: Shop, order: OrderBase) -> list[str]:
    return [item_text(i) for i in s.items[order.id]]


def _new_shipping_address(ctx: GenContext, order: OrderBase, rule: str, tools: tuple[str, ...]) -> pieces.Piece:
    """The user wants the order shipped elsewhere; `rule` forbids every change by `tools`."""
    address = new_address(ctx.rng)
    return _refusal(
        order,
        ctx.say("req_modify_address", order_id=order.id, address=address.text()),
        f"Have order {order.id} shipped to {address.text()}.",
        rule,
        [_forbid(t, order_id=order.id) for t in tools],
    )


def cancel_too_late(ctx: GenContext) -> pieces.Piece | None:
    order = _choose(ctx, shop(ctx).past_pending)
    if order is None:
        return None
    return _refusal(
        order,
        ctx.say("req_cancel", order_id=order.id, reason=_cancel_reason(ctx)),
        f"Cancel order {order.id}.",
        f"order {order.id} is already {order.status}, and only pending orders can be cancelled",
        [_forbid("cancel_pending_order", order_id=order.id)],
    )


def modify_twice(ctx: GenContext) -> pieces.Piece | None:
    order = _choose(ctx, shop(ctx).modified)
    if order is None:
        return None
    return _new_shipping_address(
        ctx,
        order,
        f"order {order.id} has already been modified once, and a pending order can be modified only once",
        ("modify_pending_order_address", "modify_pending_order_payment", "modify_pending_order_items"),
    )


def modify_too_late(ctx: GenContext) -> pieces.Piece | None:
    order = _choose(ctx, [o for o in shop(ctx).past_pending if o.status != "delivered"])
    if order is None:
        return None
    return _new_shipping_address(
        ctx,
        order,
        f"order {order.id} is already {order.status}, and only pending orders can be changed",
        ("modify_pending_order_address",),
    )


def return_expired(ctx: GenContext) -> pieces.Piece | None:
    s = shop(ctx)
    order = _choose(ctx, s.expired)
    if order is None:
        return None
    items = _everything(s, order)
    return _refusal(
        order,
        ctx.say("req_return", order_id=order.id, items=items, gift_card=False),
        f"Return everything from order {order.id}.",
        f"order {order.id} was delivered on {said_day(str(order.delivered_at)[:10], ctx.world.now.date())}, "
        f"more than {RETURN_WINDOW_DAYS} days ago, "
        f"and returns are accepted only within {RETURN_WINDOW_DAYS} days of delivery",
        [
            _forbid("return_delivered_order_items", order_id=order.id),
            _forbid("exchange_delivered_order_items", order_id=order.id),
        ],
    )


def refund_elsewhere(ctx: GenContext) -> pieces.Piece | None:
    s = shop(ctx)
    order = _choose(ctx, s.refund_elsewhere)
    if order is None:
        return None
    method = ctx.pick(s.disallowed_refund_methods(order))
    items = _everything(s, order)
    return _refusal(
        order,
        ctx.say("req_return_to", order_id=order.id, items=items, method=s.method_phrase(method.id)),
        f"Return everything from order {order.id} and get the refund on {s.method_phrase(method.id, 'your')}.",
        f"refunds can only go to the order's original payment method (your {s.method_name(order.payment_method_id)}) "
        f"or a gift card on your account, not to your {s.method_name(method.id)}",
        [_forbid("return_delivered_order_items", order_id=order.id, payment_method_id=method.id)],
        reads=[Step(calls=[call("list_payment_methods", customer_id=order.customer_id)])],
    )


def exchange_other_product(ctx: GenContext) -> pieces.Piece | None:
    s = shop(ctx)
    order = _choose(ctx, s.returnable)
    if order is None:
        return None
    item = ctx.pick(s.items[order.id])
    other = ctx.pick([p for p in s.products.values() if p.id != item.product_id])
    return _refusal(
        order,
        ctx.say("req_exchange_other", order_id=order.id, item=item.name, other=other.name),
        f"Exchange the {item.name} from order {order.id} for {article(other.name)}.",
        f"an exchange can only be for another option of the same product ({item.name}); getting {article(other.name)} "
        "instead means returning the item and placing a new order",
        [_forbid("exchange_delivered_order_items", order_id=order.id)],
    )


def exchange_unorderable(ctx: GenContext) -> pieces.Piece | None:
    s = shop(ctx)
    order = _choose(ctx, s.with_unorderable)
    if order is None:
        return None
    item = ctx.pick([i for i in s.items[order.id] if s.unorderable(i)])
    variant = ctx.pick(s.unorderable(item))
    wanted = ", ".join(options_of(variant).values())
    state = "discontinued" if not variant.available else "out of stock"
    changes = [{"name": item.name, "old": item.options, "new": wanted}]
    return _refusal(
        order,
        ctx.say("req_exchange", order_id=order.id, changes=changes, gift_card=False),
        f"Exchange the {item.name} ({item.options}) from order {order.id} for the {wanted} option, and only that one.",
        f"the {item.name} in {wanted} is {state}, and an exchange needs an option that is available and in stock",
        [_forbid("exchange_delivered_order_items", order_id=order.id, new_variant_ids=[variant.id])],
        reads=[Step(calls=[call("get_product_details", product_id=item.product_id)])],
    )


def not_their_order(ctx: GenContext) -> pieces.Piece | None:
    s = shop(ctx)
    order = _choose(ctx, s.pending)
    if order is None:
        return None
    asker = ctx.pick([c for c in s.customers_with_orders if c != order.customer_id])
    return _refusal(
        order,
        ctx.say("req_cancel", order_id=order.id, reason=_cancel_reason(ctx)),
        f"Cancel order {order.id} (it was placed by someone else, but you want it cancelled).",
        f"order {order.id} is not on your account, so I can't change it or share its details",
        [
            _forbid("cancel_pending_order", order_id=order.id),
            Forbidden(reason=_MINEFIELD, table="order", key=[order.id]),
        ],
        customer_id=asker,
    )


def foreign_gift_card(ctx: GenContext) -> pieces.Piece | None:
    s = shop(ctx)
    order = _choose(ctx, s.modifiable)
    if order is None:
        return None
    card = _choose(ctx, [c for c in s.gift_cards if c.customer_id != order.customer_id and c.balance])
    if card is None:
        return None
    return _refusal(
        order,
        ctx.say("req_pay_with_card_id", order_id=order.id, number=card_number(card.id)),
        f"Pay order {order.id} with the gift card numbered {card_number(card.id)}, which a friend gave you.",
        f"gift card {card_number(card.id)} is not on your account, and orders can only be paid with your own "
        "payment methods",
        [_forbid("modify_pending_order_payment", order_id=order.id, payment_method_id=card.id)],
        reads=[Step(calls=[call("list_payment_methods", customer_id=order.customer_id)])],
    )


_BUILDERS = (
    cancel_too_late,
    modify_twice,
    modify_too_late,
    return_expired,
    refund_elsewhere,
    exchange_other_product,
    exchange_unorderable,
    not_their_order,
    foreign_gift_card,
)


def policy_refusal(ctx: GenContext) -> Task:
    return assemble(ctx, [draw(ctx, _BUILDERS)], withhold_auth=ctx.rng.random() < 0.3)
