"""Made-up names for the world's cities, organisations, products and events: no model can know
their facts from pretraining, so an answer must come from the pages."""

from __future__ import annotations

import random

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
PRODUCT_NOUNS = ("Kettle", "Drone", "Lamp", "Scanner", "Bicycle", "Speaker", "Router", "Heater", "Camera", "Tent", "Watch", "Press")
EVENT_THEMES = ("Robotics", "Food", "Design", "Music", "Book", "Energy", "Film", "Craft", "Games", "Science")
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
