"""Reference data every telecom world shares: plans, data refills, regions, destinations, APNs.

Fixed, not drawn by Faker, so that plan ids and prices are the same in every world and a
policy can name them.
"""

from __future__ import annotations

from dataclasses import dataclass

HOME_COUNTRY = "United States"
DEFAULT_APN = "nimbus.internet"
WRONG_APNS = ("wap.nimbus.old", "internet.roam-partner", "nimbus.mms", "broadband.test")
REFUND_WINDOW_DAYS = 30
PASS_MBPS = 5.0  # a speed test at or above this passes


@dataclass(frozen=True)
class PlanSpec:
    plan_id: str
    name: str
    data_gb: float  # monthly allowance; ignored when unlimited
    unlimited: bool
    monthly_price: float
    roaming_supported: bool
    roaming_daily_fee: float  # 0.0 when roaming is included
    supports_5g: bool


PLANS = (
    PlanSpec("starter_2", "Starter 2", 2.0, False, 15.0, False, 0.0, False),
    PlanSpec("basic_5", "Basic 5", 5.0, False, 25.0, False, 0.0, False),
    PlanSpec("standard_15", "Standard 15", 15.0, False, 40.0, True, 10.0, True),
    PlanSpec("travel_20", "Travel 20", 20.0, False, 50.0, True, 0.0, True),
    PlanSpec("plus_40", "Plus 40", 40.0, False, 55.0, True, 5.0, True),
    PlanSpec("unlimited", "Unlimited", 0.0, True, 75.0, True, 0.0, True),
)
PLAN_BY_ID = {p.plan_id: p for p in PLANS}


@dataclass(frozen=True)
class RefillSpec:
    refill_id: str
    gigabytes: int
    price: float


REFILLS = (
    RefillSpec("refill_1gb", 1, 10.0),
    RefillSpec("refill_3gb", 3, 20.0),
    RefillSpec("refill_5gb", 5, 30.0),
    RefillSpec("refill_10gb", 10, 45.0),
)
REFILL_BY_GB = {r.gigabytes: r for r in REFILLS}

# Service regions at home, with the area code their numbers start with.
REGION_AREA_CODES = {
    "Austin": "512",
    "Boston": "617",
    "Chicago": "312",
    "Denver": "303",
    "Miami": "305",
    "Nashville": "615",
    "Phoenix": "602",
    "Portland": "503",
    "Sacramento": "916",
    "Seattle": "206",
    "St. Louis": "314",
    "Tampa": "813",
}
REGIONS = tuple(REGION_AREA_CODES)

# What the network operations centre writes on an outage.
OUTAGE_MESSAGES = (
    "Fiber cut between two towers; crews are on site.",
    "Power failure at a cell site; generators are being brought in.",
    "Planned core network maintenance.",
    "Storm damage to antennas; repairs are under way.",
    "Software fault on a regional switch; engineers are rolling back an update.",
)

# Destinations abroad, with a city the customer is in.
DESTINATIONS = (
    ("Spain", "Madrid"),
    ("France", "Paris"),
    ("Italy", "Rome"),
    ("Japan", "Tokyo"),
    ("Mexico", "Cancun"),
    ("Canada", "Toronto"),
    ("United Kingdom", "London"),
    ("Germany", "Berlin"),
    ("Portugal", "Lisbon"),
    ("Greece", "Athens"),
)

DEVICES = (
    # (maker, model, supports_5g, supports_wifi_calling)
    ("Apple", "iPhone 15", True, True),
    ("Apple", "iPhone 13", True, True),
    ("Apple", "iPhone SE", True, True),
    ("Samsung", "Galaxy S24", True, True),
    ("Samsung", "Galaxy A15", False, True),
    ("Google", "Pixel 8", True, True),
    ("Google", "Pixel 6a", True, True),
    ("Motorola", "Moto G Play", False, False),
    ("Nokia", "G310", True, False),
    ("OnePlus", "Nord N30", True, True),
)

# Peak download speed of each mode at full signal, in Mbps.
MODE_PEAK_MBPS = {"5g_preferred": 150.0, "lte_preferred": 60.0, "3g_only": 3.0, "2g_only": 0.2}
DATA_SAVER_CAP_MBPS = 1.5
THROTTLED_MBPS = 0.1  # once the data allowance is used up
