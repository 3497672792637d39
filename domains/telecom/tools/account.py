"""Agent tools that change the account: line status, plan, refills, roaming, payments, tickets.

Preconditions the policy depends on (no remote resume after fraud, bills paid before a
resume, roaming only on plans that carry it) are enforced here as ToolErrors as well.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from ..catalogue import REFILL_BY_GB, REFUND_WINDOW_DAYS
from ..tables import (
    Account,
    Bill,
    BillBase,
    Customer,
    Line,
    LineBase,
    LineRefill,
    Payment,
    PaymentBase,
    PaymentMethod,
    Plan,
    Ticket,
)
from .common import cents

# A ticket's number, like every id series of the built world, starts at 100001 (no ticket is
# built, so the World has no rows to count past); refills and payments continue past the built ones.
FIRST_TICKET = 100001
PlanId = Literal["starter_2", "basic_5", "standard_15", "travel_20", "plus_40", "unlimited"]


def _active_line(world: World, line_id: str, doing: str) -> LineBase:
    line = world.require(Line, line_id, "line")
    if line.status != "active":
        raise ToolError(f"line {line_id} is {line.status}; only an active line can {doing}")
    return line


@tool(writes=True)
def suspend_line(world: World, line_id: str, reason: Literal["lost_or_stolen", "customer_request"]) -> LineBase:
    """Suspend an active line: it keeps its number but cannot call or use data until resumed.

    Args:
        line_id: The line id, such as 'L10001'.
        reason: Why: the phone was lost or stolen, or the customer asked for a pause.
    """
    _active_line(world, line_id, "be suspended")
    return world.update(Line, line_id, status="suspended", suspension_reason=reason)


@tool(writes=True)
def resume_line(world: World, line_id: str) -> LineBase:
    """Resume a suspended line. Not allowed after a fraud suspension, nor while bills are overdue.

    Args:
        line_id: The line id, such as 'L10001'.
    """
    line = world.require(Line, line_id, "line")
    if line.status != "suspended":
        raise ToolError(f"line {line_id} is {line.status}, not suspended; only a suspended line can be resumed")
    if line.suspension_reason == "fraud":
        raise ToolError(
            f"line {line_id} was suspended for suspected fraud; it cannot be resumed remotely "
            "(the customer must visit a store with photo ID)"
        )
    overdue = world.select(Bill, {"account_id": line.account_id, "status": "overdue"})
    if overdue:
        listing = ", ".join(f"{b.bill_id} (${b.amount - b.amount_paid:.2f} due)" for b in overdue)
        raise ToolError(f"account {line.account_id} has overdue bills {listing}; pay them in full before resuming")
    return world.update(Line, line_id, status="active", suspension_reason=None)


@tool(writes=True)
def change_plan(world: World, line_id: str, plan_id: PlanId) -> dict[str, Any]:
    """Move a line to another plan from today. Roaming is switched off if the new plan lacks it.

    Args:
        line_id: The line id, such as 'L10001'.
        plan_id: The new plan's id, from list_plans.
    """
    line = world.require(Line, line_id, "line")
    if line.status == "pending_activation":
        raise ToolError(f"line {line_id} is not activated yet; its plan cannot change")
    if line.plan_id == plan_id:
        raise ToolError(f"line {line_id} is already on plan {plan_id}")
    plan = world.require(Plan, plan_id, "plan")
    roaming = line.roaming_enabled and plan.roaming_supported
    updated = world.update(Line, line_id, plan_id=plan_id, roaming_enabled=roaming)
    return {"line": updated, "plan_name": plan.name, "monthly_price": plan.monthly_price}


@tool(writes=True)
def add_data_refill(world: World, line_id: str, gigabytes: Literal[1, 3, 5, 10]) -> dict[str, Any]:
    """Buy a data refill for an active line; the data is added at once and charged on the next bill.

    Args:
        line_id: The line id, such as 'L10001'.
        gigabytes: Size of the refill in GB.
    """
    line = _active_line(world, line_id, "buy a data refill")
    plan = world.require(Plan, line.plan_id, "plan")
    if plan.unlimited:
        raise ToolError(f"line {line_id} is on the {plan.name} plan, which has no data cap to refill")
    refill = REFILL_BY_GB[gigabytes]
    purchase = world.insert(
        LineRefill,
        {
            "purchase_id": f"R{world.new_id('refill', table='line_refill')}",
            "line_id": line_id,
            "refill_id": refill.refill_id,
            "gigabytes": refill.gigabytes,
            "price": refill.price,
            "purchased_at": world.now,
        },
    )
    updated = world.update(Line, line_id, refill_gb=line.refill_gb + refill.gigabytes)
    return {"purchase": purchase, "refill_gb_this_cycle": updated.refill_gb}


@tool(writes=True)
def enable_roaming(world: World, line_id: str) -> LineBase:
    """Turn on international roaming for an active line whose plan supports roaming.

    Args:
        line_id: The line id, such as 'L10001'.
    """
    line = _active_line(world, line_id, "have roaming turned on")
    plan = world.require(Plan, line.plan_id, "plan")
    if not plan.roaming_supported:
        raise ToolError(f"plan {plan.plan_id} ({plan.name}) does not support roaming; a plan change is needed first")
    if line.roaming_enabled:
        raise ToolError(f"roaming is already enabled on line {line_id}")
    return world.update(Line, line_id, roaming_enabled=True)


@tool(writes=True)
def disable_roaming(world: World, line_id: str) -> LineBase:
    """Turn off international roaming for a line.

    Args:
        line_id: The line id, such as 'L10001'.
    """
    line = world.require(Line, line_id, "line")
    if not line.roaming_enabled:
        raise ToolError(f"roaming is already disabled on line {line_id}")
    return world.update(Line, line_id, roaming_enabled=False)


@tool(writes=True)
def make_payment(world: World, bill_id: str, method_id: str, amount: float) -> dict[str, Any]:
    """Pay a bill, or part of it, with one of the account's payment methods.

    Args:
        bill_id: The bill id, such as 'B100003'.
        method_id: The payment method id on the bill's account, such as 'PM1001'.
        amount: Amount in dollars; more than zero and at most what is still owed on the bill.
    """
    bill = world.require(Bill, bill_id, "bill")
    method = world.require(PaymentMethod, method_id, "payment method")
    if method.account_id != bill.account_id:
        raise ToolError(f"payment method {method_id} belongs to account {method.account_id}, not {bill.account_id}")
    owed = cents(bill.amount - bill.amount_paid)
    if owed <= 0:
        raise ToolError(f"bill {bill_id} is already paid in full")
    amount = cents(amount)
    if not 0 < amount <= owed:
        raise ToolError(f"amount ${amount:.2f} is not allowed: it must be more than $0 and at most ${owed:.2f}")
    payment = world.insert(
        Payment,
        {
            "payment_id": f"PAY{world.new_id('payment')}",
            "account_id": bill.account_id,
            "bill_id": bill_id,
            "method_id": method_id,
            "amount": amount,
            "paid_at": world.now,
            "status": "completed",
        },
    )
    updated = _settle(world, bill, cents(bill.amount_paid + amount))
    return {"payment": payment, "bill": updated}


@tool(writes=True)
def refund_payment(world: World, payment_id: str) -> dict[str, Any]:
    """Refund a completed payment made within the refund window, to the method it came from.

    Args:
        payment_id: The payment id, such as 'PAY100002'.
    """
    payment = world.require(Payment, payment_id, "payment")
    if payment.status != "completed":
        raise ToolError(f"payment {payment_id} is {payment.status}; only a completed payment can be refunded")
    if world.now - payment.paid_at > dt.timedelta(days=REFUND_WINDOW_DAYS):
        raise ToolError(
            f"payment {payment_id} was made on {payment.paid_at:%Y-%m-%d}, more than "
            f"{REFUND_WINDOW_DAYS} days ago; it can no longer be refunded"
        )
    refunded: PaymentBase = world.update(Payment, payment_id, status="refunded")
    bill = world.require(Bill, payment.bill_id, "bill")
    updated = _settle(world, bill, cents(bill.amount_paid - payment.amount))
    return {"payment": refunded, "bill": updated}


def _settle(world: World, bill: BillBase, paid: float) -> BillBase:
    """Record what is paid on a bill and the status that follows from it."""
    if paid >= cents(bill.amount):
        status = "paid"
    else:
        status = "overdue" if bill.due_date < world.now.date() else "open"
    return world.update(Bill, bill.bill_id, amount_paid=paid, status=status)


@tool(writes=True)
def transfer_to_technician(
    world: World,
    customer_id: str,
    line_id: str,
    issue: Literal["sim_not_detected", "no_signal", "device_fault"],
) -> dict[str, Any]:
    """Open a ticket for a field technician when remote troubleshooting cannot fix the phone.

    Args:
        customer_id: The customer id, such as 'C1001'.
        line_id: The affected line's id, such as 'L10001'.
        issue: What remains wrong after troubleshooting.
    """
    world.require(Customer, customer_id, "customer")
    line = world.require(Line, line_id, "line")
    account = world.require(Account, line.account_id, "account")
    if account.customer_id != customer_id:
        raise ToolError(f"line {line_id} does not belong to customer {customer_id}")
    ticket = world.insert(
        Ticket,
        {
            "ticket_id": f"TKT{world.new_id('ticket', FIRST_TICKET, table='technician_ticket')}",
            "customer_id": customer_id,
            "line_id": line_id,
            "issue": issue,
            "created_at": world.now,
            "status": "open",
        },
    )
    return {"ticket": ticket, "message": "A technician will contact the customer within 24 hours."}


def first_ticket_id(world: World) -> str:
    """The id `transfer_to_technician` gives the first ticket of an episode (what the gold reply states)."""
    return f"TKT{max(FIRST_TICKET, world.template.highest_id('technician_ticket') + 1)}"
