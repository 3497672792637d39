"""What task generators draw from: every subscriber of a built world, read once per world.

Generators must cost well under a millisecond, so they never scan tables per task; the
index is built on first use from a few joins, once per world template (`world_index`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from toolgym.envs import World, world_index

from ..catalogue import PLAN_BY_ID, PlanSpec


@dataclass(frozen=True)
class BillInfo:
    bill_id: str
    amount: float
    status: str
    due_date: dt.date
    payment_id: str | None  # the payment that settled it
    paid_at: dt.datetime | None


LOW_DATA_SHARE = 0.88  # a line that has used this share of its allowance is running low


class _LineUse:
    """The plan and data use of a line record (the caller's, or another line of the account)."""

    data_used_gb: float
    plan_id: str
    refill_gb: float

    @property
    def plan(self) -> PlanSpec:
        return PLAN_BY_ID[self.plan_id]

    @property
    def runs_low(self) -> bool:
        """Whether the line is close to its data cap: a customer can truly say "my data is almost gone"."""
        plan = self.plan
        return not plan.unlimited and self.data_used_gb >= LOW_DATA_SHARE * (plan.data_gb + self.refill_gb)


@dataclass(frozen=True)
class AccountLine(_LineUse):
    """A line of an account, as the world was built (the caller's own, or another on the account)."""

    line_id: str
    phone_number: str
    status: str
    suspension_reason: str | None
    data_used_gb: float
    plan_id: str
    refill_gb: float


@dataclass(frozen=True)
class Method:
    """A payment method on file, as `get_customer_details` shows it."""

    method_id: str
    kind: str  # credit_card | debit_card | bank_account
    last4: str
    is_default: bool


@dataclass(frozen=True)
class Subscriber(_LineUse):
    """A customer with the phone in their hand and its line, as the world was built."""

    customer_id: str
    full_name: str
    account_id: str
    line_id: str
    phone_number: str
    plan_id: str
    device_id: str
    device_name: str
    supports_5g: bool
    supports_wifi_calling: bool
    region: str
    data_used_gb: float
    refill_gb: float
    roaming_enabled: bool
    roaming_switch: bool
    wifi_calling: bool
    network_mode: str
    method_id: str
    method_kind: str
    method_last4: str
    bills: tuple[BillInfo, ...]  # oldest first; the last is the open one
    other_lines: tuple[AccountLine, ...] = field(default=())
    methods: tuple[Method, ...] = field(default=())  # every payment method on the account, default first

    @property
    def own_line(self) -> AccountLine:
        """The caller's line, as an account's line (an active one: the phone in the caller's hand works)."""
        return AccountLine(self.line_id, self.phone_number, "active", None, self.data_used_gb, self.plan_id, self.refill_gb)

    @property
    def open_bill(self) -> BillInfo:
        return self.bills[-1]

    @property
    def last_paid_bill(self) -> BillInfo:
        return self.bills[-2]

    @property
    def oldest_paid_bill(self) -> BillInfo:
        return self.bills[0]


class Index:
    def __init__(self, subscribers: list[Subscriber], outages: dict[str, dt.datetime]):
        self.subscribers = subscribers
        self.outages = outages  # region -> expected end of its active outage
        self.outage_regions = set(outages)
        self.by_customer = {s.customer_id: s for s in subscribers}
        self._where: dict[str, list[Subscriber]] = {}

    def where(self, name: str, fits: Callable[[Subscriber], bool]) -> list[Subscriber]:
        """Healthy subscribers that fit a named condition (computed once per name)."""
        found = self._where.get(name)
        if found is None:
            found = self._where[name] = [s for s in self.healthy if fits(s)]
        return found

    @cached_property
    def healthy(self) -> list[Subscriber]:
        """Subscribers at home in a region with no active outage: their phone works as built."""
        return [s for s in self.subscribers if s.region not in self.outage_regions]

    @cached_property
    def roaming_plans(self) -> list[Subscriber]:
        return [s for s in self.healthy if s.plan.roaming_supported]


@world_index
def index_of(world: World) -> Index:
    on_file: dict[str, list[Method]] = {}
    for account, method_id, kind, last4, default in world.query(
        "SELECT account_id, method_id, kind, last4, is_default FROM payment_method ORDER BY account_id, is_default DESC, method_id"
    ):
        on_file.setdefault(account, []).append(Method(method_id, kind, last4, bool(default)))
    methods = {account: (m[0].method_id, m[0].kind, m[0].last4) for account, m in on_file.items()}
    settled = {
        bill: (payment, dt.datetime.fromisoformat(paid_at))
        for bill, payment, paid_at in world.query(
            "SELECT bill_id, payment_id, paid_at FROM payment WHERE status = 'completed'"
        )
    }
    bills: dict[str, list[BillInfo]] = {}
    for bill_id, account, amount, status, due in world.query(
        "SELECT bill_id, account_id, amount, status, due_date FROM bill ORDER BY account_id, period_start"
    ):
        payment, paid_at = settled.get(bill_id, (None, None))
        bills.setdefault(account, []).append(
            BillInfo(bill_id, amount, status, dt.date.fromisoformat(due), payment, paid_at)
        )
    lines: dict[str, list[AccountLine]] = {}
    for line_id, account, number, status, reason, used, plan, refill in world.query(
        "SELECT line_id, account_id, phone_number, status, suspension_reason, data_used_gb, plan_id, refill_gb"
        " FROM line ORDER BY line_id"
    ):
        lines.setdefault(account, []).append(AccountLine(line_id, number, status, reason, used, plan, refill))
    subscribers = []
    for row in world.query(
        """SELECT c.customer_id, c.full_name, a.account_id, l.line_id, l.phone_number, l.plan_id,
                  d.device_id, d.maker || ' ' || d.model, d.supports_5g, d.supports_wifi_calling,
                  p.location_region, l.data_used_gb, l.refill_gb, l.roaming_enabled, p.roaming_switch,
                  p.wifi_calling, p.network_mode
           FROM phone p
           JOIN customer c ON c.customer_id = p.customer_id
           JOIN line l ON l.line_id = p.line_id
           JOIN account a ON a.account_id = l.account_id
           JOIN device d ON d.device_id = p.device_id
           WHERE l.status = 'active' AND p.sim_status = 'ready' AND p.airplane_mode = 0
           ORDER BY c.customer_id"""
    ):
        (customer, name, account, line, number, plan, device, device_name, g5, wifi, region,
         used, refill, roaming, switch, calling, mode) = row  # fmt: skip
        method = methods[account]
        subscribers.append(
            Subscriber(
                customer_id=customer,
                full_name=name,
                account_id=account,
                line_id=line,
                phone_number=number,
                plan_id=plan,
                device_id=device,
                device_name=device_name,
                supports_5g=bool(g5),
                supports_wifi_calling=bool(wifi),
                region=region,
                data_used_gb=used,
                refill_gb=refill,
                roaming_enabled=bool(roaming),
                roaming_switch=bool(switch),
                wifi_calling=bool(calling),
                network_mode=mode,
                method_id=method[0],
                method_kind=method[1],
                method_last4=method[2],
                bills=tuple(bills[account]),
                other_lines=tuple(o for o in lines[account] if o.line_id != line),
                methods=tuple(on_file[account]),
            )
        )
    outages = {
        region: dt.datetime.fromisoformat(end)
        for region, end in world.query("SELECT region, MAX(expected_end) FROM outage WHERE status = 'active' GROUP BY region")
    }
    return Index(subscribers, outages)
