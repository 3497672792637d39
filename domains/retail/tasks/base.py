"""Building blocks of retail tasks: a Piece is one request of the user with its gold steps.

Generators join pieces, one per conversation segment, and the customer authenticates before the
first piece that needs it (its `subject`, see identity.py). A piece names the entities it reads
or changes (`keys`) so pieces joined in one task never touch the same order, payment method or
product, and each piece's expected reply, computed from the built world, stays true whatever ran
before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from toolgym.envs import Fact, GenContext, Step, call, money, pieces

from ..tables import OrderBase, OrderItemBase
from .shop import Shop, shop_of


@dataclass(kw_only=True)
class Piece(pieces.Piece):
    """The engine's piece, with what an injection can be planted in."""

    order_id: str | None = None  # the order whose details the piece reads
    product_id: str | None = None  # the product whose details the piece reads
    chosen: Any = None  # what the piece drew (an exchange's swap, a return's items): a change of mind redraws from it


# a builder makes a piece for the given customer (any customer: None), or None when it has nothing
Builder = Callable[[GenContext, str | None], pieces.Piece | None]


def order_fact(order_id: str, key: str = "order_id") -> Fact:
    return Fact(key=key, value=order_id, label="order id", keywords=["order id", "order number"])


def about_order(
    order: OrderBase, *, facts: Iterable[Fact] = (), keys: Iterable[str] = (), customer_id: str | None = None
) -> dict[str, Any]:
    """The fields of a piece about one order: the user names it, it is a key of the piece, and
    the customer is the order's unless another one asks (`customer_id`)."""
    return {
        "facts": [order_fact(order.id), *facts],
        "keys": frozenset({order.id, *keys}),
        "subject": customer_id or order.customer_id,
    }


def order_piece(
    order: OrderBase, *, facts: Iterable[Fact] = (), keys: Iterable[str] = (), customer_id: str | None = None, **fields: Any
) -> Piece:
    """A piece about one order (see `about_order`) whose note can carry an injection."""
    return Piece(**about_order(order, facts=facts, keys=keys, customer_id=customer_id), order_id=order.id, **fields)


def item_text(item: OrderItemBase) -> str:
    """How an item of an order is named in a sentence: 'the T-Shirt (red, L)'."""
    return f"the {item.name} ({item.options})"


def any_customer(ctx: GenContext) -> str:
    """A customer with orders, for a piece drawn without one."""
    return ctx.pick(shop(ctx).customers_with_orders)


def card_number(gift_card_id: str) -> str:
    """The number printed on a gift card, as its holder says it: the id without 'gift_card_' (see the policy)."""
    return gift_card_id.removeprefix("gift_card_")


def details(order_id: str) -> Step:
    return Step(calls=[call("get_order_details", order_id=order_id)])


def details_and_methods(order: OrderBase) -> Step:
    """The order and its customer's payment methods, read together: an order shows only the id of
    the method that paid it, and the agent names a method by brand and last four digits."""
    return Step(
        calls=[call("get_order_details", order_id=order.id), call("list_payment_methods", customer_id=order.customer_id)]
    )


def shop(ctx: GenContext) -> Shop:
    return shop_of(ctx.world)


def clause(ctx: GenContext, intent: str, **values: Any) -> str:
    """A phrasing said inside a sentence ("..., it's no longer needed"): the polish capitalises
    an utterance's first word, which mid-sentence only "I" keeps."""
    text = ctx.say(intent, **values)
    keep = text[:2] in ("I ", "I'") or text[:2].isupper()
    return text if keep else text[:1].lower() + text[1:]


def amount(value: float) -> str:
    return money(abs(value))
