"""Pieces of the parallel kind beyond reads.PARALLEL_GENERAL: two questions asked in one message and
answered by one parallel step, and searches that share the dates a traveller plans by (a flight and a
hotel for one trip, hotels in two cities for one stay), where in most the traveller leaves the date
out and the agent asks once for both searches.
"""

from __future__ import annotations

import datetime as dt

from toolgym.envs import GenContext, Piece, Step, Utterance, call, money, structures

from .index import Index, cheapest
from .parts import cabin_label, city, day_text
from .reads import SINGLE_BOOKING, SINGLE_GENERAL

PARALLEL_ASK_SHARE = 0.9  # searches asked without the dates they share: the agent asks once for both


def read_pair(ctx: GenContext, index: Index) -> Piece | None:
    """Two of the one-read questions (status, fare, fare rules, hotel; in half, one about the
    traveller's booking: its arrival or its invoice) asked together, in either order."""
    first, second = ctx.rng.sample(SINGLE_GENERAL, 2)
    one, two = first(ctx, index), second(ctx, index)
    if ctx.rng.random() < 0.5:
        two = ctx.pick(SINGLE_BOOKING)(ctx, ctx.pick(index.confirmed("any")))
    if one is None or two is None:
        return None
    return structures.together(ctx, *ctx.rng.sample([one, two], 2))


HOME_SHARE = 0.4  # trips asked "from home": the traveller's home airport is read from the profile first


def trip_quote(ctx: GenContext, index: Index) -> Piece | None:
    """The cheapest flight to a city and the cheapest hotel there for the nights after, searched together
    (in either order). In some, the traveller flies "from home", which the profile shows."""
    traveller = ctx.pick(list(index.travellers.values())) if ctx.rng.random() < HOME_SHARE else None
    routes = [r for r in index.routes if traveller is None or r[0] == traveller.home_airport]
    if not routes:
        return None
    origin, destination = ctx.pick(routes)
    town = city(destination)
    day = ctx.pick(index.dates[:-1])
    cabin = ctx.pick(("economy", "economy", "business", "basic_economy"))
    nights = ctx.rng.randint(2, 5)
    flight = cheapest(index.flights_on(origin, destination, day), cabin)
    hotels = [h for h in index.hotels_by_city.get(town, []) if h.rooms_left > 0]
    if flight is None or not hotels:
        return None
    hotel, leave = hotels[0], day + dt.timedelta(days=nights)
    said = {"origin": city(origin), "destination": town, "cabin": cabin_label(cabin), "nights": nights}
    searches = [call("search_flights", origin=origin, destination=destination, date=day.isoformat(), cabin=cabin),
                call("search_hotels", city=town, check_in=day.isoformat(), check_out=leave.isoformat())]  # fmt: skip
    steps = [Step(calls=ctx.rng.sample(searches, 2), derived={"check_out": "the travel day plus the nights the traveller named"})]
    home = "_home" if traveller is not None else ""
    if traveller is not None:
        steps.insert(0, Step(calls=[call("get_traveller_profile", traveller_id=traveller.traveller_id)]))
    piece = Piece(
        subject=traveller.traveller_id if traveller is not None else None,
        request=ctx.say(f"ask_trip_quote{home}", day=day_text(day), **said),
        goal=(f"Find the cheapest {cabin_label(cabin)} flight from {'home, ' if home else ''}{city(origin)}, to {town} on {day_text(day)} "
              f"and the cheapest hotel there for {nights} nights."),  # fmt: skip
        steps=steps,
        reply=Utterance(intent="answer_trip_quote", vars={"number": flight.row.flight_number, "price": flight.price(cabin), "cabin": cabin_label(cabin),
                                                          "hotel": hotel.name, "rate": hotel.nightly_rate, "nights": nights,
                                                          "total": round(hotel.nightly_rate * nights, 2), "city": town}),  # fmt: skip
        outputs=[flight.row.flight_number, money(flight.price(cabin)), hotel.name],
        keys=frozenset({f"{origin}{destination}{day}", f"{town}:hotels"}),
    )
    if ctx.rng.random() < PARALLEL_ASK_SHARE:
        return structures.left_out(piece, key="travel_date", label="travel date", value=day_text(day), request=ctx.say(f"ask_trip_quote{home}_no_date", **said))
    return piece


def hotels_two_cities(ctx: GenContext, index: Index) -> Piece | None:
    """The cheapest hotel in each of two cities for the same nights, searched together."""
    first, second = ctx.rng.sample(index.cities, 2)
    check_in = ctx.pick(index.dates[:-1])
    nights = ctx.rng.randint(1, 5)
    check_out = check_in + dt.timedelta(days=nights)
    found = [next((h for h in index.hotels_by_city[c] if h.rooms_left > 0), None) for c in (first, second)]
    if None in found:
        return None
    cheapest = [{"city": c, "hotel": h.name, "rate": h.nightly_rate} for c, h in zip((first, second), found, strict=True) if h is not None]
    stay = {"check_in": check_in.isoformat(), "check_out": check_out.isoformat()}
    dates = {"check_in": day_text(check_in), "check_out": day_text(check_out)}
    piece = Piece(
        request=ctx.say("ask_hotels_two_cities", first=first, second=second, **dates),
        goal=f"Compare the cheapest hotels in {first} and {second} from {dates['check_in']} to {dates['check_out']}.",
        steps=[Step(calls=[call("search_hotels", city=c, **stay) for c in (first, second)])],
        reply=Utterance(intent="answer_hotels_two_cities", vars={"first": cheapest[0], "second": cheapest[1]}),
        outputs=[h.name for h in found if h is not None],
        keys=frozenset({f"{first}:hotels", f"{second}:hotels"}),
    )
    if ctx.rng.random() < PARALLEL_ASK_SHARE:
        piece = structures.left_out(piece, key="check_in", label="check-in date", value=dates["check_in"],
                                    request=ctx.say("ask_hotels_two_cities_no_dates", first=first, second=second))  # fmt: skip
        return structures.left_out(piece, key="check_out", label="check-out date", value=dates["check_out"], request=piece.request)
    return piece


def two_cabins(ctx: GenContext, index: Index) -> Piece | None:
    """One route and day searched in two cabins together, to weigh the difference; in most, the day only when asked."""
    origin, destination = ctx.pick(index.routes)
    day = ctx.pick(index.dates)
    low, high = ctx.pick((("basic_economy", "economy"), ("economy", "business"), ("basic_economy", "business")))
    flights = index.flights_on(origin, destination, day)
    found = [cheapest(flights, c) for c in (low, high)]
    if None in found:
        return None
    # "SW669 at $863.00 in economy": a cabin before a colon read as a list inside the reply's own list
    lines = [f"{f.row.flight_number} at {money(f.price(c))} in {cabin_label(c)}" for c, f in zip((low, high), found, strict=True) if f is not None]
    said = {"origin": city(origin), "destination": city(destination), "low": cabin_label(low), "high": cabin_label(high)}
    piece = Piece(
        request=ctx.say("ask_two_cabins", day=day_text(day), **said),
        goal=f"Compare the cheapest {cabin_label(low)} and {cabin_label(high)} fares from {city(origin)} to {city(destination)} on {day_text(day)}.",
        steps=[Step(calls=[call("search_flights", origin=origin, destination=destination, date=day.isoformat(), cabin=c) for c in (low, high)])],
        reply=Utterance(intent="answer_two_cabins", vars={"lines": lines}),
        outputs=[money(f.price(c)) for c, f in zip((low, high), found, strict=True) if f is not None],
        keys=frozenset({f"{origin}{destination}{day}"}),
    )
    if ctx.rng.random() < PARALLEL_ASK_SHARE:
        return structures.left_out(piece, key="travel_date", label="travel date", value=day_text(day), request=ctx.say("ask_two_cabins_no_date", **said))
    return piece


PARALLEL_MORE = (read_pair, trip_quote, hotels_two_cities, two_cabins)
PARALLEL_MORE_WEIGHTS = (6, 2.5, 1.5, 2.5)
