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
