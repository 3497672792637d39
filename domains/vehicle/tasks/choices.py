"""Pieces where the driver's words fit several records: the agent reads them, asks which one (naming
each), and acts on the one picked: a place to route to or to reach on what is left, a driver profile."""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Utterance, call, structures

from .drive import destinations
from .index import Car
from .parts import agent, distances

CATEGORY_WORDS = {"airport": "airports", "hotel": "hotels", "restaurant": "restaurants", "office": "offices", "mall": "malls",
                  "charger": "chargers", "fuel_station": "fuel stations"}  # fmt: skip


def navigate_which(ctx: GenContext, car: Car) -> Piece | None:
    """"Take me to the airport" when the search near this car finds several: the driver names one."""
    category = ctx.pick(destinations(car))
    same = car.named_places(category)[:4]
    if len(same) < 2 or len(same) != len(car.places.get(category, ())):
        return None
    place = ctx.pick(same)
    piece = Piece(
        request=ctx.say(f"req_nav_category_{category}"),
        goal=f"Navigate to the {category}: {place.name} (say its name when asked which).",
        steps=[agent(call("search_places", category=category)), agent(call("set_navigation", place_id=place.id))],
        reply=Utterance(intent="reply_navigation", vars={"name": place.name, "eta": place.drive_min}),
        outputs=[place.name, f"{place.drive_min} minutes"],
        keys=frozenset({"nav"}),
    )
    piece = structures.ask_which(
        piece, label="place", what=CATEGORY_WORDS[category], options=[p.name for p in same], answer=place.name,
    )  # fmt: skip
    return structures.looked_up(piece, label="place id", value=place.id, keywords=["place id"])


def trip_range_which(ctx: GenContext, car: Car) -> Piece | None:
    """"Can I make it to the hotel?" when the search finds several hotels: the driver names one, the
    agent estimates the trip to it and says trip and range in the driver's units."""
    category = ctx.pick(("airport", "hotel", "office", "mall", "restaurant"))
    same = car.named_places(category)[:4]
    if len(same) < 2 or len(same) != len(car.places.get(category, ())):
        return None
    place = ctx.pick(same)
    convert_steps, (trip, reach) = distances(car, place.distance_km, float(car.v.range_km))
    piece = Piece(
        request=ctx.say("req_range_to_kind", kind=category, energy="charge" if car.electric else "fuel"),
        goal=f"Find out whether the car reaches the {category} {place.name} (say its name when asked which).",
        steps=[agent(call("search_places", category=category)), agent(call("estimate_trip_range", place_id=place.id)),
               *convert_steps],  # fmt: skip
        reply=Utterance(intent="reply_range_ok" if car.v.range_km >= place.distance_km else "reply_range_short",
                        vars={"name": place.name, "trip": trip, "range": reach}),  # fmt: skip
        outputs=[trip, reach],
        keys=frozenset({"range", "units"}),
    )
    piece = structures.ask_which(piece, label="place", what=CATEGORY_WORDS[category], options=[p.name for p in same], answer=place.name, step=1)
    return structures.looked_up(piece, label="place id", value=place.id, keywords=["place id"])


def load_profile_which(ctx: GenContext, car: Car) -> Piece | None:
    """"Someone else is driving, switch the profile": the saved profiles are listed, the driver says whose."""
    if car.moving:
        return None
    names = [p.name for p in car.profiles]
    if len(names) < 2 or len(set(names)) < len(names):
        return None
    others = [p for p in car.profiles if p.id != car.v.profile_id]
    if not others:
        return None
    profile = ctx.pick(others)
    piece = Piece(
        request=ctx.say("req_profile_unsaid"),
        goal=f"Load {profile.name}'s driver profile (say the name when asked whose).",
        steps=[agent(call("list_driver_profiles")),
               agent(call("load_driver_profile", profile_id=profile.id), confirm=f"load {profile.name}'s profile and move the seat and mirrors")],  # fmt: skip
        reply=Utterance(intent="reply_profile", vars={"name": profile.name, "seat": profile.seat_position, "units": profile.units}),
        outputs=[profile.name],
        keys=frozenset({"profile", "units"}),
    )
    described = [f"{p.name} (seat {p.seat_position}, {p.units})" for p in car.profiles]
    return structures.ask_which(piece, label="profile", what="driver profiles", options=names, described=described,
                                answer=f"the one named {profile.name}")  # fmt: skip
