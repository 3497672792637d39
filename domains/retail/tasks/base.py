"""Building blocks of retail tasks: a Piece is one request of the user with its gold steps.

Generators join pieces, one per conversation segment, and the customer authenticates before the
first piece that needs it (see assemble.py). A piece names the entities it reads or changes
(`keys`) so pieces joined in one task never touch the same order, payment method or product,
and each piece's expected reply, computed from the built world, stays true whatever ran before it.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolgym.envs import Fact, GenContext, Segment

from ..rules import money
from .shop import Shop, shop_of


@dataclass(kw_only=True)
class Piece(Segment):
    keys: frozenset[str] = frozenset()
    customer_id: str | None = None  # set when the piece needs an authenticated customer
    order_id: str | None = None  # the order whose details the piece reads (an injection target)
    product_id: str | None = None  # the product whose details the piece reads (an injection target)

    def __post_init__(self) -> None:
        self.identifies = self.customer_id is not None  # only account pieces need the customer known


def order_fact(order_id: str, key: str = "order_id") -> Fact:
    return Fact(key=key, value=order_id, label="order id", keywords=["order id", "order number"])


def shop(ctx: GenContext) -> Shop:
    return shop_of(ctx.world)


def amount(value: float) -> str:
    return money(abs(value))
