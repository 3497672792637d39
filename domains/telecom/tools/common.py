"""Lookups and formats the telecom tools share."""

from __future__ import annotations

import datetime as dt
import re

from toolgym.envs import World
from toolgym.errors import ToolError

from ..tables import CallSession, Line, LineBase, Phone, PhoneBase

_NON_DIGITS = re.compile(r"\D")
CALL_ID = 1  # the one call session of an episode


def format_phone_number(raw: str) -> str:
    """'(415) 555 0123', '+1 415-555-0123' -> '415-555-0123'; anything else is a ToolError."""
    digits = _NON_DIGITS.sub("", raw)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) != 10 or re.search(r"[A-Za-z]", raw):
        raise ToolError(
            f"phone number {raw!r} is not a valid 10-digit number; give it like 415-555-0123"
        )
    return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"


def line_by_number(world: World, phone_number: str) -> LineBase:
    number = format_phone_number(phone_number)
    found = world.select(Line, {"phone_number": number}, limit=1)
    if not found:
        raise ToolError(f"no line with phone number {number}")
    return found[0]


def phone_in_hand(world: World) -> PhoneBase:
    """The phone of the customer on this call (user-side tools act only on it)."""
    session = world.get(CallSession, CALL_ID)
    phone = world.get(Phone, session.customer_id) if session else None
    if phone is None:
        raise ToolError("no phone is connected to this support session")
    return phone


def clock(moment: dt.datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M}"


def cents(amount: float) -> float:
    return round(amount + 0.0, 2)
