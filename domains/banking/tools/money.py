"""Tools that move money: transfers, payees, scheduled transfers, loan payments.

A frozen account, a credit card as the source, too little money and a payee still in its
cooling-off period are refused here; the transfer limits are the agent's to apply (policy).
"""

from __future__ import annotations

import re
from typing import Any

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from ..tables import Loan, Payee, ScheduledTransfer, Transfer
from .common import (
    can_pay_from,
    cents,
    clock,
    own_account,
    parse_date,
    payee_view,
    positive_amount,
    receive_into,
    spend_from,
    verified,
)

_ACCOUNT_NUMBER = re.compile(r"\d{6,12}")


def _record(world: World, customer_id: str, from_account: str, amount: float, **to: str) -> dict[str, Any]:
    transfer_id = f"X{world.new_id('transfer', start=700001)}"
    world.insert(Transfer, {"transfer_id": transfer_id, "customer_id": customer_id, "from_account": from_account,
                            "amount": amount, "made_at": world.now, **to})  # fmt: skip
    return {"transfer_id": transfer_id, "amount": amount, "from_account": from_account, **to}


@tool(writes=True)
def transfer_between_accounts(world: World, from_account_id: str, to_account_id: str, amount: float) -> dict[str, Any]:
    """Move money between two of the verified customer's own accounts (paying a credit card lowers what is owed).

    Args:
        from_account_id: The checking or savings account the money leaves, such as 'A20001'.
        to_account_id: The account the money goes to, such as 'A20002'.
        amount: Dollars to move, such as 250.00.
    """
    amount = positive_amount(amount)
    source, target = own_account(world, from_account_id), own_account(world, to_account_id)
    if source.account_id == target.account_id:
        raise ToolError("the two accounts are the same; choose a different account to send to")
    spend_from(world, source, amount)
    receive_into(world, target, amount)
    return _record(world, source.customer_id, source.account_id, amount, to_account=target.account_id)


@tool(writes=True, area="payments")
def pay_payee(world: World, from_account_id: str, payee_id: str, amount: float) -> dict[str, Any]:
    """Pay one of the verified customer's saved payees from a checking or savings account.

    Args:
        from_account_id: The account the money leaves, such as 'A20001'.
        payee_id: The saved payee, such as 'P50001'.
        amount: Dollars to pay, such as 120.00.
    """
    amount = positive_amount(amount)
    source = own_account(world, from_account_id)
    payee = world.get(Payee, payee_id)
    if payee is None or payee.customer_id != source.customer_id:
        raise ToolError(f"{payee_id!r} is not a payee of the verified customer; list_payees shows them")
    ready = can_pay_from(payee)
    if world.now < ready:
        raise ToolError(f"payee {payee_id} was added at {clock(payee.added_at)} and can be paid from {clock(ready)}")
    spend_from(world, source, amount)
    return _record(world, source.customer_id, source.account_id, amount, payee_id=payee_id)


@tool(writes=True)
def add_payee(world: World, name: str, bank: str, account_number: str) -> dict[str, Any]:
    """Save a new payee for the verified customer. A new payee can be paid only after the cooling-off period.

    Args:
        name: The payee's name as the customer gives it, such as 'Dana Whitfield'.
        bank: The payee's bank, such as 'First Coastal Bank'.
        account_number: The payee's account number: 6 to 12 digits.
    """
    customer = verified(world)
    number = account_number.replace(" ", "").replace("-", "")
    if not _ACCOUNT_NUMBER.fullmatch(number):
        raise ToolError(f"account number {account_number!r} is not 6 to 12 digits; ask the customer for the payee's account number")
    if not name.strip() or not bank.strip():
        raise ToolError("the payee's name and bank must not be empty")
    payee_id = f"P{world.new_id('payee', table='payee')}"
    payee = world.insert(Payee, {"payee_id": payee_id, "customer_id": customer.customer_id, "name": name.strip(),
                                 "bank": bank.strip(), "account_number": number, "added_at": world.now})  # fmt: skip
    return payee_view(payee)


@tool(writes=True)
def schedule_transfer(world: World, from_account_id: str, to_account_id: str, amount: float, run_on: str) -> dict[str, Any]:
    """Schedule a one-off transfer between the verified customer's own accounts on a future date.

    Args:
        from_account_id: The checking or savings account the money will leave, such as 'A20001'.
        to_account_id: The account it will go to, such as 'A20002'.
        amount: Dollars to move, such as 300.00.
        run_on: The date it runs, YYYY-MM-DD, after today.
    """
    amount = positive_amount(amount)
    source, target = own_account(world, from_account_id), own_account(world, to_account_id)
    day = parse_date(run_on, "run date")
    if day <= world.now.date():
        raise ToolError(f"run date {run_on} is not after today ({world.now.date().isoformat()}); choose a future date")
    if source.account_id == target.account_id:
        raise ToolError("the two accounts are the same; choose a different account to send to")
    if source.kind == "credit_card":
        raise ToolError(f"account {source.account_id} is a credit card; transfers leave checking or savings")
    schedule_id = f"S{world.new_id('scheduled_transfer', table='scheduled_transfer')}"
    world.insert(ScheduledTransfer, {"schedule_id": schedule_id, "customer_id": source.customer_id, "from_account": source.account_id,
                                     "to_account": target.account_id, "amount": amount, "run_on": day})  # fmt: skip
    return {"schedule_id": schedule_id, "from_account": source.account_id, "to_account": target.account_id,
            "amount": amount, "run_on": day.isoformat(), "status": "scheduled"}  # fmt: skip


@tool(writes=True)
def cancel_scheduled_transfer(world: World, schedule_id: str) -> dict[str, Any]:
    """Cancel one of the verified customer's scheduled transfers before it runs.

    Args:
        schedule_id: The scheduled transfer, such as 'S60001'.
    """
    customer = verified(world)
    found = world.get(ScheduledTransfer, schedule_id)
    if found is None or found.customer_id != customer.customer_id:
        raise ToolError(f"{schedule_id!r} is not a scheduled transfer of the verified customer; list_scheduled_transfers shows them")
    if found.status != "scheduled":
        raise ToolError(f"scheduled transfer {schedule_id} is already {found.status}")
    world.update(ScheduledTransfer, schedule_id, status="cancelled")
    return {"schedule_id": schedule_id, "amount": found.amount, "run_on": found.run_on.isoformat(), "status": "cancelled"}


@tool(writes=True)
def make_loan_payment(world: World, loan_id: str, from_account_id: str, amount: float) -> dict[str, Any]:
    """Pay toward one of the verified customer's loans from a checking or savings account.

    Args:
        loan_id: The loan, such as 'L80001'.
        from_account_id: The account the payment leaves, such as 'A20001'.
        amount: Dollars to pay, at most the loan's balance.
    """
    amount = positive_amount(amount)
    source = own_account(world, from_account_id)
    loan = world.get(Loan, loan_id)
    if loan is None or loan.customer_id != source.customer_id:
        raise ToolError(f"{loan_id!r} is not a loan of the verified customer; list_loans shows them")
    if amount > loan.balance:
        raise ToolError(f"${amount:,.2f} is more than loan {loan_id}'s balance of ${loan.balance:,.2f}; pay at most the balance")
    spend_from(world, source, amount)
    after = world.update(Loan, loan_id, balance=cents(loan.balance - amount))
    return {"loan_id": loan_id, "paid": amount, "from_account": source.account_id, "balance": after.balance,
            "next_due": after.next_due.isoformat()}  # fmt: skip

