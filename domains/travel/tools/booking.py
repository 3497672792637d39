"""Write tools: book, cancel, change, seats, bags, insurance, points, and a hand-off to a person.

A write checks what the world itself forbids (a full flight, a taken seat, too few points, a
fare that cannot be changed) and says what would be right. What the policy forbids but the
world allows (insurance after the booking window, a passport too close to expiry) is left to
the agent: refusing is what tasks teach.
"""

from __future__ import annotations

from typing import Any, Literal

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from ..catalogue import MAX_BAGS, REWARD_BY_NAME, insurance_price, points_for
from ..tables import (
    Flight,
    FlightBooking,
    Handoff,
    Hotel,
    HotelBooking,
    HotelBookingBase,
    PaymentMethod,
    Redemption,
    Traveller,
)
from .common import (
    Cabin,
    bag_charge,
    cancellable_booking,
    cancellation_terms,
    change_terms,
    check_seat,
    flight_booking,
    flight_view,
    money2,
    parse_date,
    require_flight,
    require_hotel,
)

Reward = Literal["lounge_pass", "wifi_pass", "bag_voucher", "upgrade_voucher", "hotel_night"]


def _card(world: World, traveller_id: str, method_id: str | None) -> str:
    if not method_id:
        raise ToolError("paying by card needs method_id: one of the traveller's cards from get_traveller_profile")
    method = world.get(PaymentMethod, method_id.strip().upper())
    if method is None or method.traveller_id != traveller_id:
        cards = ", ".join(m.method_id for m in world.select(PaymentMethod, {"traveller_id": traveller_id}))
        raise ToolError(f"payment method {method_id!r} is not one of traveller {traveller_id}'s cards ({cards})")
    return method.method_id


@tool(writes=True)
def book_flight(
    world: World,
    traveller_id: str,
    flight_id: str,
    cabin: Cabin,
    payment: Literal["card", "points"],
    method_id: str | None = None,
    insurance: bool = False,
) -> dict[str, Any]:
    """Book a seat in a cabin on a flight, paid by card or with loyalty points (100 points per USD).

    Args:
        traveller_id: The traveller id, such as 'TR0042'.
        flight_id: The flight id from search_flights, such as 'SW214-20260315'.
        cabin: The cabin to book.
        payment: 'card' to charge a saved card, 'points' to pay the whole fare with loyalty points.
        method_id: The card to charge (from get_traveller_profile), when payment is 'card'.
        insurance: True to add travel insurance at booking.
    """
    traveller = world.require(Traveller, traveller_id.strip().upper(), "traveller")
    flight = require_flight(world, flight_id)
    if flight.status == "cancelled":
        raise ToolError(f"flight {flight.flight_id} is cancelled; search_flights for another one")
    if flight.depart_utc <= world.now:
        raise ToolError(f"flight {flight.flight_id} has already left")
    seats = getattr(flight, f"seats_{cabin}")
    if seats <= 0:
        raise ToolError(f"flight {flight.flight_id} has no {cabin} seats left; try another cabin or flight")
    fare = getattr(flight, f"price_{cabin}")
    row: dict[str, Any] = {"traveller_id": traveller.traveller_id, "flight_id": flight.flight_id, "cabin": cabin,
                           "booked_at": world.now, "fare_paid": fare, "payment": payment}  # fmt: skip
    if payment == "points":
        needed = points_for(fare)
        if traveller.points < needed:
            raise ToolError(f"the fare needs {needed} points but traveller {traveller.traveller_id} has {traveller.points}; pay by card")
        world.update(Traveller, traveller.traveller_id, points=traveller.points - needed)
        row["points_used"] = needed
    else:
        row["method_id"] = _card(world, traveller.traveller_id, method_id)
    if insurance:
        row.update(insurance=True, insurance_price=insurance_price(fare))
    row["booking_id"] = f"FB{world.new_id('flight_booking', table='flight_booking')}"
    world.update(Flight, flight.flight_id, **{f"seats_{cabin}": seats - 1})
    booking = world.insert(FlightBooking, row)
    return {**booking.model_dump(mode="json"), "flight": flight_view(flight)}


@tool(writes=True)
def book_hotel(world: World, traveller_id: str, hotel_id: str, check_in: str, check_out: str, method_id: str) -> HotelBookingBase:
    """Book a room, charged to a saved card at the hotel's nightly rate.

    Args:
        traveller_id: The traveller id, such as 'TR0042'.
        hotel_id: The hotel id, such as 'H1042'.
        check_in: The arrival date, YYYY-MM-DD.
        check_out: The departure date, YYYY-MM-DD, after check_in.
        method_id: The card to charge, from get_traveller_profile.
    """
    traveller = world.require(Traveller, traveller_id.strip().upper(), "traveller")
    hotel = require_hotel(world, hotel_id)
    start, end = parse_date(check_in, "check_in"), parse_date(check_out, "check_out")
    if start < world.now.date():
        raise ToolError(f"check_in {check_in} is in the past; today is {world.now:%Y-%m-%d}")
    nights = (end - start).days
    if not 1 <= nights <= 14:
        raise ToolError(f"a stay from {check_in} to {check_out} is {nights} nights; a booking is 1 to 14 nights")
    if hotel.rooms_left <= 0:
        raise ToolError(f"{hotel.name} ({hotel.hotel_id}) has no rooms left; search_hotels for another")
    card = _card(world, traveller.traveller_id, method_id)
    world.update(Hotel, hotel.hotel_id, rooms_left=hotel.rooms_left - 1)
    return world.insert(HotelBooking, {
        "booking_id": f"HB{world.new_id('hotel_booking', table='hotel_booking')}", "traveller_id": traveller.traveller_id,
        "hotel_id": hotel.hotel_id, "check_in": start, "check_out": end, "nights": nights,
        "nightly_rate": hotel.nightly_rate, "total": money2(hotel.nightly_rate * nights), "booked_at": world.now,
        "method_id": card,
    })  # fmt: skip


@tool(writes=True)
def cancel_booking(world: World, booking_id: str) -> dict[str, Any]:
    """Cancel a confirmed flight or hotel booking; the refund follows the fare rules (see quote_cancellation).

    Args:
        booking_id: The booking id, such as 'FB100042' or 'HB200042'.
    """
    booking = cancellable_booking(world, booking_id)
    terms = cancellation_terms(world, booking)
    if isinstance(booking, HotelBookingBase):
        hotel = require_hotel(world, booking.hotel_id)
        world.update(Hotel, hotel.hotel_id, rooms_left=hotel.rooms_left + 1)
        world.update(HotelBooking, booking.booking_id, status="cancelled", refund=terms["refund"])
        return {**terms, "status": "cancelled"}
    flight = require_flight(world, booking.flight_id)
    column = f"seats_{booking.cabin}"
    world.update(Flight, flight.flight_id, **{column: getattr(flight, column) + 1})
    if terms.get("points_returned"):
        traveller = world.require(Traveller, booking.traveller_id, "traveller")
        world.update(Traveller, traveller.traveller_id, points=traveller.points + terms["points_returned"])
    refund = terms["refund"] if booking.payment == "card" else 0.0
    world.update(FlightBooking, booking.booking_id, status="cancelled", refund=refund, seat=None)
    return {**terms, "status": "cancelled"}


@tool(writes=True)
def change_flight_date(world: World, booking_id: str, new_flight_id: str) -> dict[str, Any]:
    """Move a flight booking to another flight on the same route, in the same cabin. Charges the fare
    rule's change fee plus any fare difference; basic economy fares cannot be changed.

    Args:
        booking_id: The flight booking id, such as 'FB100042'.
        new_flight_id: The flight to move to, from search_flights, such as 'SW214-20260318'.
    """
    booking, old, new, terms = change_terms(world, booking_id, new_flight_id)
    new_fare, charged = terms["new_fare"], terms["total"]
    column = f"seats_{booking.cabin}"
    world.update(Flight, old.flight_id, **{column: getattr(old, column) + 1})
    world.update(Flight, new.flight_id, **{column: getattr(new, column) - 1})
    after = world.update(FlightBooking, booking.booking_id, flight_id=new.flight_id, seat=None,
                         fare_paid=max(booking.fare_paid, new_fare), change_fees=money2(booking.change_fees + charged))  # fmt: skip
    return {"booking_id": after.booking_id, "change_fee": terms["change_fee"], "fare_difference": terms["fare_difference"],
            "charged": charged, "flight": flight_view(new)}  # fmt: skip


@tool(writes=True)
def select_seat(world: World, booking_id: str, seat: str) -> dict[str, Any]:
    """Assign a seat on a booked flight.

    Args:
        booking_id: The flight booking id, such as 'FB100042'.
        seat: The seat: a row number and a letter, such as '14C'.
    """
    booking = flight_booking(world, booking_id, "have a seat assigned")
    wanted = check_seat(seat)
    taken = world.query("SELECT booking_id FROM flight_booking WHERE flight_id = ? AND seat = ? AND status = 'confirmed'",
                        (booking.flight_id, wanted))  # fmt: skip
    if taken and taken[0][0] != booking.booking_id:
        raise ToolError(f"seat {wanted} on flight {booking.flight_id} is taken; choose another seat")
    after = world.update(FlightBooking, booking.booking_id, seat=wanted)
    return {"booking_id": after.booking_id, "flight_id": after.flight_id, "seat": after.seat}


@tool(writes=True, area="bags")
def add_baggage(world: World, booking_id: str, bags: Literal[1, 2, 3]) -> dict[str, Any]:
    """Add checked bags to a flight booking; bags beyond the fare's free allowance are charged.

    Args:
        booking_id: The flight booking id, such as 'FB100042'.
        bags: How many checked bags to add.
    """
    booking = flight_booking(world, booking_id, "add bags")
    if booking.bags + bags > MAX_BAGS:
        raise ToolError(f"booking {booking.booking_id} has {booking.bags} checked bags; at most {MAX_BAGS} per traveller")
    fee = bag_charge(booking.cabin, booking.bags, bags)
    after = world.update(FlightBooking, booking.booking_id, bags=booking.bags + bags, bag_fees=money2(booking.bag_fees + fee))
    return {"booking_id": after.booking_id, "bags_added": bags, "checked_bags": after.bags, "fee": fee}


@tool(writes=True)
def add_insurance(world: World, booking_id: str) -> dict[str, Any]:
    """Add travel insurance to a flight booking, priced as a share of the fare and charged to the card the
    booking was paid with (the traveller's default card for a booking paid with points).

    Args:
        booking_id: The flight booking id, such as 'FB100042'.
    """
    booking = flight_booking(world, booking_id, "be insured")
    if booking.insurance:
        raise ToolError(f"booking {booking.booking_id} is already insured")
    price = insurance_price(booking.fare_paid)
    world.update(FlightBooking, booking.booking_id, insurance=True, insurance_price=price)
    return {"booking_id": booking.booking_id, "insurance": True, "price": price}


@tool(writes=True)
def redeem_points(world: World, traveller_id: str, reward: Reward) -> dict[str, Any]:
    """Spend loyalty points on a reward from the catalogue (lounge pass 4000, wifi pass 1500, bag voucher
    3500, upgrade voucher 25000, hotel night 18000 points).

    Args:
        traveller_id: The traveller id, such as 'TR0042'.
        reward: The reward to redeem.
    """
    traveller = world.require(Traveller, traveller_id.strip().upper(), "traveller")
    cost = REWARD_BY_NAME[reward].points
    if traveller.points < cost:
        raise ToolError(f"{reward} costs {cost} points; traveller {traveller.traveller_id} has {traveller.points}")
    after = world.update(Traveller, traveller.traveller_id, points=traveller.points - cost)
    redemption = world.insert(Redemption, {"redemption_id": f"RD{world.new_id('redemption', start=500001)}",
                                           "traveller_id": traveller.traveller_id, "reward": reward, "points": cost})  # fmt: skip
    return {**redemption.model_dump(), "points_left": after.points}


HandoffReason = Literal["group_booking", "special_assistance", "lost_luggage", "complaint"]


@tool(writes=True, hands_over=True)
def transfer_to_human(world: World, traveller_id: str, reason: HandoffReason) -> dict[str, Any]:
    """Hand the traveller to a human travel agent for what the tools do not cover: groups of more than
    9, special assistance at the airport, lost luggage, or a complaint.

    Args:
        traveller_id: The traveller id, such as 'TR0042'.
        reason: Why a person is needed.
    """
    traveller = world.require(Traveller, traveller_id.strip().upper(), "traveller")
    ticket = f"HT{world.new_id('handoff', start=700001)}"
    world.insert(Handoff, {"ticket_id": ticket, "traveller_id": traveller.traveller_id, "summary": reason})
    return {"ticket_id": ticket, "reason": reason, "status": "a human agent will take over"}
