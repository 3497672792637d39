"""What the tools share: checked lookups, input validation and money movements.

Every failed check raises a ToolError that names the bad value and what would be allowed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from toolgym.envs import World
from toolgym.errors import ToolError

from .rules import (
    EMAIL,
    GIFT_CARD_ID,
    OPTION_NAMES,
    ORDER_ID,
    ORDER_ID_EXAMPLE,
    PRODUCT_ID,
    RETURN_WINDOW_DAYS,
    US_STATES,
    ZIP,
    iso,
    within_return_window,
)
from .tables import (
    Customer,
    CustomerBase,
    Order,
    OrderBase,
    OrderItem,
    OrderItemBase,
    PaymentMethod,
    PaymentMethodBase,
    Product,
    ProductBase,
    Transaction,
    Variant,
    VariantBase,
)


# ---- lookups -------------------------------------------------------------------------------
def customer(world: World, customer_id: str) -> CustomerBase:
    return world.require(Customer, customer_id, "customer")


def order(world: World, order_id: str) -> OrderBase:
    if not ORDER_ID.match(order_id):
        raise ToolError(
            f"{order_id!r} is not an order id: order ids are '#W' followed by 7 digits, such as {ORDER_ID_EXAMPLE!r}"
        )
    return world.require(Order, order_id, "order")


def product(world: World, product_id: str) -> ProductBase:
    if not PRODUCT_ID.match(product_id):
        raise ToolError(
            f"{product_id!r} is not a product id: product ids are 'P' followed by 4 digits, such as 'P1024'"
        )
    return world.require(Product, product_id, "product")


def gift_card(world: World, gift_card_id: str) -> PaymentMethodBase:
    if not GIFT_CARD_ID.match(gift_card_id):
        raise ToolError(
            f"{gift_card_id!r} is not a gift card id: gift card ids are 'gift_card_' followed by 7 digits"
        )
    card = world.require(PaymentMethod, gift_card_id, "gift card")
    if card.kind != "gift_card":
        raise ToolError(f"{gift_card_id!r} is a {card.kind}, not a gift card")
    return card


def payment_method_of(world: World, customer_id: str, payment_method_id: str) -> PaymentMethodBase:
    method = world.get(PaymentMethod, payment_method_id)
    if method is None or method.customer_id != customer_id:
        owned = [m.id for m in world.select(PaymentMethod, {"customer_id": customer_id})]
        raise ToolError(
            f"payment method {payment_method_id!r} is not on file for customer {customer_id}; "
            f"their payment methods are: {', '.join(owned)}"
        )
    return method


def order_items(world: World, order_id: str) -> list[OrderItemBase]:
    return world.select(OrderItem, {"order_id": order_id})


def options_of(variant: VariantBase) -> dict[str, str]:
    return {name: value for name in OPTION_NAMES if (value := getattr(variant, name)) is not None}


def variant_view(variant: VariantBase) -> dict[str, Any]:
    return {
        "variant_id": variant.id,
        "options": options_of(variant),
        "price": variant.price,
        "available": variant.available,
        "stock": variant.stock,
    }


# ---- preconditions -------------------------------------------------------------------------
def require_status(found: OrderBase, allowed: str, action: str) -> None:
    if found.status != allowed:
        raise ToolError(f"order {found.id} is {found.status}; only {allowed} orders can {action}")


def require_unmodified(found: OrderBase) -> None:
    require_status(found, "pending", "be modified")
    if found.modified:
        raise ToolError(
            f"order {found.id} has already been modified once; a pending order can be modified only once"
        )


def require_return_window(world: World, found: OrderBase) -> None:
    if not within_return_window(found.delivered_at, world.now):
        raise ToolError(
            f"order {found.id} was delivered on {found.delivered_at}, more than {RETURN_WINDOW_DAYS} days ago; "
            f"returns and exchanges are accepted within {RETURN_WINDOW_DAYS} days of delivery"
        )


def chosen_items(world: World, found: OrderBase, item_ids: list[str]) -> list[OrderItemBase]:
    """The order's items named by `item_ids`, each still as ordered or delivered (no return or exchange asked)."""
    if not item_ids:
        raise ToolError("item_ids is empty: name at least one item id of the order")
    if len(set(item_ids)) != len(item_ids):
        raise ToolError(f"item_ids {item_ids} lists an item twice")
    items = {i.id: i for i in order_items(world, found.id)}
    picked = []
    for item_id in item_ids:
        item = items.get(item_id)
        if item is None:
            raise ToolError(f"item {item_id!r} is not in order {found.id}; its items are: {', '.join(items)}")
        if item.status not in ("ordered", "delivered"):
            raise ToolError(f"item {item_id} of order {found.id} already has a {item.status}")
        picked.append(item)
    return picked


def replacement_variants(
    world: World, items: list[OrderItemBase], new_variant_ids: list[str]
) -> list[VariantBase]:
    """The variants to swap `items` for: another option of the same product, sold and in stock."""
    if len(new_variant_ids) != len(items):
        raise ToolError(
            f"got {len(items)} item id(s) but {len(new_variant_ids)} new variant id(s): give one new variant per item"
        )
    chosen = []
    for item, variant_id in zip(items, new_variant_ids, strict=True):
        variant = world.get(Variant, variant_id)
        if variant is None or variant.product_id != item.product_id:
            raise ToolError(
                f"variant {variant_id!r} is not an option of {item.name} ({item.product_id}); an item can only "
                f"be swapped for another variant of the same product (see get_product_details)"
            )
        if variant.id == item.variant_id:
            raise ToolError(f"item {item.id} already is variant {variant_id}; choose a different option")
        if not variant.available:
            raise ToolError(
                f"variant {variant_id} of {item.name} is discontinued; choose an available option"
            )
        wanted = new_variant_ids.count(variant_id)
        if variant.stock < 1:
            raise ToolError(f"variant {variant_id} of {item.name} is out of stock; choose an option in stock")
        if variant.stock < wanted:
            raise ToolError(
                f"variant {variant_id} of {item.name} has only {variant.stock} in stock and {wanted} are asked for"
            )
        chosen.append(variant)
    return chosen


def take_stock(world: World, variants: list[VariantBase]) -> None:
    """One unit of each chosen variant leaves the warehouse."""
    for variant_id, count in Counter(v.id for v in variants).items():
        stock = next(v.stock for v in variants if v.id == variant_id)
        world.update(Variant, variant_id, stock=stock - count)


def swap_items(
    world: World, found: OrderBase, item_ids: list[str], new_variant_ids: list[str], payment_method_id: str
) -> tuple[list[OrderItemBase], list[VariantBase], float]:
    """Items of the order going to other options: checked, the price difference settled, the stock taken.

    Returns the items, their new variants and the difference (positive: charged)."""
    items = chosen_items(world, found, item_ids)
    variants = replacement_variants(world, items, new_variant_ids)
    method = refund_target(world, found, payment_method_id)
    difference = round(sum(v.price for v in variants) - sum(i.price for i in items), 2)
    settle_difference(world, found.id, method, difference)
    take_stock(world, variants)
    return items, variants, difference


def refund_target(world: World, found: OrderBase, payment_method_id: str) -> PaymentMethodBase:
    """Money back goes to the order's original payment method or a gift card of the customer."""
    method = payment_method_of(world, found.customer_id, payment_method_id)
    if method.id != found.payment_method_id and method.kind != "gift_card":
        cards = [
            m.id for m in world.select(PaymentMethod, {"customer_id": found.customer_id, "kind": "gift_card"})
        ]
        raise ToolError(
            f"payment method {payment_method_id!r} is not allowed here: use the order's original payment method "
            f"({found.payment_method_id}) or a gift card of the customer ({', '.join(cards) or 'none on file'})"
        )
    return method


def check_address(address1: str, city: str, state: str, zip: str) -> None:
    if not address1.strip() or not city.strip():
        raise ToolError("address1 and city must not be empty")
    if state not in US_STATES:
        raise ToolError(
            f"state {state!r} is not a US state code: use two capital letters, such as 'CA' or 'NY'"
        )
    if not ZIP.match(zip):
        raise ToolError(f"zip {zip!r} is not a US ZIP code: use 5 digits, such as '10001'")


def check_email(email: str) -> str:
    if not EMAIL.match(email.strip()):
        raise ToolError(f"{email!r} is not an email address: it should look like 'name@example.com'")
    return email.strip().lower()


# ---- money ---------------------------------------------------------------------------------
def _record(world: World, order_id: str, method_id: str, kind: str, amount: float) -> None:
    number = world.new_id("transaction")  # past the built history's ids (the World derives it)
    world.insert(
        Transaction,
        {
            "id": f"TX{number}",
            "order_id": order_id,
            "payment_method_id": method_id,
            "kind": kind,
            "amount": round(amount, 2),
            "created_at": iso(world.now),
        },
    )


def charge(world: World, order_id: str, method: PaymentMethodBase, amount: float) -> None:
    if method.kind == "gift_card":
        balance = method.balance or 0.0
        if balance + 1e-9 < amount:
            raise ToolError(
                f"gift card {method.id} has a balance of ${balance:,.2f}, less than the ${amount:,.2f} to charge; "
                "use another payment method"
            )
        world.update(PaymentMethod, method.id, balance=round(balance - amount, 2))
    _record(world, order_id, method.id, "payment", amount)


def refund(world: World, order_id: str, method: PaymentMethodBase, amount: float) -> None:
    """Gift cards are credited at once; cards and PayPal see the refund in 5-7 business days."""
    if method.kind == "gift_card":
        world.update(PaymentMethod, method.id, balance=round((method.balance or 0.0) + amount, 2))
    _record(world, order_id, method.id, "refund", amount)


def settle_difference(world: World, order_id: str, method: PaymentMethodBase, difference: float) -> None:
    """Charge a positive price difference, refund a negative one."""
    difference = round(difference, 2)
    if difference > 0:
        charge(world, order_id, method, difference)
    elif difference < 0:
        refund(world, order_id, method, -difference)


def unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
