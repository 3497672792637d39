"""Made-up names for the world's cities, organisations, products and events: no model can know
their facts from pretraining, so an answer must come from the pages."""

from __future__ import annotations

import random
from dataclasses import dataclass

_ONSETS = ("b", "br", "c", "d", "dr", "f", "g", "h", "k", "kr", "l", "m", "n", "p", "r", "s", "st", "t", "tr", "v", "z")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "io")
_CODAS = ("", "", "n", "r", "l", "s", "th", "nd", "rk", "x")
CITY_SUFFIXES = ("holm", "ford", "bury", " Falls", " Harbour", "stad", "mouth", " Ridge", "wick", "dale")
ORG_SUFFIXES = ("Dynamics", "Labs", "Works", "Systems", "Foods", "Freight", "Textiles", "Instruments", "Energy", "Studios")
INDUSTRIES = {
    "Dynamics": "engineering", "Labs": "research", "Works": "manufacturing", "Systems": "software",
    "Foods": "food", "Freight": "logistics", "Textiles": "textile", "Instruments": "electronics",
    "Energy": "energy", "Studios": "design",
}  # fmt: skip



@dataclass(frozen=True)
class ProductKind:
    """What a kind of product weighs and costs, and which kinds of organisation make it: a made-up
    world is still one a reader believes (no 24 kg watch, no camera from a food company)."""

    makers: tuple[str, ...]  # organisation suffixes (ORG_SUFFIXES)
    tenths_of_kg: tuple[int, int]  # weight range, in tenths of a kilogram
    dollars: tuple[int, int]  # list price range


PRODUCTS = {
    "Kettle": ProductKind(("Works", "Foods", "Studios", "Instruments"), (8, 22), (19, 180)),
    "Drone": ProductKind(("Dynamics", "Instruments", "Labs", "Systems"), (3, 45), (90, 2_400)),
    "Lamp": ProductKind(("Studios", "Works", "Energy", "Instruments"), (4, 60), (19, 450)),
    "Scanner": ProductKind(("Instruments", "Labs", "Systems"), (12, 90), (60, 1_500)),
    "Bicycle": ProductKind(("Works", "Dynamics", "Studios"), (70, 190), (250, 2_400)),
    "Speaker": ProductKind(("Instruments", "Studios", "Systems"), (3, 80), (29, 1_200)),
    "Router": ProductKind(("Systems", "Instruments", "Labs"), (2, 15), (35, 600)),
    "Heater": ProductKind(("Energy", "Works", "Dynamics"), (15, 120), (39, 700)),
    "Camera": ProductKind(("Instruments", "Studios", "Labs"), (3, 25), (99, 2_400)),
    "Tent": ProductKind(("Textiles", "Works", "Studios"), (12, 95), (49, 900)),
    "Watch": ProductKind(("Instruments", "Studios", "Works", "Labs"), (1, 3), (29, 2_400)),
    "Press": ProductKind(("Works", "Foods", "Studios"), (4, 40), (19, 400)),
}
PRODUCT_NOUNS = tuple(PRODUCTS)
# Each event theme and the kinds of organisation (ORG_SUFFIXES) that would run such an event.
EVENT_ORGANISERS = {
    "Robotics": ("Dynamics", "Labs", "Instruments", "Systems"), "Food": ("Foods", "Freight"),
    "Design": ("Studios", "Works", "Textiles"), "Music": ("Studios", "Instruments"), "Book": ("Studios", "Freight"),
    "Energy": ("Energy", "Dynamics", "Labs"), "Film": ("Studios", "Systems"), "Craft": ("Textiles", "Works", "Studios"),
    "Games": ("Systems", "Studios"), "Science": ("Labs", "Instruments", "Dynamics"),
}  # fmt: skip
EVENT_THEMES = tuple(EVENT_ORGANISERS)
EVENT_KINDS = ("Fair", "Summit", "Festival", "Expo", "Forum")


@dataclass(frozen=True)
class Country:
    """How big a city of a country can be and how high it can lie: a made-up city sits in a real
    country with room for it (no city of 1.8 million in Niue, none 331 metres up on Bermuda)."""

    largest: int  # the most people a city of this country may have (about its second-largest city's)
    highest: int  # the highest elevation of a city, in metres


# Countries with railways and cities of many sizes, from cold to tropical (the city filler names
# no weather); named without an article, as a sentence may start with one.
COUNTRIES = {
    "Germany": Country(1_800_000, 800), "France": Country(900_000, 1_100), "Spain": Country(1_600_000, 1_100),
    "Italy": Country(1_400_000, 900), "Poland": Country(800_000, 600), "Norway": Country(290_000, 400),
    "Sweden": Country(600_000, 400), "Colombia": Country(2_300_000, 2_200), "Canada": Country(1_700_000, 1_100),
    "Mexico": Country(1_800_000, 2_200), "Brazil": Country(2_300_000, 1_100), "Argentina": Country(1_400_000, 1_200),
    "India": Country(2_300_000, 1_500), "Japan": Country(2_300_000, 600), "Australia": Country(1_300_000, 700),
    "Turkey": Country(2_300_000, 1_100), "South Africa": Country(1_900_000, 1_800), "Chile": Country(600_000, 700),
}  # fmt: skip


def word(rng: random.Random, syllables: int) -> str:
    text = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(syllables)) + rng.choice(_CODAS)
    return text.capitalize()


class UniqueNames:
    """Draws names until one is new: every name in a world names one thing."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()
        self.words: set[str] = set()

    def coined(self) -> str:
        """A made-up word used by no other name (so a search for it finds only its own pages)."""
        while True:
            text = word(self.rng, self.rng.choice((2, 2, 3)))
            if text.lower() not in self.words:
                self.words.add(text.lower())
                return text

    def take(self, name: str) -> bool:
        if name in self.used:
            return False
        self.used.add(name)
        return True
