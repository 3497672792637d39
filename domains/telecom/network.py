"""How the customer's phone connects: one deterministic reading of phone, line, plan and outages.

The phone tools (status bar, speed test) and the task generators both use it, so a fault set
into the world breaks the speed test for exactly the reason the task says.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolgym.envs import World

from .catalogue import (
    DATA_SAVER_CAP_MBPS,
    DEFAULT_APN,
    HOME_COUNTRY,
    MODE_PEAK_MBPS,
    PASS_MBPS,
    THROTTLED_MBPS,
)
from .tables import Device, DeviceBase, Line, LineBase, Outage, PhoneBase, Plan, PlanBase

NETWORK_LABELS = {"5g_preferred": "5G", "lte_preferred": "LTE", "3g_only": "3G", "2g_only": "2G"}


@dataclass(frozen=True)
class Connection:
    """What the phone gets: cellular service, the network type, and whether data flows."""

    service: str  # airplane_mode | no_sim | no_signal | no_service | emergency_only | connected
    network: str | None  # 5G | LTE | 3G | 2G while registered
    roaming: bool
    data: str  # unavailable | off | roaming_off | outage | no_internet | throttled | ok
    mbps: float

    @property
    def passes(self) -> bool:
        return self.mbps >= PASS_MBPS


def effective_mode(phone: PhoneBase, device: DeviceBase, plan: PlanBase) -> str:
    """5G needs both a 5G handset and a 5G plan; otherwise the phone falls back to LTE."""
    if phone.network_mode == "5g_preferred" and not (device.supports_5g and plan.supports_5g):
        return "lte_preferred"
    return phone.network_mode


def allowance_gb(line: LineBase, plan: PlanBase) -> float | None:
    """The line's data for this cycle (plan plus refills), or None when unlimited."""
    return None if plan.unlimited else plan.data_gb + line.refill_gb


def active_outage(world: World, region: str) -> str | None:
    """The service an active outage in the region takes down ('data' or 'voice_and_data')."""
    rows = world.select(Outage, {"region": region, "status": "active"}, limit=1)
    return rows[0].service if rows else None


def connect(world: World, phone: PhoneBase) -> Connection:
    line = world.get(Line, phone.line_id)
    device = world.get(Device, phone.device_id)
    plan = world.get(Plan, line.plan_id) if line else None
    if line is None or device is None or plan is None:  # a broken world, not a model error
        return Connection("no_service", None, False, "unavailable", 0.0)
    abroad = phone.location_country != HOME_COUNTRY
    outage = None if abroad else active_outage(world, phone.location_region)
    return evaluate(phone, line, plan, device, abroad=abroad, outage=outage)


def evaluate(
    phone: PhoneBase, line: LineBase, plan: PlanBase, device: DeviceBase, *, abroad: bool, outage: str | None
) -> Connection:
    def down(service: str) -> Connection:
        return Connection(service, None, False, "unavailable", 0.0)

    if phone.airplane_mode:
        return down("airplane_mode")
    if phone.sim_status != "ready":
        return down("no_sim")
    if phone.signal_bars <= 0:
        return down("no_signal")
    if abroad and not (plan.roaming_supported and line.roaming_enabled):
        return down("no_service")  # no roaming on the account: foreign networks refuse the SIM
    if outage == "voice_and_data":
        return down("no_service")
    mode = effective_mode(phone, device, plan)
    network = NETWORK_LABELS[mode]
    if line.status != "active":
        return Connection("emergency_only", network, abroad, "unavailable", 0.0)

    def registered(data: str, mbps: float = 0.0) -> Connection:
        return Connection("connected", network, abroad, data, mbps)

    if not phone.mobile_data:
        return registered("off")
    if abroad and not phone.roaming_switch:
        return registered("roaming_off")
    if outage == "data":
        return registered("outage")
    if phone.apn_name != DEFAULT_APN or phone.restart_pending:
        return registered("no_internet")
    speed = MODE_PEAK_MBPS[mode] * phone.signal_bars / 4
    if abroad:
        speed /= 2  # partner networks give roaming customers a lower priority
    data = "ok"
    limit = allowance_gb(line, plan)
    if limit is not None and line.data_used_gb >= limit:
        speed, data = THROTTLED_MBPS, "throttled"
    if phone.data_saver:
        speed = min(speed, DATA_SAVER_CAP_MBPS)
    return registered(data, round(speed, 1))
