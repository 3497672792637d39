"""Questions whose answer is computed from facts read on pages, with the typed helpers: a weight or
an elevation in other units (`convert_units`), the days between two launches (`days_between`), and
the combined attendance of two events (`calculate`). The helper's result is what the reply states."""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

from toolgym.envs import GenContext, Piece, Step, Utterance, call

from ..tools import convert
from .index import index_of
from .questions import asked_with, piece_of, read_both, sentence_of, two_page_answer
from .reading import Plan, opened, pages_given, prefer_later

UNITS = {"weight": ("kg", "lb", "pounds"), "elevation": ("m", "ft", "feet")}
WHOLE = ("ft",)  # an elevation is said in whole feet ("about 1,765 feet"), not to the hundredth


def said_converted(value: float, source: str, target: str) -> tuple[str, str]:
    """The converted value as the reply says it, and the figure it must state: "about 1,765" and
    "1,765" for 1,765.09 feet; "24.45" (pounds) as the tool gave it."""
    exact = convert(value, source, target)  # what convert_units returns
    if target not in WHOLE:
        return f"{exact:,}", f"{exact:,}"  # "5,062.34", as people write it; the tool returned 5062.34
    # a half rounds up, as people (and the grounding check) round it: Python's round() made 1,968.5
    # feet "about 1,968", which no seen number rounds to
    rounded = int(Decimal(str(exact)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    whole = f"{rounded:,}"
    return (whole if rounded == exact else f"about {whole}"), whole


def converted(ctx: GenContext) -> Piece | None:
    """A product's weight in pounds or a city's elevation in feet: read it, then convert it."""
    index = index_of(ctx.world)
    name = ctx.pick(tuple(UNITS))
    kind = "product" if name == "weight" else "city"
    fact = prefer_later(ctx, [index.facts[e.id][name] for e in index.by_kind[kind] if name in index.facts[e.id]])
    entity = index.entities[fact.entity_id]
    source, target, words = UNITS[name]
    plan = Plan()
    given = pages_given(ctx)
    if not opened(ctx, plan, entity.name, fact, given):
        return None
    value = float(fact.value.replace(",", ""))
    plan.steps.append(Step(calls=[call("convert_units", value=value, from_unit=source, to_unit=target)]))
    said, result = said_converted(value, source, target)
    question = ctx.say(f"ask_{name}_in", x=index.ref(entity), unit=words)
    answer = f"{sentence_of(ctx, index, fact)} {ctx.say('fact_converted', value=said, unit=words)}"
    return piece_of(
        ctx, asked_with(ctx, question, [entity.url] if given else []), f"Find out from the web: {question}", plan,
        Utterance(intent="reply_answer", vars={"answer": answer, "sources": fact.page_url}),
        [result], {entity.id},
    )  # fmt: skip


def elapsed(ctx: GenContext) -> Piece | None:
    """The days between two products' launches: two pages read together, then `days_between`."""
    index = index_of(ctx.world)
    first, second = ctx.rng.sample(index.by_kind["product"], 2)
    a, b = index.facts[first.id]["launched"], index.facts[second.id]["launched"]
    start, end = sorted((_date(a.value), _date(b.value)))
    given = pages_given(ctx)
    plan = read_both(ctx, [(first, a), (second, b)], given=given) if start != end else None
    if plan is None:
        return None
    plan.steps.append(Step(calls=[call("days_between", start=start.isoformat(), end=end.isoformat())]))
    # said with a thousands separator, as people write a count ("1,204 days"); the tool returned 1204,
    # and grounding and the required output read both as one number
    days = f"{(end - start).days:,}"
    question = ctx.say("ask_days_between", a=index.ref(first), b=index.ref(second))
    return two_page_answer(ctx, question, plan, [a, b], ctx.say("fact_days", days=days), [days], given=given)


def total(ctx: GenContext) -> Piece | None:
    """The combined attendance of two events: both pages read together, then the sum with `calculate`."""
    index = index_of(ctx.world)
    first, second = ctx.rng.sample(index.by_kind["event"], 2)
    a, b = index.facts[first.id]["attendance"], index.facts[second.id]["attendance"]
    given = pages_given(ctx)
    plan = read_both(ctx, [(first, a), (second, b)], given=given)
    if plan is None:
        return None
    # the expression keeps the pages' own "12,400"
    plan.steps.append(Step(calls=[call("calculate", expression=f"{a.value} + {b.value}")]))
    combined = f"{sum(int(v.value.replace(',', '')) for v in (a, b)):,}"  # "114,555", as the pages write theirs
    question = ctx.say("ask_total_attendance", a=index.ref(first), b=index.ref(second))
    return two_page_answer(ctx, question, plan, [a, b], ctx.say("fact_total", total=combined), [combined], given=given)


def _date(text: str) -> dt.date:
    return dt.datetime.strptime(text, "%d %B %Y").date()


def converted_two(ctx: GenContext) -> Piece | None:
    """Two products' weights in pounds (or two cities' elevations in feet): both pages read together,
    then both values converted in one step."""
    index = index_of(ctx.world)
    name = ctx.pick(tuple(UNITS))
    kind = "product" if name == "weight" else "city"
    pair = ctx.rng.sample([e for e in index.by_kind[kind] if name in index.facts[e.id]], 2)
    facts = [index.facts[e.id][name] for e in pair]
    if facts[0].value == facts[1].value:  # the same conversion twice would repeat one call
        return None
    given = pages_given(ctx)
    plan = read_both(ctx, list(zip(pair, facts, strict=True)), given=given)
    if plan is None:
        return None
    source, target, words = UNITS[name]
    values = [float(f.value.replace(",", "")) for f in facts]
    plan.steps.append(Step(calls=[call("convert_units", value=v, from_unit=source, to_unit=target) for v in values]))
    said = [said_converted(v, source, target) for v in values]
    results = [result for _, result in said]
    answer = " ".join(
        f"{sentence_of(ctx, index, f)} {ctx.say(intent, value=words_said, unit=words)}"
        for f, (words_said, _), intent in zip(facts, said, ("fact_converted", "fact_converted_next"), strict=True)
    )
    question = ctx.say(f"ask_{name}_in_two", a=index.ref(pair[0]), b=index.ref(pair[1]), unit=words)
    return piece_of(
        ctx, asked_with(ctx, question, [f.page_url for f in facts] if given else []), f"Find out from the web: {question}", plan,
        Utterance(intent="reply_answer", vars={"answer": answer, "sources": " and ".join(f.page_url for f in facts)}),
        results, {e.id for e in pair},
    )  # fmt: skip
