"""The retail agent's tools. Signatures and docstrings are the schemas the model sees."""

from __future__ import annotations

from typing import Any

from toolgym.envs import Record, World, tool
from toolgym.errors import ToolError

from . import access
from .calculator import evaluate
from .rules import (
    CancelReason,
    Category,
    City,
    CustomerId,
    OrderId,
    OrderStatus,
    State,
    Street,
    TransferReason,
    Unit,
    Zip,
    iso,
    return_deadline,
)
from .tables import (
    Customer,
    Escalation,
    Order,
    OrderItem,
    PaymentMethod,
    Transaction,
    Variant,
)

_BY_NAME_ZIP = (
    "SELECT id FROM customer WHERE first_name = ? COLLATE NOCASE AND last_name = ? COLLATE NOCASE AND zip = ?"
)
_BY_EMAIL = "SELECT id FROM customer WHERE email = ?"
_ORDER_SUMMARIES = (
    'SELECT o.id, o.status, o.placed_at, o.total, COUNT(i.id) FROM "order" o '
    "JOIN order_item i ON i.order_id = o.id WHERE o.customer_id = ? AND (? IS NULL OR o.status = ?) "
    "GROUP BY o.id ORDER BY o.placed_at DESC"
)
_SEARCH = (
    "SELECT p.id, p.name, p.category, MIN(v.price), MAX(v.price), "
    "SUM(CASE WHEN v.available AND v.stock > 0 THEN 1 ELSE 0 END) "
    "FROM product p JOIN variant v ON v.product_id = p.id "
    "WHERE (? = '' OR p.name LIKE ? ESCAPE '\\') AND (? IS NULL OR p.category = ?) GROUP BY p.id ORDER BY p.id"
)


# ---- identifying the customer -----------------------------------------------------------------
@tool(identifies="customer_id")
def find_customer_id_by_email(world: World, email: str) -> dict[str, str]:
    """Find a customer's id by their email address. Finding the customer authenticates them.

    Args:
        email: The customer's email address, such as 'jane.doe@example.com'.
    """
    rows = world.query(_BY_EMAIL, (access.check_email(email),))
    if not rows:
        raise ToolError(f"no customer has the email {email!r}; try their full name and ZIP code instead")
    return {"customer_id": rows[0][0]}


@tool(identifies="customer_id")
def find_customer_id_by_name_zip(world: World, first_name: str, last_name: str, zip: str) -> dict[str, str]:
    """Find a customer's id by their full name and the ZIP code of their address. Finding the customer authenticates them.

    Args:
        first_name: The customer's first name, such as 'Jane'.
        last_name: The customer's last name, such as 'Doe'.
        zip: The 5-digit ZIP code of the customer's address, such as '10001'.
    """
    rows = world.query(_BY_NAME_ZIP, (first_name.strip(), last_name.strip(), zip.strip()))
    if not rows:
        raise ToolError(
            f"no customer named {first_name} {last_name} with ZIP code {zip!r}; check the spelling or use their email"
        )
    return {"customer_id": rows[0][0]}


# ---- account -------------------------------------------------------------------------------------
@tool
def get_customer_details(world: World, customer_id: CustomerId) -> dict[str, Any]:
    """Get a customer's profile: name, contact details, default address, payment methods and order ids."""
    found = access.customer(world, customer_id)
    details = found.model_dump()
    details["payment_methods"] = [
        m.model_dump(exclude_none=True) for m in world.select(PaymentMethod, {"customer_id": customer_id})
    ]
    details["order_ids"] = [row[0] for row in world.query(_ORDER_SUMMARIES, (customer_id, None, None))]
    return details


@tool
def list_payment_methods(world: World, customer_id: CustomerId) -> list[dict[str, Any]]:
    """List a customer's payment methods: credit cards (brand, last four digits), gift cards (balance) and PayPal."""
    access.customer(world, customer_id)
    return [
        m.model_dump(exclude_none=True) for m in world.select(PaymentMethod, {"customer_id": customer_id})
    ]


@tool
def get_gift_card_balance(world: World, gift_card_id: str) -> dict[str, Any]:
    """Get the remaining balance of a gift card. Anyone holding the gift card id may ask.

    Args:
        gift_card_id: The gift card's id, such as 'gift_card_1234567'.
    """
    card = access.gift_card(world, gift_card_id)
    return {"gift_card_id": card.id, "balance": card.balance}


@tool(writes=True, area="account")
def update_customer_address(
    world: World, customer_id: CustomerId, address1: Street, address2: Unit, city: City, state: State, zip: Zip
) -> dict[str, Any]:
    """Change a customer's default address. Orders already placed keep their shipping address."""
    access.customer(world, customer_id)
    access.check_address(address1, city, state, zip)
    updated = world.update(
        Customer, customer_id, address1=address1, address2=address2, city=city, state=state, zip=zip
    )
    return updated.model_dump()


# ---- orders: reading ------------------------------------------------------------------------------
@tool
def list_customer_orders(
    world: World, customer_id: CustomerId, status: OrderStatus | None = None
) -> list[dict[str, Any]]:
    """List a customer's orders, newest first, with status, date, total and number of items.

    Args:
        status: Only list orders with this status; omit to list all orders.
    """
    access.customer(world, customer_id)
    rows = world.query(_ORDER_SUMMARIES, (customer_id, status, status))
    return [
        {"order_id": oid, "status": st, "placed_at": placed, "total": total, "items": count}
        for oid, st, placed, total, count in rows
    ]


@tool
def get_order_details(world: World, order_id: OrderId) -> dict[str, Any]:
    """Get an order: owner, status, items (with item ids), shipping address, payment method, note and payment history."""
    found = access.order(world, order_id)
    details = found.model_dump()
    details["items"] = access.order_items(world, order_id)
    details["transactions"] = world.select(Transaction, {"order_id": order_id})
    if found.delivered_at is not None:
        details["return_deadline"] = iso(return_deadline(found.delivered_at))
    return details


@tool
def get_tracking_info(world: World, order_id: OrderId) -> dict[str, Any]:
    """Get the shipping status of an order: whose it is, carrier, tracking number, delivery date and address."""
    found = access.order(world, order_id)
    return {
        "order_id": found.id,
        "customer_id": found.customer_id,  # the policy: help only with the authenticated customer's orders
        "status": found.status,
        "carrier": found.carrier,
        "tracking_number": found.tracking_number,
        "delivered_at": found.delivered_at,
        "ship_to": ", ".join(
            p
            for p in (
                found.ship_address1,
                found.ship_address2,
                found.ship_city,
                found.ship_state,
                found.ship_zip,
            )
            if p
        ),
    }


# ---- catalog --------------------------------------------------------------------------------------
@tool
def search_products(world: World, query: str = "", category: Category | None = None) -> list[dict[str, Any]]:
    """Search the catalog by words in the product name and/or by category. Give at least one of the two.

    Args:
        query: Words to look for in product names, such as 'jacket'; empty to match any name.
        category: Only products of this category; omit for all categories.
    """
    query = query.strip()
    if not query and category is None:
        raise ToolError("give a query, a category, or both")
    pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    rows = world.query(_SEARCH, (query, pattern, category, category))
    return [
        {
            "product_id": pid,
            "name": name,
            "category": cat,
            "min_price": low,
            "max_price": high,
            "variants_in_stock": n,
        }
        for pid, name, cat, low, high, n in rows
    ]


@tool
def get_product_details(world: World, product_id: str) -> dict[str, Any]:
    """Get a product's description and all its variants: options, price, availability and stock.

    Args:
        product_id: The product id: 'P' followed by 4 digits, such as 'P1024'.
    """
    found = access.product(world, product_id)
    details = found.model_dump()
    details["variants"] = [access.variant_view(v) for v in world.select(Variant, {"product_id": product_id})]
    return details


@tool(computes=True)
def calculate(world: World, expression: str) -> dict[str, Any]:
    """Evaluate an arithmetic expression, such as '3 * 24.99 * (1 - 0.15)'. The result is rounded to cents.

    Args:
        expression: Numbers combined with + - * / % ** and parentheses.
    """
    return {"expression": expression, "result": evaluate(expression)}


# The order's items are records of the order too: each must belong to the identified customer.
_ORDER_ITEMS = (Record("order_id", "order"), Record("item_ids", "order_item"), Record("payment_method_id", "payment_method"))


# ---- orders: changing -----------------------------------------------------------------------------
@tool(writes=True)
def cancel_pending_order(world: World, order_id: OrderId, reason: CancelReason) -> dict[str, Any]:
    """Cancel a pending order. The full amount is refunded to the order's payment method.

    Args:
        reason: Why the customer cancels.
    """
    found = access.order(world, order_id)
    access.require_status(found, "pending", "be cancelled")
    method = world.require(PaymentMethod, found.payment_method_id, "payment method")
    access.refund(world, order_id, method, found.total)
    updated = world.update(Order, order_id, status="cancelled", cancel_reason=reason)
    return {**updated.model_dump(), "refund": {"amount": found.total, "payment_method_id": method.id}}


@tool(writes=True)
def modify_pending_order_address(
    world: World, order_id: OrderId, address1: Street, address2: Unit, city: City, state: State, zip: Zip
) -> dict[str, Any]:
    """Change the shipping address of a pending order. This uses the order's one allowed modification."""
    found = access.order(world, order_id)
    access.require_unmodified(found)
    access.check_address(address1, city, state, zip)
    updated = world.update(
        Order,
        order_id,
        ship_address1=address1,
        ship_address2=address2,
        ship_city=city,
        ship_state=state,
        ship_zip=zip,
        modified=True,
    )
    return updated.model_dump()


@tool(writes=True)
def modify_pending_order_payment(world: World, order_id: OrderId, payment_method_id: str) -> dict[str, Any]:
    """Pay a pending order with another of the customer's payment methods. The old method is refunded in full and the new one charged. This uses the order's one allowed modification.

    Args:
        payment_method_id: The new payment method's id, such as 'credit_card_1234567'; a gift card needs a balance covering the order total.
    """
    found = access.order(world, order_id)
    access.require_unmodified(found)
    new = access.payment_method_of(world, found.customer_id, payment_method_id)
    if new.id == found.payment_method_id:
        raise ToolError(
            f"order {order_id} is already paid with {payment_method_id}; choose a different method"
        )
    old = world.require(PaymentMethod, found.payment_method_id, "payment method")
    access.refund(world, order_id, old, found.total)
    access.charge(world, order_id, new, found.total)
    updated = world.update(Order, order_id, payment_method_id=new.id, modified=True)
    return updated.model_dump()


@tool(writes=True, acts_on=_ORDER_ITEMS)
def modify_pending_order_items(
    world: World, order_id: OrderId, item_ids: list[str], new_variant_ids: list[str], payment_method_id: str
) -> dict[str, Any]:
    """Swap items of a pending order for other options (variants) of the same products. This uses the order's one allowed modification.

    Args:
        item_ids: The item ids in the order to change, such as ['IT1000123'] (see get_order_details).
        new_variant_ids: For each item, in the same order, the variant id to swap it for, such as ['V100456'].
        payment_method_id: Where the price difference is charged or refunded: the order's original payment method or a gift card of the customer.
    """
    found = access.order(world, order_id)
    access.require_unmodified(found)
    items, variants, difference = access.swap_items(world, found, item_ids, new_variant_ids, payment_method_id)
    for item, variant in zip(items, variants, strict=True):
        world.update(
            OrderItem,
            item.id,
            variant_id=variant.id,
            options=", ".join(access.options_of(variant).values()),
            price=variant.price,
        )
    updated = world.update(Order, order_id, total=round(found.total + difference, 2), modified=True)
    return {
        **updated.model_dump(),
        "price_difference": difference,
        "items": access.order_items(world, order_id),
    }


@tool(writes=True, acts_on=_ORDER_ITEMS)
def return_delivered_order_items(
    world: World, order_id: OrderId, item_ids: list[str], payment_method_id: str
) -> dict[str, Any]:
    """Request the return of items of a delivered order (within 30 days of delivery) and refund their price. An order can have one return or exchange request.

    Args:
        item_ids: The item ids in the order to return, such as ['IT1000123'] (see get_order_details).
        payment_method_id: Where the refund goes: the order's original payment method or a gift card of the customer.
    """
    found = access.order(world, order_id)
    access.require_status(found, "delivered", "have items returned")
    access.require_return_window(world, found)
    items = access.chosen_items(world, found, item_ids)
    method = access.refund_target(world, found, payment_method_id)
    amount = round(sum(i.price for i in items), 2)
    access.refund(world, order_id, method, amount)
    for item in items:
        world.update(OrderItem, item.id, status="return requested")
    updated = world.update(Order, order_id, status="return requested")
    return {**updated.model_dump(), "refund": {"amount": amount, "payment_method_id": method.id}}


@tool(writes=True, acts_on=_ORDER_ITEMS)
def exchange_delivered_order_items(
    world: World, order_id: OrderId, item_ids: list[str], new_variant_ids: list[str], payment_method_id: str
) -> dict[str, Any]:
    """Request the exchange of items of a delivered order (within 30 days of delivery) for other options of the same products. An order can have one return or exchange request.

    Args:
        item_ids: The item ids in the order to exchange, such as ['IT1000123'] (see get_order_details).
        new_variant_ids: For each item, in the same order, the variant id to exchange it for, such as ['V100456'].
        payment_method_id: Where the price difference is charged or refunded: the order's original payment method or a gift card of the customer.
    """
    found = access.order(world, order_id)
    access.require_status(found, "delivered", "have items exchanged")
    access.require_return_window(world, found)
    items, variants, difference = access.swap_items(world, found, item_ids, new_variant_ids, payment_method_id)
    for item, variant in zip(items, variants, strict=True):
        world.update(OrderItem, item.id, status="exchange requested", exchange_variant_id=variant.id)
    updated = world.update(Order, order_id, status="exchange requested")
    return {**updated.model_dump(), "price_difference": difference}


# ---- people ---------------------------------------------------------------------------------------
@tool(writes=True, hands_over=True)
def transfer_to_human_agent(world: World, customer_id: str, reason: TransferReason) -> dict[str, Any]:
    """Hand the conversation to a human agent, only in the cases the policy allows. The customer must be authenticated.

    Args:
        customer_id: The authenticated customer's id, such as 'C12345'.
        reason: Why a human is needed.
    """
    access.customer(world, customer_id)
    number = world.new_id("escalation")
    ticket = world.insert(
        Escalation,
        {
            "id": f"ESC{number:05d}",
            "customer_id": customer_id,
            "reason": reason,
            "created_at": iso(world.now),
        },
    )
    return {
        "escalation_id": ticket.id,
        "message": "Transfer requested; a human agent will take over this chat.",
    }


TOOLS = [
    find_customer_id_by_email,
    find_customer_id_by_name_zip,
    get_customer_details,
    list_payment_methods,
    get_gift_card_balance,
    list_customer_orders,
    get_order_details,
    get_tracking_info,
    search_products,
    get_product_details,
    calculate,
    cancel_pending_order,
    modify_pending_order_address,
    modify_pending_order_payment,
    modify_pending_order_items,
    return_delivered_order_items,
    exchange_delivered_order_items,
    update_customer_address,
    transfer_to_human_agent,
]
