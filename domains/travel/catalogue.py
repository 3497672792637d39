"""The fixed facts of the travel world: airports, fare rules, rewards, currencies and the clock.

Everything a policy number or a tool's arithmetic depends on lives here once, so the policy
(`policy_values`), the tools and the task generators always agree.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from toolgym.envs.clock import seeded_clock

# The world's clock (UTC): world seed 0 is 2026-03-02 09:00, other world seeds have their own date.
# Flights leave from the next day, 06:00 local at the earliest, which in Sydney (UTC+11) is 19:00 UTC
# the day before: the clock stays before 17:00 UTC so even that first flight is still ahead.
# Bookings were made before it.
CLOCK = seeded_clock(dt.datetime(2026, 3, 2, 9, 0), hours=(7, 17))
AIRLINE = "Skyward"
FLIGHT_PREFIX = "SW"


@dataclass(frozen=True)
class AirportSpec:
    code: str
    city: str
    country: str
    timezone: str  # IANA zone name
    currency: str
    lat: float
    lon: float
    hub: bool = False


AIRPORTS = (
    AirportSpec("JFK", "New York", "United States", "America/New_York", "USD", 40.64, -73.78, hub=True),
    AirportSpec("LAX", "Los Angeles", "United States", "America/Los_Angeles", "USD", 33.94, -118.41),
    AirportSpec("ORD", "Chicago", "United States", "America/Chicago", "USD", 41.97, -87.91, hub=True),
    AirportSpec("SFO", "San Francisco", "United States", "America/Los_Angeles", "USD", 37.62, -122.38),
    AirportSpec("LHR", "London", "United Kingdom", "Europe/London", "GBP", 51.47, -0.45, hub=True),
    AirportSpec("CDG", "Paris", "France", "Europe/Paris", "EUR", 49.01, 2.55),
    AirportSpec("NRT", "Tokyo", "Japan", "Asia/Tokyo", "JPY", 35.77, 140.39),
    AirportSpec("MIA", "Miami", "United States", "America/New_York", "USD", 25.79, -80.29),
    AirportSpec("YYZ", "Toronto", "Canada", "America/Toronto", "CAD", 43.68, -79.63),
    AirportSpec("FRA", "Frankfurt", "Germany", "Europe/Berlin", "EUR", 50.03, 8.57, hub=True),
    AirportSpec("DXB", "Dubai", "United Arab Emirates", "Asia/Dubai", "AED", 25.25, 55.36, hub=True),
    AirportSpec("SIN", "Singapore", "Singapore", "Asia/Singapore", "SGD", 1.36, 103.99),
    AirportSpec("SEA", "Seattle", "United States", "America/Los_Angeles", "USD", 47.45, -122.31),
    AirportSpec("DEN", "Denver", "United States", "America/Denver", "USD", 39.86, -104.67),
    AirportSpec("BOS", "Boston", "United States", "America/New_York", "USD", 42.36, -71.01),
    AirportSpec("MEX", "Mexico City", "Mexico", "America/Mexico_City", "MXN", 19.44, -99.07),
    AirportSpec("AMS", "Amsterdam", "Netherlands", "Europe/Amsterdam", "EUR", 52.31, 4.76),
    AirportSpec("MAD", "Madrid", "Spain", "Europe/Madrid", "EUR", 40.49, -3.57),
    AirportSpec("FCO", "Rome", "Italy", "Europe/Rome", "EUR", 41.80, 12.25),
    AirportSpec("HKG", "Hong Kong", "Hong Kong", "Asia/Hong_Kong", "HKD", 22.31, 113.91),
    AirportSpec("SYD", "Sydney", "Australia", "Australia/Sydney", "AUD", -33.94, 151.18),
    AirportSpec("GRU", "Sao Paulo", "Brazil", "America/Sao_Paulo", "BRL", -23.43, -46.47),
    AirportSpec("DEL", "Delhi", "India", "Asia/Kolkata", "INR", 28.56, 77.10),
    AirportSpec("ICN", "Seoul", "South Korea", "Asia/Seoul", "KRW", 37.46, 126.44),
)
AIRPORT_BY_CODE = {a.code: a for a in AIRPORTS}
AIRPORT_BY_CITY = {a.city: a for a in AIRPORTS}
AIRPORTS_PER_SIZE = {"small": 10, "default": len(AIRPORTS)}

# Units of each currency per US dollar (a fixed table: the world's rates do not move).
RATES_PER_USD = {
    "USD": 1.0, "EUR": 0.92, "GBP": 0.79, "JPY": 149.5, "CAD": 1.36, "AED": 3.6725, "SGD": 1.34,
    "MXN": 17.05, "HKD": 7.82, "AUD": 1.52, "BRL": 4.97, "INR": 82.9, "KRW": 1331.0, "CHF": 0.88,
}  # fmt: skip
CURRENCIES = tuple(RATES_PER_USD)


@dataclass(frozen=True)
class FareRuleSpec:
    cabin: str
    label: str  # how people say it
    changeable: bool
    change_fee: float
    refundable: bool
    cancel_fee: float  # kept from the fare when cancelled after the free window
    free_bags: int
    bag_fee: float  # per checked bag beyond the free ones


FARE_RULES = (
    FareRuleSpec("basic_economy", "basic economy", False, 0.0, False, 0.0, 0, 40.0),
    FareRuleSpec("economy", "economy", True, 75.0, True, 100.0, 1, 35.0),
    FareRuleSpec("business", "business", True, 0.0, True, 0.0, 2, 0.0),
)
FARE_RULE_BY_CABIN = {r.cabin: r for r in FARE_RULES}
CABINS = tuple(r.cabin for r in FARE_RULES)


@dataclass(frozen=True)
class RewardSpec:
    reward: str
    label: str
    points: int


REWARDS = (
    RewardSpec("lounge_pass", "a lounge day pass", 4000),
    RewardSpec("wifi_pass", "an inflight wifi pass", 1500),
    RewardSpec("bag_voucher", "a checked bag voucher", 3500),
    RewardSpec("upgrade_voucher", "an upgrade voucher", 25000),
    RewardSpec("hotel_night", "a free hotel night voucher", 18000),
)
REWARD_BY_NAME = {r.reward: r for r in REWARDS}

TIERS = ("blue", "silver", "gold", "platinum")
POINTS_PER_DOLLAR = 100  # a fare of $245.00 costs 24,500 points
FREE_CANCEL_HOURS = 24  # also the window to add insurance after booking
INSURANCE_RATE = 0.07  # of the fare
PASSPORT_VALID_MONTHS = 6  # beyond the travel date, for international flights
MAX_BAGS = 3
SEAT_ROWS = 40
SEAT_LETTERS = "ABCDEF"


def insurance_price(fare: float) -> float:
    """What travel insurance costs on a fare: a booking's quote, its charge and the world's insured bookings."""
    return round(fare * INSURANCE_RATE, 2)


def points_for(fare: float) -> int:
    return int(round(fare * POINTS_PER_DOLLAR))


POLICY_VALUES = {
    "airline": AIRLINE,
    "brands": ["Skyward Travel", "Skyward Trips", "Skyward Air & Stays"],
    "free_cancel_hours": FREE_CANCEL_HOURS,
    "points_per_dollar": POINTS_PER_DOLLAR,
    "passport_valid_months": PASSPORT_VALID_MONTHS,
    "max_bags": MAX_BAGS,
    "seat_rows": SEAT_ROWS,
    "seat_letters": SEAT_LETTERS,
    "fare_rules": FARE_RULES,
    "rewards": REWARDS,
    "airports": AIRPORTS,
    "insurance_percent": round(INSURANCE_RATE * 100),
}
