"""Faults a task sets into the world, and the gold steps that clear each one.

A fault is a few world edits (the setup) and a fix: agent calls and on-phone user steps,
each with a stage so that combined faults interleave in the policy's order (diagnose, pay,
restore the account, fix the phone, restart, test, escalate). Every fix step carries its
evidence: words that a read before it (a tool result, or what the customer reports from the
phone) shows, so the gold never mends a fault nothing has shown.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from toolgym.envs import Fact, Forbidden, GenContext, Step, WorldEdit, call, money, shown_as

from ..catalogue import OUTAGE_MESSAGES, PLAN_BY_ID, REFILLS, WRONG_APNS
from ..network import NETWORK_LABELS
from ..tables import Phone
from ..tools.account import first_ticket_id
from .index import BillInfo, Subscriber
from .parts import agent, user

# Stages: the order of a combined fix.
DIAGNOSE, PAY, RESUME, RESTORE, PHONE, RESTART, TEST, ESCALATE = 10, 20, 25, 30, 40, 50, 60, 70
SERVICE_LOST, DATA_LOST, SLOW = 3, 2, 1  # how bad the symptom the customer reports is
OUTAGE_ID = "OUT-9001"
# Phone fixes in the policy's order (troubleshooting, step 4): airplane mode hides a missing SIM,
# which hides everything after it, so a check made between them shows the next fault.
PHONE_ORDER = ("airplane_mode", "sim_not_seated", "mobile_data_off", "roaming_switch_off", "data_saver_on",
               "slow_network_mode", "wrong_apn")  # fmt: skip
SETTINGS_CHECK = "check_network_settings"  # what the customer reads once for every switch fault
# What the customer's report of the settings screen says of a faulty switch (see `user_saw_check_network_settings`).
SETTING_SHOWN = {"airplane_mode": "airplane mode is on", "mobile_data": "mobile data is off",
                 "data_saver": "data saver is on", "roaming_switch": "data roaming is off"}  # fmt: skip
NETWORK_MODE_SHOWN = "network mode is {label} only"
# The same faults as the phone's own reading shows them, for a customer who relays it as read.
DEVICE_SHOWN = {"airplane_mode": shown_as(airplane_mode=True), "mobile_data": shown_as(mobile_data=False),
                "data_saver": shown_as(data_saver=True), "roaming_switch": shown_as(data_roaming=False)}  # fmt: skip
# What the status bar and the agent's reads show of the other faults.
SIM_MISSING, NO_SIGNAL = "No SIM card", "No signal"
OVERDUE, SUSPENDED_UNPAID = shown_as(status="overdue"), shown_as(suspension_reason="unpaid_bill")
DATA_USED_UP, ROAMING_OFF = shown_as(data_remaining_gb=0.0), shown_as(roaming_enabled=False)
ACCOUNT_WRITES = (
    "suspend_line", "resume_line", "change_plan", "add_data_refill", "enable_roaming",
    "disable_roaming", "make_payment", "refund_payment",
)  # fmt: skip


@dataclass
class Fix:
    setup: list[WorldEdit] = field(default_factory=list)
    steps: list[tuple[int, Step]] = field(default_factory=list)
    done: list[str] = field(default_factory=list)  # what was done, for the closing reply
    facts: list[Fact] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    forbidden: list[Forbidden] = field(default_factory=list)
    restart: bool = False
    settings_check: bool = False  # the customer must read the network settings before the fix


@dataclass(frozen=True)
class Fault:
    name: str
    symptom: int
    build: Callable[[GenContext, Subscriber], Fix]
    applies: Callable[[Subscriber], bool] = lambda sub: True
    abroad: bool = False
    terminal: bool = False  # remote help cannot make the speed test pass


def phone_edit(sub: Subscriber, **values) -> WorldEdit:
    return WorldEdit(table=Phone.__tablename__, key=sub.customer_id, set=values)


def line_edit(sub: Subscriber, **values) -> WorldEdit:
    return WorldEdit(table="line", key=sub.line_id, set=values)


def _toggle(column: str, tool: str, state: str, intent: str, done: str) -> Callable[[GenContext, Subscriber], Fix]:
    def build(ctx: GenContext, sub: Subscriber) -> Fix:
        step = user(ctx, tool, intent, {"state": state}, evidence=(SETTING_SHOWN[column], DEVICE_SHOWN[column]))
        return Fix(
            setup=[phone_edit(sub, **{column: state != "on"})],
            steps=[(PHONE, step)],
            done=[ctx.say(done)],
            settings_check=True,
        )

    return build


def _wrong_apn(ctx: GenContext, sub: Subscriber) -> Fix:
    apn = ctx.pick(WRONG_APNS)
    return Fix(
        setup=[phone_edit(sub, apn_name=apn)],
        steps=[
            (PHONE, user(ctx, "check_apn_settings", "do_check_apn")),
            (PHONE, user(ctx, "reset_apn_settings", "do_reset_apn", evidence=(apn,))),
        ],
        done=[ctx.say("done_apn")],
        restart=True,
    )


def status_bar_check(ctx: GenContext) -> Step:
    return user(ctx, "check_status_bar", "do_check_status_bar")


def _sim_not_seated(ctx: GenContext, sub: Subscriber) -> Fix:
    return Fix(
        setup=[phone_edit(sub, sim_status="not_detected")],
        steps=[
            (PHONE, status_bar_check(ctx)),
            (PHONE, user(ctx, "reseat_sim", "do_reseat_sim", evidence=(SIM_MISSING,))),
        ],
        done=[ctx.say("done_sim")],
    )


def _slow_network_mode(ctx: GenContext, sub: Subscriber) -> Fix:
    label = NETWORK_LABELS[sub.network_mode]
    slow = ctx.pick(("3g_only", "2g_only"))
    shown = NETWORK_MODE_SHOWN.format(label=NETWORK_LABELS[slow])
    return Fix(
        setup=[phone_edit(sub, network_mode=slow)],
        steps=[
            # the handset's best mode is read, not assumed: 5G only where the device has it
            (DIAGNOSE, agent(call("get_device_details", device_id=sub.device_id))),
            (PHONE, user(ctx, "set_network_mode", "do_network_mode", {"mode": sub.network_mode}, evidence=(shown, shown_as(network_mode=slow)), label=label)),
        ],
        done=[ctx.say("done_network_mode", label=label)],
        settings_check=True,
    )


def _data_cap(ctx: GenContext, sub: Subscriber) -> Fix:
    refill = ctx.pick(REFILLS)
    steps = [
        (DIAGNOSE, agent(call("list_data_refills"))),  # the price quoted is read, never assumed
        (
            RESTORE,
            agent(  # the size is the customer's pick among the refills read (see `troubleshoot.refill_picked`)
                call("add_data_refill", line_id=sub.line_id, gigabytes=refill.gigabytes),
                confirm=ctx.say("action_refill", gb=refill.gigabytes, price=refill.price, number=sub.phone_number),
                evidence=(DATA_USED_UP,),
            ),
        ),
    ]
    if ctx.rng.random() < 0.5:  # the customer reads the phone's data usage screen first
        steps.insert(0, (DIAGNOSE, user(ctx, "check_data_usage", "do_check_data_usage")))
    return Fix(
        setup=[line_edit(sub, data_used_gb=round(sub.plan.data_gb + sub.refill_gb, 2))],
        steps=steps,
        done=[ctx.say("done_refill", gb=refill.gigabytes, price=refill.price)],
        outputs=[money(refill.price)],
        forbidden=[Forbidden(reason="the customer did not ask to change plan", tool="change_plan")],
    )


def refill_fact(gigabytes: int) -> Fact:
    return Fact(
        key="refill_size", value=f"{gigabytes} GB", label="preferred data refill size", keywords=["refill size", "size"]
    )


def unpaid_bill_edits(sub: Subscriber) -> list[WorldEdit]:
    """The last bill's payment was declined: the bill is overdue and the line suspended."""
    bill = sub.last_paid_bill
    return [
        WorldEdit(table="bill", key=bill.bill_id, set={"status": "overdue", "amount_paid": 0.0}),
        WorldEdit(table="payment", key=bill.payment_id, set={"status": "declined"}),
        line_edit(sub, status="suspended", suspension_reason="unpaid_bill"),
    ]


def payment_steps(ctx: GenContext, sub: Subscriber, bill: BillInfo, *, evidence: tuple[str, ...] = (),
                  suspended: bool = False) -> list[Step]:
    """Read the bills and the payment methods on file, then pay `bill` in full with the default method;
    `suspended`: the bill is why the line is suspended, which the confirmation tells the customer."""
    method = ctx.say("method_" + sub.method_kind, last4=sub.method_last4)
    return [
        agent(call("list_bills", account_id=sub.account_id)),
        agent(call("get_customer_details", customer_id=sub.customer_id)),  # the card or account charged
        agent(
            call("make_payment", bill_id=bill.bill_id, method_id=sub.method_id, amount=bill.amount),
            confirm=ctx.say("action_pay", amount=bill.amount, bill_id=bill.bill_id, method=method, suspended=suspended,
                            number=sub.phone_number),
            evidence=evidence,
        ),
    ]


def _unpaid_bill(ctx: GenContext, sub: Subscriber) -> Fix:
    bill = sub.last_paid_bill
    listing, methods, pay = payment_steps(ctx, sub, bill, evidence=(OVERDUE,), suspended=True)
    return Fix(
        setup=unpaid_bill_edits(sub),
        steps=[
            (DIAGNOSE, listing),
            (PAY, methods),
            (PAY, pay),
            (
                RESUME,
                agent(
                    call("resume_line", line_id=sub.line_id),
                    confirm=ctx.say("action_resume", number=sub.phone_number),
                    evidence=(SUSPENDED_UNPAID,),
                ),
            ),
        ],
        done=[ctx.say("done_paid_resumed", amount=bill.amount, bill_id=bill.bill_id)],
        outputs=[money(bill.amount)],
    )


def _roaming_account(ctx: GenContext, sub: Subscriber) -> Fix:
    fee = PLAN_BY_ID[sub.plan_id].roaming_daily_fee
    return Fix(
        steps=[
            (DIAGNOSE, agent(call("list_plans"))),  # the daily fee quoted is read from the catalogue
            (
                RESTORE,
                agent(
                    call("enable_roaming", line_id=sub.line_id),
                    confirm=ctx.say("action_roaming", number=sub.phone_number, fee=fee),
                    evidence=(ROAMING_OFF,),
                ),
            ),
        ],
        done=[ctx.say("done_roaming_account")],
    )  # the trip's edits switch roaming off on the line


def _roaming_switch(ctx: GenContext, sub: Subscriber) -> Fix:
    step = user(ctx, "toggle_roaming", "do_roaming_on", {"state": "on"}, evidence=(SETTING_SHOWN["roaming_switch"], DEVICE_SHOWN["roaming_switch"]))
    return Fix(steps=[(PHONE, step)], done=[ctx.say("done_roaming_switch")], settings_check=True)


def _outage(ctx: GenContext, sub: Subscriber) -> Fix:
    now = ctx.world.now
    end = now + dt.timedelta(hours=ctx.rng.randrange(2, 10))
    steps = []
    if sub.supports_wifi_calling and not sub.wifi_calling:
        steps.append((PHONE, user(ctx, "toggle_wifi_calling", "do_wifi_calling_on", {"state": "on"}, evidence=(OUTAGE_ID,))))
    outage = {
        "outage_id": OUTAGE_ID,
        "region": sub.region,
        "service": ctx.pick(("data", "voice_and_data")),
        "started_at": (now - dt.timedelta(minutes=ctx.rng.randrange(20, 240))).isoformat(),
        "expected_end": end.isoformat(),
        "status": "active",
        "message": ctx.pick(OUTAGE_MESSAGES),
    }
    return Fix(
        setup=[WorldEdit(table="outage", insert=outage)],
        steps=steps,
        done=[ctx.say("done_outage", end=f"{end:%H:%M}", wifi=bool(steps))],
        outputs=[f"{end:%H:%M}"],
        forbidden=[Forbidden(reason="nothing on the account causes an outage", tool=t) for t in ACCOUNT_WRITES]
        + [Forbidden(reason="an outage is not a case for a technician", tool="transfer_to_technician")],
    )


def _escalation(
    setup: dict, tool: str, intent: str, issue: str, shown: str, remains: str
) -> Callable[[GenContext, Subscriber], Fix]:
    """A fault remote help cannot mend: the status bar shows it (`shown`), the phone step leaves it (`remains`)."""

    def build(ctx: GenContext, sub: Subscriber) -> Fix:
        ticket = first_ticket_id(ctx.world)
        return Fix(
            setup=[phone_edit(sub, **setup)],
            steps=[
                (PHONE, status_bar_check(ctx)),
                (PHONE, user(ctx, tool, intent, evidence=(shown,))),
                (
                    ESCALATE,
                    agent(
                        call("transfer_to_technician", customer_id=sub.customer_id, line_id=sub.line_id, issue=issue),
                        confirm=ctx.say("action_transfer", issue=ctx.say("issue_" + issue)),
                        evidence=(remains,),
                    ),
                ),
            ],
            done=[ctx.say("done_escalated", ticket=ticket)],
            outputs=[ticket],
            forbidden=[Forbidden(reason="the account is not the cause", tool=t) for t in ACCOUNT_WRITES],
        )

    return build


FAULTS = {
    f.name: f
    for f in (
        Fault("airplane_mode", SERVICE_LOST, _toggle("airplane_mode", "toggle_airplane_mode", "off", "do_airplane_off", "done_airplane")),
        Fault("sim_not_seated", SERVICE_LOST, _sim_not_seated),
        Fault("unpaid_bill", SERVICE_LOST, _unpaid_bill),
        Fault("mobile_data_off", DATA_LOST, _toggle("mobile_data", "toggle_mobile_data", "on", "do_mobile_data_on", "done_mobile_data")),
        Fault("wrong_apn", DATA_LOST, _wrong_apn),
        Fault("data_saver_on", SLOW, _toggle("data_saver", "toggle_data_saver", "off", "do_data_saver_off", "done_data_saver")),
        Fault("slow_network_mode", SLOW, _slow_network_mode),
        Fault("data_cap", SLOW, _data_cap, applies=lambda sub: not sub.plan.unlimited),
        Fault("roaming_off_account", SERVICE_LOST, _roaming_account, abroad=True),
        Fault("roaming_switch_off", DATA_LOST, _roaming_switch, abroad=True),
        Fault("outage", SERVICE_LOST, _outage, terminal=True),
        Fault("sim_damaged", SERVICE_LOST, _escalation({"sim_status": "damaged"}, "reseat_sim", "do_reseat_sim",
                                                       "sim_not_detected", SIM_MISSING, "still not detected"), terminal=True),
        Fault("no_signal", SERVICE_LOST, _escalation({"signal_bars": 0}, "restart_device", "do_restart",
                                                     "no_signal", NO_SIGNAL, NO_SIGNAL), terminal=True),
    )
}  # fmt: skip
FIXABLE_AT_HOME = [f.name for f in FAULTS.values() if not f.abroad and not f.terminal]
ABROAD = [f.name for f in FAULTS.values() if f.abroad]
TERMINAL = [f.name for f in FAULTS.values() if f.terminal]
