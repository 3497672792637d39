"""Building a travel world from a seed: airports, a month of flights, hotels, travellers, bookings.

Names come from Faker seeded with the world seed; everything else from one `random.Random`,
so the same seed gives the same rows. Every time counts from the world's own `CLOCK(seed)` (UTC),
never the wall clock; flight times are stored in UTC and computed from local departure times.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from toolgym.envs.fakes import person_name, seeded_faker
from toolgym.envs.record_numbers import next_number

from .catalogue import (
    AIRPORTS,
    AIRPORTS_PER_SIZE,
    CLOCK,
    FARE_RULES,
    FLIGHT_PREFIX,
    TIERS,
    AirportSpec,
    insurance_price,
)
from .tables import Airport, FareRule, Flight, FlightBooking, Hotel, HotelBooking, PaymentMethod, Traveller

if TYPE_CHECKING:
    from faker import Faker

TRAVELLERS_PER_SIZE = {"small": 30, "default": 400}
DAYS_PER_SIZE = {"small": 10, "default": 30}
ROUTES_PER_AIRPORT = {"small": 3, "default": 4}
HOTELS_PER_CITY = {"small": 4, "default": 8}
HOTEL_KINDS = ("Hotel", "Inn", "Suites", "Grand Hotel", "Lodge", "Residences", "Palace", "House")
NEIGHBOURHOODS = ("Old Town", "Riverside", "Airport", "Downtown", "Harbour", "Museum Quarter", "Central Station",
                  "Park District", "University", "Financial District")  # fmt: skip
BRANDS = ("Visa", "Mastercard", "American Express")
PREFERENCES = ("Aisle seat please.", "Window seat if possible.", "Vegetarian meal.", "Travels with a guitar.",
               "Prefers morning flights.", "Needs extra legroom.", "", "", "")  # fmt: skip
Row = tuple[type, dict[str, Any]]


def distance_km(a: AirportSpec, b: AirportSpec) -> float:
    """Great-circle distance between two airports."""
    la1, lo1, la2, lo2 = map(math.radians, (a.lat, a.lon, b.lat, b.lon))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))


def flight_minutes(km: float) -> int:
    return int(round((km / 820 * 60 + 35) / 5) * 5)


def _routes(rng: random.Random, airports: list[AirportSpec], size: str) -> list[tuple[AirportSpec, AirportSpec]]:
    """Pairs of airports with service both ways: every airport has a few partners."""
    pairs: set[tuple[str, str]] = set()
    for a in airports:
        others = [b for b in airports if b.code != a.code]
        for b in rng.sample(others, ROUTES_PER_AIRPORT[size]):
            pairs.add(tuple(sorted((a.code, b.code))))  # type: ignore[arg-type]
    by_code = {a.code: a for a in airports}
    routes = []
    for x, y in sorted(pairs):
        routes += [(by_code[x], by_code[y]), (by_code[y], by_code[x])]
    return routes


def _flights(rng: random.Random, airports: list[AirportSpec], size: str, now: dt.datetime) -> Iterator[Row]:
    hubs = [a for a in airports if a.hub]
    number = 100
    for origin, destination in _routes(rng, airports, size):
        km = distance_km(origin, destination)
        base = 60 + 0.11 * km
        # one or two direct flights a day, and on some routes a through flight with one stop
        schedules: list[tuple[AirportSpec | None, int]] = [(None, rng.randrange(6 * 12, 22 * 12) * 5)]
        if rng.random() < 0.5:
            schedules.append((None, rng.randrange(6 * 12, 22 * 12) * 5))
        stops = [h for h in hubs if h.code not in (origin.code, destination.code)]
        if stops and rng.random() < 0.35:
            schedules.append((rng.choice(stops), rng.randrange(6 * 12, 22 * 12) * 5))
        zone = ZoneInfo(origin.timezone)
        for via, minute_of_day in schedules:
            number += rng.randrange(1, 9)
            flight_number = f"{FLIGHT_PREFIX}{number}"
            minutes = flight_minutes(km)
            if via is not None:
                minutes = flight_minutes(distance_km(origin, via)) + flight_minutes(distance_km(via, destination)) + 75
            for day in range(1, DAYS_PER_SIZE[size] + 1):
                date = (now + dt.timedelta(days=day)).date()
                local = dt.datetime.combine(date, dt.time(minute_of_day // 60, minute_of_day % 60), tzinfo=zone)
                depart = local.astimezone(dt.UTC).replace(tzinfo=None)
                economy = round(base * rng.uniform(0.75, 1.45) * (0.85 if via else 1.0))
                status, delay = "scheduled", 0
                if day <= 2 and rng.random() < 0.25:
                    status, delay = "delayed", rng.randrange(3, 37) * 5
                elif day <= 2 and rng.random() < 0.04:
                    status = "cancelled"
                yield Flight, {
                    "flight_id": f"{flight_number}-{date:%Y%m%d}",
                    "flight_number": flight_number,
                    "origin": origin.code,
                    "destination": destination.code,
                    "via": via.code if via else None,
                    "depart_date": date,
                    "depart_utc": depart,
                    "arrive_utc": depart + dt.timedelta(minutes=minutes),
                    "status": status,
                    "delay_minutes": delay,
                    "price_basic_economy": float(round(economy * 0.72)),
                    "price_economy": float(economy),
                    "price_business": float(round(economy * rng.uniform(2.6, 3.6))),
                    "seats_basic_economy": rng.choice((0, 2, 5, 9, 14, 20)),
                    "seats_economy": rng.choice((0, 3, 8, 15, 30, 42)),
                    "seats_business": rng.choice((0, 1, 2, 4, 6, 8)),
                }


def build_world(seed: int, size: str) -> Iterator[Any]:
    now = CLOCK(seed)  # the world's flights, passports and bookings count from its own date
    rng = random.Random(seed)
    fake = seeded_faker(seed)
    airports = list(AIRPORTS[: AIRPORTS_PER_SIZE[size]])
    for a in airports:
        yield Airport, {"code": a.code, "city": a.city, "country": a.country, "timezone": a.timezone, "currency": a.currency}
    for r in FARE_RULES:
        yield FareRule, {"cabin": r.cabin, "changeable": r.changeable, "change_fee": r.change_fee,
                         "refundable": r.refundable, "cancel_fee": r.cancel_fee, "free_bags": r.free_bags,
                         "bag_fee": r.bag_fee}  # fmt: skip
    flights: list[dict[str, Any]] = []
    for row in _flights(rng, airports, size, now):
        flights.append(row[1])
        yield row
    hotels: list[dict[str, Any]] = []
    for a in airports:
        names: set[str] = set()
        while len(names) < HOTELS_PER_CITY[size]:
            names.add(f"{fake.last_name()} {rng.choice(HOTEL_KINDS)}")
        for name in sorted(names):
            stars = rng.choice((2, 3, 3, 4, 4, 5))
            hotel = {
                "hotel_id": f"H{len(hotels) + 1001}",
                "name": name,
                "city": a.city,
                "neighbourhood": rng.choice(NEIGHBOURHOODS),
                "stars": stars,
                "nightly_rate": float(rng.randrange(40, 90) * (stars - 1) + rng.choice((0, 5, 9))),
                "rooms_left": rng.choice((0, 2, 4, 7, 12)),
            }
            hotels.append(hotel)
            yield Hotel, hotel
    yield from _travellers(rng, fake, size, airports, flights, hotels, now)


def _travellers(
    rng: random.Random, fake: Faker, size: str, airports: list[AirportSpec], flights: list[dict[str, Any]],
    hotels: list[dict[str, Any]], now: dt.datetime,
) -> Iterator[Row]:  # fmt: skip
    booking = 100000  # the last flight booking number used
    hotel_booking = method = 0
    taken_seats: set[tuple[str, str]] = set()
    emails: set[str] = set()
    for n in range(1, TRAVELLERS_PER_SIZE[size] + 1):
        first, last = person_name(fake)
        traveller_id = f"TR{n:04d}"
        email = f"{first}.{last}{rng.randrange(10, 99)}@example.com".lower().replace("'", "")
        while email in emails:
            email = email.replace("@", f"{rng.randrange(10)}@")
        emails.add(email)
        # about one in eight passports runs out within the next half year
        expiry = (now + dt.timedelta(days=rng.randrange(20, 170) if rng.random() < 0.12 else rng.randrange(400, 3500))).date()
        home = rng.choice(airports)
        yield Traveller, {
            "traveller_id": traveller_id,
            "full_name": f"{first} {last}",
            "email": email,
            "loyalty_number": f"SK{rng.randrange(100000, 999999)}{n % 10}",
            "tier": rng.choice(TIERS),
            "points": rng.choice((0, 500, 2000)) if rng.random() < 0.2 else rng.randrange(10, 1500) * 100,
            "passport_number": f"{rng.choice('ABCEKLMNPX')}{rng.randrange(10**7, 10**8)}",
            "passport_country": home.country,
            "passport_expiry": expiry,
            "home_airport": home.code,
            "preferences": rng.choice(PREFERENCES),
        }
        methods = []
        for k in range(rng.choice((1, 1, 2))):
            method += 1
            methods.append(f"PM{method + 10000}")
            yield PaymentMethod, {"method_id": methods[-1], "traveller_id": traveller_id, "brand": rng.choice(BRANDS),
                                  "last4": f"{rng.randrange(10000):04d}", "is_default": k == 0}  # fmt: skip
        for _ in range(rng.choice((1, 2, 2, 3))):
            flight = rng.choice(flights)
            booking = next_number("FB", booking + 1)  # with gaps, as a real system's numbers run
            cabin = rng.choice(("basic_economy", "economy", "economy", "business"))
            fare = flight[f"price_{cabin}"]
            recent = rng.random() < 0.3  # booked within the free-cancellation window
            hours = rng.randrange(1, 23) if recent else rng.randrange(30, 60 * 24)
            seat = None
            if rng.random() < 0.5:
                seat = f"{rng.randrange(1, 41)}{rng.choice('ABCDEF')}"
                if (flight["flight_id"], seat) in taken_seats:
                    seat = None
                else:
                    taken_seats.add((flight["flight_id"], seat))
            insured = rng.random() < 0.25
            yield FlightBooking, {
                "booking_id": f"FB{booking}",
                "traveller_id": traveller_id,
                "flight_id": flight["flight_id"],
                "cabin": cabin,
                "status": "cancelled" if rng.random() < 0.08 else "confirmed",
                "booked_at": now - dt.timedelta(hours=hours, minutes=rng.randrange(60)),
                "fare_paid": fare,
                "payment": "card",
                "method_id": methods[0],
                "seat": seat,
                "insurance": insured,
                "insurance_price": insurance_price(fare) if insured else 0.0,
            }
        if rng.random() < 0.5:
            hotel = rng.choice(hotels)
            hotel_booking += 1
            check_in = (now + dt.timedelta(days=rng.randrange(2, 25))).date()
            nights = rng.randrange(1, 6)
            yield HotelBooking, {
                "booking_id": f"HB{hotel_booking + 200000}",
                "traveller_id": traveller_id,
                "hotel_id": hotel["hotel_id"],
                "check_in": check_in,
                "check_out": check_in + dt.timedelta(days=nights),
                "nights": nights,
                "nightly_rate": hotel["nightly_rate"],
                "total": round(hotel["nightly_rate"] * nights, 2),
                "booked_at": now - dt.timedelta(days=rng.randrange(1, 40)),
                "method_id": methods[0],
            }
