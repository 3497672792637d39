"""Questions that leave out what only the user knows, so the gold asks before it searches (the
policy: "if a question does not say which organisation, person or thing it means, ask"), and
questions that hand the agent a page or a figure of the user's own:

- `unnamed`: "When was my kettle launched?": which kettle is the user's to say (the product's name);
- `days_to_mine`: the days from a launch (or an event) to a date of the user's (when they bought
  it, when they booked), which only the user can give;
- `on_page`: the user gives the page's url: the agent opens it (no search);
- `times_price`: a product's list price times a count, worked out with `calculate`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from toolgym.envs import Fact, GenContext, Piece, Step, Utterance, call
from toolgym.envs.phrasing import full_day

from ..tables import EntityBase
from ..world import NOW
from .index import index_of
from .questions import asked_with, chain, compared, piece_of, sentence_of
from .reading import DIRECT_SHARE, Plan, opened, pages_given, prefer_later, reach

# how a question names the user's own thing, and how the agent asks for its name
UNNAMED = {"product": "product's name", "organisation": "company's name", "city": "city's name", "event": "event's name"}


def _said_as(ctx: GenContext, entity: EntityBase) -> str:
    noun = entity.name.rsplit(" ", 1)[-1].lower()  # "kettle", "festival" (used for products and events)
    return ctx.say(f"unnamed_{entity.kind}", noun=noun)


def name_asked(piece: Piece, entity: EntityBase) -> Piece:
    """The piece with the entity's name left out of the request: given when asked, before the first search."""
    fact = Fact(key=f"unnamed_{entity.kind}", value=entity.name, label=UNNAMED[entity.kind], keywords=[UNNAMED[entity.kind]])
    steps = list(piece.steps)
    steps[0] = steps[0].model_copy(update={"needs": [*steps[0].needs, fact.key]})
    return replace(piece, steps=steps, facts=[*piece.facts, fact], withheld=[*piece.withheld, fact.key],
                   goal=f"{piece.goal} (You mean {entity.name}: say so when asked which.)")  # fmt: skip


def unnamed(ctx: GenContext, hops: int | None = None) -> Piece | None:
    """A question about the user's own thing ("my kettle", "the company I'm interviewing with"), `hops` pages deep."""
    index = index_of(ctx.world)
    start = ctx.pick(index.by_kind[ctx.pick(tuple(UNNAMED))])
    piece = chain(ctx, hops or ctx.pick((1, 1, 2, 3)), start=start, named=_said_as(ctx, start))
    return None if piece is None else name_asked(piece, start)


def days_to_mine(ctx: GenContext) -> Piece | None:
    """Days from a product's launch to the day the user bought one, or from the day they booked to an
    event: the page gives one date, the user the other (asked for), `days_between` the count."""
    index = index_of(ctx.world)
    kind = ctx.pick(("product", "event"))
    name = "launched" if kind == "product" else "date"
    fact = prefer_later(ctx, [index.facts[e.id][name] for e in index.by_kind[kind]])
    entity = index.entities[fact.entity_id]
    day = dt.datetime.strptime(fact.value, "%d %B %Y").date()
    gap = dt.timedelta(days=ctx.rng.randrange(3, 600))
    mine = day + gap if kind == "product" else day - gap
    if fact.page_url != entity.url or mine >= NOW.date():
        return None
    plan = Plan()
    given = pages_given(ctx)
    if not opened(ctx, plan, entity.name, fact, given):
        return None
    label = "purchase date" if kind == "product" else "booking date"
    date = Fact(key=label.replace(" ", "_"), value=ctx.typed_day(mine), label=label, keywords=[label])
    start, end = sorted((day, mine))
    plan.steps.append(Step(calls=[call("days_between", start=start.isoformat(), end=end.isoformat())], needs=[date.key]))
    days = f"{(end - start).days:,}"
    question = ctx.say(f"ask_days_to_mine_{kind}", x=index.ref(entity))
    answer = f"{sentence_of(ctx, index, fact)} {ctx.say(f'fact_days_to_mine_{kind}', days=days)}"
    piece = piece_of(
        ctx, asked_with(ctx, question, [entity.url] if given else []), f"Find out from the web: {question} (your {label} is {full_day(mine)})",
        plan, Utterance(intent="reply_answer", vars={"answer": answer, "sources": fact.page_url}), [days], {entity.id},
    )  # fmt: skip
    return replace(piece, facts=[date], withheld=[date.key])


def on_page(ctx: GenContext) -> Piece | None:
    """The user names the page (its url): the agent opens it and reaches the sentence, with no search."""
    index = index_of(ctx.world)
    entity = ctx.pick(list(index.entities.values()))
    facts = [a for a in index.facts[entity.id].values() if a.page_url == entity.url and a.name not in ("employees",)]
    if not facts:
        return None
    fact = prefer_later(ctx, facts)
    plan = Plan()
    reach(ctx, plan, fact, direct=ctx.rng.random() < DIRECT_SHARE)  # the url is the user's: no search
    question = ctx.say(f"ask_{fact.name}", x=index.ref(entity))
    return piece_of(
        ctx, ctx.say("ask_on_page", url=entity.url, question=question), f"Find out from {entity.url}: {question}", plan,
        Utterance(intent="reply_answer", vars={"answer": sentence_of(ctx, index, fact, question), "sources": entity.url}),
        [index.shown(fact).removeprefix("the ")], {entity.id},
    )  # fmt: skip


def times_price(ctx: GenContext) -> Piece | None:
    """What a few of a product cost at list price: the price read, the total from `calculate`."""
    index = index_of(ctx.world)
    price = prefer_later(ctx, [index.facts[p.id]["price"] for p in index.by_kind["product"]])
    product = index.entities[price.entity_id]
    count = ctx.rng.randrange(2, 7)
    plan = Plan()
    given = pages_given(ctx)
    if price.page_url != product.url or not opened(ctx, plan, product.name, price, given):
        return None
    plan.steps.append(Step(calls=[call("calculate", expression=f"{price.value} * {count}")]))
    total = f"{int(price.value.replace(',', '')) * count:,}"  # "$7,794": the tool returns 7794, the same number
    question = ctx.say("ask_times_price", x=index.ref(product), count=str(count))
    answer = f"{sentence_of(ctx, index, price)} {ctx.say('fact_times_price', total=total, count=str(count))}"
    return piece_of(
        ctx, asked_with(ctx, question, [product.url] if given else []), f"Find out from the web: {question}", plan,
        Utterance(intent="reply_answer", vars={"answer": answer, "sources": price.page_url}), [total], {product.id},
    )  # fmt: skip


def unnamed_compared(ctx: GenContext) -> Piece | None:
    """The user's own thing compared with another on a number ("Is my kettle heavier than the Korvane
    Kettle?"): its name asked for, then both searched together and both pages read together."""
    kind = ctx.pick(tuple(UNNAMED))
    said: dict[str, EntityBase] = {}

    def named(entity: EntityBase) -> str:
        said["it"] = entity
        return _said_as(ctx, entity)

    piece = compared(ctx, kind, named=named)
    return None if piece is None else name_asked(piece, said["it"])


def compared_given(ctx: GenContext) -> Piece | None:
    """Two pages the user gives (their urls), compared on a number: both read together, no search."""
    return compared(ctx, given=True)
