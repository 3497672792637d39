"""Agent tools that read the carrier's records: customers, lines, catalogue, bills, outages."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from toolgym.envs import World, tool

from ..network import allowance_gb
from ..tables import (
    Account,
    Bill,
    BillBase,
    Customer,
    DataRefill,
    DataRefillBase,
    Device,
    DeviceBase,
    Line,
    Outage,
    Payment,
    PaymentBase,
    PaymentMethod,
    Plan,
    PlanBase,
)
from .common import clock, line_by_number

AccountId = Annotated[str, Field(description="The account id, such as 'A1001'.")]
Region = Literal[
    "Austin", "Boston", "Chicago", "Denver", "Miami", "Nashville",
    "Phoenix", "Portland", "Sacramento", "Seattle", "St. Louis", "Tampa",
]  # fmt: skip


@tool(identifies="customer_id")
def find_customer_by_phone(world: World, phone_number: str) -> dict[str, Any]:
    """Identify a customer from the phone number of one of their lines.

    Args:
        phone_number: The line's 10-digit phone number, such as '415-555-0123'.
    """
    line = line_by_number(world, phone_number)
    account = world.require(Account, line.account_id, "account")
    customer = world.require(Customer, account.customer_id, "customer")
    return {
        "customer_id": customer.customer_id,
        "full_name": customer.full_name,
        "account_id": account.account_id,
        "line_id": line.line_id,
        "phone_number": line.phone_number,
    }


@tool
def get_customer_details(world: World, customer_id: str) -> dict[str, Any]:
    """Get a customer's profile, account, lines and payment methods.

    Args:
        customer_id: The customer id, such as 'C1001'.
    """
    customer = world.require(Customer, customer_id, "customer")
    accounts = world.select(Account, {"customer_id": customer_id})
    result: dict[str, Any] = customer.model_dump(mode="json")
    result["accounts"] = [
        {
            **account.model_dump(mode="json"),
            "lines": [
                {"line_id": ln.line_id, "phone_number": ln.phone_number, "plan_id": ln.plan_id, "status": ln.status}
                for ln in world.select(Line, {"account_id": account.account_id})
            ],
            "payment_methods": [
                m.model_dump(mode="json") for m in world.select(PaymentMethod, {"account_id": account.account_id})
            ],
        }
        for account in accounts
    ]
    return result


@tool
def get_line_details(world: World, line_id: str) -> dict[str, Any]:
    """Get a line's status, plan, data use this billing cycle, roaming setting and device.

    Args:
        line_id: The line id, such as 'L10001'.
    """
    line = world.require(Line, line_id, "line")
    plan = world.require(Plan, line.plan_id, "plan")
    limit = allowance_gb(line, plan)
    details = line.model_dump(mode="json")
    details.update(
        plan_name=plan.name,
        data_allowance_gb="unlimited" if limit is None else round(limit, 2),
        data_remaining_gb="unlimited" if limit is None else round(max(limit - line.data_used_gb, 0.0), 2),
    )
    return details


@tool
def get_device_details(world: World, device_id: str) -> DeviceBase:
    """Get the handset registered to a line: maker, model, 5G and Wi-Fi calling support.

    Args:
        device_id: The device id from the line details, such as 'D10001'.
    """
    return world.require(Device, device_id, "device")


@tool
def list_plans(world: World) -> list[PlanBase]:
    """List every mobile plan offered: data allowance, monthly price, roaming and 5G support."""
    return world.select(Plan, order_by="monthly_price")


@tool
def list_data_refills(world: World) -> list[DataRefillBase]:
    """List the data refills a line can buy for the current billing cycle, with their prices."""
    return world.select(DataRefill, order_by="gigabytes")


def _newest_first(world: World, table: type, account_id: str, when: str) -> list[Any]:
    """An account's rows of `table`, newest first by the column `when`; an unknown account is an error."""
    world.require(Account, account_id, "account")
    return world.select(table, {"account_id": account_id}, order_by=(when,))[::-1]


@tool
def list_bills(world: World, account_id: AccountId) -> list[BillBase]:
    """List an account's bills, newest first, with amount, amount paid, due date and status."""
    return _newest_first(world, Bill, account_id, "period_start")


@tool
def list_payments(world: World, account_id: AccountId) -> list[PaymentBase]:
    """List an account's payments, newest first, with the bill paid, method, amount and status."""
    return _newest_first(world, Payment, account_id, "paid_at")


@tool
def check_outages(world: World, region: Region) -> dict[str, Any]:
    """Check for active network outages in a service region.

    Args:
        region: The service region the customer is in.
    """
    active = world.select(Outage, {"region": region, "status": "active"})
    return {
        "region": region,
        "active_outages": [
            {
                "outage_id": o.outage_id,
                "service_affected": o.service,
                "started_at": clock(o.started_at),
                "expected_end": clock(o.expected_end),
                "message": o.message,
            }
            for o in active
        ],
    }
