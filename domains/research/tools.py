"""The research tools: search the offline web, read its pages, and a few typed helpers. All read."""

from __future__ import annotations

import ast
import datetime as dt
import operator
import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from toolgym.envs import World, tool
from toolgym.envs.full_text import search
from toolgym.errors import ToolError

from .tables import Link, Page
from .web import parts, sentences

RESULTS_PER_PAGE = 5
MAX_RESULT_PAGES = 20


class SearchResult(BaseModel):
    url: str
    title: str
    date: dt.date
    snippet: str


class SearchResults(BaseModel):
    query: str
    page: int
    total_pages: int
    results: list[SearchResult]


class PageLink(BaseModel):
    text: str
    url: str


class PageView(BaseModel):
    url: str
    title: str
    date: dt.date
    part: int
    parts: int
    next_part: int | None
    text: str
    links: list[PageLink]


class PageMatch(BaseModel):
    part: int
    sentence: str


class PageMatches(BaseModel):
    url: str
    text: str
    matches: list[PageMatch]


def _page(world: World, url: str) -> Page:
    found = world.get(Page, url.strip())
    if found is None:
        raise ToolError(f"no page at {url!r}; open a url exactly as a search result or a page link gives it")
    return found


@tool(free_text=["query"])
def web_search(
    world: World,
    query: Annotated[str, Field(description="Keywords to search for, such as a name and the fact wanted.")],
    page: Annotated[int, Field(ge=1, le=MAX_RESULT_PAGES, description="Which page of results, from 1.")] = 1,
) -> SearchResults:
    """Search the web. Results are ranked by relevance, five to a page, each with its url, title, date
    and a snippet of the text around the words searched for."""
    hits, total = search(world, "page", query, key="url", snippet_column=1, limit=RESULTS_PER_PAGE,
                         offset=(page - 1) * RESULTS_PER_PAGE)  # fmt: skip
    pages = max(1, -(-min(total, RESULTS_PER_PAGE * MAX_RESULT_PAGES) // RESULTS_PER_PAGE))
    if page > pages:
        raise ToolError(f"page {page} is past the last page of results for {query!r}, which is {pages}")
    results = []
    for hit in hits:
        found = _page(world, hit.key)
        results.append(SearchResult(url=found.url, title=found.title, date=found.published, snippet=hit.snippet))
    return SearchResults(query=query, page=page, total_pages=pages, results=results)


@tool
def open_page(
    world: World,
    url: Annotated[str, Field(description="The page's url, as a search result or a link gives it.")],
    part: Annotated[int, Field(ge=1, description="Which part of a long page, from 1.")] = 1,
) -> PageView:
    """Open a web page: its title, date, the text of one part (long pages are cut in parts) and the
    links on the page."""
    found = _page(world, url)
    cut = parts(found.body)
    if part > len(cut):
        raise ToolError(f"{found.url} has {len(cut)} part(s); part {part} does not exist")
    links = [PageLink(text=link.anchor, url=link.target) for link in world.select(Link, {"source": found.url}, order_by="id")]
    return PageView(url=found.url, title=found.title, date=found.published, part=part, parts=len(cut),
                    next_part=part + 1 if part < len(cut) else None, text=cut[part - 1], links=links)  # fmt: skip


@tool
def find_in_page(
    world: World,
    url: Annotated[str, Field(description="The page's url.")],
    text: Annotated[str, Field(description="A word or phrase to look for (case does not matter).")],
) -> PageMatches:
    """Find the sentences of a page (in any of its parts) that contain a word or phrase."""
    found = _page(world, url)
    wanted = " ".join(text.lower().split())
    if not wanted:
        raise ToolError("give a word or phrase to look for")
    matches = [
        PageMatch(part=number, sentence=sentence)
        for number, chunk in enumerate(parts(found.body), 1)
        for sentence in sentences(chunk)
        if wanted in sentence.lower()
    ]
    return PageMatches(url=found.url, text=text, matches=matches)


@tool(computes=True)
def days_between(
    world: World,
    start: Annotated[dt.date, Field(description="The earlier date, as YYYY-MM-DD.")],
    end: Annotated[dt.date, Field(description="The later date, as YYYY-MM-DD.")],
) -> dict[str, int]:
    """Count the days from one date to another (negative if `end` comes first)."""
    return {"days": (end - start).days}


_FACTORS = {("kg", "lb"): 2.20462262, ("m", "ft"): 3.2808399, ("km", "mi"): 0.621371192}
Unit = Literal["kg", "lb", "m", "ft", "km", "mi"]


@tool(computes=True, value_words={"to_unit": {"lb": ["pounds"], "ft": ["feet"], "mi": ["miles"], "kg": ["kilograms"], "m": ["metres"], "km": ["kilometres"]},
                   "from_unit": {"kg": ["kg"], "m": ["metres"], "lb": ["pounds"], "ft": ["feet"], "km": ["kilometres"], "mi": ["miles"]}})  # fmt: skip
def convert_units(
    world: World,
    value: Annotated[float, Field(description="The number to convert.")],
    from_unit: Annotated[Unit, Field(description="The unit the number is in.")],
    to_unit: Annotated[Unit, Field(description="The unit wanted.")],
) -> dict[str, float | str]:
    """Convert a number from one unit to another: a weight (kg, lb) or a length (m, ft, km, mi);
    the result is rounded to 2 decimals."""
    return {"value": convert(value, from_unit, to_unit), "unit": to_unit}


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """`value` in `to_unit`, rounded to 2 decimals (what `convert_units` returns)."""
    if from_unit == to_unit:
        return round(value, 2)
    if (from_unit, to_unit) in _FACTORS:
        return round(value * _FACTORS[(from_unit, to_unit)], 2)
    if (to_unit, from_unit) in _FACTORS:
        return round(value / _FACTORS[(to_unit, from_unit)], 2)
    raise ToolError(f"cannot convert {from_unit} to {to_unit}: convert kg/lb, m/ft or km/mi")


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    raise ToolError("only numbers, + - * / and parentheses are allowed, such as '(4210 + 380) / 2'")


@tool(computes=True)
def calculate(
    world: World,
    expression: Annotated[str, Field(description="Arithmetic on numbers, such as '12,400 + 8,100' (commas only as thousands separators).")],
) -> dict[str, float | str]:
    """Work out an arithmetic expression (+ - * / and parentheses); the result is rounded to 2 decimals."""
    try:
        tree = ast.parse(_THOUSANDS.sub("", expression), mode="eval")
    except SyntaxError:
        raise ToolError(f"{expression!r} is not an arithmetic expression; write it like '12400 + 8100'") from None
    try:
        result = _evaluate(tree.body)
    except ZeroDivisionError:
        raise ToolError(f"{expression!r} divides by zero") from None
    value = round(result, 2)
    return {"expression": expression, "result": int(value) if value == int(value) else value}


TOOLS = [web_search, open_page, find_in_page, days_between, convert_units, calculate]
