"""The shop's fixed rules and formats, shared by the world, the tools, the tasks and the policy."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolgym.envs.clock import seeded_clock

# The shop's clock: world seed 0 is 2025-05-20 14:00; other world seeds have their own date.
CLOCK = seeded_clock(dt.datetime(2025, 5, 20, 14, 0), hours=(9, 19))
NOW = CLOCK(0)
RETURN_WINDOW_DAYS = 30

Category = Literal[
    "clothing",
    "footwear",
    "electronics",
    "home",
    "kitchen",
    "sports",
    "outdoors",
    "beauty",
    "toys",
    "office",
    "accessories",
]

OrderStatus = Literal[
    "pending", "processed", "shipped", "delivered", "cancelled", "return requested", "exchange requested"
]

CancelReason = Literal["no longer needed", "ordered by mistake"]
CANCEL_REASONS: tuple[str, ...] = get_args(CancelReason)

# parameters many tools take, described once
OrderId = Annotated[str, Field(description="The order id: '#W' followed by 7 digits, such as '#W0012345'.")]
CustomerId = Annotated[str, Field(description="The customer's id, such as 'C12345'.")]
Street = Annotated[str, Field(description="Street address, such as '12 Oak Street'.")]
Unit = Annotated[str, Field(description="Apartment, suite or unit; an empty string if there is none.")]
City = Annotated[str, Field(description="The city.")]
State = Annotated[str, Field(description="The two-letter US state code, such as 'CA'.")]
Zip = Annotated[str, Field(description="The 5-digit ZIP code, such as '94110'.")]

TransferReason = Literal[
    "damaged or defective item", "missing package", "billing dispute", "customer insists on a human"
]

OPTION_NAMES = ("color", "size", "material", "capacity", "style")

ORDER_ID = re.compile(r"^#W\d{7}$")
ORDER_ID_EXAMPLE = "#W0012345"
PRODUCT_ID = re.compile(r"^P\d{4}$")
GIFT_CARD_ID = re.compile(r"^gift_card_\d{7}$")
ZIP = re.compile(r"^\d{5}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)
US_STATES = frozenset(
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC "
    "ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC".split()
)




def iso(moment: dt.datetime) -> str:
    return moment.isoformat(timespec="minutes")


def return_deadline(delivered_at: str) -> dt.datetime:
    return dt.datetime.fromisoformat(delivered_at) + dt.timedelta(days=RETURN_WINDOW_DAYS)


def within_return_window(delivered_at: str | None, now: dt.datetime) -> bool:
    return delivered_at is not None and now <= return_deadline(delivered_at)
