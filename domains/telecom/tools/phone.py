"""Tools the customer holds (caller="user"): the settings and screens of their own phone.

They act on the phone of the customer on the call and change nothing but its row.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from ..catalogue import DEFAULT_APN, HOME_COUNTRY
from ..network import Connection, allowance_gb, connect
from ..tables import Device, DeviceBase, Line, Phone, PhoneBase, Plan
from .common import phone_in_hand

OnOff = Annotated[Literal["on", "off"], Field(description="'on' or 'off'.")]
_SERVICE_TEXT = {
    "airplane_mode": "Airplane mode",
    "no_sim": "No SIM card",
    "no_signal": "No signal",
    "no_service": "No service",
    "emergency_only": "Emergency calls only",
    "connected": "Connected",
}
_SPEED_NOTES = {
    "unavailable": "No network connection.",
    "off": "Mobile data is turned off.",
    "roaming_off": "Data roaming is turned off.",
    "outage": "Could not reach the test server.",
    "no_internet": "Could not reach the test server.",
}


def _status_bar(phone: PhoneBase, link: Connection) -> dict[str, Any]:
    registered = link.service in ("connected", "emergency_only")
    return {
        "service": _SERVICE_TEXT[link.service],
        "signal_bars": phone.signal_bars if registered else 0,
        "network": link.network,
        "roaming_indicator": link.roaming and registered,
        "mobile_data_icon": link.service == "connected" and link.data not in ("off", "roaming_off"),
        "airplane_icon": phone.airplane_mode,
        "data_saver_icon": phone.data_saver,
        "wifi_calling_icon": phone.wifi_calling,
    }


def _device(world: World, phone: PhoneBase) -> DeviceBase:
    return world.require(Device, phone.device_id, "device")


def _switch(world: World, column: str, label: str, state: OnOff) -> dict[str, Any]:
    phone = phone_in_hand(world)
    wanted = state == "on"
    if getattr(phone, column) == wanted:
        raise ToolError(f"{label} is already {state}")
    world.update(Phone, phone.customer_id, **{column: wanted})
    return {column: state}


@tool(caller="user")
def check_status_bar(world: World) -> dict[str, Any]:
    """Look at the phone's status bar: service, signal bars, network type and the icons shown."""
    phone = phone_in_hand(world)
    return _status_bar(phone, connect(world, phone))


@tool(caller="user")
def check_network_settings(world: World) -> dict[str, Any]:
    """Open the phone's mobile network settings and read every switch and the network mode."""
    phone = phone_in_hand(world)
    return {
        "airplane_mode": phone.airplane_mode,
        "mobile_data": phone.mobile_data,
        "data_roaming": phone.roaming_switch,
        "data_saver": phone.data_saver,
        "wifi_calling": phone.wifi_calling,
        "network_mode": phone.network_mode,
        "location": phone.location_region
        + ("" if phone.location_country == HOME_COUNTRY else f", {phone.location_country}"),
    }


@tool(caller="user")
def check_apn_settings(world: World) -> dict[str, Any]:
    """Open the phone's access point (APN) settings and read the APN in use."""
    phone = phone_in_hand(world)
    return {"apn_name": phone.apn_name, "restart_needed_to_apply": phone.restart_pending}


@tool(caller="user")
def check_data_usage(world: World) -> dict[str, Any]:
    """Open the phone's data usage screen: data used this billing cycle and carrier notices."""
    phone = phone_in_hand(world)
    line = world.require(Line, phone.line_id, "line")
    plan = world.require(Plan, line.plan_id, "plan")
    limit = allowance_gb(line, plan)
    capped = limit is not None and line.data_used_gb >= limit
    return {
        "data_used_this_cycle_gb": round(line.data_used_gb, 2),
        "carrier_notice": "You have used all the data on your plan for this cycle." if capped else None,
    }


@tool(caller="user", writes=True)
def toggle_airplane_mode(world: World, state: OnOff) -> dict[str, Any]:
    """Switch airplane mode on or off (airplane mode turns every radio off)."""
    return _switch(world, "airplane_mode", "airplane mode", state)


@tool(caller="user", writes=True)
def toggle_mobile_data(world: World, state: OnOff) -> dict[str, Any]:
    """Switch mobile (cellular) data on or off."""
    return _switch(world, "mobile_data", "mobile data", state)


@tool(caller="user", writes=True)
def toggle_roaming(world: World, state: OnOff) -> dict[str, Any]:
    """Switch the phone's data roaming setting on or off (needed for data abroad)."""
    return _switch(world, "roaming_switch", "data roaming", state)


@tool(caller="user", writes=True)
def toggle_data_saver(world: World, state: OnOff) -> dict[str, Any]:
    """Switch data saver on or off (data saver throttles mobile data to save allowance)."""
    return _switch(world, "data_saver", "data saver", state)


@tool(caller="user", writes=True)
def toggle_wifi_calling(world: World, state: OnOff) -> dict[str, Any]:
    """Switch Wi-Fi calling on or off (calls and texts over Wi-Fi when there is no cell service)."""
    device = _device(world, phone_in_hand(world))
    if not device.supports_wifi_calling:
        raise ToolError(f"this {device.maker} {device.model} does not support Wi-Fi calling")
    return _switch(world, "wifi_calling", "Wi-Fi calling", state)


@tool(caller="user", writes=True)
def set_network_mode(
    world: World, mode: Literal["5g_preferred", "lte_preferred", "3g_only", "2g_only"]
) -> dict[str, Any]:
    """Choose the preferred network type in the phone's mobile network settings.

    Args:
        mode: The network mode to select.
    """
    phone = phone_in_hand(world)
    device = _device(world, phone)
    if mode == "5g_preferred" and not device.supports_5g:
        raise ToolError(f"this {device.maker} {device.model} has no 5G option; choose lte_preferred")
    if phone.network_mode == mode:
        raise ToolError(f"network mode is already {mode}")
    world.update(Phone, phone.customer_id, network_mode=mode)
    return {"network_mode": mode}


@tool(caller="user", writes=True)
def reset_apn_settings(world: World) -> dict[str, Any]:
    """Reset the access point (APN) settings to the carrier default; applies after a restart."""
    phone = phone_in_hand(world)
    world.update(Phone, phone.customer_id, apn_name=DEFAULT_APN, restart_pending=True)
    return {"apn_name": DEFAULT_APN, "restart_needed_to_apply": True}


@tool(caller="user", writes=True)
def reseat_sim(world: World) -> dict[str, Any]:
    """Power the phone off, take the SIM card out, put it back firmly, and power on again."""
    phone = phone_in_hand(world)
    status = "ready" if phone.sim_status == "not_detected" else phone.sim_status
    updated = world.update(Phone, phone.customer_id, sim_status=status, restart_pending=False)
    return {"sim": "detected" if status == "ready" else "still not detected", **_status_bar(updated, connect(world, updated))}


@tool(caller="user", writes=True)
def restart_device(world: World) -> dict[str, Any]:
    """Turn the phone off and on again; pending network settings take effect."""
    phone = phone_in_hand(world)
    updated = world.update(Phone, phone.customer_id, restart_pending=False)
    return _status_bar(updated, connect(world, updated))


@tool(caller="user", writes=True)
def run_speed_test(world: World) -> dict[str, Any]:
    """Run a mobile data speed test in the phone's speed test app; the result is kept on the phone."""
    phone = phone_in_hand(world)
    link = connect(world, phone)
    result = "passed" if link.passes else "failed"
    world.update(Phone, phone.customer_id, last_speed_test_mbps=link.mbps, last_speed_test_result=result)
    note = _SPEED_NOTES.get(link.data) or ("Very slow." if not link.passes else "Good connection.")
    return {"result": result, "download_mbps": link.mbps, "note": note}
