"""Read tools: travellers, flights, hotels, bookings, fare rules, quotes, currency and invoices."""

from __future__ import annotations

from typing import Any

from toolgym.envs import World, tool
from toolgym.envs.phrasing import counted
from toolgym.errors import ToolError

from ..catalogue import FARE_RULE_BY_CABIN, MAX_BAGS, POINTS_PER_DOLLAR, RATES_PER_USD, insurance_price
from ..tables import (
    Flight,
    FlightBooking,
    FlightBookingBase,
    Hotel,
    HotelBooking,
    PaymentMethod,
    Traveller,
    TravellerBase,
)
from .common import (
    Cabin,
    Currency,
    airport_code,
    amount_paid,
    bag_charge,
    cancellable_booking,
    cancellation_terms,
    change_terms,
    flight_view,
    money2,
    parse_date,
    require_flight,
    require_hotel,
    traveller_booking,
)


def _brief(t: TravellerBase) -> dict[str, Any]:
    return {"traveller_id": t.traveller_id, "full_name": t.full_name, "email": t.email,
            "loyalty_number": t.loyalty_number, "tier": t.tier}  # fmt: skip


def _find(world: World, column: str, value: str, hint: str) -> dict[str, Any]:
    found = world.select(Traveller, {column: value}, limit=1)
    if not found:
        raise ToolError(f"no traveller has the {column.replace('_', ' ')} {value!r}; {hint}")
    return _brief(found[0])


@tool(identifies="traveller_id")
def find_traveller_by_email(world: World, email: str) -> dict[str, Any]:
    """Find a traveller by the email address on their profile.

    Args:
        email: The traveller's email address, such as 'ana.lopez42@example.com'.
    """
    return _find(world, "email", email.strip().lower(), "check the spelling or try the loyalty number")


@tool(identifies="traveller_id")
def find_traveller_by_loyalty_number(world: World, loyalty_number: str) -> dict[str, Any]:
    """Find a traveller by their loyalty programme number.

    Args:
        loyalty_number: The loyalty number: 'SK' and 7 digits, such as 'SK4821930'.
    """
    return _find(world, "loyalty_number", loyalty_number.strip().upper(), "it is 'SK' and 7 digits, such as SK4821930")


@tool
def get_traveller_profile(world: World, traveller_id: str) -> dict[str, Any]:
    """A traveller's profile: loyalty tier and points, passport, home airport, preferences and saved cards.

    Args:
        traveller_id: The traveller id, such as 'TR0042'.
    """
    t = world.require(Traveller, traveller_id.strip().upper(), "traveller")
    cards = [
        {"method_id": m.method_id, "brand": m.brand, "last4": m.last4, "default": m.is_default}
        for m in world.select(PaymentMethod, {"traveller_id": t.traveller_id})
    ]
    return {**t.model_dump(mode="json"), "points_value_usd": money2(t.points / POINTS_PER_DOLLAR), "cards": cards}


@tool
def search_flights(
    world: World, origin: str, destination: str, date: str, cabin: Cabin, direct_only: bool = False
) -> list[dict[str, Any]]:
    """Flights on a route leaving on a date (local date at the origin), with the cabin's price and seats left.

    Args:
        origin: The departure airport's three-letter code, such as 'JFK'.
        destination: The arrival airport's three-letter code, such as 'CDG'.
        date: The departure date, YYYY-MM-DD, local to the origin airport.
        cabin: The cabin whose fare and seats to show.
        direct_only: True to leave out flights with a stop.
    """
    origin, destination = airport_code(world, origin), airport_code(world, destination)
    day = parse_date(date, "date")
    if day < world.now.date():
        raise ToolError(f"date {date} is in the past; today is {world.now:%Y-%m-%d}")
    flights = world.select(Flight, {"origin": origin, "depart_date": day}, order_by="depart_utc")
    return [flight_view(f, cabin) for f in flights if f.destination == destination and not (direct_only and f.via)]


@tool
def get_flight_status(world: World, flight_number: str, date: str) -> dict[str, Any]:
    """The status of a flight on a date: on time, delayed (with new local times) or cancelled.

    Args:
        flight_number: The flight number, such as 'SW214'.
        date: The departure date, YYYY-MM-DD, local to the origin airport.
    """
    day = parse_date(date, "date")
    flight_id = f"{flight_number.strip().upper().replace(' ', '')}-{day:%Y%m%d}"
    found = world.get(Flight, flight_id)
    if found is None:
        raise ToolError(f"no flight {flight_number!r} leaves on {date}; check the number and the local departure date")
    return flight_view(found)


@tool
def search_hotels(
    world: World, city: str, check_in: str, check_out: str, max_nightly_rate: float | None = None
) -> list[dict[str, Any]]:
    """Hotels in a city with rooms free, cheapest first, with the nightly rate and the stay's total in USD.

    Args:
        city: The city, such as 'Paris'.
        check_in: The arrival date, YYYY-MM-DD.
        check_out: The departure date, YYYY-MM-DD, after check_in.
        max_nightly_rate: Leave out hotels dearer than this many USD a night.
    """
    start, end = parse_date(check_in, "check_in"), parse_date(check_out, "check_out")
    if end <= start:
        raise ToolError(f"check_out {check_out} must be after check_in {check_in}")
    nights = (end - start).days
    hotels = world.select(Hotel, {"city": city.strip().title()}, order_by=("nightly_rate", "hotel_id"))
    if not hotels and not world.count(Hotel, {"city": city.strip().title()}):
        cities = ", ".join(r[0] for r in world.query("SELECT DISTINCT city FROM hotel ORDER BY city"))
        raise ToolError(f"no hotels in {city!r}; cities with hotels: {cities}")
    return [
        {"hotel_id": h.hotel_id, "name": h.name, "stars": h.stars, "neighbourhood": h.neighbourhood,
         "nightly_rate": h.nightly_rate, "nights": nights, "total": money2(h.nightly_rate * nights)}
        for h in hotels
        if h.rooms_left > 0 and (max_nightly_rate is None or h.nightly_rate <= max_nightly_rate)
    ]  # fmt: skip


@tool
def get_hotel_details(world: World, hotel_id: str) -> dict[str, Any]:
    """One hotel: name, city, neighbourhood, stars, nightly rate in USD, rooms left and its description.

    Args:
        hotel_id: The hotel id, such as 'H1042'.
    """
    return require_hotel(world, hotel_id).model_dump(mode="json")


@tool
def list_bookings(world: World, traveller_id: str) -> dict[str, Any]:
    """A traveller's flight and hotel bookings, with flight number, route, local departure, cabin and status.

    Args:
        traveller_id: The traveller id, such as 'TR0042'.
    """
    t = world.require(Traveller, traveller_id.strip().upper(), "traveller")
    flights = []
    for b in world.select(FlightBooking, {"traveller_id": t.traveller_id}):
        view = flight_view(world.require(Flight, b.flight_id, "flight"))
        flights.append({"booking_id": b.booking_id, "flight_id": b.flight_id, "flight_number": view["flight_number"], "from": view["from"], "to": view["to"],
                        "departs_local": view["departs_local"], "cabin": b.cabin, "status": b.status})  # fmt: skip
    hotels = [
        {"booking_id": h.booking_id, "hotel_id": h.hotel_id, "check_in": h.check_in.isoformat(),
         "check_out": h.check_out.isoformat(), "status": h.status}
        for h in world.select(HotelBooking, {"traveller_id": t.traveller_id})
    ]  # fmt: skip
    return {"traveller_id": t.traveller_id, "flight_bookings": flights, "hotel_bookings": hotels}


@tool
def get_booking(world: World, booking_id: str) -> dict[str, Any]:
    """One booking. A flight booking shows the flight (local times), cabin, fare rules, seat, bags and insurance,
    what adding each number of bags that still fit would cost in all, and, uninsured, what insurance would
    cost if added now (the policy says when it may be).

    Args:
        booking_id: The booking id: 'FB' and 6 digits for flights, 'HB' and 6 digits for hotels.
    """
    booking = traveller_booking(world, booking_id)
    view = booking.model_dump(mode="json")
    if isinstance(booking, FlightBookingBase):
        view["flight"] = flight_view(require_flight(world, booking.flight_id))
        view["fare_rules"] = _rules(booking.cabin)
        if booking.status == "confirmed" and booking.bags < MAX_BAGS:
            # the total add_baggage would charge, free bags left counted: what the traveller agrees to
            view["add_bags_quote"] = {counted(n, "bag"): bag_charge(booking.cabin, booking.bags, n)
                                      for n in range(1, MAX_BAGS - booking.bags + 1)}  # fmt: skip
        if not booking.insurance:
            # the price the traveller agrees to before add_insurance, as the tool will charge it
            view["insurance_quote"] = insurance_price(booking.fare_paid)
    else:  # the hotel by name, as a traveller knows their stay
        view["hotel_name"] = require_hotel(world, booking.hotel_id).name
    return view


def _rules(cabin: str) -> dict[str, Any]:
    rule = FARE_RULE_BY_CABIN[cabin]
    return {"cabin": cabin, "changeable": rule.changeable, "change_fee": rule.change_fee, "refundable": rule.refundable,
            "cancel_fee": rule.cancel_fee, "free_bags": rule.free_bags, "bag_fee": rule.bag_fee}  # fmt: skip


@tool
def get_fare_rules(world: World, cabin: Cabin) -> dict[str, Any]:
    """The fare rules of a cabin: whether it can be changed or refunded, the fees, and free checked bags.

    Args:
        cabin: The cabin.
    """
    return _rules(cabin)


@tool
def quote_cancellation(world: World, booking_id: str) -> dict[str, Any]:
    """What cancelling a confirmed booking now would cost and refund, by its fare rules. Changes nothing.

    Args:
        booking_id: The booking id, such as 'FB100042' or 'HB200042'.
    """
    booking = cancellable_booking(world, booking_id)
    return cancellation_terms(world, booking)


@tool
def quote_change(world: World, booking_id: str, new_flight_id: str) -> dict[str, Any]:
    """What moving a flight booking to another flight would cost now: the fare rule's change fee plus
    any fare difference, and the total. Changes nothing.

    Args:
        booking_id: The flight booking id, such as 'FB100042'.
        new_flight_id: The flight to move to, from search_flights, such as 'SW214-20260318'.
    """
    return change_terms(world, booking_id, new_flight_id)[3]


@tool(computes=True)
def convert_currency(world: World, amount: float, from_currency: Currency, to_currency: Currency) -> dict[str, Any]:
    """Convert an amount between currencies at today's fixed rate.

    Args:
        amount: The amount to convert.
        from_currency: The currency of the amount.
        to_currency: The currency wanted.
    """
    if amount < 0:
        raise ToolError(f"amount {amount} is negative; give the amount to convert as a positive number")
    rate = RATES_PER_USD[to_currency] / RATES_PER_USD[from_currency]
    return {"amount": amount, "from_currency": from_currency, "to_currency": to_currency,
            "rate": round(rate, 6), "converted": money2(amount * rate)}  # fmt: skip


@tool
def get_invoice(world: World, booking_id: str) -> dict[str, Any]:
    """The invoice of a booking: whose booking it is, each charge, refunds, and the total in USD.

    Args:
        booking_id: The booking id, such as 'FB100042' or 'HB200042'.
    """
    booking = traveller_booking(world, booking_id)
    if isinstance(booking, FlightBookingBase):
        lines = [("fare", booking.fare_paid), ("checked bags", booking.bag_fees),
                 ("travel insurance", booking.insurance_price), ("change fees", booking.change_fees)]  # fmt: skip
        total = amount_paid(booking)
    else:
        lines = [(f"{booking.nights} nights at ${booking.nightly_rate:.2f}", booking.total)]
        total = booking.total
    charges = [{"item": item, "amount": money2(value)} for item, value in lines if value]
    paid_with = "points" if getattr(booking, "payment", "card") == "points" else "card"
    # whose booking it is: the policy acts only on the identified traveller's own bookings
    invoice: dict[str, Any] = {"booking_id": booking.booking_id, "traveller_id": booking.traveller_id,
                               "charges": charges, "total": money2(total),
                               "refunded": money2(booking.refund), "net": money2(total - booking.refund),
                               "paid_with": paid_with}  # fmt: skip
    if paid_with == "card" and booking.method_id:
        method = world.get(PaymentMethod, booking.method_id)
        if method is not None:
            invoice["card"] = f"{method.brand} ending in {method.last4}"
    return invoice
