"""Questions whose words fit two pages or more: "the Varnholm festival" when Varnholm hosts a music
and a film festival, "Hernandez" when two people of that name have articles. The gold searches,
sees the candidates in the results, asks which one is meant (naming each), and reads the one picked.

`picked_again` is the correction a user makes after such an answer ("sorry, I meant the other one"):
the agent opens the other candidate's page (its url was in the results) and answers again.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

from toolgym.envs import GenContext, Piece, Utterance, structures

from ..tables import AttributeBase, EntityBase
from .index import Index, index_of
from .questions import SCALARS, piece_of, sentence_of
from .reading import Plan, find, read


@dataclass
class Namesakes:
    """Entities a few words fit: how the user names them, and what tells each apart."""

    words: str  # what the user says: "the Varnholm festival", "Hernandez"
    query: str  # what the gold searches
    members: list[EntityBase]
    telling: dict[str, str]  # entity id -> how the user names the one meant ("the film festival")
    label: str  # what is picked: "event", "person"


def _events(index: Index) -> list[Namesakes]:
    groups: dict[tuple[str, str], list[EntityBase]] = defaultdict(list)
    for event in index.by_kind["event"]:
        host = index.target(index.facts[event.id]["held_in"]).name
        kind = event.name.rsplit(" ", 1)[1]
        groups[(host, kind)].append(event)
    found = []
    for (host, kind), events in groups.items():
        if 2 <= len(events) <= 3:
            themes = {e.id: e.name[len(host) + 1 :].rsplit(" ", 1)[0] for e in events}
            telling = {e.id: f"the {themes[e.id].lower()} {kind.lower()}" for e in events}
            found.append(Namesakes(f"the {host} {kind.lower()}", f"{host} {kind}", events, telling, "event"))
    return found


def _people(index: Index) -> list[Namesakes]:
    groups: dict[str, list[EntityBase]] = defaultdict(list)
    for person in index.by_kind["person"]:
        groups[person.name.rsplit(" ", 1)[1]].append(person)
    found = []
    for surname, people in groups.items():
        firsts = {p.name.split()[0] for p in people}
        if 2 <= len(people) <= 3 and len(firsts) == len(people):
            telling = {p.id: f"{p.name.split()[0]} {surname}" for p in people}
            found.append(Namesakes(surname, surname, people, telling, "person"))
    return found


_FINDERS = {"event": _events, "person": _people}
_cache: dict[tuple[int, str], list[Namesakes]] = {}


def namesakes(ctx: GenContext, label: str) -> list[Namesakes]:
    key = (id(index_of(ctx.world)), label)
    if key not in _cache:
        _cache[key] = _FINDERS[label](index_of(ctx.world))
    return _cache[key]


def _fact(ctx: GenContext, index: Index, entity: EntityBase) -> AttributeBase | None:
    """A fact of the entity's own article that a one-page question can ask."""
    facts = [a for n, a in index.facts[entity.id].items() if a.page_url == entity.url and n in (*SCALARS[entity.kind], "employer", "organiser")]
    return ctx.pick(facts) if facts else None


@dataclass
class _Asked:
    piece: Piece
    group: Namesakes
    entity: EntityBase
    fact: AttributeBase


def _which(ctx: GenContext, label: str | None = None) -> _Asked | None:
    index = index_of(ctx.world)
    groups = namesakes(ctx, label or ctx.pick(("event", "person")))
    if not groups:
        return None
    group = ctx.pick(groups)
    entity = ctx.pick(group.members)
    fact = _fact(ctx, index, entity)
    if fact is None:
        return None
    plan = Plan()
    if not find(ctx, plan, group.query, [m.url for m in group.members]):
        return None
    searched = len(plan.steps)
    read(ctx, plan, fact)
    question = ctx.say(f"ask_{fact.name}", x=group.words)
    piece = piece_of(
        ctx, ctx.say("ask_request", question=question), f"Find out from the web: {question} (you mean {entity.name})", plan,
        Utterance(intent="reply_answer", vars={"answer": sentence_of(ctx, index, fact, question), "sources": fact.page_url}),
        [index.shown(fact).removeprefix("the ")], {m.id for m in group.members},
    )  # fmt: skip
    what = f"people named {group.words}" if group.label == "person" else f"{group.label}s that fit {group.words}"
    piece = structures.ask_which(
        piece, label=group.label, what=what, options=[m.name for m in group.members],
        described=[index.ref(m) for m in group.members], answer=group.telling[entity.id], step=searched,
    )  # fmt: skip
    return _Asked(piece, group, entity, fact)


def which_one(ctx: GenContext) -> Piece | None:
    """An ambiguous name: search, ask which of the candidates the results show, read the one picked."""
    asked = _which(ctx)
    return None if asked is None else asked.piece


def picked_again(ctx: GenContext) -> list[Piece] | None:
    """An ambiguous name answered for the candidate the user picked, then corrected: another was
    meant. The second answer reads that one's page (its url was in the same search results)."""
    asked = _which(ctx)
    if asked is None:
        return None
    index = index_of(ctx.world)
    other = ctx.pick([m for m in asked.group.members if m.id != asked.entity.id])
    fact = index.facts[other.id].get(asked.fact.name)
    if fact is None or fact.page_url != other.url:
        return None
    plan = Plan()
    read(ctx, plan, fact)
    name = index.ref(other)
    question = ctx.say(f"ask_{fact.name}", x=name)
    second = piece_of(
        ctx, ctx.say("picked_other", name=asked.group.telling[other.id], question=question), f"Find out from the web: {question}", plan,
        Utterance(intent="reply_answer", vars={"answer": sentence_of(ctx, index, fact, question), "sources": fact.page_url}),
        [index.shown(fact).removeprefix("the ")], {other.id},
    )  # fmt: skip
    return structures.corrected(ctx, replace(asked.piece, outputs=[]), second, abandoned=[])
