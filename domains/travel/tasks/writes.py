"""Requests that change a booking or make one: seats, bags, insurance, cancellations, date
changes, points rewards, and the multi-step bookings (cheapest direct flight, paid with points
when the traveller has enough; a hotel within a budget).

Every write has `confirm=` (the policy's consent rule) stating only what a read showed first, and
acts on a booking only after a read showed it is the identified traveller's (get_booking, or
list_bookings of the traveller): the policy's "only the identified traveller's own bookings".
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from toolgym.envs import Forbidden, GenContext, Piece, Utterance, call, money, said_amount, structures
from toolgym.envs.phrasing import counted

from ..catalogue import (
    FARE_RULE_BY_CABIN,
    MAX_BAGS,
    PASSPORT_VALID_MONTHS,
    POINTS_PER_DOLLAR,
    POLICY_VALUES,
    REWARDS,
    insurance_price,
    points_for,
)
from ..tools.common import bag_charge, money2
from .index import BookingInfo, Index, StayInfo, TravellerInfo, can_pay_points, cheapest
from .parts import agent, cabin_label, city, clause, clock, day_text, flight_vars, leaves_out, leaving
from .reads import booking_fact

SEAT_LETTERS = "ABCDEF"
DECLINE_SHARE = 0.15  # date changes the traveller turns down once told the fee and fare: the gold changes nothing
DECLINE_NOTHING_BACK = 0.5  # cancellations that would refund nothing, turned down once the quote is heard


def _card_words(t: TravellerInfo) -> dict[str, str]:
    return {"brand": t.card.brand, "last4": t.card.last4}


def pick_seat(ctx: GenContext, index: Index, b: BookingInfo) -> str:
    while True:
        seat = f"{ctx.rng.randint(1, 40)}{ctx.pick(SEAT_LETTERS)}"
        if (b.flight.flight_id, seat) not in index.taken_seats and seat != b.seat:
            return seat


def select_seat(ctx: GenContext, index: Index, b: BookingInfo) -> Piece:
    seat = pick_seat(ctx, index, b)
    side = {"A": "window", "F": "window", "C": "aisle", "D": "aisle"}.get(seat[-1], "middle")
    piece = Piece(
        subject=b.traveller_id,
        request=ctx.say("ask_seat", booking=b.booking_id, seat=seat, side=side),
        goal=f"Get seat {seat} on booking {b.booking_id}.",
        facts=[booking_fact(b.booking_id)],
        steps=[
            agent(call("get_booking", booking_id=b.booking_id)),  # whose booking it is, read first
            agent(call("select_seat", booking_id=b.booking_id, seat=seat),
                  confirm=clause(ctx, "action_seat", seat=seat, booking=b.booking_id)),
        ],  # fmt: skip
        reply=Utterance(intent="done_seat", vars={"seat": seat, "booking": b.booking_id}),
        outputs=[seat],
        keys=frozenset({b.booking_id}),
    )
    if leaves_out(ctx):
        return structures.left_out(piece, key="seat", label="preferred seat", value=seat, keywords=["seat"],
                                   request=ctx.say("ask_seat_no_seat", booking=b.booking_id, side=side))  # fmt: skip
    return piece


def add_bags(ctx: GenContext, index: Index, b: BookingInfo) -> Piece | None:
    room = MAX_BAGS - b.bags
    if room < 1:
        return None
    bags = ctx.rng.randint(1, room)
    rule = FARE_RULE_BY_CABIN[b.cabin]
    fee = bag_charge(b.cabin, b.bags, bags)  # get_booking's add_bags_quote shows it: the yes is to the total
    return Piece(
        subject=b.traveller_id,
        request=ctx.say("ask_bags", booking=b.booking_id, bags=bags),
        goal=f"Add {counted(bags, 'checked bag')} to booking {b.booking_id}.",
        facts=[booking_fact(b.booking_id)],
        steps=[
            agent(call("get_booking", booking_id=b.booking_id)),  # the fare rule's bag fee and the quote, read first
            agent(call("add_baggage", booking_id=b.booking_id, bags=bags),
                  confirm=clause(ctx, "action_bags", bags=bags, booking=b.booking_id, free=max(0, rule.free_bags - b.bags),
                                 fee=rule.bag_fee, total=fee),
                  disclose=(money(fee),) if fee else ()),
        ],  # fmt: skip
        reply=Utterance(intent="done_bags", vars={"bags": bags, "booking": b.booking_id, "fee": fee}),
        outputs=[said_amount(fee, "no charge")],
        keys=frozenset({b.booking_id}),
    )


def bags_by_trip(ctx: GenContext, index: Index) -> Piece | None:
    """Bags added to "my flight to <city>": the traveller knows the trip, not the booking id, so the
    agent lists their bookings; when two flights go there, it asks which (naming each)."""
    b = ctx.pick(index.confirmed("bags", lambda b: b.bags < MAX_BAGS))
    piece = add_bags(ctx, index, b)
    city = b.flight.view["to"]
    trips = [o for o in index.confirmed("any") if o.traveller_id == b.traveller_id and o.flight.view["to"] == city]
    if piece is None or any(o.bags >= MAX_BAGS for o in trips) or len({clock(o.flight.view["departs_local"])[1] for o in trips}) < len(trips):
        return None
    bags = next(c.arguments["bags"] for c in piece.steps[-1].calls)
    day = clock(b.flight.view["departs_local"])[1]
    piece = replace(
        piece,
        request=ctx.say("ask_bags_for_trip", city=city, bags=bags),
        goal=f"Add {counted(bags, 'checked bag')} to your flight to {city} (leaving {day}); you do not know the booking id.",
        facts=[],
        steps=[agent(call("list_bookings", traveller_id=b.traveller_id)), *piece.steps],
        keys=frozenset(o.booking_id for o in trips),
    )
    if len(trips) > 1:
        piece = structures.ask_which(
            piece, label="flight", what=f"flights to {city}", options=[o.booking_id for o in trips],
            described=[f"{o.booking_id}, {leaving(o.flight.view['departs_local'])}" for o in trips],
            answer=f"the one leaving on {day}", step=1,
        )  # fmt: skip
    return structures.looked_up(piece, label="booking id", value=b.booking_id, keywords=["booking id", "booking number", "booking reference"])


def add_insurance(ctx: GenContext, index: Index, b: BookingInfo) -> Piece:
    """Insurance on a booking made within the window: allowed (the booking's time shows it)."""
    price = insurance_price(b.fare_paid)
    return Piece(
        subject=b.traveller_id,
        request=ctx.say("ask_insurance", booking=b.booking_id),
        goal=f"Add travel insurance to booking {b.booking_id}, made a few hours ago.",
        facts=[booking_fact(b.booking_id)],
        steps=[
            agent(call("get_booking", booking_id=b.booking_id)),
            agent(call("add_insurance", booking_id=b.booking_id), confirm=clause(ctx, "action_insurance", booking=b.booking_id, price=price, points=b.payment == "points"),
                  disclose=(money(price),)),
        ],
        reply=Utterance(intent="done_insurance", vars={"booking": b.booking_id, "price": price}),
        outputs=[money(price)],
        keys=frozenset({b.booking_id}),
    )


def cancel(ctx: GenContext, index: Index, b: BookingInfo, *, by_route: bool = False) -> Piece:
    """Quote, confirm with the refund, cancel. `by_route`: the traveller names the trip, not the number."""
    refund, fee = b.terms["refund"], b.terms["fee"]
    v = flight_vars(b.flight)
    # the traveller's bookings (named by route), or the one named by number: whose it is, read first
    steps = [agent(call("list_bookings", traveller_id=b.traveller_id) if by_route else call("get_booking", booking_id=b.booking_id))]
    steps += [
        agent(call("quote_cancellation", booking_id=b.booking_id)),
        agent(call("cancel_booking", booking_id=b.booking_id),
              confirm=clause(ctx, "action_cancel", booking=b.booking_id, refund=refund, fee=fee, card=b.terms.get("refund_to"),
                             trip=ctx.say("cancel_flight", number=v["number"], origin=v["origin"], destination=v["destination"],
                                          day=clock(b.flight.view["departs_local"])[1]))),
    ]  # fmt: skip
    intent = "ask_cancel_trip" if by_route else "ask_cancel"
    reply = Utterance(intent="done_cancel", vars={"booking": b.booking_id, "refund": refund, "fee": fee})
    outputs = [b.booking_id, said_amount(refund, "no refund")]
    if refund == 0 and ctx.rng.random() < DECLINE_NOTHING_BACK:  # told nothing comes back, the traveller keeps it
        steps[-1] = steps[-1].model_copy(update={"declined": True})
        reply = Utterance(intent="declined_cancel", vars={"booking": b.booking_id})
        outputs = [b.booking_id]
    return Piece(
        subject=b.traveller_id,
        request=ctx.say(intent, booking=b.booking_id, origin=v["origin"], destination=v["destination"], day=v["dep_day"]),
        goal=f"Cancel the booking of your flight from {v['origin']} to {v['destination']} on {v['dep_day']}.",
        facts=[] if by_route else [booking_fact(b.booking_id)],
        steps=steps,
        reply=reply,
        outputs=outputs,
        keys=frozenset({b.booking_id, f"{b.flight.row.origin}{b.flight.row.destination}{b.flight.row.depart_date}"}),
        forbidden=[Forbidden(reason="the traveller asked to cancel, not to change", tool="change_flight_date")],
    )


def cancel_stay(ctx: GenContext, index: Index, stay: StayInfo) -> Piece:
    """A hotel booking cancelled: free up to two days before check-in, one night charged after."""
    refund, fee = stay.terms["refund"], stay.terms["fee"]
    return Piece(
        subject=stay.traveller_id,
        request=ctx.say("ask_cancel", booking=stay.booking_id),
        goal=f"Cancel your stay at {stay.hotel} (booking {stay.booking_id}).",
        facts=[booking_fact(stay.booking_id)],
        steps=[
            agent(call("get_booking", booking_id=stay.booking_id)),
            agent(call("quote_cancellation", booking_id=stay.booking_id)),
            agent(call("cancel_booking", booking_id=stay.booking_id),
                  confirm=clause(ctx, "action_cancel", booking=stay.booking_id, refund=refund, fee=fee, card=stay.terms["refund_to"],
                                 trip=ctx.say("cancel_stay", hotel=stay.hotel, check_in=day_text(stay.check_in),
                                              check_out=day_text(stay.check_out)))),
        ],  # fmt: skip
        reply=Utterance(intent="done_cancel", vars={"booking": stay.booking_id, "refund": refund, "fee": fee}),
        outputs=[stay.booking_id, said_amount(refund, "no refund")],
        keys=frozenset({stay.booking_id, f"{stay.city}:hotels"}),
    )


def change_date(ctx: GenContext, index: Index, b: BookingInfo) -> Piece | None:
    """A changeable fare moved to the cheapest flight with seats on another date of the same route."""
    old = b.flight.row
    choices = [d for d in index.dates if d != old.depart_date]
    day = ctx.pick(choices)
    new = cheapest([f for f in index.flights_on(old.origin, old.destination, day)], b.cabin)
    if new is None:
        return None
    rule = FARE_RULE_BY_CABIN[b.cabin]
    difference = money2(max(0.0, new.price(b.cabin) - b.fare_paid))
    charged = money2(rule.change_fee + difference)
    nv = flight_vars(new)
    steps = [
        agent(call("get_booking", booking_id=b.booking_id)),
        agent(call("search_flights", origin=old.origin, destination=old.destination, date=day.isoformat(), cabin=b.cabin)),
        agent(call("quote_change", booking_id=b.booking_id, new_flight_id=new.flight_id)),  # the total the yes agrees to
        agent(call("change_flight_date", booking_id=b.booking_id, new_flight_id=new.flight_id),
              confirm=clause(ctx, "action_change", booking=b.booking_id, fee=rule.change_fee, price=new.price(b.cabin),
                             paid=b.fare_paid, difference=difference, charged=charged, **nv)),
    ]  # fmt: skip
    reply = Utterance(intent="done_change", vars={**nv, "booking": b.booking_id, "charged": charged})
    outputs = [new.row.flight_number, said_amount(charged, "no charge")]
    if ctx.rng.random() < DECLINE_SHARE:  # the fee and fare heard, the traveller keeps the flight they have
        steps[-1] = steps[-1].model_copy(update={"declined": True})
        reply = Utterance(intent="declined_change", vars={"booking": b.booking_id, **flight_vars(b.flight)})
        outputs = [b.booking_id]
    piece = Piece(
        subject=b.traveller_id,
        request=ctx.say("ask_change_date", booking=b.booking_id, day=day_text(day)),
        goal=f"Move booking {b.booking_id} to the cheapest flight on {day_text(day)}.",
        facts=[booking_fact(b.booking_id)],
        steps=steps,
        reply=reply,
        outputs=outputs,
        keys=frozenset({b.booking_id, f"{old.origin}{old.destination}{day}", f"{old.origin}{old.destination}{old.depart_date}"}),
        forbidden=[Forbidden(reason="the traveller asked to change the date, not cancel", tool="cancel_booking")],
    )
    if leaves_out(ctx):
        return structures.left_out(piece, key="new_date", label="new travel date", value=day_text(day),
                                   request=ctx.say("ask_change_date_no_date", booking=b.booking_id), step=1)  # fmt: skip
    return piece


def redeem(ctx: GenContext, index: Index, t: TravellerInfo) -> Piece | None:
    affordable = [r for r in REWARDS if r.points <= t.points]
    if not affordable:
        return None
    reward = ctx.pick(affordable)
    left = t.points - reward.points
    piece = Piece(
        subject=t.traveller_id,
        request=ctx.say("ask_redeem", reward=reward.label),
        goal=f"Redeem points for {reward.label}.",
        steps=[
            agent(call("get_traveller_profile", traveller_id=t.traveller_id)),
            agent(call("redeem_points", traveller_id=t.traveller_id, reward=reward.reward),
                  confirm=clause(ctx, "action_redeem", reward=reward.label, points=f"{reward.points:,}", balance=f"{t.points:,}")),
        ],  # fmt: skip
        reply=Utterance(intent="done_redeem", vars={"reward": reward.label, "left": f"{left:,}", "points": f"{reward.points:,}"}),
        outputs=[f"{left:,}"],  # "82,700": points are said as people write a count
        keys=frozenset({t.traveller_id + ":points"}),
    )
    if leaves_out(ctx):
        return structures.left_out(piece, key="reward", label="chosen reward", value=reward.label, request=ctx.say("ask_redeem_no_reward"),
                                   keywords=["reward"])
    return piece


def passport_ok(index: Index, t: TravellerInfo, origin: str, destination: str, day: dt.date) -> bool:
    if index.countries[origin] == index.countries[destination]:
        return True
    return t.passport_expiry >= _months_after(day, PASSPORT_VALID_MONTHS)


def _months_after(day: dt.date, months: int) -> dt.date:
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    return dt.date(year, month, min(day.day, 28))


def book_cheapest_direct(ctx: GenContext, index: Index, t: TravellerInfo, *, insurance: bool = False) -> Piece | None:
    """Find the cheapest direct flight, then book it with points if the traveller has enough, else by card."""
    origin, destination = ctx.pick(index.routes)
    day = ctx.pick(index.dates)
    cabin = ctx.pick(("basic_economy", "economy", "economy", "business"))
    best = cheapest(index.flights_on(origin, destination, day), cabin, direct=True)
    if best is None or not passport_ok(index, t, origin, destination, day):
        return None
    price = best.price(cabin)
    points = can_pay_points(t, price)
    v = {**flight_vars(best), "cabin": cabin_label(cabin), "price": price, "points_used": f"{points_for(price):,}",
         "balance": f"{t.points:,}", "points_value": t.points / POINTS_PER_DOLLAR,
         "insurance_percent": POLICY_VALUES["insurance_percent"], **_card_words(t)}  # fmt: skip
    args = {"traveller_id": t.traveller_id, "flight_id": best.flight_id, "cabin": cabin}
    args |= {"payment": "points"} if points else {"payment": "card", "method_id": t.card.method_id}
    if insurance:
        args["insurance"] = True
    how = "points" if points else "card"
    piece = Piece(
        subject=t.traveller_id,
        request=ctx.say("ask_book_insured" if insurance else "ask_book_points", origin=city(origin),
                        destination=city(destination), day=day_text(day), cabin=cabin_label(cabin)),  # fmt: skip
        goal=(f"Book the cheapest direct {cabin_label(cabin)} flight from {city(origin)} to {city(destination)} on "
              f"{day_text(day)}, with points if you have enough, otherwise by card."),  # fmt: skip
        steps=[
            agent(call("get_traveller_profile", traveller_id=t.traveller_id)),
            agent(call("search_flights", origin=origin, destination=destination, date=day.isoformat(), cabin=cabin,
                       direct_only=True)),
            agent(call("book_flight", **args), confirm=clause(ctx, f"action_book_{how}", insured=insurance, **v),
                  derived={} if points else {"payment": "the default card, which the policy says to book with when the points do not cover the fare"},
                  disclose=(f"{v['insurance_percent']}%",) if insurance else ()),
        ],  # fmt: skip
        reply=Utterance(intent=f"done_book_{how}", vars={**v, "insured": insurance,
                                                         "insurance_price": insurance_price(price) if insurance else 0.0}),
        outputs=[best.row.flight_number] + ([f"{points_for(price):,}"] if points else [money(price)]),
        keys=frozenset({t.traveller_id + ":points", best.flight_id, f"{origin}{destination}{day}"}),
        forbidden=[Forbidden(reason="the flight must be direct and the cheapest", tool="book_flight",
                             arguments={"flight_id": f.flight_id})
                   for f in index.flights_on(origin, destination, day) if f.flight_id != best.flight_id]
        + ([] if points else [Forbidden(reason="too few points for this fare", tool="book_flight", arguments={"payment": "points"})]),
    )  # fmt: skip
    if leaves_out(ctx):
        request = ctx.say("ask_book_no_date", origin=city(origin), destination=city(destination), cabin=cabin_label(cabin), insured=insurance)
        return structures.left_out(piece, key="travel_date", label="travel date", value=day_text(day), request=request, step=1)
    return piece


def book_hotel(ctx: GenContext, index: Index, t: TravellerInfo) -> Piece | None:
    """The cheapest hotel with a room under the traveller's nightly budget, by the default card."""
    town = ctx.pick(index.cities)
    budget = ctx.pick((120, 150, 180, 200, 250, 300, 400))
    free = [h for h in index.hotels_by_city[town] if h.rooms_left > 0 and h.nightly_rate <= budget]
    if not free:
        return None
    hotel = free[0]
    check_in = ctx.pick(index.dates[:-1])
    nights = ctx.rng.randint(1, 5)
    check_out = check_in + dt.timedelta(days=nights)
    total = money2(hotel.nightly_rate * nights)
    v = {"hotel": hotel.name, "rate": hotel.nightly_rate, "total": total, "nights": nights, "city": town,
         "check_in": day_text(check_in), "check_out": day_text(check_out), **_card_words(t)}  # fmt: skip
    piece = Piece(
        subject=t.traveller_id,
        request=ctx.say("ask_book_hotel", city=town, check_in=day_text(check_in), check_out=day_text(check_out), budget=budget),
        goal=f"Book the cheapest hotel in {town} under ${budget} a night, {day_text(check_in)} to {day_text(check_out)}.",
        steps=[
            agent(call("get_traveller_profile", traveller_id=t.traveller_id)),
            agent(call("search_hotels", city=town, check_in=check_in.isoformat(), check_out=check_out.isoformat(),
                       max_nightly_rate=budget)),
            agent(call("book_hotel", traveller_id=t.traveller_id, hotel_id=hotel.hotel_id, check_in=check_in.isoformat(),
                       check_out=check_out.isoformat(), method_id=t.card.method_id), confirm=clause(ctx, "action_book_hotel", **v)),
        ],  # fmt: skip
        reply=Utterance(intent="done_book_hotel", vars=v),
        outputs=[hotel.name, money(total)],
        keys=frozenset({t.traveller_id + ":card", hotel.hotel_id, f"{town}:hotels"}),
    )
    if leaves_out(ctx):
        piece = structures.left_out(piece, key="check_in", label="check-in date", value=day_text(check_in),
                                    request=ctx.say("ask_book_hotel_no_dates", city=town, budget=budget), step=1)  # fmt: skip
        return structures.left_out(piece, key="check_out", label="check-out date", value=day_text(check_out), request=piece.request, step=1)
    return piece


def price_in_currency(ctx: GenContext, index: Index) -> Piece | None:
    """The cheapest fare found, then converted: an amount in another currency comes only from the tool."""
    from .reads import cheapest_fare

    piece = cheapest_fare(ctx, index)
    if piece is None:
        return None
    search = piece.steps[0].calls[0].arguments
    best = cheapest(index.flights_on(search["origin"], search["destination"], dt.date.fromisoformat(search["date"])),
                    search["cabin"], search["direct_only"])  # fmt: skip
    assert best is not None
    price = best.price(search["cabin"])
    currency = ctx.pick(("EUR", "GBP", "JPY", "CAD", "AUD", "CHF", "SGD", "MXN", "INR"))
    from ..catalogue import RATES_PER_USD

    converted = money2(price * RATES_PER_USD[currency])
    piece.request = f"{piece.request} {ctx.say('ask_in_currency', currency=currency)}"
    piece.steps = [*piece.steps, agent(call("convert_currency", amount=price, from_currency="USD", to_currency=currency),
                                       derived={"from_currency": "US dollars, the currency the policy gives prices in"})]  # fmt: skip
    piece.reply = Utterance(intent="answer_cheapest_converted",
                            vars={**piece.reply.vars, "currency": currency, "converted": f"{converted:,.2f}"})  # fmt: skip
    piece.outputs = [best.row.flight_number, f"{converted:,.2f}"]
    return piece


HANDOFF_REASONS = ("group_booking", "special_assistance", "lost_luggage", "complaint")


def handoff(ctx: GenContext, index: Index, t: TravellerInfo) -> Piece:
    """What only a person can do (a group, assistance, lost bags, a complaint): a hand-off, with consent."""
    reason = ctx.pick(HANDOFF_REASONS)
    return Piece(
        subject=t.traveller_id,
        request=ctx.say(f"ask_handoff_{reason}"),
        goal="Get passed to a person who can help with this.",
        steps=[agent(call("transfer_to_human", traveller_id=t.traveller_id, reason=reason),
                     confirm=clause(ctx, "action_handoff", reason=clause(ctx, f"handoff_{reason}")))],  # fmt: skip
        reply=Utterance(intent="done_handoff", vars={"ticket": HANDOFF_TICKET}),
        outputs=[HANDOFF_TICKET],
        keys=frozenset({t.traveller_id + ":handoff"}),
    )


HANDOFF_TICKET = "HT700001"  # the first hand-off of an episode (no hand-off is built)
