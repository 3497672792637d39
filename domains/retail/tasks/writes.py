"""Pieces that change the world: each reads what the policy needs checked, then makes one confirmed write."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from toolgym.envs import Fact, GenContext, Step, Utterance, call, money, pieces, structures
from toolgym.envs.phrasing import join_words

from ..access import options_of
from ..rules import CANCEL_REASONS
from ..tables import OrderBase, OrderItemBase, PaymentMethodBase, VariantBase
from .base import (
    Builder,
    Piece,
    amount,
    any_customer,
    clause,
    details,
    details_and_methods,
    item_text,
    order_piece,
    shop,
)
from .places import new_address

ASK_SHARE = 0.75  # changes asked for without a value only the customer can give (a reason, an address, a card)
_REASON_INTENTS = {
    "no longer needed": "say_reason_no_longer_needed",
    "ordered by mistake": "say_reason_ordered_by_mistake",
}


def _pick_order(ctx: GenContext, candidates, customer_id: str | None):
    """One of the candidate orders (of `customer_id` when given), or None when there is none."""
    orders = [o for o in candidates if o.customer_id == customer_id] if customer_id else candidates
    return ctx.pick(orders) if orders else None


def _figure(value: float) -> str:
    """A price as the tools show it, for a calculator expression."""
    return f"{value:.2f}"


def _one_by_one(changes: list[str]) -> str:
    """Item changes in one clause. Options hold commas ("blue, 300 lumen"), so a bare comma or a
    semicolon between two changes blurs where one ends: "..., and the 10-inch Tablet from ..."."""
    if len(changes) <= 2:
        return ", and ".join(changes)
    return "; ".join(changes[:-1]) + "; and " + changes[-1]


def _settled(value: float, method: str) -> str:
    """What happens to a price difference, in the words of a confirmation."""
    if value > 0:
        return f"the difference of {amount(value)} is charged to your {method}"
    if value < 0:
        return f"the difference of {amount(value)} is refunded to your {method}"
    return "there is no price difference"


def _difference(value: float) -> dict[str, object]:
    """How a price difference reads: its size, and whether it is charged or refunded."""
    direction = "charged to" if value > 0 else "refunded to" if value < 0 else "none"
    return {"difference": abs(round(value, 2)), "direction": direction}


def cancel(ctx: GenContext, customer_id: str | None, order: OrderBase | None = None) -> Piece | None:
    s = shop(ctx)
    order = order or _pick_order(ctx, s.pending, customer_id)
    if order is None:
        return None
    reason = ctx.pick(CANCEL_REASONS)
    method = s.method_name(order.payment_method_id)
    ask = ctx.rng.random() < ASK_SHARE
    why = Fact(key="cancel_reason", value=reason, label="reason for cancelling", keywords=["reason", "why"])
    return order_piece(
        order,
        request=ctx.say("req_cancel_ask", order_id=order.id) if ask else ctx.say("req_cancel", order_id=order.id, reason=clause(ctx, _REASON_INTENTS[reason])),
        goal=f"Cancel order {order.id}; the reason is that it is {reason}.",
        steps=[
            details_and_methods(order),
            Step(
                calls=[call("cancel_pending_order", order_id=order.id, reason=reason)],
                needs=[why.key],
                confirm=f"cancel order {order.id} (reason: {reason}); {money(order.total)} goes back to your {method}",
            ),
        ],
        reply=Utterance(
            intent="reply_cancelled", vars={"order_id": order.id, "amount": order.total, "method": method}
        ),
        outputs=[money(order.total)],
        keys={order.payment_method_id},
        facts=[why],
        withheld=[why.key] if ask else [],
    )


def modify_address(ctx: GenContext, customer_id: str | None, order: OrderBase | None = None) -> Piece | None:
    """A pending order shipped elsewhere; `order`: this one (a second try after a change of mind)."""
    order = order or _pick_order(ctx, shop(ctx).modifiable, customer_id)
    if order is None:
        return None
    address = new_address(ctx.rng)
    withhold = ctx.rng.random() < ASK_SHARE
    fact = address.fact("new_shipping_address", "new shipping address")
    request = (
        ctx.say("req_modify_address_ask", order_id=order.id)
        if withhold
        else ctx.say("req_modify_address", order_id=order.id, address=address.text())
    )
    return order_piece(
        order,
        request=request,
        goal=f"Have pending order {order.id} shipped to {address.text()} instead.",
        steps=[
            details(order.id),
            Step(
                calls=[call("modify_pending_order_address", order_id=order.id, **address.arguments())],
                needs=[fact.key],
                confirm=f"change the shipping address of order {order.id} to {address.text()}",
            ),
        ],
        reply=Utterance(intent="reply_order_address", vars={"order_id": order.id, "address": address.text()}),
        outputs=[address.address1],
        facts=[fact],
        withheld=[fact.key] if withhold else [],
    )


def modify_payment(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    order = _pick_order(ctx, s.payment_switchable, customer_id)
    if order is None:
        return None
    new = ctx.pick(s.other_payments(order))
    old_name, new_name = s.method_name(order.payment_method_id), s.method_name(new.id)
    ask = ctx.rng.random() < ASK_SHARE
    wanted = Fact(key="new_payment_method", value=s.method_phrase(new.id, "the"), label="payment method to use",
                  keywords=["payment method", "which method", "pay with"])  # fmt: skip
    return order_piece(
        order,
        request=ctx.say("req_modify_payment_ask", order_id=order.id) if ask else ctx.say("req_modify_payment", order_id=order.id, method=s.method_phrase(new.id)),
        goal=f"Pay pending order {order.id} with {s.method_phrase(new.id, 'your')} instead.",
        steps=[
            details_and_methods(order),
            Step(
                calls=[call("modify_pending_order_payment", order_id=order.id, payment_method_id=new.id)],
                needs=[wanted.key],
                confirm=(
                    f"pay order {order.id} with your {new_name}: {money(order.total)} is charged to it "
                    f"and refunded to your {old_name}"
                ),
            ),
        ],
        reply=Utterance(
            intent="reply_order_payment",
            vars={"order_id": order.id, "method": new_name, "old_method": old_name, "amount": order.total},
        ),
        outputs=[money(order.total)],
        keys={order.payment_method_id, new.id},
        facts=[wanted],
        withheld=[wanted.key] if ask else [],
    )


@dataclass
class _Swap:
    """Items of an order going to other options of their products, and the method settling the difference."""

    order: OrderBase
    items: list[OrderItemBase]
    variants: list[VariantBase]
    difference: float
    method: PaymentMethodBase
    changes: list[dict[str, str]]
    products: list[str]

    @property
    def to_gift_card(self) -> bool:
        return self.method.kind == "gift_card" and self.method.id != self.order.payment_method_id

    def difference_expression(self) -> str:
        """The sum that gives the size of the price difference (what is charged, or refunded),
        from the prices the agent has read."""
        new = [_figure(v.price) for v in self.variants]
        old = [_figure(i.price) for i in self.items]
        more, less = (old, new) if self.difference < 0 else (new, old)
        return " - ".join([" + ".join(more), *less])

    def total_expression(self) -> str:
        changed = [*(_figure(v.price) for v in self.variants)]
        return " - ".join([" + ".join([_figure(self.order.total), *changed]), *(_figure(i.price) for i in self.items)])

    def steps(self, tool: str, confirm: str, *, with_total: bool = False) -> list[Step]:
        """Read the order and the payment methods, read the products the new options belong to,
        work out the difference (and the new total) with the calculator, then make the swap."""
        swap = call(
            tool,
            order_id=self.order.id,
            item_ids=[i.id for i in self.items],
            new_variant_ids=[v.id for v in self.variants],
            payment_method_id=self.method.id,
        )
        sums = [call("calculate", expression=self.difference_expression())]
        if with_total:
            sums.append(call("calculate", expression=self.total_expression()))
        return [
            details_and_methods(self.order),
            Step(calls=[call("get_product_details", product_id=p) for p in self.products]),
            Step(calls=sums),
            Step(calls=[swap], confirm=confirm),
        ]

    def keys(self) -> set[str]:
        return {self.method.id, *(f"product:{p}" for p in self.products)}


def _swap(
    ctx: GenContext, s, candidates, customer_id: str | None, *, like: _Swap | None = None
) -> _Swap | None:
    """One or two items of a candidate order swapped for other orderable options; None if none can be settled.

    `like`: the same order and items as that swap, each to another option than it chose (a change of mind)."""
    if like is not None:
        order, items = like.order, like.items
        others = [[v for v in s.alternatives(i) if v.id != chosen.id] for i, chosen in zip(items, like.variants, strict=True)]
        if not all(others):
            return None
        variants = [ctx.pick(o) for o in others]
        return _settled_swap(ctx, s, order, items, variants)
    order = _pick_order(ctx, candidates, customer_id)
    if order is None:
        return None
    swappable = [i for i in s.items[order.id] if s.alternatives(i)]
    count = 1 if len(swappable) == 1 or ctx.rng.random() < 0.7 else 2
    items = ctx.rng.sample(swappable, count)
    variants = [ctx.pick(s.alternatives(i)) for i in items]
    return _settled_swap(ctx, s, order, items, variants)


def _settled_swap(ctx: GenContext, s, order: OrderBase, items: list[OrderItemBase], variants: list[VariantBase]) -> _Swap | None:
    if sorted(v.id for v in variants) == sorted(i.variant_id for i in items):
        return None  # two items of one product swapped into each other's options: the order would not change
    difference = round(sum(v.price for v in variants) - sum(i.price for i in items), 2)
    method = _settlement(ctx, s, order, difference)
    if method is None:
        return None
    changes = [
        {"name": i.name, "old": i.options, "new": ", ".join(options_of(v).values())}
        for i, v in zip(items, variants, strict=True)
    ]
    products = list(dict.fromkeys(i.product_id for i in items))
    return _Swap(order, items, variants, difference, method, changes, products)


def _settlement(ctx: GenContext, s, order, difference: float):
    """Where a price difference goes: the original method, or the customer's gift card if it can pay."""
    card = s.gift_card_of(order.customer_id)
    usable = card is not None and card.id != order.payment_method_id and (card.balance or 0) >= difference
    if usable and ctx.rng.random() < 0.3:
        return card
    original = s.methods[order.payment_method_id]
    if original.kind == "gift_card" and (original.balance or 0) < difference:
        return card if usable else None  # the original gift card cannot pay the difference
    return original


MOST_OPTIONS = 6  # a question naming more options than this would not read as a question


def _option_asked(ctx: GenContext, swap: _Swap, like: _Swap | None) -> bool:
    """Whether a one-item swap leaves the new option out of the request (the customer says "another
    option" and picks one when asked, after the agent has read the product's options)."""
    if like is not None or len(swap.changes) != 1:
        return False
    return 2 <= len(shop(ctx).alternatives(swap.items[0])) <= MOST_OPTIONS and ctx.rng.random() < ASK_SHARE


def _which_option(ctx: GenContext, piece: Piece, swap: _Swap) -> Piece:
    """The piece asking which of the item's other options the customer wants, once the product is read:
    the step after the product read (the sums for the new option, or the change) waits for the pick."""
    others = shop(ctx).alternatives(swap.items[0])
    named = {v.id: " / ".join(options_of(v).values()) for v in others}  # "black / 9": a list of them reads clearly
    priced = [f"{named[v.id]} ({money(v.price)})" for v in others]  # the price helps the pick, as the product read shows it
    at = 1 + next(i for i, s in enumerate(piece.steps) if any(c.name == "get_product_details" for c in s.calls))
    return structures.ask_which(piece, label="option", what=f"other options of the {swap.changes[0]['name']}", options=list(named.values()),
                                described=priced, answer=named[swap.variants[0].id], step=at, question="ask_pick")  # fmt: skip


def modify_items(ctx: GenContext, customer_id: str | None, like: _Swap | None = None) -> Piece | None:
    s = shop(ctx)
    swap = _swap(ctx, s, s.item_swappable, customer_id, like=like)
    if swap is None:
        return None
    order = swap.order
    total = round(order.total + swap.difference, 2)
    said = _one_by_one([f"the {c['name']} from {c['old']} to {c['new']}" for c in swap.changes])
    method = s.method_name(swap.method.id)
    ask = _option_asked(ctx, swap, like)
    piece = order_piece(
        order,
        request=ctx.say("req_modify_items_ask" if ask else "req_modify_items", order_id=order.id, changes=swap.changes, gift_card=swap.to_gift_card),
        goal=f"In pending order {order.id}, change {said}.",
        steps=swap.steps(
            "modify_pending_order_items",
            f"change {said} in order {order.id}; the new total is {money(total)} and {_settled(swap.difference, method)}",
            with_total=True,
        ),
        reply=Utterance(
            intent="reply_items_modified",
            vars={
                "order_id": order.id,
                "changes": swap.changes,
                "total": total,
                "method": method,
                **_difference(swap.difference),
            },
        ),
        outputs=[money(total)],
        keys=swap.keys(),
        chosen=swap,
    )
    return _which_option(ctx, piece, swap) if ask else piece


def _refund_sum(items: list[OrderItemBase], order: OrderBase) -> list[Step]:
    """The calculator adds up the prices of several returned items, unless they make the whole order."""
    if len(items) < 2 or round(sum(i.price for i in items), 2) == order.total:
        return []
    return [Step(calls=[call("calculate", expression=" + ".join(_figure(i.price) for i in items))])]


def return_items(
    ctx: GenContext, customer_id: str | None, *, to_card: bool | None = None, like: Piece | None = None
) -> Piece | None:
    """Items of a delivered order returned; `to_card` forces where the refund goes (None: drawn), and
    `like` returns the same items of the same order as that piece (a change of mind about the refund)."""
    s = shop(ctx)
    order = s.orders[like.order_id] if like is not None and like.order_id else _pick_order(ctx, s.returnable, customer_id)
    if order is None:
        return None
    items = s.items[order.id]
    chosen = list(like.chosen) if like is not None else ctx.rng.sample(items, ctx.rng.randint(1, len(items)))
    card = s.gift_card_of(order.customer_id)
    usable = card is not None and card.id != order.payment_method_id
    if to_card is None:
        to_card = usable and ctx.rng.random() < 0.35
    elif to_card and not usable:
        return None
    method = card if to_card and card else s.methods[order.payment_method_id]
    refund = round(sum(i.price for i in chosen), 2)
    names = [item_text(i) for i in chosen]
    # with a gift card beside the original method, where the refund goes is the customer's to say
    ask = usable and like is None and ctx.rng.random() < ASK_SHARE
    where = Fact(key="refund_to", value="my gift card" if to_card else "the original payment method",
                 label="preferred refund method", keywords=["refund", "gift card", "original payment"])  # fmt: skip
    return order_piece(
        order,
        request=ctx.say("req_return_ask", order_id=order.id, items=names) if ask else ctx.say("req_return", order_id=order.id, items=names, gift_card=to_card),
        goal=f"Return {join_words(names)} from order {order.id}"
        + (
            " with the refund on your gift card."
            if to_card
            else " with the refund to the original payment method."
        ),
        steps=[
            details_and_methods(order),
            *_refund_sum(chosen, order),
            Step(
                calls=[
                    call(
                        "return_delivered_order_items",
                        order_id=order.id,
                        item_ids=[i.id for i in chosen],
                        payment_method_id=method.id,
                    )
                ],
                needs=[where.key] if ask else [],
                confirm=(
                    f"return {join_words(names)} from order {order.id} and refund {money(refund)} to your "
                    f"{s.method_name(method.id)}"
                ),
            ),
        ],
        reply=Utterance(
            intent="reply_returned",
            vars={"order_id": order.id, "items": names, "amount": refund, "method": s.method_name(method.id)},
        ),
        outputs=[money(refund)],
        keys={method.id},
        chosen=chosen,
        facts=[where] if ask else [],
        withheld=[where.key] if ask else [],
    )


def exchange_items(ctx: GenContext, customer_id: str | None, like: _Swap | None = None) -> Piece | None:
    s = shop(ctx)
    swap = _swap(ctx, s, s.exchangeable, customer_id, like=like)
    if swap is None:
        return None
    order = swap.order
    said = _one_by_one([f"the {c['name']} in {c['old']} for {c['new']}" for c in swap.changes])
    method = s.method_name(swap.method.id)
    ask = _option_asked(ctx, swap, like)
    piece = order_piece(
        order,
        request=ctx.say("req_exchange_ask" if ask else "req_exchange", order_id=order.id, changes=swap.changes, gift_card=swap.to_gift_card),
        goal=f"From delivered order {order.id}, exchange {said}.",
        steps=swap.steps("exchange_delivered_order_items", f"exchange {said} from order {order.id}; {_settled(swap.difference, method)}"),
        reply=Utterance(
            intent="reply_exchanged",
            vars={"order_id": order.id, "changes": swap.changes, "method": method, **_difference(swap.difference)},
        ),
        outputs=[order.id, *([amount(swap.difference)] if swap.difference else [])],
        keys=swap.keys(),
        chosen=swap,
    )
    return _which_option(ctx, piece, swap) if ask else piece


def update_address(ctx: GenContext, customer_id: str | None, withhold_share: float = 0.5) -> Piece | None:
    """The account's default address changed; the user gives the new one only when asked in `withhold_share`."""
    customer_id = customer_id or any_customer(ctx)
    address = new_address(ctx.rng)
    withhold = ctx.rng.random() < withhold_share
    fact = address.fact("new_default_address", "new default address")
    return Piece(
        request=ctx.say("req_update_address_ask")
        if withhold
        else ctx.say("req_update_address", address=address.text()),
        goal=f"Change the default address on your account to {address.text()}.",
        steps=[
            Step(
                calls=[call("update_customer_address", customer_id=customer_id, **address.arguments())],
                needs=[fact.key],
                confirm=f"change the default address of your account to {address.text()}",
            )
        ],
        reply=Utterance(intent="reply_account_address", vars={"address": address.text()}),
        outputs=[address.address1],
        facts=[fact],
        withheld=[fact.key] if withhold else [],
        keys=frozenset({f"address:{customer_id}"}),
        subject=customer_id,
    )


def transfer(ctx: GenContext, customer_id: str | None) -> Piece | None:
    s = shop(ctx)
    order = _pick_order(ctx, [o for o in s.orders.values() if o.status == "delivered"], customer_id)
    if order is None:
        return None
    item = ctx.pick(s.items[order.id])
    damaged = ctx.rng.random() < 0.6
    reason = "damaged or defective item" if damaged else "missing package"
    request = (
        ctx.say("req_damaged", order_id=order.id, item=item.name)
        if damaged
        else ctx.say("req_missing_package", order_id=order.id)
    )
    return order_piece(
        order,
        request=request,
        goal=(
            f"Report that the {item.name} from order {order.id} arrived damaged and get help from a person."
            if damaged
            else f"Report that order {order.id} is marked delivered but never arrived, and get help from a person."
        ),
        steps=[
            details(order.id),
            Step(calls=[call("transfer_to_human_agent", customer_id=order.customer_id, reason=reason)]),
        ],
        reply=Utterance(intent="reply_transferred", vars={"ticket": "ESC00001"}),
        outputs=["ESC00001"],
        keys={"escalation"},
    )


def declined(ctx: GenContext, piece: pieces.Piece) -> pieces.Piece:
    """The same request, but the user says no when asked to confirm: the gold makes no change and
    the reply says the order stays as it is (its id and status, read before asking)."""
    write = piece.steps[-1]
    if not isinstance(piece, Piece) or piece.order_id is None or not write.confirm:
        return piece
    order = shop(ctx).orders[piece.order_id]
    changes: dict[str, Any] = {  # Segment's fields, which mypy cannot see through the engine's import
        "steps": [*piece.steps[:-1], write.model_copy(update={"declined": True})],
        "reply": Utterance(intent="reply_declined", vars={"order_id": order.id, "status": order.status}),
        "outputs": [order.id, order.status],
        "goal": f"{piece.goal} When asked to confirm, change your mind and say no.",
    }
    return replace(piece, **changes)


def maybe_declined(ctx: GenContext, piece: pieces.Piece, share: float = 0.15) -> pieces.Piece:
    """Now and then, a user who turns the change down when asked to confirm."""
    return declined(ctx, piece) if ctx.rng.random() < share else piece


WRITES: tuple[Builder, ...] = (
    cancel,
    modify_address,
    modify_payment,
    modify_items,
    return_items,
    exchange_items,
    update_address,
    transfer,
)
WRITE_WEIGHTS = (3, 2, 2, 3, 3, 3, 2, 1)
