"""The bank's numbers: every limit and window the policy states and the tasks test, in one place."""

from __future__ import annotations

import datetime as dt

from toolgym.envs.clock import seeded_clock

# The bank's clock: world seed 0 is 2025-06-16 09:30; other world seeds have their own date, always
# a morning (8:00 to 11:45), so transfers "made this morning", up to four hours back, fall on the same day.
CLOCK = seeded_clock(dt.datetime(2025, 6, 16, 9, 30), hours=(8, 12))

PER_TRANSFER_LIMIT = 5000.0
DAILY_TRANSFER_LIMIT = 10000.0
DISPUTE_WINDOW_DAYS = 60
PAYEE_COOLING_OFF_HOURS = 24
CARD_LIMIT_MIN = 100
CARD_LIMIT_MAX = 3000
STATEMENT_MONTHS = 12  # statements can be requested for this many past months
FRAUD_CALLBACK = "within 2 hours"  # when the fraud team calls a customer back, as `transfer_to_human` says


def statement_window(today: dt.date) -> tuple[str, str]:
    """The earliest and the latest month (YYYY-MM) a statement can be ordered for on `today`: the
    last `STATEMENT_MONTHS` months that have ended."""
    latest = today.replace(day=1) - dt.timedelta(days=1)
    earliest = latest.year * 12 + latest.month - STATEMENT_MONTHS  # months since year 0, less one
    return f"{earliest // 12}-{earliest % 12 + 1:02d}", f"{latest:%Y-%m}"


def past_month(today: dt.date, back: int) -> str:
    """The month (YYYY-MM) `back` months before `today`'s: `past_month(2025-06-16, 1)` is '2025-05'."""
    months = today.year * 12 + today.month - 1 - back  # months since year 0
    return f"{months // 12}-{months % 12 + 1:02d}"


def month_said(month: str) -> str:
    """A YYYY-MM month as people say it: '2024-06' -> 'June 2024'."""
    return f"{dt.datetime.strptime(month, '%Y-%m'):%B %Y}"


def statement_window_said(today: dt.date) -> str:
    """The statement window in words, as the policy states it: 'June 2024 to May 2025'. In words, not
    as YYYY-MM, so the policy names no month id a statement request could take unasked."""
    return " to ".join(month_said(month) for month in statement_window(today))

POLICY_VALUES = {
    "per_transfer_limit": PER_TRANSFER_LIMIT,
    "daily_transfer_limit": DAILY_TRANSFER_LIMIT,
    "dispute_window_days": DISPUTE_WINDOW_DAYS,
    "payee_cooling_off_hours": PAYEE_COOLING_OFF_HOURS,
    "card_limit_min": CARD_LIMIT_MIN,
    "card_limit_max": CARD_LIMIT_MAX,
    "statement_months": STATEMENT_MONTHS,
    "statement_window_said": statement_window_said,
    "brands": ["Harbor Trust Bank", "Northfield Savings Bank", "Cedar & Stone Bank", "Lakeside Federal", "Meridian Bank"],
}
