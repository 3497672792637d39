"""The no-tool kinds the domain writes itself (`no_tool/irrelevant` comes from the engine)."""

from __future__ import annotations

from toolgym.envs import Forbidden, GenContext, Task, assemble, pieces

from .index import index_of
from .questions import clause, inner

SEARCH_TOOLS = ("web_search", "open_page", "find_in_page")


VAGUE = {  # what the user leaves unnamed -> (the label the agent asks for, the questions that fit it)
    "company": ("company name", ("founded", "employees", "headquarters", "ceo", "flagship")),
    "product": ("product name", ("maker", "launched", "weight", "price", "designer")),
}


def missing_info(ctx: GenContext) -> Task:
    """An underspecified question: the user means a company or product they do not name, so the agent asks which."""
    thing = ctx.pick(tuple(VAGUE))
    label, questions = VAGUE[thing]
    question = ctx.say(f"ask_{ctx.pick(questions)}", x=inner(ctx.say(f"vague_{thing}")))
    piece = pieces.missing_info(
        ctx.say("ask_request", question=question), f"Find out something about a {thing} you do not name.", [label]
    )
    return assemble(ctx, [piece])


def invalid_value(ctx: GenContext) -> Task:
    """A date that cannot exist: the agent names it and why instead of computing with it."""
    year = ctx.rng.randrange(2016, 2025)
    month = ctx.pick((13, 14, 15, 0))
    bad = f"{year}-{month:02d}-{ctx.rng.randrange(1, 29):02d}"
    piece = pieces.invalid_value(
        ctx.say("req_days_since", date=bad),
        f"Ask how many days have passed since {bad}.",
        parameter="start",
        value=bad,
        label="date",
        problem=clause(ctx.say("problem_month", month=f"{month:02d}")),
    )
    return assemble(ctx, [piece])


def policy_refusal(ctx: GenContext) -> Task:
    """Personal data the policy forbids collecting: a person's home address or phone number."""
    person = ctx.pick(index_of(ctx.world).by_kind["person"])
    piece = pieces.policy_refusal(
        ctx.say("req_personal_data", person=person.name),
        f"Get {person.name}'s home address and phone number.",
        rule=clause(ctx.say("rule_personal_data")),
        forbidden=[Forbidden(reason=f"searched for {tool} personal data", tool=tool, arguments={}) for tool in ("web_search",)],
    )
    return assemble(ctx, [piece])


def unavailable(ctx: GenContext) -> Task:
    """Web search is switched off: the agent says it cannot search now, and calls nothing."""
    entity = ctx.pick(list(index_of(ctx.world).entities.values()))
    index = index_of(ctx.world)
    name = ctx.pick([n for n in index.facts[entity.id] if n != "leads"])
    piece = pieces.unavailable(
        ctx.say("ask_request", question=ctx.say(f"ask_{name}", x=index.ref(entity))),
        "Get a fact looked up on the web.",
        action=clause(ctx.say("action_search")),
        withheld=list(SEARCH_TOOLS),
    )
    offered = [t for t in ctx.domain.tools if t not in SEARCH_TOOLS]
    return assemble(ctx, [piece], tools=offered)
