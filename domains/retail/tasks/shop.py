"""A read-only index of a built world, made once per world, that task generators draw from.

Generators must take about a millisecond each; scanning tables per task would cost far more,
so the candidates for every kind of request (pending orders, returnable items, ...) are
listed here once per world template (the engine's `world_index` caches it).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property

from toolgym.envs import World, world_index

from ..rules import within_return_window
from ..tables import (
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

# a brand names the card ("your Visa ending in 1234"): "Visa card" would say card twice
_BRANDS = {"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express", "discover": "Discover"}


@dataclass
class Shop:
    customers: dict[str, CustomerBase]
    methods: dict[str, PaymentMethodBase]
    orders: dict[str, OrderBase]
    items: dict[str, list[OrderItemBase]]
    products: dict[str, ProductBase]
    variants: dict[str, VariantBase]
    now_is_in_window: dict[str, bool] = field(default_factory=dict)
    refunded: dict[str, float] = field(default_factory=dict)  # an order's refunds so far (cancelled, items returned)

    @classmethod
    def of(cls, world: World) -> Shop:
        items: dict[str, list[OrderItemBase]] = defaultdict(list)
        for item in world.select(OrderItem):
            items[item.order_id].append(item)
        orders = {o.id: o for o in world.select(Order)}
        shop = cls(
            customers={c.id: c for c in world.select(Customer)},
            methods={m.id: m for m in world.select(PaymentMethod)},
            orders=orders,
            items=dict(items),
            products={p.id: p for p in world.select(Product)},
            variants={v.id: v for v in world.select(Variant)},
        )
        for txn in world.select(Transaction):
            if txn.kind == "refund":
                shop.refunded[txn.order_id] = round(shop.refunded.get(txn.order_id, 0.0) + txn.amount, 2)
        shop.now_is_in_window = {
            o.id: within_return_window(o.delivered_at, world.now) for o in orders.values()
        }
        return shop

    # ---- grouping ---------------------------------------------------------------------------
    @cached_property
    def methods_of(self) -> dict[str, list[PaymentMethodBase]]:
        grouped: dict[str, list[PaymentMethodBase]] = defaultdict(list)
        for method in self.methods.values():
            grouped[method.customer_id].append(method)
        return dict(grouped)

    @cached_property
    def orders_of(self) -> dict[str, list[OrderBase]]:
        """Each customer's orders, newest first (as list_customer_orders gives them)."""
        grouped: dict[str, list[OrderBase]] = defaultdict(list)
        for order in sorted(self.orders.values(), key=lambda o: o.placed_at, reverse=True):
            grouped[order.customer_id].append(order)
        return dict(grouped)

    @cached_property
    def variants_of(self) -> dict[str, list[VariantBase]]:
        grouped: dict[str, list[VariantBase]] = defaultdict(list)
        for variant in self.variants.values():
            grouped[variant.product_id].append(variant)
        return dict(grouped)

    @cached_property
    def gift_cards(self) -> list[PaymentMethodBase]:
        return [m for m in self.methods.values() if m.kind == "gift_card"]

    def gift_card_of(self, customer_id: str) -> PaymentMethodBase | None:
        return next((m for m in self.methods_of.get(customer_id, ()) if m.kind == "gift_card"), None)

    def alternatives(self, item: OrderItemBase) -> list[VariantBase]:
        """Other options of the item's product that can be ordered now."""
        return [
            v
            for v in self.variants_of[item.product_id]
            if v.id != item.variant_id and v.available and v.stock > 0
        ]

    def unorderable(self, item: OrderItemBase) -> list[VariantBase]:
        """Other options of the item's product that are discontinued or out of stock."""
        return [
            v
            for v in self.variants_of[item.product_id]
            if v.id != item.variant_id and (not v.available or v.stock < 1)
        ]

    # ---- candidates per request -------------------------------------------------------------
    def _where(self, test) -> list[OrderBase]:
        return [o for o in self.orders.values() if test(o)]

    @cached_property
    def pending(self) -> list[OrderBase]:
        return self._where(lambda o: o.status == "pending")

    @cached_property
    def modifiable(self) -> list[OrderBase]:
        return [o for o in self.pending if not o.modified]

    @cached_property
    def modified(self) -> list[OrderBase]:
        return [o for o in self.pending if o.modified]

    @cached_property
    def item_swappable(self) -> list[OrderBase]:
        return [o for o in self.modifiable if any(self.alternatives(i) for i in self.items[o.id])]

    @cached_property
    def payment_switchable(self) -> list[OrderBase]:
        return [o for o in self.modifiable if self.other_payments(o)]

    def other_payments(self, order: OrderBase) -> list[PaymentMethodBase]:
        """The customer's other methods that could pay this order in full."""
        return [
            m
            for m in self.methods_of[order.customer_id]
            if m.id != order.payment_method_id and (m.kind != "gift_card" or (m.balance or 0) >= order.total)
        ]

    @cached_property
    def returnable(self) -> list[OrderBase]:
        return self._where(lambda o: o.status == "delivered" and self.now_is_in_window[o.id])

    @cached_property
    def exchangeable(self) -> list[OrderBase]:
        return [o for o in self.returnable if any(self.alternatives(i) for i in self.items[o.id])]

    @cached_property
    def expired(self) -> list[OrderBase]:
        return self._where(lambda o: o.status == "delivered" and not self.now_is_in_window[o.id])

    @cached_property
    def past_pending(self) -> list[OrderBase]:
        """Orders too far along to cancel or modify."""
        return self._where(lambda o: o.status in ("processed", "shipped", "delivered"))

    @cached_property
    def tracked(self) -> list[OrderBase]:
        return self._where(lambda o: o.tracking_number is not None)

    @cached_property
    def refund_elsewhere(self) -> list[OrderBase]:
        """Returnable orders whose customer has a method refunds may not go to."""
        return [o for o in self.returnable if self.disallowed_refund_methods(o)]

    def disallowed_refund_methods(self, order: OrderBase) -> list[PaymentMethodBase]:
        return [
            m
            for m in self.methods_of[order.customer_id]
            if m.id != order.payment_method_id and m.kind != "gift_card"
        ]

    @cached_property
    def with_unorderable(self) -> list[OrderBase]:
        return [o for o in self.returnable if any(self.unorderable(i) for i in self.items[o.id])]

    @cached_property
    def customers_with_orders(self) -> list[str]:
        return sorted(self.orders_of)

    # ---- how people name things --------------------------------------------------------------
    def method_name(self, method_id: str) -> str:
        """How the agent names a payment method: 'Visa ending in 1234', 'gift card'.

        Only after reading the customer's payment methods (the brand and last four are not in an
        order); never by its internal id."""
        method = self.methods[method_id]
        if method.kind == "credit_card":
            return f"{_BRANDS[method.brand or 'visa']} ending in {method.last_four}"
        if method.kind == "paypal":
            return "PayPal account"
        return "gift card"

    def method_phrase(self, method_id: str, owner: str = "my") -> str:
        """How the customer names it ('my Visa ending in 1234'); owner='your' for the user's goal."""
        method = self.methods[method_id]
        if method.kind == "credit_card":
            return f"{owner} {_BRANDS[method.brand or 'visa']} ending in {method.last_four}"
        if method.kind == "paypal":
            return f"{owner} PayPal account"
        return f"{owner} gift card"


@world_index
def shop_of(world: World) -> Shop:
    """The index of this world's template, built on first use."""
    return Shop.of(world)
