"""The no-tool kinds the domain writes itself (`no_tool/irrelevant` comes from the engine)."""

from __future__ import annotations

from toolgym.envs import Forbidden, GenContext, Task, assemble, pieces

from ..tools import MAX_RESULT_PAGES
from .index import index_of
from .questions import clause, inner

SEARCH_TOOLS = ("web_search", "open_page", "find_in_page")


VAGUE = {  # what the user leaves unnamed -> (the label the agent asks for, the questions that fit it)
    "company": ("the company's name", ("founded", "employees", "headquarters", "ceo", "flagship")),  # not "your company name"
    "product": ("the product's name", ("maker", "launched", "weight", "price", "designer")),
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


_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                "November", "December")  # fmt: skip
_SHORT_MONTHS = (4, 6, 9, 11)  # thirty days: a 31st does not exist
# units the converter lacks -> a unit it has that the user asks for the amount in
UNITS_NOT_CONVERTED = {"stone": "kilograms", "grams": "pounds", "ounces": "kilograms", "tonnes": "pounds",
                       "yards": "metres", "inches": "feet", "centimetres": "feet", "nautical miles": "kilometres"}  # fmt: skip


def _impossible_date(ctx: GenContext) -> tuple[str, str, str | None]:
    """A date no calendar has, why, and the nearest real one in words (None when a month does not exist)."""
    year = ctx.rng.randrange(2012, ctx.world.now.year)
    way = ctx.rng.randrange(3)
    if way == 0:
        month = ctx.pick((13, 14, 15, 0))
        bad = f"{year}-{month:02d}-{ctx.rng.randrange(1, 29):02d}"
        return bad, clause(ctx.say("problem_month", month=f"{month:02d}")), None
    month = ctx.pick(_SHORT_MONTHS) if way == 1 else 2
    day = 31 if way == 1 else ctx.pick((30, 31) if year % 4 == 0 else (29, 30, 31))
    name = _MONTH_NAMES[month - 1]
    bad = f"{year}-{month:02d}-{day:02d}"
    return bad, clause(ctx.say("problem_day", month=name)), ctx.say("valid_last_day", month=name)


def _date_request(ctx: GenContext, bad: str) -> tuple[str, str]:
    """A question that would count days from the impossible date, and the parameter it would go to."""
    index = index_of(ctx.world)
    way = ctx.rng.randrange(3)
    if way == 0:
        return ctx.say("req_days_since", date=bad), "start"
    if way == 1:
        entity = ctx.pick(list(index.entities.values()))
        return ctx.say("req_days_since_noted", date=bad, x=index.ref(entity)), "start"
    later = f"{ctx.world.now.year - ctx.rng.randrange(0, 3)}-{ctx.rng.randrange(1, 13):02d}-{ctx.rng.randrange(1, 29):02d}"
    return ctx.say("req_days_between", first=bad, second=later), "start"


def _bad_date(ctx: GenContext) -> pieces.Piece:
    bad, problem, valid = _impossible_date(ctx)
    request, parameter = _date_request(ctx, bad)
    return pieces.invalid_value(
        ctx.say("ask_request", question=request), f"Ask how many days have passed since {bad}.",
        parameter=parameter, value=bad, label="date", problem=problem, valid=valid,
    )


def _bad_page(ctx: GenContext) -> pieces.Piece:
    """A page of search results past the last one the search gives: the last page is the nearest."""
    index = index_of(ctx.world)
    page = ctx.rng.randrange(MAX_RESULT_PAGES + 1, MAX_RESULT_PAGES * 3)
    entity = ctx.pick(list(index.entities.values()))
    piece = pieces.invalid_value(
        ctx.say("ask_request", question=ctx.say("req_result_page", page=page, x=index.ref(entity))),
        f"See page {page} of the search results about {entity.name}.",
        parameter="page", value=page, label="result page",
        problem=clause(ctx.say("problem_page", last=MAX_RESULT_PAGES)), valid=f"page {MAX_RESULT_PAGES}",
    )
    piece.reply.vars["value"] = f"page {page}"  # said with its noun; the spec keeps the number the tool would get
    return piece


def _bad_unit(ctx: GenContext) -> pieces.Piece:
    """A unit the converter does not know: no nearest one (a different unit is a different question),
    and no mistake of the user's (the unit is real; the converter lacks it)."""
    unit = ctx.pick(tuple(UNITS_NOT_CONVERTED))
    amount = ctx.rng.randrange(2, 400)
    request = ctx.say("req_convert_unit", amount=amount, unit=unit, target=UNITS_NOT_CONVERTED[unit])
    return pieces.invalid_value(
        ctx.say("ask_request", question=request), f"Get {amount} {unit} converted.",
        parameter="from_unit", value=unit, label="unit", problem=clause(ctx.say("problem_unit")), unsupported=True,
    )


def invalid_value(ctx: GenContext) -> Task:
    """A value no tool takes (a date no calendar has, a result page past the last, a unit the converter
    lacks): the agent names it and why, offers the nearest valid one where there is one, and asks again."""
    build = ctx.pick((_bad_date, _bad_date, _bad_page, _bad_unit))
    return assemble(ctx, [build(ctx)])


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
        scope=ctx.say("scope_without_search"),  # no page can be read: the web is not what is left to offer
    )
    offered = [t for t in ctx.domain.tools if t not in SEARCH_TOOLS]
    return assemble(ctx, [piece], tools=offered)
