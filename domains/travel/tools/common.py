"""What the travel tools share: local times, flight and booking views, fees and refunds.

Times are stored in UTC; every view shows them in the airport's own zone with the zone's name,
and durations are computed here, so no one (model or generator) does time-zone arithmetic.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from typing import Any, Literal
from zoneinfo import ZoneInfo

from toolgym.envs import World
from toolgym.errors import ToolError

from ..catalogue import (
    AIRPORT_BY_CODE,
    CURRENCIES,
    FARE_RULE_BY_CABIN,
    FREE_CANCEL_HOURS,
    SEAT_LETTERS,
    SEAT_ROWS,
)
from ..tables import (
    Airport,
    Flight,
    FlightBase,
    FlightBooking,
    FlightBookingBase,
    Hotel,
    HotelBooking,
    HotelBookingBase,
    PaymentMethod,
)

Cabin = Literal["basic_economy", "economy", "business"]
Currency = Literal[CURRENCIES]  # type: ignore[valid-type]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SEAT = re.compile(r"^(\d{1,2})([A-Z])$")


def money2(amount: float) -> float:
    return round(amount + 0.0, 2)


def parse_date(text: str, what: str) -> dt.date:
    """'2026-03-15' -> a date; anything else is a ToolError naming the format."""
    if not _DATE.match(text.strip()):
        raise ToolError(f"{what} {text!r} is not a date in the form YYYY-MM-DD, such as 2026-03-15")
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ToolError(f"{what} {text!r} is not a real calendar date; give it as YYYY-MM-DD") from None


def airport_code(world: World, code: str) -> str:
    found = world.get(Airport, code.strip().upper())
    if found is None:
        served = ", ".join(r[0] for r in world.query("SELECT code FROM airport ORDER BY code"))
        raise ToolError(f"no airport with the code {code!r}; airports served: {served}")
    return found.code


# ZoneInfo keeps only the last 8 zones it made; the airports span more, so each call re-read its
# zone file (40,000 reads to index one world): each zone is made once here.
_zone = functools.cache(ZoneInfo)


def local_time(moment: dt.datetime, code: str) -> str:
    """A UTC time as the airport's local clock: '2026-03-15 18:05 America/New_York'."""
    zone = AIRPORT_BY_CODE[code].timezone
    local = moment.replace(tzinfo=dt.UTC).astimezone(_zone(zone))
    return f"{local:%Y-%m-%d %H:%M} {zone}"


def duration(minutes: int) -> str:
    return f"{minutes // 60}h {minutes % 60:02d}m"


def place(code: str) -> str:
    return f"{code} ({AIRPORT_BY_CODE[code].city})"


def flight_view(flight: FlightBase, cabin: str | None = None) -> dict[str, Any]:
    """A flight as the tools show it: local times with zones, duration, and a cabin's price and seats."""
    minutes = int((flight.arrive_utc - flight.depart_utc).total_seconds() // 60)
    view: dict[str, Any] = {
        "flight_id": flight.flight_id,
        "flight_number": flight.flight_number,
        "from": place(flight.origin),
        "to": place(flight.destination),
        "stops": 0 if flight.via is None else 1,
        "via": place(flight.via) if flight.via else None,
        "departs_local": local_time(flight.depart_utc, flight.origin),
        "arrives_local": local_time(flight.arrive_utc, flight.destination),
        "duration": duration(minutes),
        "status": flight.status,
    }
    if flight.status == "delayed":
        delay = dt.timedelta(minutes=flight.delay_minutes)
        view["delay_minutes"] = flight.delay_minutes
        view["expected_departure_local"] = local_time(flight.depart_utc + delay, flight.origin)
        view["expected_arrival_local"] = local_time(flight.arrive_utc + delay, flight.destination)
    if cabin is not None:
        view["cabin"] = cabin
        view["price"] = getattr(flight, f"price_{cabin}")
        view["seats_left"] = getattr(flight, f"seats_{cabin}")
    return view


def traveller_booking(world: World, booking_id: str) -> FlightBookingBase | HotelBookingBase:
    """A flight booking ('FB...') or a hotel booking ('HB...')."""
    key = booking_id.strip().upper()
    found: FlightBookingBase | HotelBookingBase | None = world.get(FlightBooking, key) or world.get(HotelBooking, key)
    if found is None:
        raise ToolError(f"booking {booking_id!r} not found; flight bookings look like FB100042, hotel bookings like HB200042")
    return found


def cancellable_booking(world: World, booking_id: str) -> FlightBookingBase | HotelBookingBase:
    booking = traveller_booking(world, booking_id)
    if booking.status != "confirmed":
        raise ToolError(f"booking {booking.booking_id} is {booking.status}; only a confirmed booking can be cancelled")
    return booking


def flight_booking(world: World, booking_id: str, doing: str) -> FlightBookingBase:
    """A confirmed flight booking, for a change (`doing`) that only confirmed flight bookings allow."""
    found = traveller_booking(world, booking_id)
    if not isinstance(found, FlightBookingBase):
        raise ToolError(f"{found.booking_id} is a hotel booking; only flight bookings can {doing}")
    if found.status != "confirmed":
        raise ToolError(f"booking {found.booking_id} is {found.status}; only a confirmed booking can {doing}")
    return found


def amount_paid(booking: FlightBookingBase) -> float:
    return money2(booking.fare_paid + booking.bag_fees + booking.insurance_price + booking.change_fees)


def bag_charge(cabin: str, had: int, adding: int) -> float:
    """What adding bags to a booking that has `had` costs: the fare's free bags not yet used cost nothing,
    each further one the fare's bag fee."""
    rule = FARE_RULE_BY_CABIN[cabin]
    return money2(max(0, adding - max(0, rule.free_bags - had)) * rule.bag_fee)


def within_free_window(world: World, booked_at: dt.datetime) -> bool:
    return world.now - booked_at <= dt.timedelta(hours=FREE_CANCEL_HOURS)


def cancellation_terms(world: World, booking: FlightBookingBase | HotelBookingBase) -> dict[str, Any]:
    """What cancelling now would refund, and why (the fare rules, or the hotel's two-day rule)."""
    if isinstance(booking, HotelBookingBase):
        late = booking.check_in - world.now.date() < dt.timedelta(days=2)
        fee = booking.nightly_rate if late else 0.0
        reason = "within 2 days of check-in: one night is charged" if late else "free cancellation up to 2 days before check-in"
        return {"booking_id": booking.booking_id, "fee": money2(fee), "refund": money2(booking.total - fee), "rule": reason,
                "refund_to": refund_card(world, booking.method_id)}
    rule = FARE_RULE_BY_CABIN[booking.cabin]
    paid = amount_paid(booking)
    if within_free_window(world, booking.booked_at):
        fee, reason = 0.0, f"booked less than {FREE_CANCEL_HOURS} hours ago: free cancellation"
    elif rule.refundable:
        fee, reason = min(paid, rule.cancel_fee), f"{rule.label} fare: a cancellation fee of ${rule.cancel_fee:.2f}"
    else:
        fee, reason = paid, f"{rule.label} fare: non-refundable after {FREE_CANCEL_HOURS} hours"
    terms: dict[str, Any] = {"booking_id": booking.booking_id, "fee": money2(fee), "refund": money2(paid - fee), "rule": reason}
    if booking.payment == "points":
        terms["points_returned"] = booking.points_used if fee == 0 else 0
    else:
        terms["refund_to"] = refund_card(world, booking.method_id)
    return terms


def refund_card(world: World, method_id: str | None) -> str | None:
    """The card a refund goes back to (the one the booking was paid with), as the traveller knows it."""
    card = world.get(PaymentMethod, method_id) if method_id else None
    return f"{card.brand} ending in {card.last4}" if card else None


def change_terms(world: World, booking_id: str, new_flight_id: str) -> tuple[FlightBookingBase, FlightBase, FlightBase, dict[str, Any]]:
    """The booking, its flight and the one it would move to, and what moving it costs now: the fare
    rule's change fee plus what the new fare costs above the fare paid (never a refund of a cheaper one).
    Raises the error a change would meet (basic economy, another route, the same flight, no seats)."""
    booking = flight_booking(world, booking_id, "be changed")
    rule = FARE_RULE_BY_CABIN[booking.cabin]
    if not rule.changeable:
        raise ToolError(f"booking {booking.booking_id} is a {rule.label} fare, which cannot be changed")
    old, new = require_flight(world, booking.flight_id), require_flight(world, new_flight_id)
    if (new.origin, new.destination) != (old.origin, old.destination):
        raise ToolError(f"flight {new.flight_id} flies {new.origin}-{new.destination}; the booking is for {old.origin}-{old.destination}")
    if new.flight_id == old.flight_id:
        raise ToolError(f"booking {booking.booking_id} is already on flight {new.flight_id}")
    if new.status == "cancelled" or getattr(new, f"seats_{booking.cabin}") <= 0:
        raise ToolError(f"flight {new.flight_id} has no {booking.cabin} seats to sell; choose another flight")
    new_fare = getattr(new, f"price_{booking.cabin}")
    difference = money2(max(0.0, new_fare - booking.fare_paid))
    terms = {"booking_id": booking.booking_id, "new_flight_id": new.flight_id, "fare_paid": booking.fare_paid,
             "new_fare": new_fare, "change_fee": rule.change_fee, "fare_difference": difference,
             "total": money2(rule.change_fee + difference)}  # fmt: skip
    return booking, old, new, terms


def check_seat(seat: str) -> str:
    match = _SEAT.match(seat.strip().upper())
    if not match or not 1 <= int(match.group(1)) <= SEAT_ROWS or match.group(2) not in SEAT_LETTERS:
        raise ToolError(
            f"seat {seat!r} does not exist; seats are a row 1-{SEAT_ROWS} and a letter {SEAT_LETTERS[0]}-{SEAT_LETTERS[-1]}, such as 14C"
        )
    return f"{int(match.group(1))}{match.group(2)}"


def require_flight(world: World, flight_id: str) -> FlightBase:
    found = world.get(Flight, flight_id.strip().upper())
    if found is None:
        raise ToolError(f"flight {flight_id!r} not found; flight ids look like SW214-20260315 (number and date), from search_flights")
    return found


def require_hotel(world: World, hotel_id: str) -> Any:
    return world.require(Hotel, hotel_id.strip().upper(), "hotel")
