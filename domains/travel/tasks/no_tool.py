"""The no-tool kinds the domain writes itself: a missing fact, an invalid value, a policy refusal.

(`no_tool/irrelevant` and `no_tool/unavailable` come from the engine.)
"""

from __future__ import annotations

from toolgym.envs import Forbidden, GenContext, Piece, Task, call, draw, pieces
from toolgym.envs.phrasing import owned

from ..catalogue import FREE_CANCEL_HOURS, PASSPORT_VALID_MONTHS, SEAT_LETTERS, SEAT_ROWS
from .index import Index, index_of
from .parts import agent, assemble, cabin_label, city, clause, day_text
from .reads import booking_fact
from .writes import passport_ok

# ---- missing_info ------------------------------------------------------------------------------

# (intent, the label the agent asks for): each request names everything else, and nothing a tool
# holds could stand in for the missing value (a traveller's booking number is found with
# list_bookings once they are identified: acting tasks look it up; someone else's flight is not theirs)
MISSING = (
    ("missing_date_flights", "travel date"),
    ("missing_flight_number", "the flight number"),  # someone else's flight: not "your flight number"
    ("missing_hotel_dates", "check-in and check-out dates"),
    ("missing_destination", "destination"),
)


def missing_info(ctx: GenContext) -> Task:
    index = index_of(ctx.world)
    intent, label = ctx.pick(MISSING)
    origin, destination = ctx.pick(index.routes)
    slots = {"origin": city(origin), "destination": city(destination), "day": day_text(ctx.pick(index.dates)),
             "city": ctx.pick(index.cities), "cabin": cabin_label(ctx.pick(("economy", "business", "basic_economy")))}  # fmt: skip
    piece = pieces.missing_info(ctx.say(intent, **slots), f"Get help, but you do not know {owned(label, 'the')[0]}.", [label])
    return assemble(ctx, [piece])


# ---- invalid_value -----------------------------------------------------------------------------

# a cabin we do not sell -> the one we sell that comes nearest to it
BAD_CABINS = {"first class": "business", "premium economy": "economy", "first": "business", "economy comfort": "economy",
              "premium": "business", "main cabin extra": "economy"}  # fmt: skip
MAX_ADDED_BAGS = 3  # what problem_bags says: the policy's most checked bags per traveller


def _bad_seat(ctx: GenContext) -> tuple[str, str]:
    """A seat no plane has, and the nearest one it has in words (a seat id the chat has not shown is
    no fact to state): the same letter in the last row, or the last letter of the same row. Only what
    the policy says of seats (rows and letters): it says nothing of which letter is a window."""
    letter = ctx.pick(SEAT_LETTERS)
    if ctx.rng.random() < 0.5:
        return f"{ctx.rng.randint(SEAT_ROWS + 1, 70)}{letter}", f"the same letter in row {SEAT_ROWS}, the last row"
    row = ctx.rng.randint(1, SEAT_ROWS)
    seat, last = f"{row}{ctx.pick('GHJKL')}", SEAT_LETTERS[-1]
    return seat, ctx.pick((f"letter {last} in the same row", f"the {last} seat of that same row",
                           f"letter {last} in row {row}, the last letter we have"))  # fmt: skip


def invalid_value(ctx: GenContext) -> Task:
    index = index_of(ctx.world)
    b = ctx.pick(index.confirmed("any"))
    draw_ = ctx.rng.random()
    bad: object
    if draw_ < 0.4:
        bad, valid = _bad_seat(ctx)
        request = ctx.say("ask_seat", booking=b.booking_id, seat=bad, side="")
        parameter, label, problem = "seat", "seat", clause(ctx, "problem_seat", rows=SEAT_ROWS)
    elif draw_ < 0.7:
        # a booking with no checked bag yet: the policy's most per traveller is then what still fits
        # ("I could use 3 bags instead" was said of bookings already holding two); drawn after the
        # first pick, so the seat and cabin tasks draw as they did
        b = ctx.pick(index.confirmed("no_bags", lambda b: b.bags == 0))
        bags = ctx.rng.randint(MAX_ADDED_BAGS + 1, 7)
        bad, valid = bags, f"{MAX_ADDED_BAGS} bags"
        request = ctx.say("ask_bags", booking=b.booking_id, bags=bags)
        parameter, label, problem = "bags", "number of bags", clause(ctx, "problem_bags")
    else:
        origin, destination = ctx.pick(index.routes)
        cabin = ctx.pick(tuple(BAD_CABINS))
        bad, valid = cabin, BAD_CABINS[cabin]
        request = ctx.say("ask_cheapest", origin=city(origin), destination=city(destination),
                          day=day_text(ctx.pick(index.dates)), cabin=cabin)  # fmt: skip
        parameter, label, problem = "cabin", "cabin", clause(ctx, "problem_cabin")
    piece = pieces.invalid_value(request, "Ask for something with a value that does not exist.", parameter=parameter,
                                 value=bad, label=label, problem=problem, valid=valid)  # fmt: skip
    if parameter == "bags":  # said with its unit; the spec keeps the number the tool would get
        piece.reply.vars["value"] = f"{bad} bags"
    return assemble(ctx, [piece])


# ---- policy_refusal ----------------------------------------------------------------------------


def _basic_change(ctx: GenContext, index: Index) -> Piece:
    b = ctx.pick(index.confirmed("basic", lambda b: b.cabin == "basic_economy"))
    day = ctx.pick([d for d in index.dates if d != b.flight.row.depart_date])
    return pieces.policy_refusal(
        ctx.say("ask_change_date", booking=b.booking_id, day=day_text(day)),
        f"Move basic economy booking {b.booking_id} to {day_text(day)}.",
        rule=clause(ctx, "rule_basic_change"),
        forbidden=[Forbidden(reason="basic economy fares cannot be changed", tool="change_flight_date")],
        subject=b.traveller_id,
        facts=[booking_fact(b.booking_id)],
        steps=[agent(call("get_booking", booking_id=b.booking_id))],
    )


def _late_insurance(ctx: GenContext, index: Index) -> Piece:
    b = ctx.pick(index.confirmed("old_uninsured", lambda b: not b.recent and not b.insurance))
    return pieces.policy_refusal(
        ctx.say("ask_insurance", booking=b.booking_id),
        f"Add insurance to booking {b.booking_id}, booked days ago.",
        rule=clause(ctx, "rule_insurance", hours=FREE_CANCEL_HOURS),
        forbidden=[Forbidden(reason="insurance is sold only at booking", tool="add_insurance")],
        subject=b.traveller_id,
        facts=[booking_fact(b.booking_id)],
        steps=[agent(call("get_booking", booking_id=b.booking_id))],
    )


def _someone_elses(ctx: GenContext, index: Index) -> Piece:
    b = ctx.pick(index.confirmed("any"))
    asker = ctx.pick([t for t in index.travellers if t != b.traveller_id])
    write = ctx.pick((("ask_cancel", "cancel_booking"), ("ask_insurance", "add_insurance")))
    v = {"booking": b.booking_id, "origin": "", "destination": "", "day": ""}
    return pieces.policy_refusal(
        ctx.say(write[0], **v),
        f"Act on booking {b.booking_id}, which is not yours.",
        rule=clause(ctx, "rule_own_bookings"),
        forbidden=[Forbidden(reason="the booking belongs to another traveller", tool=write[1])],
        subject=asker,
        facts=[booking_fact(b.booking_id)],
        steps=[agent(call("get_booking", booking_id=b.booking_id))],
    )


def _expiring_passport(ctx: GenContext, index: Index) -> Piece | None:
    t = ctx.pick(index.where("expiring", list(index.travellers.values()),
                             lambda t: (t.passport_expiry - index.dates[0]).days < 200))  # fmt: skip
    origin, destination = ctx.pick(index.routes)
    day = ctx.pick(index.dates)
    if passport_ok(index, t, origin, destination, day):
        return None
    cabin = ctx.pick(("economy", "business", "basic_economy"))
    return pieces.policy_refusal(
        ctx.say("ask_book_points", origin=city(origin), destination=city(destination), day=day_text(day), cabin=cabin_label(cabin)),
        f"Book a flight from {city(origin)} to {city(destination)} on {day_text(day)}.",
        rule=clause(ctx, "rule_passport", months=PASSPORT_VALID_MONTHS),
        forbidden=[Forbidden(reason="the passport expires too soon for this trip", tool="book_flight")],
        subject=t.traveller_id,
        steps=[agent(call("get_traveller_profile", traveller_id=t.traveller_id))],
    )


def policy_refusal(ctx: GenContext) -> Task:
    piece = draw(ctx, [_basic_change, _late_insurance, _someone_elses, _expiring_passport], index_of(ctx.world),
                 weights=[3, 3, 2, 2])  # fmt: skip
    return assemble(ctx, [piece])
