"""Pieces where the traveller names a trip, not a booking: the agent lists their bookings to find
it (a lookup), and when two flights go to that city, asks which (naming each) before acting.

- `by_trip`: a change made to "my flight to <city>" (a seat, bags, a cancellation), on one of the
  traveller's bookings; where they have one flight there, a second on the same route, booked weeks
  ago for a day some days apart (a second trip), is added before the episode (`twin`), so the words
  fit two bookings; the traveller may mean either.
- `hotel_for_trip`: "book me a hotel where I land": the booking read for the arrival day, the
  traveller's card read from the profile, hotels searched from that day, the cheapest booked.
"""

from __future__ import annotations

import datetime as dt
import zlib
from dataclasses import replace
from typing import Any

from toolgym.envs import GenContext, Piece, Utterance, WorldEdit, call, money, structures
from toolgym.envs.record_numbers import unused_near

from ..tables import FlightBookingBase
from ..tools.common import cancellation_terms, money2
from .index import BookingInfo, Index
from .parts import agent, city, clause, clock, day_text, leaving
from .reads import booking_fact
from .writes import add_bags, cancel, select_seat

BOOKING_WORDS = ["booking id", "booking number", "booking reference"]
TRIPS_APART = 4  # days at least between the two flights: a second trip, not the same one bought twice
TWIN_SHARE = 0.5  # of the pieces that add a look-alike, those where the traveller means it


def twin(ctx: GenContext, index: Index, b: BookingInfo) -> tuple[dict[str, Any], BookingInfo] | None:
    """A second confirmed booking of the traveller on `b`'s route, some days apart, numbered among the
    world's own (None: no such flight, or no unused number), and how the index would hold it."""
    row = b.flight.row
    others = [f for d in index.dates if abs((d - row.depart_date).days) >= TRIPS_APART
              for f in index.flights_on(row.origin, row.destination, d)]  # fmt: skip
    number = unused_near({int(o.booking_id[2:]) for o in index.bookings}, int(b.booking_id[2:]), b.booking_id)
    if not others or number is None:
        return None
    flight = others[zlib.crc32(b.booking_id.encode()) % len(others)]  # not hash(): it differs per process
    fare = flight.price(b.cabin)
    added: dict[str, Any] = {"booking_id": f"FB{number}", "traveller_id": b.traveller_id, "flight_id": flight.flight_id,
             "cabin": b.cabin, "status": "confirmed", "booked_at": flight.row.depart_utc - dt.timedelta(days=40),
             "fare_paid": fare, "payment": "card", "method_id": index.travellers[b.traveller_id].card.method_id}  # fmt: skip
    terms = cancellation_terms(ctx.world, FlightBookingBase(**added))
    info = replace(b, booking_id=added["booking_id"], flight=flight, recent=False, seat=None, bags=0, insurance=False,
                   fare_paid=fare, paid=fare, terms=terms, invoice_total=fare, payment="card")  # fmt: skip
    return added, info


def _trips(index: Index, b: BookingInfo) -> list[tuple[str, str]]:
    """The traveller's confirmed flights to `b`'s destination: (booking id, local departure)."""
    return [(o.booking_id, o.flight.view["departs_local"]) for o in index.confirmed("any")
            if o.traveller_id == b.traveller_id and o.flight.row.destination == b.flight.row.destination]  # fmt: skip


def by_trip(ctx: GenContext, index: Index, b: BookingInfo, build, intent: str, words=lambda piece: {}) -> Piece | None:
    """`build`'s piece on the booking meant, asked of "my flight to <city>" (`intent`, with `words(piece)`;
    None: no such request): list the traveller's bookings, ask which flight to that city, act. Where `b`
    is their one flight there, a second is added, and the traveller means either."""
    trips = _trips(index, b)
    setup, meant = [], b
    if len(trips) == 1:
        found = twin(ctx, index, b)
        if found is None:
            return None
        added, info = found
        trips.append((added["booking_id"], info.flight.view["departs_local"]))
        setup = [WorldEdit(table="flight_booking", insert=added)]
        meant = info if ctx.rng.random() < TWIN_SHARE else b
    if len({clock(d)[1] for _, d in trips}) < len(trips):
        return None  # the traveller tells them apart by the day, as said ("March 6": a year apart is no help)
    piece = build(ctx, index, meant)
    said = None if piece is None else words(piece)
    if piece is None or said is None:
        return None
    trips.sort(key=lambda t: t[1])
    destination = city(meant.flight.row.destination)
    day = clock(meant.flight.view["departs_local"])[1]
    steps = [agent(call("list_bookings", traveller_id=meant.traveller_id)), *piece.steps]
    piece = replace(
        piece,
        request=ctx.say(intent, city=destination, **said),
        goal=f"{piece.goal} You name it as your flight to {destination} (leaving {day}); you do not know the booking id.",
        facts=[],
        steps=steps,
        setup=[*piece.setup, *setup],
        keys=piece.keys | {i for i, _ in trips},
    )
    piece = structures.ask_which(
        piece, label="flight", what=f"flights to {destination}", options=[i for i, _ in trips],
        described=[f"{i}, {leaving(d)}" for i, d in trips], answer=f"the one leaving on {day}", step=1,
    )  # fmt: skip
    return structures.looked_up(piece, label="booking id", value=meant.booking_id, keywords=BOOKING_WORDS)


def _last_call(piece: Piece, argument: str) -> Any:
    return piece.steps[-1].calls[0].arguments[argument]


def seat_by_trip(ctx: GenContext, index: Index, b: BookingInfo) -> Piece | None:
    return by_trip(ctx, index, b, select_seat, "ask_seat_for_trip",
                   lambda piece: None if piece.withheld else {"seat": _last_call(piece, "seat")})  # fmt: skip


def cancel_by_trip(ctx: GenContext, index: Index, b: BookingInfo) -> Piece | None:
    """Cancel "my flight to <city>": the quote and the cancellation come after the traveller picks."""
    return by_trip(ctx, index, b, cancel, "ask_cancel_for_trip")


def bags_for_trip(ctx: GenContext, index: Index, b: BookingInfo) -> Piece | None:
    return by_trip(ctx, index, b, add_bags, "ask_bags_for_trip", lambda piece: {"bags": _last_call(piece, "bags")})


NIGHTS = (2, 3, 4, 5)
LEAVING = {"check_out": "the arrival day get_booking shows, plus the nights the traveller asked for"}


def hotel_for_trip(ctx: GenContext, index: Index, b: BookingInfo) -> Piece | None:
    """The cheapest hotel in the city a booked flight lands in, from its arrival day, on the default card."""
    traveller = index.travellers[b.traveller_id]
    town = city(b.flight.row.destination)
    hotels = [h for h in index.hotels_by_city.get(town, []) if h.rooms_left > 0]
    if not hotels:
        return None
    hotel = hotels[0]
    arrival = dt.date.fromisoformat(b.flight.view["arrives_local"][:10])
    nights = ctx.pick(NIGHTS)
    leave = arrival + dt.timedelta(days=nights)
    card = traveller.card
    total = money2(hotel.nightly_rate * nights)
    v = {"hotel": hotel.name, "rate": hotel.nightly_rate, "total": total, "nights": nights, "city": town,
         "check_in": day_text(arrival), "check_out": day_text(leave), "brand": card.brand, "last4": card.last4}  # fmt: skip
    stay = {"city": town, "check_in": arrival.isoformat(), "check_out": leave.isoformat()}
    return Piece(
        subject=b.traveller_id,
        request=ctx.say("ask_hotel_for_trip", booking=b.booking_id, nights=nights),
        goal=f"Book the cheapest hotel in {town} for {nights} nights from the day the flight of booking {b.booking_id} lands, on your default card.",
        facts=[booking_fact(b.booking_id)],
        steps=[
            agent(call("get_booking", booking_id=b.booking_id), call("get_traveller_profile", traveller_id=b.traveller_id)),
            agent(call("search_hotels", **stay), derived=LEAVING),
            agent(call("book_hotel", traveller_id=b.traveller_id, hotel_id=hotel.hotel_id, check_in=stay["check_in"],
                       check_out=stay["check_out"], method_id=card.method_id), confirm=clause(ctx, "action_book_hotel", **v),
                  derived=LEAVING),
        ],  # fmt: skip
        reply=Utterance(intent="done_book_hotel", vars=v),
        outputs=[hotel.name, money(total)],
        keys=frozenset({b.booking_id, traveller.traveller_id + ":card", hotel.hotel_id, f"{town}:hotels"}),
    )


def hotel_by_trip(ctx: GenContext, index: Index, b: BookingInfo) -> Piece | None:
    """`hotel_for_trip` asked of "my flight to <city>": which flight decides the arrival day."""
    return by_trip(ctx, index, b, hotel_for_trip, "ask_hotel_for_city_trip", lambda piece: {"nights": piece.reply.vars["nights"]})
