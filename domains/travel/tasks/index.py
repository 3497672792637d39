"""What task generators draw from, read once per built world (generators must stay ~1 ms).

Flights, bookings and quotes are held in the same words the tools show (`flight_view`,
`cancellation_terms`), so a reply computed here states exactly what a tool result showed.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from toolgym.envs import World, world_index

from ..catalogue import points_for
from ..tables import (
    Flight,
    FlightBase,
    FlightBooking,
    Hotel,
    HotelBase,
    HotelBooking,
    PaymentMethod,
    Traveller,
)
from ..tools.common import amount_paid, cancellation_terms, flight_view, within_free_window


@dataclass(frozen=True)
class Card:
    method_id: str
    brand: str
    last4: str


@dataclass(frozen=True)
class TravellerInfo:
    traveller_id: str
    full_name: str
    email: str
    loyalty_number: str
    points: int
    passport_country: str
    passport_expiry: dt.date
    home_airport: str
    cards: tuple[Card, ...]  # the default card first

    @property
    def card(self) -> Card:
        return self.cards[0]


@dataclass(frozen=True)
class FlightInfo:
    row: FlightBase
    view: dict[str, Any]  # flight_view without a cabin

    @property
    def flight_id(self) -> str:
        return self.row.flight_id

    def price(self, cabin: str) -> float:
        return getattr(self.row, f"price_{cabin}")

    def seats(self, cabin: str) -> int:
        return getattr(self.row, f"seats_{cabin}")

    def bookable(self, cabin: str) -> bool:
        return self.row.status != "cancelled" and self.seats(cabin) > 0


@dataclass(frozen=True)
class BookingInfo:
    booking_id: str
    traveller_id: str
    flight: FlightInfo
    cabin: str
    status: str
    recent: bool  # within the free-cancellation (and insurance) window
    seat: str | None
    bags: int
    insurance: bool
    fare_paid: float
    paid: float
    terms: dict[str, Any]  # what cancelling now refunds (quote_cancellation)
    invoice_total: float
    payment: str = "card"  # how the fare was paid: "card" or "points"


@dataclass(frozen=True)
class StayInfo:
    """A confirmed hotel booking, its hotel's city, and what cancelling it now refunds."""

    booking_id: str
    traveller_id: str
    hotel: str
    city: str
    check_in: dt.date
    terms: dict[str, Any]
    check_out: dt.date


@dataclass
class Index:
    travellers: dict[str, TravellerInfo]
    flights: dict[str, FlightInfo]
    by_route_date: dict[tuple[str, str, dt.date], list[FlightInfo]]
    dates: list[dt.date]
    bookings: list[BookingInfo]
    hotels_by_city: dict[str, list[HotelBase]]
    stays: list[StayInfo]
    taken_seats: set[tuple[str, str]]
    cities: list[str]
    countries: dict[str, str]  # airport code -> country
    _where: dict[str, list[Any]] = field(default_factory=dict)

    def where(self, name: str, items: list[Any], fits: Any) -> list[Any]:
        """The items that fit a named condition, computed once per name."""
        found = self._where.get(name)
        if found is None:
            found = self._where[name] = [i for i in items if fits(i)]
        return found

    def confirmed(self, name: str, fits: Any = lambda b: True) -> list[BookingInfo]:
        return self.where(f"booking:{name}", self.bookings, lambda b: b.status == "confirmed" and fits(b))

    def soon(self) -> list[FlightInfo]:
        """Flights of the next three days: the ones a traveller asks the status of."""
        found = self._where.get("soon")
        if found is None:
            found = self._where["soon"] = [f for f in self.flights.values() if f.row.depart_date <= self.dates[2]]
        return found

    def flights_on(self, origin: str, destination: str, date: dt.date) -> list[FlightInfo]:
        return self.by_route_date.get((origin, destination, date), [])

    @property
    def routes(self) -> list[tuple[str, str]]:
        found = self._where.get("routes")
        if found is None:
            found = self._where["routes"] = sorted({(o, d) for o, d, _ in self.by_route_date})
        return found


def cheapest(flights: list[FlightInfo], cabin: str, direct: bool = False) -> FlightInfo | None:
    fits = [f for f in flights if f.bookable(cabin) and not (direct and f.row.via)]
    return min(fits, key=lambda f: (f.price(cabin), f.row.depart_utc)) if fits else None


def can_pay_points(traveller: TravellerInfo, fare: float) -> bool:
    return traveller.points >= points_for(fare)


@world_index
def index_of(world: World) -> Index:
    cards: dict[str, list[Card]] = defaultdict(list)
    for m in world.select(PaymentMethod, order_by=("traveller_id", "method_id")):
        card = Card(m.method_id, m.brand, m.last4)
        cards[m.traveller_id].insert(0, card) if m.is_default else cards[m.traveller_id].append(card)
    travellers = {
        t.traveller_id: TravellerInfo(t.traveller_id, t.full_name, t.email, t.loyalty_number, t.points,
                                      t.passport_country, t.passport_expiry, t.home_airport,
                                      tuple(cards[t.traveller_id]))  # fmt: skip
        for t in world.select(Traveller)
    }
    flights: dict[str, FlightInfo] = {}
    by_route_date: dict[tuple[str, str, dt.date], list[FlightInfo]] = defaultdict(list)
    for f in world.select(Flight, order_by="depart_utc"):
        info = flights[f.flight_id] = FlightInfo(f, flight_view(f))
        by_route_date[(f.origin, f.destination, f.depart_date)].append(info)
    bookings, taken = [], set()
    for b in world.select(FlightBooking):
        if b.seat:
            taken.add((b.flight_id, b.seat))
        terms = cancellation_terms(world, b) if b.status == "confirmed" else {}
        bookings.append(BookingInfo(b.booking_id, b.traveller_id, flights[b.flight_id], b.cabin, b.status,
                                    within_free_window(world, b.booked_at), b.seat, b.bags, b.insurance,
                                    b.fare_paid, amount_paid(b), terms, amount_paid(b), b.payment))  # fmt: skip
    hotels: dict[str, list[HotelBase]] = defaultdict(list)
    for h in world.select(Hotel, order_by=("nightly_rate", "hotel_id")):
        hotels[h.city].append(h)
    hotel_by_id = {h.hotel_id: h for found in hotels.values() for h in found}
    countries = {code: country for code, country in world.query("SELECT code, country FROM airport")}
    return Index(
        travellers=travellers,
        flights=flights,
        by_route_date=dict(by_route_date),
        dates=sorted({d for _, _, d in by_route_date}),
        bookings=bookings,
        hotels_by_city=dict(hotels),
        stays=[StayInfo(h.booking_id, h.traveller_id, hotel_by_id[h.hotel_id].name, hotel_by_id[h.hotel_id].city, h.check_in,
                        cancellation_terms(world, h), h.check_out) for h in world.select(HotelBooking) if h.status == "confirmed"],
        taken_seats=taken,
        cities=sorted(hotels),
        countries=countries,
    )
