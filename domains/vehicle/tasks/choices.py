"""Pieces where the driver's words fit several places: the agent searches, asks which one (naming
each), and routes to the one picked."""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Utterance, call, structures

from .drive import DESTINATIONS
from .index import Car
from .parts import agent

CATEGORY_WORDS = {"airport": "airports", "hotel": "hotels", "restaurant": "restaurants", "office": "offices", "mall": "malls",
                  "charger": "chargers"}  # fmt: skip


def navigate_which(ctx: GenContext, car: Car) -> Piece | None:
    """"Take me to the airport" when the search near this car finds several: the driver names one."""
    category = ctx.pick(DESTINATIONS)
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
