"""Pieces where the customer does not name the order: the agent finds it, and asks which when several fit.

- `cancel_which`: "cancel my pending order" with two or three pending: list them, read them, ask
  which (naming each), cancel the one picked.
- `return_by_item`: "return the <item> I got": the agent lists the delivered orders and reads them to
  find the one with the item (a lookup); when two orders have it, it asks which.
- `latest_action`: "my most recent order": the agent lists the orders and acts on the newest
  (cancel it, change its address, or give its tracking number).
- `pay_with_which_card`: "pay order X with my credit card" when the customer has two or more cards:
  list the methods, ask which card, change the payment.
"""

from __future__ import annotations

from toolgym.envs import GenContext, Step, Utterance, call, money
from toolgym.envs.phrasing import month_day
from toolgym.envs.structures import ask_which, looked_up

from ..rules import CANCEL_REASONS
from ..tables import OrderBase
from .base import Piece, clause, item_text, order_fact, shop
from .places import new_address

_REASON_INTENTS = {"no longer needed": "say_reason_no_longer_needed", "ordered by mistake": "say_reason_ordered_by_mistake"}
ORDER_ID_WORDS = ["order id", "order number"]
MOST_CANDIDATES = 3


def _day(order: OrderBase) -> str:
    """The day an order was placed, as a customer says it: 'May 14' (candidates differ in it)."""
    return month_day(str(order.placed_at)[:10])


def _summary(order: OrderBase) -> str:
    """How the agent names an order among candidates: its id, date and total (all in the listing)."""
    return f"{order.id} (placed {_day(order)}, {money(order.total)})"


def _customer(ctx: GenContext, customer_id: str | None, test) -> str | None:
    """The given customer if `test` passes for them, else any customer it passes for (None: nobody)."""
    s = shop(ctx)
    if customer_id is not None:
        return customer_id if test(customer_id) else None
    fits = [c for c in s.customers_with_orders if test(c)]
    return ctx.pick(fits) if fits else None


def _lookup(piece: Piece, order: OrderBase) -> Piece:
    return looked_up(piece, label="order number", value=order.id, keywords=ORDER_ID_WORDS)


def cancel_which(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)

    def pending(c: str) -> list[OrderBase]:
        return [o for o in s.orders_of.get(c, []) if o.status == "pending"]

    customer_id = _customer(ctx, customer_id, lambda c: len(pending(c)) >= 2)
    if customer_id is None:
        return None
    candidates = pending(customer_id)[:MOST_CANDIDATES]
    days = [_day(o) for o in candidates]
    if len(set(days)) < len(days):
        return None  # the user tells them apart by date
    order = ctx.pick(candidates)
    reason = ctx.pick(CANCEL_REASONS)
    method = s.method_name(order.payment_method_id)
    piece = Piece(
        request=ctx.say("req_cancel_which", reason=clause(ctx, _REASON_INTENTS[reason])),
        goal=f"Cancel one of your pending orders (the one placed on {_day(order)}); the reason is that it is {reason}.",
        steps=[
            Step(calls=[call("list_customer_orders", customer_id=customer_id)]),
            Step(calls=[*(call("get_order_details", order_id=o.id) for o in candidates),
                        call("list_payment_methods", customer_id=customer_id)]),  # fmt: skip
            Step(
                calls=[call("cancel_pending_order", order_id=order.id, reason=reason)],
                confirm=f"cancel order {order.id} (reason: {reason}); {money(order.total)} goes back to your {method}",
            ),
        ],
        reply=Utterance(intent="reply_cancelled", vars={"order_id": order.id, "amount": order.total, "method": method}),
        outputs=[money(order.total)],
        keys=frozenset({*(o.id for o in candidates), order.payment_method_id}),
        subject=customer_id,
        order_id=order.id,
    )
    piece = ask_which(
        piece, label="order", what="pending orders", options=[o.id for o in candidates],
        described=[_summary(o) for o in candidates], answer=f"the one placed on {_day(order)}",
    )  # fmt: skip
    return _lookup(piece, order)


def return_by_item(ctx: GenContext, customer_id: str | None) -> Piece | None:
    """The customer names an item, not the order: find the delivered order(s) with it."""
    s = shop(ctx)
    returnable = [o for o in s.returnable if customer_id is None or o.customer_id == customer_id]
    if not returnable:
        return None
    order = ctx.pick(returnable)
    customer_id = order.customer_id
    item = ctx.pick(s.items[order.id])
    delivered = [o for o in s.orders_of[customer_id] if o.status == "delivered"][:MOST_CANDIDATES + 1]
    if order not in delivered:
        return None
    having = [o for o in delivered if any(i.name == item.name for i in s.items[o.id])]
    if any(o not in s.returnable for o in having) or len({_day(o) for o in having}) < len(having):
        return None
    same = [i for i in s.items[order.id] if i.name == item.name]
    if len(same) > 1:
        return None  # two of the item in one order: which one is returned would need asking too
    method = s.methods[order.payment_method_id]
    piece = Piece(
        request=ctx.say("req_return_item_no_order", item=item.name),
        goal=f"Return {item_text(item)} you bought (you do not know the order number); refund to the original payment method.",
        steps=[
            Step(calls=[call("list_customer_orders", customer_id=customer_id)]),
            Step(calls=[*(call("get_order_details", order_id=o.id) for o in delivered),
                        call("list_payment_methods", customer_id=customer_id)]),  # fmt: skip
            Step(
                calls=[call("return_delivered_order_items", order_id=order.id, item_ids=[item.id], payment_method_id=method.id)],
                confirm=f"return {item_text(item)} from order {order.id} and refund {money(item.price)} to your {s.method_name(method.id)}",
            ),
        ],
        reply=Utterance(intent="reply_returned", vars={"order_id": order.id, "items": [item_text(item)], "amount": item.price,
                                                       "method": s.method_name(method.id)}),  # fmt: skip
        outputs=[money(item.price), order.id],
        keys=frozenset({*(o.id for o in delivered), method.id}),
        subject=customer_id,
        order_id=order.id,
    )
    if len(having) > 1:
        piece = ask_which(
            piece, label="order", what=f"delivered orders with {item.name}", options=[o.id for o in having],
            described=[_summary(o) for o in having], answer=f"the one placed on {_day(order)}",
        )  # fmt: skip
    return _lookup(piece, order)


def latest_action(ctx: GenContext, customer_id: str | None) -> Piece | None:
    """Something done to the customer's newest order, found by listing the orders."""
    s = shop(ctx)
    customer_id = customer_id or ctx.pick(s.customers_with_orders)
    orders = s.orders_of.get(customer_id, [])
    if not orders:
        return None
    latest = orders[0]
    listing = Step(calls=[call("list_customer_orders", customer_id=customer_id)])
    keys = frozenset(o.id for o in orders)
    if latest.status == "pending" and not latest.modified and ctx.rng.random() < 0.5:
        address = new_address(ctx.rng)
        piece = Piece(
            request=ctx.say("req_latest_address", address=address.text()),
            goal=f"Have your most recent order shipped to {address.text()} (you do not know its number).",
            steps=[
                listing,
                Step(calls=[call("get_order_details", order_id=latest.id)]),
                Step(
                    calls=[call("modify_pending_order_address", order_id=latest.id, **address.arguments())],
                    confirm=f"change the shipping address of order {latest.id} to {address.text()}",
                ),
            ],
            reply=Utterance(intent="reply_order_address", vars={"order_id": latest.id, "address": address.text()}),
            outputs=[address.address1, latest.id],
            keys=keys,
            subject=customer_id,
            order_id=latest.id,
        )
    elif latest.status == "pending":
        reason = ctx.pick(CANCEL_REASONS)
        method = s.method_name(latest.payment_method_id)
        piece = Piece(
            request=ctx.say("req_cancel_latest", reason=clause(ctx, _REASON_INTENTS[reason])),
            goal=f"Cancel your most recent order (you do not know its number); it is {reason}.",
            steps=[
                listing,
                Step(calls=[call("get_order_details", order_id=latest.id), call("list_payment_methods", customer_id=customer_id)]),
                Step(
                    calls=[call("cancel_pending_order", order_id=latest.id, reason=reason)],
                    confirm=f"cancel order {latest.id} (reason: {reason}); {money(latest.total)} goes back to your {method}",
                ),
            ],
            reply=Utterance(intent="reply_cancelled", vars={"order_id": latest.id, "amount": latest.total, "method": method}),
            outputs=[money(latest.total), latest.id],
            keys=keys | {latest.payment_method_id},
            subject=customer_id,
            order_id=latest.id,
        )
    elif latest.tracking_number:
        piece = Piece(
            request=ctx.say("req_track_latest"),
            goal="Get the carrier and tracking number of your most recent order (you do not know its number).",
            steps=[listing, Step(calls=[call("get_tracking_info", order_id=latest.id)])],
            reply=Utterance(intent="reply_tracking", vars={"order_id": latest.id, "carrier": latest.carrier,
                                                           "tracking": latest.tracking_number, "status": latest.status}),  # fmt: skip
            outputs=[str(latest.tracking_number), latest.id],
            keys=keys,
            subject=customer_id,
        )
    else:
        return None
    return _lookup(piece, latest)


def pay_with_which_card(ctx: GenContext, customer_id: str | None) -> Piece | None:
    """Pay a pending order with "my credit card" when there are two cards or more: ask which."""
    s = shop(ctx)

    def cards(order: OrderBase) -> list:
        return [m for m in s.other_payments(order) if m.kind == "credit_card"]

    orders = [o for o in s.payment_switchable if len(cards(o)) >= 2 and (customer_id is None or o.customer_id == customer_id)]
    if not orders:
        return None
    order = ctx.pick(orders)
    options = cards(order)[:MOST_CANDIDATES]
    if len({m.last_four for m in options}) < len(options):
        return None
    new = ctx.pick(options)
    old_name, new_name = s.method_name(order.payment_method_id), s.method_name(new.id)
    piece = Piece(
        request=ctx.say("req_pay_with_a_card", order_id=order.id),
        goal=f"Pay pending order {order.id} with one of your credit cards instead: the one ending in {new.last_four}.",
        steps=[
            Step(calls=[call("get_order_details", order_id=order.id), call("list_payment_methods", customer_id=order.customer_id)]),
            Step(
                calls=[call("modify_pending_order_payment", order_id=order.id, payment_method_id=new.id)],
                confirm=(f"pay order {order.id} with your {new_name}: {money(order.total)} is charged to it "
                         f"and refunded to your {old_name}"),  # fmt: skip
            ),
        ],
        reply=Utterance(intent="reply_order_payment", vars={"order_id": order.id, "method": new_name, "old_method": old_name,
                                                            "amount": order.total}),  # fmt: skip
        outputs=[money(order.total)],
        facts=[order_fact(order.id)],
        keys=frozenset({order.id, order.payment_method_id, *(m.id for m in options)}),
        subject=order.customer_id,
        order_id=order.id,
    )
    return ask_which(
        piece, label="card", what="credit cards on your account", options=[m.last_four for m in options],
        described=[s.method_name(m.id) for m in options], answer=f"the one ending in {new.last_four}", question="ask_pick",
    )  # fmt: skip


CHOICES = (cancel_which, return_by_item, pay_with_which_card)
LOOKUPS = (latest_action, return_by_item, cancel_which)
