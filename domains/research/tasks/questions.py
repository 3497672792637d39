"""One research question each: the request, the gold reads, and a reply that states the answer
with the page it came from. The required outputs are the answer's facts; the citation is judged by
`cited_sources` (a page that states the same fact, such as a mirror, is as good a source), except
where only one page can be right (the newer of two that disagree). A builder returns None when this world cannot ask it (the page does
not rank on the first result pages, a small world lacks the entity); `draw` then tries another."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolgym.envs import GenContext, Piece, Step, Utterance, call, structures
from toolgym.envs.phrasing import join_words

from ..tables import AttributeBase, EntityBase
from .index import NUMBERS, RELATIONS, Index, index_of
from .reading import PAST_PART_ONE, Plan, find, prefer_later, reach, read

SCALARS = {
    "organisation": ("founded", "employees"), "person": ("born",), "city": ("population", "elevation", "country"),
    "product": ("launched", "weight", "price"), "event": ("date", "attendance"),
}  # fmt: skip


def sentence_of(ctx: GenContext, index: Index, attribute: AttributeBase, asked: str = "") -> str:
    """The fact as a sentence. `asked`: the question it answers, whose words a fact said two ways
    follows (asked where someone was born, the answer says "was born in", not "The home town of")."""
    subject = index.ref(index.entities[attribute.entity_id])
    return ctx.say(f"fact_{attribute.name}", subject=subject, value=index.shown(attribute), asked=asked)


def chained_account(ctx: GenContext, index: Index, hops: Sequence[AttributeBase], asked: str = "") -> str:
    """The facts of a chain, each about the thing the one before named, as one account. A sentence
    that ends on the thing the next fact is about hands it on: as "it" after a sentence about a
    person ("Ana Ruiz leads Miopand Dynamics. It was founded in 1987.": a person is no "it"), and
    as a clause where "it" could mean the sentence's own subject ("The Libos Speaker comes from
    Miopand Dynamics, which was founded in 1987."). A person is named again (the pages give no
    pronoun), and so is a thing that follows a fact already handed on (one "it" or "which" each)."""
    sentences: list[str] = []
    linked = False
    about_person = False
    for attribute in hops:
        before = sentences[-1] if sentences else ""
        subject = index.entities[attribute.entity_id]
        linked = not linked and subject.kind != "person" and before.rstrip(".").endswith(index.ref(subject))
        if linked and about_person:
            sentences.append(ctx.say(f"fact_{attribute.name}_linked", value=index.shown(attribute)))
        elif linked:
            sentences[-1] = f"{before.rstrip('.')}, {ctx.say(f'fact_{attribute.name}_which', value=index.shown(attribute))}."
        else:
            sentences.append(sentence_of(ctx, index, attribute, asked))
        about_person = subject.kind == "person"
    return " ".join(sentences)


def piece_of(ctx: GenContext, request: str, goal: str, plan: Plan, reply: Utterance, outputs: list[str], keys: set[str]) -> Piece:
    return Piece(request=request, goal=goal, steps=plan.steps, reply=reply, outputs=outputs, keys=frozenset(keys), subject=None)


def chain(ctx: GenContext, hops: int, start: EntityBase | None = None, named: str | None = None) -> Piece | None:
    """A question `hops` pages deep: the first page found by a search, each next one through a link.

    `start`: the entity the question starts from (default: any); `named`: how the question names it
    (default: its name; "my kettle" when the user leaves the name out, see asked.py)."""
    index = index_of(ctx.world)
    start = start or ctx.pick(list(index.entities.values()))
    path = _walk(ctx, index, start, hops - 1)
    if path is None:
        return None
    seen = {start.id, *(a.value for a in path)}
    entity = index.target(path[-1]) if path else start
    finals = [
        a for n, a in index.facts[entity.id].items()
        if a.page_url == entity.url and (n in SCALARS[entity.kind] or (n in RELATIONS and a.value not in seen))
    ]  # fmt: skip  (a count a newer directory page corrects is asked by `conflicting`, not here)
    if not finals:
        return None
    final = prefer_later(ctx, finals)
    plan = Plan()
    if not find(ctx, plan, start.name, [start.url]):
        return None
    for linked_by, attribute in zip((None, *path), (*path, final), strict=True):
        read(ctx, plan, attribute, linked_by=linked_by)
    described = named or index.ref(start)
    for attribute in path:
        described = inner(ctx.say(f"of_{attribute.name}", x=described))
    question = ctx.say(f"ask_{final.name}", x=described)
    answer = chained_account(ctx, index, (*path, final), asked=question)
    value = index.shown(final)
    piece = piece_of(
        ctx,
        ctx.say("ask_request", question=question),
        f"Find out from the web: {question}",
        plan,
        # every page the account's facts come from: the link followed is a fact the reply states too
        Utterance(intent="reply_answer", vars={"answer": answer, "sources": join_words(dict.fromkeys(a.page_url for a in (*path, final)))}),
        [value.removeprefix("the ")],
        {start.id, *(a.value for a in path)},
    )
    if not path:
        return piece
    # the pages past the first are named by description only ("the maker of X"): their links find them
    return structures.looked_up(piece, label="page address", value=final.page_url, keywords=["page address", "url", "link to"])


def _walk(ctx: GenContext, index: Index, start: EntityBase, steps: int) -> list[AttributeBase] | None:
    """`steps` links from `start` to entities not met before, drawn at random (backtracking from dead ends)."""
    if steps == 0:
        return []
    seen = {start.id}

    def extend(entity: EntityBase, left: int) -> list[AttributeBase] | None:
        onward = [a for n, a in index.facts[entity.id].items() if n in RELATIONS and a.value not in seen]
        ctx.rng.shuffle(onward)
        for attribute in onward:
            if left == 1:
                return [attribute]
            seen.add(attribute.value)
            rest = extend(index.target(attribute), left - 1)
            if rest is not None:
                return [attribute, *rest]
            seen.discard(attribute.value)
        return None

    return extend(start, steps)


def conflicting(ctx: GenContext) -> Piece | None:
    """Two pages disagree on an organisation's staff count: the newer page wins, and the reply says why."""
    index = index_of(ctx.world)
    org = index.entities[ctx.pick(sorted(index.stale))]
    current, older = index.facts[org.id]["employees"], index.stale[org.id]
    plan = Plan()
    query = f"{org.name} {ctx.pick(('employees', 'staff', 'headcount'))}"
    if not find(ctx, plan, query, [current.page_url, older.page_url]):
        return None
    for attribute in (older, current) if ctx.rng.random() < 0.5 else (current, older):
        read(ctx, plan, attribute)
    newer_page, older_page = index.pages[current.page_url], index.pages[older.page_url]
    vars_ = {
        "subject": org.name, "value": current.value, "newer": current.page_url, "newer_date": _day(newer_page.published),
        "older": older.page_url, "older_value": older.value, "older_date": _day(older_page.published),
    }  # fmt: skip
    return piece_of(
        ctx,
        ctx.say("ask_request", question=ctx.say("ask_employees", x=org.name)),
        f"Find out how many people {org.name} employs.",
        plan,
        Utterance(intent="reply_conflict", vars=vars_),
        [current.value, current.page_url],
        {org.id},
    )


def false_premise(ctx: GenContext) -> Piece | None:
    """The question assumes the wrong maker of a product: the agent reads the product's page and says so."""
    index = index_of(ctx.world)
    product = ctx.pick(index.by_kind["product"])
    maker = index.facts[product.id]["maker"]
    claimed = ctx.pick([o for o in index.by_kind["organisation"] if o.id != maker.value])
    plan = Plan()
    if not find(ctx, plan, product.name, [product.url]):
        return None
    launched = index.facts[product.id]["launched"]
    for attribute in (maker, launched):
        read(ctx, plan, attribute)
    real = index.target(maker).name
    return piece_of(
        ctx,
        ctx.say("ask_false_maker", claimed=claimed.name, product=index.ref(product)),
        f"Ask when {claimed.name} launched the {product.name} (you believe they make it).",
        plan,
        Utterance(intent="reply_false_premise", vars={"claimed": claimed.name, "product": index.ref(product), "maker": real,
                                                  "sources": maker.page_url, "answer": sentence_of(ctx, index, launched)}),
        [real, launched.value],
        {product.id},
    )


def not_in_corpus(ctx: GenContext) -> Piece | None:
    """A city's elevation that no page gives: the agent reads the city's page, looks, and says so."""
    index = index_of(ctx.world)
    cities = [c for c in index.by_kind["city"] if "elevation" not in index.facts[c.id]]
    if not cities:
        return None
    city = ctx.pick(cities)
    plan = Plan()
    if not find(ctx, plan, f"{city.name} elevation", [city.url]):
        return None
    plan.steps.append(Step(calls=[call("open_page", url=city.url)]))
    plan.steps.append(Step(calls=[call("find_in_page", url=city.url, text="elevation")], derived={"text": PAST_PART_ONE}))
    plan.opened.append(city.url)
    return piece_of(
        ctx,
        ctx.say("ask_request", question=ctx.say("ask_elevation", x=city.name)),
        f"Find out the elevation of {city.name}.",
        plan,
        Utterance(intent="reply_not_found", vars={"subject": city.name, "label": "elevation", "sources": city.url}),
        [city.name],
        {city.id},
    )


def compared(
    ctx: GenContext, kind: str | None = None, named: Callable[[EntityBase], str] | None = None, given: bool = False
) -> Piece | None:
    """Two entities of a kind compared on a number: two searches together, then two pages together.

    `named`: how the question names the first entity (default: its name; the user's own thing, see asked.py)."""
    index = index_of(ctx.world)
    kind = kind or ctx.pick(("organisation", "city", "product", "event"))
    name = ctx.pick([n for n in SCALARS[kind] if n in NUMBERS])
    first, second = ctx.rng.sample([e for e in index.by_kind[kind] if name in index.facts[e.id]], 2)
    a, b = index.facts[first.id][name], index.facts[second.id][name]
    if _number(a.value) == _number(b.value):
        return None
    plan = read_both(ctx, [(first, a), (second, b)], given=given)
    if plan is None:
        return None
    higher = first if _number(a.value) > _number(b.value) else second
    winner = index.ref(higher) if name != "founded" else index.ref(first if higher is second else second)
    vars_ = {
        "first": sentence_of(ctx, index, a), "second": sentence_of(ctx, index, b),
        "verdict": ctx.say(f"verdict_{name}", winner=winner), "sources": f"{a.page_url} and {b.page_url}",
    }  # fmt: skip
    question = ctx.say(f"compare_{name}", a=named(first) if named else index.ref(first), b=index.ref(second))
    request = asked_with(ctx, question, [a.page_url, b.page_url] if given else [])
    return piece_of(
        ctx, request, f"Find out: {question}", plan,
        Utterance(intent="reply_compare", vars=vars_), [a.value, b.value], {first.id, second.id},
    )


def inner(text: str) -> str:
    """A phrase rendered on its own (so capitalised) put back inside a sentence: "The maker of X" -> "the maker of X"."""
    for opening in ("The ", "That ", "A "):
        if text.startswith(opening):
            return opening.lower() + text[len(opening):]
    return text


def clause(text: str) -> str:
    """A sentence rendered on its own put after a colon or inside another: its first letter lower-cased ("I" kept)."""
    return text if text.startswith("I ") else text[:1].lower() + text[1:]


def read_both(ctx: GenContext, reads: list[tuple[EntityBase, AttributeBase]], given: bool = False) -> Plan | None:
    """Each entity's page searched and its fact read, the plans side by side (None: a page does not rank).
    `given`: the user gave both pages' urls: no search, and the sentence reached directly where a keyword finds it."""
    plans = []
    direct = given and ctx.rng.random() < 0.5
    for entity, attribute in reads:
        plan = Plan()
        # the page that states the fact (a newer directory listing may state a count, not the article)
        if not given and not find(ctx, plan, entity.name, [attribute.page_url]):
            return None
        reach(ctx, plan, attribute, direct=direct)
        plans.append(plan)
    return together(plans)


def asked_with(ctx: GenContext, question: str, urls: list[str]) -> str:
    """The request: the question alone, or after the page (or two) the user gives."""
    if len(urls) == 2:
        return ctx.say("ask_on_pages", a=urls[0], b=urls[1], question=question)
    if urls:
        return ctx.say("ask_on_page", url=urls[0], question=question)
    return ctx.say("ask_request", question=question)


def two_page_answer(
    ctx: GenContext, question: str, plan: Plan, facts: list[AttributeBase], closing: str, outputs: list[str], given: bool = False
) -> Piece:
    """A computed answer over two pages: both facts stated, then what was worked out from them (`given`: the user gave the pages)."""
    index = index_of(ctx.world)
    answer = " ".join([*(sentence_of(ctx, index, f) for f in facts), closing])
    return piece_of(
        ctx, asked_with(ctx, question, [f.page_url for f in facts] if given else []), f"Find out from the web: {question}", plan,
        Utterance(intent="reply_answer", vars={"answer": answer, "sources": " and ".join(f.page_url for f in facts)}),
        outputs, {f.entity_id for f in facts},
    )  # fmt: skip


def together(plans: list[Plan]) -> Plan:
    """Independent reads side by side: the i-th step of each plan made in one parallel step."""
    merged = Plan(opened=[u for p in plans for u in p.opened], searches=sum(p.searches for p in plans))
    for number in range(max(len(p.steps) for p in plans)):
        steps = [p.steps[number] for p in plans if number < len(p.steps)]
        # what each step rests on and how it works out its arguments go with its calls
        merged.steps.append(Step(calls=[c for s in steps for c in s.calls], evidence=[e for s in steps for e in s.evidence],
                                 derived={k: v for s in steps for k, v in s.derived.items()}))
    return merged


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _day(day) -> str:
    return f"{day.day} {day:%B %Y}"
