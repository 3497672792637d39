"""The telecom world's tables: the carrier's side (customers to outages) and the phone.

Each table is a plain field model (what tools hand back) beside the table class. The `phone`
table is the only state the customer's own tools (caller="user") may change.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class TelecomTable(SQLModel, registry=registry()):
    pass


class PlanBase(SQLModel):
    plan_id: str = Field(primary_key=True)
    name: str
    data_gb: float
    unlimited: bool
    monthly_price: float
    roaming_supported: bool
    roaming_daily_fee: float
    supports_5g: bool


class Plan(PlanBase, TelecomTable, table=True):
    __tablename__ = "plan"


class DataRefillBase(SQLModel):
    refill_id: str = Field(primary_key=True)
    gigabytes: int
    price: float


class DataRefill(DataRefillBase, TelecomTable, table=True):
    __tablename__ = "data_refill"


class CustomerBase(SQLModel):
    customer_id: str = Field(primary_key=True)
    full_name: str
    email: str
    date_of_birth: dt.date
    home_region: str


class Customer(CustomerBase, TelecomTable, table=True):
    __tablename__ = "customer"


class AccountBase(SQLModel):
    account_id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    status: str  # active | closed
    autopay: bool
    notes: str = ""


class Account(AccountBase, TelecomTable, table=True):
    __tablename__ = "account"


class PaymentMethodBase(SQLModel):
    method_id: str = Field(primary_key=True)
    account_id: str = Field(index=True)
    kind: str  # credit_card | debit_card | bank_account
    last4: str
    is_default: bool


class PaymentMethod(PaymentMethodBase, TelecomTable, table=True):
    __tablename__ = "payment_method"


class DeviceBase(SQLModel):
    device_id: str = Field(primary_key=True)
    maker: str
    model: str
    imei: str
    supports_5g: bool
    supports_wifi_calling: bool


class Device(DeviceBase, TelecomTable, table=True):
    __tablename__ = "device"


class LineBase(SQLModel):
    line_id: str = Field(primary_key=True)
    account_id: str = Field(index=True)
    phone_number: str = Field(index=True, unique=True)  # formatted 415-555-0123
    plan_id: str
    status: str  # active | suspended | pending_activation
    suspension_reason: str | None = None  # unpaid_bill | fraud | customer_request | lost_or_stolen
    data_used_gb: float
    refill_gb: float  # data refills bought this cycle, on top of the plan
    roaming_enabled: bool
    device_id: str
    nickname: str = ""
    activated_on: dt.date


class Line(LineBase, TelecomTable, table=True):
    __tablename__ = "line"


class LineRefillBase(SQLModel):
    purchase_id: str = Field(primary_key=True)
    line_id: str = Field(index=True)
    refill_id: str
    gigabytes: int
    price: float
    purchased_at: dt.datetime


class LineRefill(LineRefillBase, TelecomTable, table=True):
    __tablename__ = "line_refill"


class BillBase(SQLModel):
    bill_id: str = Field(primary_key=True)
    account_id: str = Field(index=True)
    period_start: dt.date
    period_end: dt.date
    due_date: dt.date
    amount: float
    amount_paid: float
    status: str  # paid | open | overdue


class Bill(BillBase, TelecomTable, table=True):
    __tablename__ = "bill"


class PaymentBase(SQLModel):
    payment_id: str = Field(primary_key=True)
    account_id: str = Field(index=True)
    bill_id: str
    method_id: str
    amount: float
    paid_at: dt.datetime
    status: str  # completed | refunded


class Payment(PaymentBase, TelecomTable, table=True):
    __tablename__ = "payment"


class OutageBase(SQLModel):
    outage_id: str = Field(primary_key=True)
    region: str = Field(index=True)
    service: str  # data | voice_and_data
    started_at: dt.datetime
    expected_end: dt.datetime
    status: str  # active | resolved
    message: str = ""


class Outage(OutageBase, TelecomTable, table=True):
    __tablename__ = "outage"


class TicketBase(SQLModel):
    ticket_id: str = Field(primary_key=True)
    customer_id: str
    line_id: str
    issue: str
    created_at: dt.datetime
    status: str


class Ticket(TicketBase, TelecomTable, table=True):
    __tablename__ = "technician_ticket"


class CallSessionBase(SQLModel):
    """Who is on the call: the customer whose phone the user-side tools act on."""

    call_id: int = Field(primary_key=True)
    customer_id: str


class CallSession(CallSessionBase, TelecomTable, table=True):
    __tablename__ = "call_session"


class PhoneBase(SQLModel):
    """The handset the customer holds while talking to support."""

    customer_id: str = Field(primary_key=True)
    line_id: str
    device_id: str
    location_country: str
    location_region: str  # a service region at home, a city abroad
    airplane_mode: bool
    mobile_data: bool
    roaming_switch: bool
    apn_name: str
    sim_status: str  # ready | not_detected | damaged
    signal_bars: int  # 0-4 at the customer's location
    data_saver: bool
    wifi_calling: bool
    network_mode: str  # 5g_preferred | lte_preferred | 3g_only | 2g_only
    restart_pending: bool  # settings that apply only after a restart
    last_speed_test_mbps: float | None = None
    last_speed_test_result: str | None = None  # passed | failed


class Phone(PhoneBase, TelecomTable, table=True):
    __tablename__ = "phone"


ALL_TABLES = [
    Plan,
    DataRefill,
    Customer,
    Account,
    PaymentMethod,
    Device,
    Line,
    LineRefill,
    Bill,
    Payment,
    Outage,
    Ticket,
    CallSession,
    Phone,
]
