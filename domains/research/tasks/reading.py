"""The gold plan's reads: search until the page shows up, open it, and reach the sentence that
states a fact (find_in_page when the fact lies past the first part of a long page)."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolgym.envs import GenContext, Step, World, call
from toolgym.envs.full_text import search

from ..tables import AttributeBase
from ..tools import RESULTS_PER_PAGE
from ..web import parts, sentences
from .index import RELATIONS, Index, index_of

SEARCH_PAGES = 2  # the gold reads at most this many result pages before it draws another question
KEYWORDS = {
    "founded": ("founded", "established"), "employees": ("employ", "workforce", "staff", "headcount"),
    "headquarters": ("headquarter",), "ceo": ("chief executive",), "flagship": ("flagship",),
    "born": ("born on",), "birthplace": ("born in", "raised in"), "employer": ("works at", "employed by"),
    "leads": ("led",), "country": ("city in", "lies in"), "population": ("population", "people live"),
    "elevation": ("elevation", "above sea level"), "maker": ("made by", "manufactures"),
    "designer": ("designed by", "designer"), "launched": ("launched", "went on sale"), "weight": ("weigh",),
    "price": ("list price", "sells for"), "held_in": ("held in", "hosts"), "date": ("took place", "last held"),
    "attendance": ("visitors", "attendance"), "organiser": ("organised by", "organises"),
}  # fmt: skip


@dataclass
class Plan:
    """Gold steps and what they opened, in order (the pages an answer may cite)."""

    steps: list[Step] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    searches: int = 0

    @property
    def reads(self) -> int:
        return sum(len(s.calls) for s in self.steps)


def find(ctx: GenContext, plan: Plan, query: str, urls: list[str], world: World | None = None) -> bool:
    """Search `query`, turning result pages until every url in `urls` has shown up; False if they do not.

    `world` is the world the episode will search when the task edits pages (default: the built one)."""
    wanted = set(urls)
    for page in range(1, SEARCH_PAGES + 1):
        hits, _ = search(world or ctx.world, "page", query, key="url", snippet_column=1, limit=RESULTS_PER_PAGE,
                         offset=(page - 1) * RESULTS_PER_PAGE)  # fmt: skip
        arguments = {"query": query} if page == 1 else {"query": query, "page": page}
        plan.steps.append(Step(calls=[call("web_search", **arguments)]))
        plan.searches += 1
        wanted -= {h.key for h in hits}
        if not wanted:
            return True
    return False


# How a find_in_page search's words are chosen (Step.derived, said by the gold's reasoning): the
# agent picks them, no one gave them
PAST_PART_ONE = "the words the sentence I need would use, since the part of the page shown so far does not give it"
STRAIGHT_TO_IT = "the words the sentence I need would use, to reach it without reading the page part by part"


def read(ctx: GenContext, plan: Plan, attribute: AttributeBase, body: str | None = None,
         linked_by: AttributeBase | None = None) -> None:
    """Open the page that states `attribute` (if not open yet) and reach its sentence.

    `body` is the page's text when a task edits it (an injected paragraph moves the parts).
    `linked_by`: the link read before that leads to the page ("made by Febrol Freight" opens Febrol
    Freight's): its sentence is what the opening rests on (Step.evidence), and what a trace cites."""
    index = index_of(ctx.world)
    url = attribute.page_url
    if url not in plan.opened:
        link_sentence = [stating(index, linked_by, index.pages[linked_by.page_url].body)[2]] if linked_by is not None else []
        plan.steps.append(Step(calls=[call("open_page", url=url)], evidence=link_sentence))
        plan.opened.append(url)
    part, keyword = locate(index, attribute, index.pages[url].body if body is None else body)
    if part == 1:
        return
    if keyword is not None:
        plan.steps.append(Step(calls=[call("find_in_page", url=url, text=keyword)], derived={"text": PAST_PART_ONE}))
    else:  # no keyword singles the sentence out: read on, part by part (each number was shown)
        for number in range(2, part + 1):
            plan.steps.append(Step(calls=[call("open_page", url=url, part=number)]))


def locate(index: Index, attribute: AttributeBase, body: str) -> tuple[int, str | None]:
    """The part of `body` whose sentence states `attribute`, and a keyword that finds that sentence."""
    part, keyword, _ = stating(index, attribute, body)
    return part, keyword


def stating(index: Index, attribute: AttributeBase, body: str) -> tuple[int, str | None, str]:
    """The part of `body` whose sentence states `attribute`, a keyword that finds it (None: none
    singles it out), and the sentence."""
    said = index.entities[attribute.value].name if attribute.name in RELATIONS else attribute.value
    for number, chunk in enumerate(parts(body), 1):
        candidates = [s for s in sentences(chunk) if said in s]
        for keyword in KEYWORDS[attribute.name]:
            if found := next((s for s in candidates if keyword in s.lower()), None):
                return number, keyword, found
        if candidates and number == attribute.part:
            return number, None, candidates[0]
    raise ValueError(f"no sentence of {attribute.page_url} states {attribute.name} = {said!r}")


LATER_SHARE = 0.5  # questions whose fact lies past the first part, where one is available: find_in_page is needed


def prefer_later(ctx: GenContext, attributes: list[AttributeBase]) -> AttributeBase:
    """One of `attributes`, in about half the draws one stated past its page's first part."""
    later = [a for a in attributes if a.part > 1]
    return ctx.pick(later if later and ctx.rng.random() < LATER_SHARE else attributes)


GIVEN_SHARE = 0.4  # worked-out questions about pages the user gives (their urls): no search
DIRECT_SHARE = 0.35  # pages the user gives searched straight for the sentence (find_in_page) rather than opened


def pages_given(ctx: GenContext) -> bool:
    """Whether this question comes with the page(s) it is about (the user gives the urls)."""
    return ctx.rng.random() < GIVEN_SHARE


def opened(ctx: GenContext, plan: Plan, name: str, attribute: AttributeBase, given: bool) -> bool:
    """The sentence of `attribute` reached: on a page the user gave (`given`), or found by searching
    `name` first, until the page that states it shows up; False when the search does not list it."""
    if given:
        reach(ctx, plan, attribute, direct=ctx.rng.random() < DIRECT_SHARE)
        return True
    if not find(ctx, plan, name, [attribute.page_url]):
        return False
    read(ctx, plan, attribute)
    return True


def reach(ctx: GenContext, plan: Plan, attribute: AttributeBase, direct: bool = False) -> None:
    """`read`, or with `direct` (the user gave the url) straight to the sentence with find_in_page
    when a keyword singles it out."""
    index = index_of(ctx.world)
    part, keyword = locate(index, attribute, index.pages[attribute.page_url].body)
    if direct and keyword is not None:
        plan.steps.append(Step(calls=[call("find_in_page", url=attribute.page_url, text=keyword)], derived={"text": STRAIGHT_TO_IT}))
        plan.opened.append(attribute.page_url)
    else:
        read(ctx, plan, attribute)
