"""Slots of the workplace texts: filled the first time a template names them, from world values or a small pool."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from toolgym.envs.fakes import undoubled

from ..catalogue import OFFICES, ORG_NAME, TEAMS

if TYPE_CHECKING:
    from faker import Faker

Person = dict[str, Any]
T = TypeVar("T")

WORK_ITEMS = (  # "{item}": a piece of work a colleague mentions in passing
    "the onboarding checklist", "the vendor contract", "the travel request", "the interview feedback",
    "the release notes", "the board memo", "the client proposal", "the customer survey results",
    "the support rota", "the slides for the all-hands", "the hiring scorecards", "the renewal paperwork",
    "the partner agreement", "the team goals", "the access review", "the customer case study",
)
SURFACES = (  # "{surface}": a part of the product people design, document and report bugs in
    "onboarding screens", "settings page", "billing page", "sign-up flow", "reports page", "mobile home screen",
    "search results page", "admin console", "export dialog", "notifications panel",
)
SERVICES = (  # "{service}": a system the Platform team runs
    "billing service", "login service", "search service", "notification service", "reporting pipeline",
    "export service", "customer portal", "public API", "mobile backend",
)
POLICIES = (  # "{policy}"
    "travel policy", "expense policy", "parental leave policy", "remote work policy", "equipment policy",
    "learning and development policy",
)
MEETINGS = (  # "{meeting}": said as 'the {meeting}'
    "planning session", "weekly sync", "standup", "retro", "kickoff", "budget review", "design critique",
    "roadmap review", "hiring debrief", "customer call prep", "product demo", "workshop", "team meeting",
)
PERIOD_WORDS = {"spring": "the spring", "autumn": "the autumn"}  # "for {when}": 'for Q3', 'for the spring'


def first_name(person: Person) -> str:
    return str(person["name"]).split()[0]


def slug(text: str) -> str:
    """A file-name form of a text: 'Customer call prep' -> 'customer_call_prep'."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


class Slots(dict[str, str]):
    """Slot values drawn the first time a template names them (in reading order, so the draws are
    the same for the same seed). Colleagues drawn are never the writer, the reader or each other,
    nor share a first name with them ('Hi Dana, Dana said...')."""

    def __init__(self, rng: random.Random, fake: Faker, people: Sequence[Person], *known: Person, **fixed: str):
        super().__init__(fixed)
        self.rng, self.fake, self.people = rng, fake, people
        self.firsts = {first_name(p) for p in known}
        self.draws: dict[str, Callable[[], str]] = {
            "name": lambda: first_name(self._colleague()),
            "other": lambda: first_name(self._colleague()),
            "item": lambda: rng.choice(WORK_ITEMS),
            "meeting": lambda: rng.choice(MEETINGS),
            "office": lambda: rng.choice(list(OFFICES)),
            "surface": lambda: rng.choice(SURFACES),
            "service": lambda: rng.choice(SERVICES),
            "policy": lambda: rng.choice(POLICIES),
            "other_team": lambda: rng.choice([t for t in TEAMS if t != self.get("team")]),
            "customer": lambda: company(fake),
            "org": lambda: ORG_NAME,
        }

    def _colleague(self) -> Person:
        person = self.rng.choice([p for p in self.people if first_name(p) not in self.firsts] or self.people)
        self.firsts.add(first_name(person))
        return person

    def peer(self) -> None:
        """A colleague named in full with their own team ('{peer}' of the '{peer_team}' team)."""
        person = self._colleague()
        self.update(peer=str(person["name"]), peer_first=first_name(person), peer_team=str(person["team"]))

    def __missing__(self, key: str) -> str:
        if key.startswith("peer"):
            self.peer()
            return self[key]
        value = self.draws[key]()
        self[key] = value
        return value

    def fill(self, template: str) -> str:
        return template.format_map(self)


class Writer:
    """What one world's texts are drawn from: its seeded rng and Faker, its people, and a deck per pool
    of templates. A pool is shuffled and dealt out in full before any of its templates comes round
    again, so in a channel of fifty posts no template turns up far more often than the others."""

    def __init__(self, rng: random.Random, fake: Faker, people: Sequence[Person]):
        self.rng, self.fake, self.people = rng, fake, people
        self._decks: dict[tuple[Any, ...], list[Any]] = {}

    def deal(self, pool: tuple[T, ...]) -> T:
        deck = self._decks.get(pool)
        if not deck:
            deck = self._decks[pool] = self.rng.sample(pool, len(pool))
        return deck.pop()

    def slots(self, *known: Person, people: Sequence[Person] | None = None, **fixed: str) -> Slots:
        """Slots for one text; `known` are the people it is between (no one else drawn shares their first name)."""
        return Slots(self.rng, self.fake, self.people if people is None else people, *known, **fixed)


def company(fake: Faker) -> str:
    """A customer's or an outside sender's company ('Smith Smith LLC' is drawn again)."""
    return undoubled(fake.company)
