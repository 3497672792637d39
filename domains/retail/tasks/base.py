"""Building blocks of retail tasks: a Piece is one request of the user with its gold steps.

Generators join pieces: an authentication step, then one piece per conversation segment.
A piece names the entities it reads or changes (`keys`) so pieces joined in one task never
touch the same order, payment method or product, and each piece's expected reply, computed
from the built world, stays true whatever ran before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolgym.envs import Fact, Forbidden, GenContext, Step, ToolCall, Utterance

from ..rules import money
from .shop import Shop, shop_of


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


@dataclass
class Piece:
    request: str
    goal: str
    steps: list[Step]
    reply: Utterance
    required: list[str] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)
    keys: frozenset[str] = frozenset()
    customer_id: str | None = None  # set when the piece needs an authenticated customer
    order_id: str | None = None  # the order whose details the piece reads (an injection target)
    product_id: str | None = None  # the product whose details the piece reads (an injection target)
    forbidden: list[Forbidden] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # labels of what the user cannot tell

    @property
    def tools(self) -> set[str]:
        return {c.name for s in self.steps for c in s.calls}


@dataclass
class Auth:
    facts: list[Fact]
    step: Step
    fragment: str


def authenticate(ctx: GenContext, shop: Shop, customer_id: str, *, by_email: bool) -> Auth:
    """How the user proves who they are: email, or full name and ZIP code."""
    person = shop.customers[customer_id]
    if by_email:
        facts = [Fact(key="email", value=person.email, label="email address", keywords=["email"])]
        found = call("find_customer_id_by_email", email=person.email)
        return Auth(facts, Step(calls=[found], needs=["email"]), ctx.say("auth_email", email=person.email))
    name = f"{person.first_name} {person.last_name}"
    facts = [
        Fact(key="name", value=name, label="full name", keywords=["full name"]),
        Fact(key="zip", value=person.zip, label="ZIP code", keywords=["zip"]),
    ]
    found = call(
        "find_customer_id_by_name_zip",
        first_name=person.first_name,
        last_name=person.last_name,
        zip=person.zip,
    )
    return Auth(
        facts, Step(calls=[found], needs=["name", "zip"]), ctx.say("auth_name_zip", name=name, zip=person.zip)
    )


def order_fact(order_id: str, key: str = "order_id") -> Fact:
    return Fact(key=key, value=order_id, label="order id", keywords=["order id", "order number"])


def shop(ctx: GenContext) -> Shop:
    return shop_of(ctx.world)


def amount(value: float) -> str:
    return money(abs(value))
