"""Questions answered by reading: flight status, fares on a date, hotels, bookings, fare rules.

`SINGLE` pieces make one read (besides identifying the traveller); `PARALLEL` pieces make
independent reads together: three dates, three hotels, two flights, two bookings.
"""

from __future__ import annotations

import datetime as dt

from toolgym.envs import Fact, GenContext, Piece, Step, Utterance, call, money, said_amount, structures

from ..catalogue import FARE_RULE_BY_CABIN
from ..tools.common import local_time
from .index import BookingInfo, FlightInfo, Index, cheapest
from .parts import agent, cabin_label, city, clock, day_text, flight_vars, leaves_out


def booking_fact(booking_id: str) -> Fact:
    return Fact(key="booking", value=booking_id, label="booking number", keywords=["booking", "reference", "confirmation"])


def _status_vars(f: FlightInfo) -> tuple[dict, list[str]]:
    v = flight_vars(f)
    if f.row.status == "delayed":
        new_time, new_day = clock(local_time(f.row.depart_utc + dt.timedelta(minutes=f.row.delay_minutes), f.row.origin))
        v.update(new_time=new_time, new_day=new_day, delay=f.row.delay_minutes)
        return v, [new_time]
    return v, ([f.row.status] if f.row.status == "cancelled" else [v["dep_time"]])


def flight_status(ctx: GenContext, index: Index) -> Piece:
    """How a flight of the next days stands: on time, delayed (new local time) or cancelled."""
    soon = index.soon()
    f = ctx.pick(soon)
    v, outputs = _status_vars(f)
    return Piece(
        request=ctx.say("ask_flight_status", number=f.row.flight_number, day=v["dep_day"]),
        goal=f"Find out whether flight {f.row.flight_number} on {v['dep_day']} is on time.",
        steps=[agent(call("get_flight_status", flight_number=f.row.flight_number, date=f.row.depart_date.isoformat()))],
        reply=Utterance(intent=f"answer_status_{f.row.status}", vars=v),
        outputs=outputs,
        keys=frozenset({f.flight_id}),
    )


def _route_day(ctx: GenContext, index: Index, cabin: str, direct: bool = False) -> tuple[str, str, dt.date, FlightInfo] | None:
    origin, destination = ctx.pick(index.routes)
    date = ctx.pick(index.dates)
    best = cheapest(index.flights_on(origin, destination, date), cabin, direct)
    return None if best is None else (origin, destination, date, best)


def cheapest_fare(ctx: GenContext, index: Index) -> Piece | None:
    """The cheapest flight on a route and date in a cabin (direct only if the traveller says so)."""
    cabin = ctx.pick(("basic_economy", "economy", "economy", "business"))
    direct = ctx.rng.random() < 0.4
    found = _route_day(ctx, index, cabin, direct)
    if found is None:
        return None
    origin, destination, date, best = found
    v = {**flight_vars(best), "cabin": cabin_label(cabin), "price": best.price(cabin)}
    piece = Piece(
        request=ctx.say("ask_cheapest_direct" if direct else "ask_cheapest", origin=city(origin),
                        destination=city(destination), day=day_text(date), cabin=cabin_label(cabin)),  # fmt: skip
        goal=f"Find the cheapest {cabin_label(cabin)} fare from {city(origin)} to {city(destination)} on {day_text(date)}.",
        steps=[agent(call("search_flights", origin=origin, destination=destination, date=date.isoformat(), cabin=cabin,
                          direct_only=direct))],  # fmt: skip
        reply=Utterance(intent="answer_cheapest", vars=v),
        outputs=[best.row.flight_number, money(best.price(cabin))],
        keys=frozenset({f"{origin}{destination}{date}"}),
    )
    if leaves_out(ctx):
        request = ctx.say("ask_cheapest_no_date", origin=city(origin), destination=city(destination), cabin=cabin_label(cabin), direct=direct)
        return structures.left_out(piece, key="travel_date", label="travel date", value=day_text(date), request=request)
    return piece



def fare_rule_question(ctx: GenContext, index: Index) -> Piece:
    cabin = ctx.pick(("basic_economy", "economy", "business"))
    topic = ctx.pick(("change", "bags"))


    rule = FARE_RULE_BY_CABIN[cabin]
    v = {"cabin": rule.label, "changeable": rule.changeable, "change_fee": rule.change_fee,
         "free_bags": rule.free_bags, "bag_fee": rule.bag_fee}  # fmt: skip
    if topic == "change":
        outputs = [said_amount(rule.change_fee, "no fee")] if rule.changeable else ["cannot be changed"]
    else:
        outputs = [money(rule.bag_fee)] if rule.bag_fee else [f"{rule.free_bags} free", "no fee"]  # the cost: nothing
    return Piece(
        request=ctx.say(f"ask_rule_{topic}", cabin=rule.label),
        goal=f"Learn the {rule.label} fare's rules on {topic}.",
        steps=[agent(call("get_fare_rules", cabin=cabin))],
        reply=Utterance(intent=f"answer_rule_{topic}", vars=v),
        outputs=outputs,
    )


def _hotel_stay(ctx: GenContext, index: Index) -> tuple[str, dt.date, int]:
    town = ctx.pick(index.cities)
    return town, ctx.pick(index.dates[:-1]), ctx.rng.randint(1, 6)


def cheapest_hotel(ctx: GenContext, index: Index) -> Piece | None:
    town, check_in, nights = _hotel_stay(ctx, index)
    budget = ctx.pick((None, 120, 150, 200, 250, 300))
    free = [h for h in index.hotels_by_city[town] if h.rooms_left > 0 and (budget is None or h.nightly_rate <= budget)]
    if not free:
        return None
    hotel = free[0]
    check_out = check_in + dt.timedelta(days=nights)
    v = {"hotel": hotel.name, "rate": hotel.nightly_rate, "total": round(hotel.nightly_rate * nights, 2), "nights": nights,
         "stars": hotel.stars, "city": town}  # fmt: skip
    args = {"city": town, "check_in": check_in.isoformat(), "check_out": check_out.isoformat()}
    if budget is not None:
        args["max_nightly_rate"] = budget
    piece = Piece(
        request=ctx.say("ask_cheapest_hotel_budget" if budget else "ask_cheapest_hotel", city=town,
                        check_in=day_text(check_in), check_out=day_text(check_out), budget=budget or 0),  # fmt: skip
        goal=f"Find the cheapest hotel in {town} from {day_text(check_in)} to {day_text(check_out)}.",
        steps=[agent(call("search_hotels", **args))],
        reply=Utterance(intent="answer_cheapest_hotel", vars=v),
        outputs=[hotel.name, money(hotel.nightly_rate)],
        keys=frozenset({f"{town}:hotels"}),
    )
    if leaves_out(ctx):
        piece = structures.left_out(piece, key="check_in", label="check-in date", value=day_text(check_in),
                                    request=ctx.say("ask_cheapest_hotel_no_dates", city=town, budget=budget or 0))  # fmt: skip
        return structures.left_out(piece, key="check_out", label="check-out date", value=day_text(check_out), request=piece.request)
    return piece



def arrival_time(ctx: GenContext, b: BookingInfo) -> Piece:
    """When the traveller's booked flight lands, in local time (the tool shows it)."""
    v = flight_vars(b.flight)
    return Piece(
        subject=b.traveller_id,
        request=ctx.say("ask_arrival", booking=b.booking_id),
        goal=f"Find out when the flight of booking {b.booking_id} lands, local time.",
        facts=[booking_fact(b.booking_id)],
        steps=[agent(call("get_booking", booking_id=b.booking_id))],
        reply=Utterance(intent="answer_arrival", vars={**v, "booking": b.booking_id}),
        outputs=[v["arr_time"]],
        keys=frozenset({b.booking_id}),
    )


def invoice_total(ctx: GenContext, b: BookingInfo) -> Piece:
    return Piece(
        subject=b.traveller_id,
        request=ctx.say("ask_invoice", booking=b.booking_id),
        goal=f"Get the total of the invoice of booking {b.booking_id}.",
        facts=[booking_fact(b.booking_id)],
        steps=[agent(call("get_invoice", booking_id=b.booking_id))],
        reply=Utterance(intent="answer_invoice", vars={"booking": b.booking_id, "total": b.invoice_total}),
        outputs=[money(b.invoice_total)],
        keys=frozenset({b.booking_id}),
    )


# ---- parallel -----------------------------------------------------------------------------


def three_dates(ctx: GenContext, index: Index) -> Piece | None:
    """The same route on three dates, searched together; the reply names each date's cheapest fare."""
    origin, destination = ctx.pick(index.routes)
    cabin = ctx.pick(("basic_economy", "economy", "economy", "business"))
    dates = sorted(ctx.rng.sample(index.dates, 3))
    best = [cheapest(index.flights_on(origin, destination, d), cabin) for d in dates]
    if any(b is None for b in best):
        return None
    found = [b for b in best if b is not None]
    lines = [f"{day_text(d)}: {b.row.flight_number} at {money(b.price(cabin))}" for d, b in zip(dates, found, strict=True)]
    winner = min(zip(dates, found, strict=True), key=lambda p: (p[1].price(cabin), p[0]))
    piece = Piece(
        request=ctx.say("ask_three_dates", origin=city(origin), destination=city(destination),
                        days=[day_text(d) for d in dates], cabin=cabin_label(cabin)),  # fmt: skip
        goal=f"Compare {cabin_label(cabin)} fares from {city(origin)} to {city(destination)} on three dates.",
        steps=[Step(calls=[call("search_flights", origin=origin, destination=destination, date=d.isoformat(), cabin=cabin)
                           for d in dates])],  # fmt: skip
        reply=Utterance(intent="answer_three_dates",
                        vars={"lines": lines, "best_day": day_text(winner[0]), "best_price": winner[1].price(cabin)}),
        outputs=[money(b.price(cabin)) for b in found],
        keys=frozenset({f"{origin}{destination}{d}" for d in dates}),
    )
    if leaves_out(ctx):  # the search needs a cabin, which only the traveller can say
        request = ctx.say("ask_three_dates_no_cabin", origin=city(origin), destination=city(destination), days=[day_text(d) for d in dates])
        return structures.left_out(piece, key="cabin", label="preferred cabin", value=cabin_label(cabin), request=request,
                                   keywords=["cabin"])
    return piece


def three_hotels(ctx: GenContext, index: Index) -> Piece:
    town = ctx.pick(index.cities)
    hotels = ctx.rng.sample(index.hotels_by_city[town], 3)
    best = min(hotels, key=lambda h: (h.nightly_rate, h.hotel_id))
    return Piece(
        request=ctx.say("ask_three_hotels", hotels=[h.hotel_id for h in hotels], city=town),
        goal=f"Compare three hotels in {town}: {', '.join(h.hotel_id for h in hotels)}.",
        steps=[Step(calls=[call("get_hotel_details", hotel_id=h.hotel_id) for h in hotels])],
        reply=Utterance(intent="answer_three_hotels",
                        vars={"lines": [f"{h.name} ({h.hotel_id}): {money(h.nightly_rate)} a night, {h.stars} stars" for h in hotels],
                              "best": best.name, "rate": best.nightly_rate}),  # fmt: skip
        outputs=[money(h.nightly_rate) for h in hotels],
        keys=frozenset(h.hotel_id for h in hotels),
    )


# how two flights asked about together are related: the aside the traveller gives must fit it
CONNECT_SHARE, SAME_AIRPORT_SHARE = 0.25, 0.25
LAYOVER = (dt.timedelta(hours=1), dt.timedelta(hours=12))


def _relation(first: FlightInfo, second: FlightInfo) -> str:
    """'connect' (the second leaves where the first lands, hours after), 'see_off' (both leave one
    airport on one day), 'meet' (both land at one airport on one day), else 'apart'."""
    a, b = first.row, second.row
    if a.destination == b.origin and LAYOVER[0] <= b.depart_utc - a.arrive_utc <= LAYOVER[1]:
        return "connect"
    if a.origin == b.origin and a.depart_date == b.depart_date:
        return "see_off"
    if a.destination == b.destination and a.arrive_utc.date() == b.arrive_utc.date():
        return "meet"
    return "apart"


def _two_flights(ctx: GenContext, index: Index) -> tuple[FlightInfo, FlightInfo]:
    """Two flights of the next days: a connection or two from one airport as often as people ask of them."""
    soon = index.soon()
    first = ctx.pick(soon)
    draw = ctx.rng.random()
    if draw < CONNECT_SHARE:
        fits = [f for f in soon if _relation(first, f) == "connect"]
    elif draw < CONNECT_SHARE + SAME_AIRPORT_SHARE:
        fits = [f for f in soon if f is not first and _relation(first, f) == "see_off"]
    else:
        fits = []
    return first, ctx.pick(fits) if fits else ctx.pick([f for f in soon if f is not first])


def two_statuses(ctx: GenContext, index: Index) -> Piece:
    first, second = _two_flights(ctx, index)
    relation = _relation(first, second)
    lines, outputs = [], []
    for f in (first, second):
        v, outs = _status_vars(f)
        outputs += outs
        if f.row.status == "delayed":
            lines.append(f"{f.row.flight_number} is delayed by {f.row.delay_minutes} minutes, now leaving at {v['new_time']} local time")
        elif f.row.status == "cancelled":
            lines.append(f"{f.row.flight_number} is cancelled")
        else:
            lines.append(f"{f.row.flight_number} is on schedule, leaving at {v['dep_time']} local time")
    return Piece(
        request=ctx.say("ask_two_statuses" + ("" if relation == "apart" else f"_{relation}"), first=first.row.flight_number, second=second.row.flight_number,
                        first_day=day_text(first.row.depart_date), second_day=day_text(second.row.depart_date)),  # fmt: skip
        goal=f"Check flights {first.row.flight_number} and {second.row.flight_number}.",
        steps=[Step(calls=[call("get_flight_status", flight_number=f.row.flight_number, date=f.row.depart_date.isoformat())
                           for f in (first, second)])],  # fmt: skip
        reply=Utterance(intent="answer_two_statuses", vars={"lines": lines}),
        outputs=outputs,
        keys=frozenset({first.flight_id, second.flight_id}),
    )


SINGLE_GENERAL = (flight_status, cheapest_fare, fare_rule_question, cheapest_hotel)
SINGLE_BOOKING = (arrival_time, invoice_total)
PARALLEL_GENERAL = (three_dates, three_hotels, two_statuses)
