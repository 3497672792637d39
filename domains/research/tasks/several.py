"""Questions answered by several reads made together: two facts of one long page (both sentences
found in one step), and three entities compared on a number (three searches, then three pages)."""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Step, Utterance, call

from .index import NUMBERS, index_of
from .questions import SCALARS, piece_of, read_both, sentence_of
from .reading import KEYWORDS, PAST_PART_ONE, Plan, find, locate


def two_facts(ctx: GenContext) -> Piece | None:
    """Two facts past the first part of one article: search, open it, then both sentences found together."""
    index = index_of(ctx.world)
    entity = ctx.pick(list(index.entities.values()))
    body = index.pages[entity.url].body
    later = []
    for attribute in index.facts[entity.id].values():
        if attribute.page_url != entity.url or attribute.name == "employees":  # a count a newer page may correct
            continue
        part, keyword = locate(index, attribute, body)
        if part > 1 and keyword is not None:
            later.append((attribute, keyword))
    if len(later) < 2:
        return None
    (a, key_a), (b, key_b) = ctx.rng.sample(later, 2)
    if key_a == key_b or key_a in KEYWORDS[b.name] or key_b in KEYWORDS[a.name]:
        return None  # one search word would find both sentences: a second find would repeat it
    plan = Plan()
    if not find(ctx, plan, entity.name, [entity.url]):
        return None
    plan.steps.append(Step(calls=[call("open_page", url=entity.url)]))
    plan.steps.append(Step(calls=[call("find_in_page", url=entity.url, text=key_a), call("find_in_page", url=entity.url, text=key_b)],
                           derived={"text": PAST_PART_ONE}))
    name = index.ref(entity)
    question = f"{ctx.say(f'ask_{a.name}', x=name)} {ctx.say(f'and_{b.name}')}"
    answer = f"{sentence_of(ctx, index, a, question)} {sentence_of(ctx, index, b, question)}"
    return piece_of(
        ctx, ctx.say("ask_request", question=question), f"Find out from the web: {question}", plan,
        Utterance(intent="reply_answer", vars={"answer": answer, "sources": entity.url}),
        [index.shown(a).removeprefix("the "), index.shown(b).removeprefix("the ")], {entity.id},
    )  # fmt: skip


def compared_three(ctx: GenContext) -> Piece | None:
    """Three entities of a kind compared on a number: three searches together, then three pages."""
    index = index_of(ctx.world)
    kind = ctx.pick(("organisation", "city", "product", "event"))
    name = ctx.pick([n for n in SCALARS[kind] if n in NUMBERS and n != "employees"])
    three = ctx.rng.sample([e for e in index.by_kind[kind] if name in index.facts[e.id]], 3)
    facts = [index.facts[e.id][name] for e in three]
    numbers = [float(f.value.replace(",", "")) for f in facts]
    if len(set(numbers)) < 3:
        return None
    plan = read_both(ctx, list(zip(three, facts, strict=True)))
    if plan is None:
        return None
    best = numbers.index(min(numbers) if name == "founded" else max(numbers))  # the oldest, else the largest
    refs = [index.ref(e) for e in three]
    question = ctx.say(f"compare_three_{name}", a=refs[0], b=refs[1], c=refs[2])
    answer = " ".join([*(sentence_of(ctx, index, f) for f in facts), ctx.say(f"verdict_three_{name}", winner=refs[best])])
    return piece_of(
        ctx, ctx.say("ask_request", question=question), f"Find out: {question}", plan,
        Utterance(intent="reply_answer", vars={"answer": answer, "sources": ", ".join(f.page_url for f in facts)}),
        [f.value for f in facts], {e.id for e in three},
    )  # fmt: skip
