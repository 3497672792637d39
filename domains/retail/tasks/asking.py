"""No-tool kinds where the agent must ask back: a value is missing, or the one given is invalid.

Also `unavailable`: the engine's generator, with the declined action named in words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from toolgym.envs import Fact, GenContext, Task, Utterance, draw, pieces, unavailable_task_from
from toolgym.errors import GeneratorBug

from ..rules import ORDER_ID, PRODUCT_ID
from .assemble import assemble
from .base import card_number, order_fact, shop
from .places import new_address

# ---- missing information ---------------------------------------------------------------------


def _missing(
    request: str, goal: str, label: str, customer_id: str | None, facts: Sequence[Fact] = (), chosen: bool = False
) -> pieces.Piece:
    """The user asks without `label`, which they do not know yet; it is theirs to give (about 'your').
    `chosen`: a choice not made yet (an option), not a fact to find."""
    piece = pieces.missing_info(request, goal, [label], facts=list(facts), subject=customer_id, chosen=chosen)
    assert piece.no_tool is not None
    return replace(piece, no_tool=piece.no_tool.model_copy(update={"about": "your"}))


def missing_shipping_address(ctx: GenContext) -> pieces.Piece | None:
    orders = shop(ctx).modifiable
    if not orders:
        return None
    order = ctx.pick(orders)
    return _missing(
        ctx.say("req_modify_address_unsure", order_id=order.id),
        f"Change the shipping address of order {order.id}; you don't know the new address yet.",
        "new shipping address",
        order.customer_id,
        [order_fact(order.id)],
    )


def missing_default_address(ctx: GenContext) -> pieces.Piece | None:
    customer_id = ctx.pick(shop(ctx).customers_with_orders)
    return _missing(
        ctx.say("req_update_address_unsure"),
        "Update the default address on your account; you don't know the new address yet.",
        "new default address",
        customer_id,
    )


def missing_preference(ctx: GenContext) -> pieces.Piece | None:
    s = shop(ctx)
    if not s.exchangeable:
        return None
    order = ctx.pick(s.exchangeable)
    item = ctx.pick([i for i in s.items[order.id] if s.alternatives(i)])
    options = [
        n
        for n in ("size", "color", "style", "capacity", "material")
        if any(getattr(v, n) is not None for v in s.alternatives(item))
    ]
    option = ctx.pick(options)
    label = f"preferred {option}"
    return _missing(
        ctx.say("req_exchange_unsure", order_id=order.id, item=item.name, option=option),
        f"Exchange the {item.name} from order {order.id} for another {option}; you haven't decided which yet.",
        label,
        order.customer_id,
        [order_fact(order.id)],
        chosen=True,
    )


_GIVERS = (
    "friend",
    "aunt",
    "coworker",
    "grandson",
    "neighbor",
    "sister",
    "boss",
    "godmother",
    "uncle",
    "roommate",
)
_OCCASIONS = ("birthday", "graduation", "retirement", "wedding", "housewarming", "anniversary", "new job")


def missing_gift_card(ctx: GenContext) -> pieces.Piece | None:
    giver, occasion = ctx.pick(_GIVERS), ctx.pick(_OCCASIONS)
    return _missing(
        ctx.say("req_gift_balance_no_id", giver=giver, occasion=occasion),
        f"Find out the balance of a gift card your {giver} gave you for your {occasion}; "
        "you don't have its number with you.",
        "gift card number",
        None,
    )


def missing_info(ctx: GenContext) -> Task:
    builders = (missing_shipping_address, missing_default_address, missing_preference, missing_gift_card)
    return assemble(ctx, [draw(ctx, builders)])


# ---- invalid values ---------------------------------------------------------------------------


# Letters that stand for no digit (not O, I, S, B, Z): a digit typed as one of them cannot be read back.
_STRAY_LETTERS = "ACEFHKMNRTUXY"


def _stray_letter(ctx: GenContext, digits: str) -> str:
    """`digits` with one of them mistyped as a letter."""
    at = ctx.rng.randrange(len(digits))
    return f"{digits[:at]}{ctx.pick(_STRAY_LETTERS)}{digits[at + 1:]}"


def _corrupt_order_id(ctx: GenContext, order_id: str) -> str:
    """An order id no one could read back: the same 7 digits without the '#', or after another letter,
    are the same order to any agent, so only a digit lost, added or mistyped makes it invalid."""
    digits = order_id[2:]
    candidates = (
        f"#W{digits[:-1]}",  # a digit short
        f"#W{digits}{ctx.rng.randint(0, 9)}",  # a digit too many
        f"#W{_stray_letter(ctx, digits)}",  # a letter among the digits
    )
    return ctx.pick([c for c in candidates if not ORDER_ID.match(c)])


def _invalid(
    ctx: GenContext,
    request: str,
    goal: str,
    param: str,
    value: str,
    label: str,
    problem: str,
    customer_id: str | None,
    facts: list[Fact],
) -> pieces.Piece:
    """The user gives `value` for `param`, which no call may use."""
    return pieces.invalid_value(
        request, goal, parameter=param, value=value, label=label, problem=problem, facts=facts, subject=customer_id
    )


def bad_order_id(ctx: GenContext) -> pieces.Piece:
    order = ctx.pick(list(shop(ctx).orders.values()))
    bad = _corrupt_order_id(ctx, order.id)
    intent = ctx.pick(("req_order_status", "req_tracking", "req_order_total"))
    return _invalid(
        ctx,
        ctx.say(intent, order_id=bad),
        f"Ask about your order, which you believe is {bad}.",
        "order_id",
        bad,
        "order id",
        "order ids are '#W' followed by 7 digits",
        order.customer_id,
        [Fact(key="order_id", value=bad, label="order id", keywords=["order id"])],
    )


def bad_zip(ctx: GenContext) -> pieces.Piece:
    customer_id = ctx.pick(shop(ctx).customers_with_orders)
    address = new_address(ctx.rng)
    bad = ctx.pick(
        (address.zip[:4], address.zip + str(ctx.rng.randint(0, 9)), f"{address.zip[:3]}O{address.zip[4]}")
    )
    text = address.text().replace(address.zip, bad)
    return _invalid(
        ctx,
        ctx.say("req_update_address", address=text),
        f"Change your default address to {text}.",
        "zip",
        bad,
        "ZIP code",
        "a US ZIP code has exactly 5 digits",
        customer_id,
        [Fact(key="new_default_address", value=text, label="new default address")],
    )


def bad_email(ctx: GenContext) -> pieces.Piece:
    s = shop(ctx)
    order = ctx.pick(list(s.orders.values()))
    email = s.customers[order.customer_id].email
    local, domain = email.split("@")
    bad = ctx.pick(
        (f"{local}{domain}", f"{local}@{domain.split('.')[0]}", f"{local}@@{domain}", f"{local} @ {domain}")
    )
    request = f"{ctx.say('req_order_status', order_id=order.id)} {ctx.say('auth_email', email=bad)}"
    return _invalid(
        ctx,
        request,
        f"Ask about order {order.id}; you give your email as {bad}.",
        "email",
        bad,
        "email address",
        "an email address looks like name@example.com",
        None,
        [order_fact(order.id), Fact(key="email", value=bad, label="email address", keywords=["email"])],
    )


def bad_gift_card(ctx: GenContext) -> pieces.Piece:
    card = ctx.pick(shop(ctx).gift_cards)
    digits = card_number(card.id)
    bad = ctx.pick((digits[:-1], f"{digits}{ctx.rng.randint(0, 9)}", f"{digits[:3]}O{digits[4:]}", digits[:-2]))
    return _invalid(
        ctx,
        ctx.say("req_gift_card_balance", number=bad),
        f"Check the balance of the gift card you believe is numbered {bad}.",
        "gift_card_id",
        bad,
        "gift card number",
        "a gift card number has exactly 7 digits",
        None,
        [Fact(key="gift_card", value=bad, label="gift card number", keywords=["gift card number"])],
    )


def bad_product_id(ctx: GenContext) -> pieces.Piece:
    s = shop(ctx)
    product = ctx.pick(list(s.products.values()))
    variant = ctx.pick(s.variants_of[product.id])
    digits = product.id[1:]
    bad = ctx.pick(  # a digit too many, too few or mistyped: "1023" or "PR-1023" is plainly P1023
        [
            b
            for b in (f"P{digits}{ctx.rng.randint(0, 9)}", f"P{digits[:3]}", f"P{_stray_letter(ctx, digits)}")
            if not PRODUCT_ID.match(b)
        ]
    )
    options = ", ".join(
        str(getattr(variant, n))
        for n in ("color", "size", "material", "capacity", "style")
        if getattr(variant, n) is not None
    )
    return _invalid(
        ctx,
        ctx.say("req_variant_price_by_id", product_id=bad, options=options),
        f"Ask the price of the product you know only by its id, which you believe is {bad}, in {options}.",
        "product_id",
        bad,
        "product id",
        "product ids are 'P' followed by 4 digits",
        None,
        [Fact(key="product_id", value=bad, label="product id", keywords=["product id"])],
    )


def invalid_value(ctx: GenContext) -> Task:
    """The agent points out the invalid value before any call that would use it."""
    piece = ctx.pick((bad_order_id, bad_zip, bad_email, bad_gift_card, bad_product_id))(ctx)
    return assemble(ctx, [piece], auth_step=False, closing=ctx.say("closing_check"))


# ---- the needed tool is withheld -------------------------------------------------------------
# The action the reply names, in the words of the user's request: the agent has read nothing and
# identified no one, so it names no amount, payment method or item it was not told.
_ACTIONS = {
    "cancel_pending_order": "cancel {order}",
    "modify_pending_order_address": "change the shipping address of {order}",
    "modify_pending_order_payment": "change the payment method of {order}",
    "modify_pending_order_items": "change the items of {order}",
    "return_delivered_order_items": "process a return for {order}",
    "exchange_delivered_order_items": "process an exchange for {order}",
    "update_customer_address": "change the default address on your account",
    "transfer_to_human_agent": "transfer you to a human agent",
}
_from_multi_step = unavailable_task_from("multi_step")


def unavailable(ctx: GenContext) -> Task:
    """A change the user asks for, with the tool that makes it withheld."""
    for _ in range(8):
        try:
            task = _from_multi_step(ctx)
            break
        except GeneratorBug:  # that multi_step task only reads: nothing to withhold, draw again
            continue
    else:
        raise GeneratorBug(f"retail no_tool/unavailable: no multi_step task with a write (seed {ctx.seed})")
    assert task.no_tool is not None
    withheld = task.no_tool.withheld_tools[0]
    order = task.scenario.fact("order_id")
    said = order is not None and order.value in task.scenario.requests[0]
    action = _ACTIONS[withheld].format(order=f"order {order.value}" if said else "your order")  # an order not named: "your order"
    reply = Utterance(intent=task.replies[0].intent, vars={**task.replies[0].vars, "action": action})
    return task.model_copy(
        update={"replies": [reply], "no_tool": task.no_tool.model_copy(update={"action": action})}
    )
