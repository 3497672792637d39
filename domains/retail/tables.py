"""The retail shop's tables: customers, payment methods, catalog, orders and their history.

Each table is a plain field model (what tools hand back) beside its `table=True` class.
Dates are ISO strings so a tool's output is the stored value, byte for byte.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class RetailTable(SQLModel, registry=registry()):
    pass


# Rows are stored in primary-key order (no hidden rowid, no separate key index): a smaller
# image to copy per episode and one B-tree lookup per keyed read.
_CLUSTERED = {"sqlite_with_rowid": False}


class CustomerBase(SQLModel):
    id: str = Field(primary_key=True)
    first_name: str
    last_name: str
    email: str = Field(index=True)
    phone: str
    address1: str
    address2: str = ""
    city: str
    state: str
    zip: str = Field(index=True)
    member_since: str


class Customer(CustomerBase, RetailTable, table=True):
    __tablename__ = "customer"
    __table_args__ = _CLUSTERED


class PaymentMethodBase(SQLModel):
    id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    kind: str  # credit_card | gift_card | paypal
    brand: str | None = None  # credit cards: visa, mastercard, amex, discover
    last_four: str | None = None  # credit cards
    balance: float | None = None  # gift cards
    paypal_email: str | None = None  # paypal


class PaymentMethod(PaymentMethodBase, RetailTable, table=True):
    __tablename__ = "payment_method"
    __table_args__ = _CLUSTERED


class ProductBase(SQLModel):
    id: str = Field(primary_key=True)
    name: str
    category: str
    description: str


class Product(ProductBase, RetailTable, table=True):
    __tablename__ = "product"
    __table_args__ = _CLUSTERED


class VariantBase(SQLModel):
    """One buyable option of a product; unused option columns stay None."""

    id: str = Field(primary_key=True)
    product_id: str = Field(index=True)
    color: str | None = None
    size: str | None = None
    material: str | None = None
    capacity: str | None = None
    style: str | None = None
    price: float
    available: bool = True  # still sold (False: discontinued)
    stock: int = 0


class Variant(VariantBase, RetailTable, table=True):
    __tablename__ = "variant"
    __table_args__ = _CLUSTERED


class OrderBase(SQLModel):
    id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    status: str
    placed_at: str
    payment_method_id: str
    total: float
    ship_address1: str
    ship_address2: str = ""
    ship_city: str
    ship_state: str
    ship_zip: str
    modified: bool = False  # a pending order may be modified once
    note: str = ""  # the customer's delivery note or gift message
    carrier: str | None = None
    tracking_number: str | None = None
    delivered_at: str | None = None
    cancel_reason: str | None = None


class Order(OrderBase, RetailTable, table=True):
    __tablename__ = "order"
    __table_args__ = _CLUSTERED


class OrderItemBase(SQLModel):
    id: str = Field(primary_key=True)
    order_id: str = Field(index=True)
    product_id: str
    variant_id: str
    name: str
    options: str  # readable summary of the variant's options: "navy, M"
    price: float
    status: str = "ordered"  # ordered | delivered (its order arrived) | return requested | exchange requested
    exchange_variant_id: str | None = None


class OrderItem(OrderItemBase, RetailTable, table=True):
    __tablename__ = "order_item"
    __table_args__ = _CLUSTERED


class TransactionBase(SQLModel):
    id: str = Field(primary_key=True)
    order_id: str = Field(index=True)
    payment_method_id: str
    kind: str  # payment | refund
    amount: float
    created_at: str


class Transaction(TransactionBase, RetailTable, table=True):
    __tablename__ = "transaction"
    __table_args__ = _CLUSTERED


class EscalationBase(SQLModel):
    id: str = Field(primary_key=True)
    customer_id: str
    reason: str
    created_at: str


class Escalation(EscalationBase, RetailTable, table=True):
    __tablename__ = "escalation"
    __table_args__ = _CLUSTERED


TABLES = [Customer, PaymentMethod, Product, Variant, Order, OrderItem, Transaction, Escalation]
