"""Building a research world: the generated world's entities, and the offline web written about them.

Every entity has an encyclopedia article (atlaspedia.example) stating each of its facts once,
in sentences spread over paragraphs (long articles are cut in parts), with links to the entities
it names. Around the articles: near-duplicate mirrors, business-directory listings whose staff
count contradicts the article (the newer page is current), news that mentions names without
answering anything, and blog posts that do not answer either.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from toolgym.envs.fakes import person_name, seeded_faker

from .names import (
    CITY_SUFFIXES,
    COUNTRIES,
    EVENT_KINDS,
    EVENT_ORGANISERS,
    EVENT_THEMES,
    INDUSTRIES,
    ORG_SUFFIXES,
    PRODUCT_NOUNS,
    PRODUCTS,
    UniqueNames,
)
from .tables import Attribute, Entity, Link, Page
from .web import part_of

NOW = dt.datetime(2025, 3, 1, 9, 0)
COUNTS = {
    "small": {"city": 20, "organisation": 36, "person": 90, "product": 50, "event": 24, "blog": 40},
    "default": {"city": 90, "organisation": 260, "person": 620, "product": 420, "event": 200, "blog": 600},
}
CONFLICT_SHARE = 0.35  # organisations with a directory listing that disagrees on the staff count
MIRROR_SHARE = 0.2  # articles copied, nearly word for word, to a mirror site
NO_ELEVATION_SHARE = 0.25  # cities whose article does not say their elevation
DESIGNER_AGE = 22  # a product launches in the year its designer turns this old, or later
DATED_FACTS = ("launched", "date")  # facts naming a recent day: a page telling them is dated after it
WIKI, MIRROR, DIRECTORY, NEWS = "atlaspedia.example", "mirrorpedia.example", "bizdirectory.example", "dailyledger.example"


@cache
def templates() -> dict[str, Any]:
    return yaml.safe_load((Path(__file__).parent / "pages.yaml").read_text())


def long_date(day: dt.date) -> str:
    return f"{day.day} {day:%B %Y}"


def slug(name: str) -> str:
    return "-".join("".join(c for c in w if c.isalnum()) for w in name.lower().split())


def article_url(name: str) -> str:
    return f"https://{WIKI}/wiki/{slug(name)}"


@dataclass
class Thing:
    id: str
    kind: str
    name: str
    facts: dict[str, Any] = field(default_factory=dict)  # attribute -> shown value, or a Thing for a relation

    @property
    def url(self) -> str:
        return article_url(self.name)


class WebBuilder:
    def __init__(self, seed: int, size: str):
        self.rng = random.Random(seed)
        self.fake = seeded_faker(seed)
        self.names = UniqueNames(self.rng)
        self.counts = COUNTS[size]
        self.things: dict[str, list[Thing]] = {}
        self.rows: list[Any] = []
        self.links = 0
        self.attributes = 0

    # ---- the world -------------------------------------------------------------------------
    def _day(self, start: dt.date, end: dt.date) -> dt.date:
        return start + dt.timedelta(days=self.rng.randrange((end - start).days))

    def _dated(self, start: dt.date, thing: Thing, end: dt.date) -> dt.date:
        """A page's day between `start` and `end`, and after every day the thing's facts name (a product's
        launch, an event's latest edition): a page does not tell of a day still to come when it was written."""
        first = max(start, written_after(thing))
        return self._day(first, end if end > first else NOW.date())

    def _things(self, kind: str, make_name) -> list[Thing]:
        found: list[Thing] = []
        while len(found) < self.counts[kind]:
            name = make_name()
            if self.names.take(name):
                found.append(Thing(f"{kind[:2].upper()}{len(found) + 1:04d}", kind, name))
        self.things[kind] = found
        return found

    def build_entities(self) -> None:
        rng, today = self.rng, NOW.date()
        for city in self._things("city", lambda: self.names.coined() + rng.choice(CITY_SUFFIXES)):
            country = city.facts["country"] = rng.choice(sorted(COUNTRIES))
            size = COUNTRIES[country]
            # as many towns as cities, fewer cities the larger (log-uniform), up to what the country holds
            city.facts["population"] = f"{round(math.exp(rng.uniform(math.log(8_000), math.log(size.largest)))):,}"
            if rng.random() >= NO_ELEVATION_SHARE:
                city.facts["elevation"] = f"{rng.randrange(2, size.highest):,}"
        cities = self.things["city"]
        orgs = self._things("organisation", lambda: f"{self.names.coined()} {rng.choice(ORG_SUFFIXES)}")
        people = self._things("person", lambda: " ".join(person_name(self.fake)))
        for person in people:
            person.facts["born"] = long_date(self._day(dt.date(1950, 1, 1), dt.date(1998, 12, 31)))
            person.facts["birthplace"] = rng.choice(cities)
        for number, org in enumerate(orgs):
            org.facts["industry_a"] = _a(INDUSTRIES[org.name.rsplit(" ", 1)[1]])
            org.facts["headquarters"] = rng.choice(cities)
            org.facts["founded"] = str(rng.randrange(1890, 2020))
            org.facts["employees"] = f"{rng.randrange(12, 48_000):,}"
            ceo = people[number]  # the first people lead the organisations, one each
            org.facts["ceo"], ceo.facts["leads"] = ceo, org
        for person in people[len(orgs):]:
            person.facts["employer"] = rng.choice(orgs)
        staff = {org.id: [p for p in people if p.facts.get("employer") is org] for org in orgs}
        for product in self._things("product", lambda: f"{self.names.coined()} {rng.choice(PRODUCT_NOUNS)}"):
            kind = PRODUCTS[product.name.rsplit(" ", 1)[1]]
            maker = rng.choice([o for o in orgs if o.name.rsplit(" ", 1)[1] in kind.makers] or orgs)
            product.facts["maker"] = maker
            designer = product.facts["designer"] = rng.choice(staff[maker.id] or [maker.facts["ceo"]])
            grown = _day_of(designer.facts["born"]).replace(month=1, day=1) + dt.timedelta(days=365 * DESIGNER_AGE)
            product.facts["launched"] = long_date(self._day(max(dt.date(2005, 1, 1), grown), today - dt.timedelta(days=60)))
            product.facts["weight"] = f"{rng.randint(*kind.tenths_of_kg) / 10:.1f}"
            product.facts["price"] = f"{rng.randint(*kind.dollars):,}"
        for org in orgs:
            made = [p for p in self.things["product"] if p.facts["maker"] is org]
            if made:
                org.facts["flagship"] = rng.choice(made)
        for event in self._things(
            "event", lambda: f"{rng.choice(cities).name} {rng.choice(EVENT_THEMES)} {rng.choice(EVENT_KINDS)}"
        ):
            event.facts["held_in"] = next(c for c in cities if event.name.startswith(c.name + " "))
            event.facts["date"] = long_date(self._day(dt.date(2016, 1, 1), today - dt.timedelta(days=20)))
            event.facts["attendance"] = f"{rng.randrange(300, 90_000):,}"
            theme = event.name.rsplit(" ", 2)[-2]  # "<city> <theme> <kind>"
            event.facts["organiser"] = rng.choice([o for o in orgs if o.name.rsplit(" ", 1)[1] in EVENT_ORGANISERS[theme]] or orgs)

    # ---- the pages ---------------------------------------------------------------------------
    def _page(self, url: str, title: str, published: dt.date, kind: str, subject: str, body: str, links: dict[str, str]) -> None:
        self.rows.append((Page, {"url": url, "site": url.split("/")[2], "title": title, "published": published,
                                 "kind": kind, "subject_id": subject, "body": body}))  # fmt: skip
        for anchor, target in links.items():
            self.links += 1
            self.rows.append((Link, {"id": self.links, "source": url, "target": target, "anchor": anchor}))

    def _attribute(self, thing: Thing, name: str, value: str, url: str, part: int, current: bool = True) -> None:
        self.attributes += 1
        self.rows.append((Attribute, {"id": self.attributes, "entity_id": thing.id, "name": name, "value": value,
                                      "page_url": url, "part": part, "current": current}))  # fmt: skip

    def _article_body(self, thing: Thing) -> tuple[str, dict[str, str], dict[str, str]]:
        """The article's paragraphs (facts shuffled among filler), its links, and each fact's sentence."""
        rng, facts = self.rng, templates()["facts"]
        values = {k: (v.name if isinstance(v, Thing) else v) for k, v in thing.facts.items()}
        sentences: dict[str, str] = {}
        for name in facts:
            needed = {"industry_hq": ("industry_a", "headquarters")}.get(name, (name,))
            if all(n in values for n in needed):
                sentences[name] = rng.choice(facts[name]).format(name=thing.name, **values)
        fillers = list(templates()["filler"][thing.kind])
        rng.shuffle(fillers)
        order = list(sentences.values())
        rng.shuffle(order)
        chunks = [order[i : i + 2] for i in range(0, len(order), 2)]
        paragraphs = []
        for chunk in chunks:
            paragraphs.append(" ".join(chunk + ([fillers.pop()] if fillers and rng.random() < 0.7 else [])))
            while fillers and rng.random() < 0.6:
                paragraphs.append(" ".join(fillers.pop() for _ in range(min(len(fillers), 2))))
        links = {v.name: v.url for v in thing.facts.values() if isinstance(v, Thing)}
        return "\n\n".join(paragraphs), links, sentences

    def build_pages(self) -> None:
        rng, today = self.rng, NOW.date()
        for kind in ("city", "organisation", "person", "product", "event"):
            for thing in self.things[kind]:
                body, links, sentences = self._article_body(thing)
                published = self._dated(dt.date(2019, 1, 1), thing, today - dt.timedelta(days=30))
                self._page(thing.url, f"{thing.name} - Atlaspedia", published, "article", thing.id, body, links)
                self.rows.append((Entity, {"id": thing.id, "kind": kind, "name": thing.name, "url": thing.url}))
                for name, value in thing.facts.items():
                    if name == "industry_a":
                        continue
                    sentence = sentences["industry_hq" if name == "headquarters" else name]
                    shown = value.id if isinstance(value, Thing) else value
                    self._attribute(thing, name, shown, thing.url, part_of(body, sentence))
                if kind == "organisation" and rng.random() < CONFLICT_SHARE:
                    self._listing(thing, published)
                elif rng.random() < MIRROR_SHARE:  # a mirror copies an article no other page contradicts
                    self._mirror(thing, body, links, published)
        self._news_and_blogs()

    def _mirror(self, thing: Thing, body: str, links: dict[str, str], published: dt.date) -> None:
        paragraphs = body.split("\n\n")
        kept = [p for p in paragraphs if any(name in p for name in (thing.name, *links))] or paragraphs
        url = f"https://{MIRROR}/{slug(thing.name)}"
        copied = max(published - dt.timedelta(days=self.rng.randrange(30, 400)), min(written_after(thing), published))
        self._page(url, f"{thing.name} (mirror)", copied, "mirror", thing.id, "\n\n".join(kept), links)

    def _listing(self, org: Thing, article_date: dt.date) -> None:
        """A directory entry with another staff count; the newer of it and the article is current."""
        current = org.facts["employees"]
        number = int(current.replace(",", ""))
        other = f"{max(5, int(number * self.rng.uniform(0.55, 0.9))):,}"
        newer = self.rng.random() < 0.5
        gap = dt.timedelta(days=self.rng.randrange(200, 900))
        listed = min(article_date + gap, NOW.date() - dt.timedelta(days=3)) if newer else article_date - gap
        if newer and listed <= article_date:
            listed, newer = article_date - gap, False
        url = f"https://{DIRECTORY}/listing/{slug(org.name)}"
        body = self.rng.choice(templates()["listing"]).format(name=org.name, employees=other if not newer else current,
                                                               date=long_date(listed))  # fmt: skip
        if newer:  # the directory holds the current count; the article's is the stale one
            self.rows = [r for r in self.rows if not (r[0] is Attribute and r[1]["entity_id"] == org.id and r[1]["name"] == "employees")]
            self._replace_article_count(org, other)
        self._page(url, f"{org.name} - Business Directory", listed, "listing", org.id, body, {org.name: org.url})
        stale = other
        self._attribute(org, "employees", current if newer else stale, url, 1, current=newer)

    def _replace_article_count(self, org: Thing, stale: str) -> None:
        """Make the article state `stale` (older than the listing) instead of the current count."""
        for index, row in enumerate(self.rows):
            if row[0] is Page and row[1]["url"] == org.url:
                values = dict(row[1])
                values["body"] = values["body"].replace(f" {org.facts['employees']} ", f" {stale} ")
                self.rows[index] = (Page, values)
                self._attribute(org, "employees", stale, org.url, _part(values["body"], stale), current=False)
                return

    def _news_and_blogs(self) -> None:
        rng, texts, today = self.rng, templates(), NOW.date()
        orgs = self.things["organisation"]
        for number in range(len(orgs)):
            first, other = rng.sample(orgs, 2)
            day = self._day(dt.date(2020, 1, 1), today)
            body = rng.choice(texts["news"]).format(name=first.name, other=other.name) + " " + rng.choice(texts["news_tail"])
            url = f"https://{NEWS}/{day:%Y/%m}/{slug(first.name)}-{number + 1}"
            self._page(url, f"{first.name} and {other.name} in talks", day, "news", "", body,
                       {first.name: first.url, other.name: other.url})  # fmt: skip
        everything = [t for kind in ("city", "organisation", "product", "event") for t in self.things[kind]]
        for number in range(self.counts["blog"]):
            thing = rng.choice(everything)
            author = self.fake.user_name()
            body = rng.choice(texts["blog"]).format(name=thing.name) + "\n\n" + rng.choice(texts["blog_tail"])
            url = f"https://{author}.blog.example/post/{slug(thing.name)}-{number + 1}"
            self._page(url, f"Thoughts on {thing.name}", self._dated(dt.date(2018, 1, 1), thing, today), "blog", "", body, {})


def _day_of(said: str) -> dt.date:
    return dt.datetime.strptime(said, "%d %B %Y").date()


def written_after(thing: Thing) -> dt.date:
    """The first day a page about the thing can be dated: the day after the latest day its facts name."""
    days = [_day_of(thing.facts[name]) for name in DATED_FACTS if name in thing.facts]
    return max(days) + dt.timedelta(days=1) if days else dt.date.min


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _part(body: str, value: str) -> int:
    from .web import parts

    return next(i for i, text in enumerate(parts(body), 1) if f" {value} " in text)


def build_world(seed: int, size: str) -> Iterator[Any]:
    builder = WebBuilder(seed, size)
    builder.build_entities()
    builder.build_pages()
    yield from builder.rows
