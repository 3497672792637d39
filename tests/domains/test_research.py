"""The research domain: an offline web searched with FTS5, read in parts, and answers with sources."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

import toolgym
from toolgym.domains.research.cheap_answers import CHEAP_ANSWERS
from toolgym.domains.research.world import build_world
from toolgym.envs import World
from toolgym.envs.gold import gold_messages
from toolgym.verifiers import verify
from toolgym.verifiers.citations import named_urls

RESEARCH = "research"
ACTING = ("single", "parallel", "multi_step", "multi_turn", "injection")


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain(RESEARCH)


@pytest.fixture
def world(domain):
    world = World(domain.template(0, "small"))
    yield world
    world.close()


@pytest.fixture(scope="module")
def tasks(domain):
    """Six tasks of each acting kind in the small world, with their gold chats (shared by the tests below)."""
    made = domain.generate_tasks(6 * len(ACTING), seed=3, kinds=list(ACTING), size="small")
    return [(task, gold_messages(domain, task)[0]) for task in made]


def call(domain, world, name: str, **arguments):
    outcome = domain.tool(name).run(world, arguments)
    return outcome.error, (json.loads(outcome.content) if outcome.error is None else None)


# ---- the web -----------------------------------------------------------------------------------


def test_world_is_seeded_and_holds_every_kind_of_page(domain):
    first, again, other = (list(build_world(s, "small")) for s in (4, 4, 5))
    assert first == again and first != other
    pages = [values for table, values in first if table.__name__ == "Page"]
    kinds = Counter(p["kind"] for p in pages)
    assert set(kinds) == {"article", "mirror", "listing", "news", "blog"}
    assert len({p["url"] for p in pages}) == len(pages)
    default = World(domain.template(0, "default"))
    try:
        assert default.query("SELECT COUNT(*) FROM page")[0][0] > 2_000  # a few thousand pages
    finally:
        default.close()


def test_no_page_tells_of_a_day_after_its_own_and_designers_are_grown(domain):
    """A page dated 2020-05-30 said 'It went on sale on 26 April 2023', which undoes the policy's rule
    that the newer of two pages is current; and a designer born in 1995 designed a product of 2005."""
    import datetime as dt
    import re

    rows = list(build_world(3, "default"))
    pages = [v for t, v in rows if t.__name__ == "Page"]
    facts = [v for t, v in rows if t.__name__ == "Attribute"]
    checked = 0
    for page in pages:
        for said in re.findall(r"\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) (?:20[0-2]\d)\b", page["body"]):
            day = dt.datetime.strptime(said, "%d %B %Y").date()
            if day.year >= 2005 and page["kind"] != "listing":  # a birth date is long past; a listing names its own day
                checked += 1
                assert day < page["published"], (page["url"], page["published"], said)
    assert checked > 200, checked
    born = {f["entity_id"]: f["value"] for f in facts if f["name"] == "born"}
    launched = {f["entity_id"]: f["value"] for f in facts if f["name"] == "launched"}
    designed = [(f["value"], launched[f["entity_id"]]) for f in facts if f["name"] == "designer"]
    assert designed and all(int(launched_on[-4:]) - int(born[who][-4:]) >= 21 for who, launched_on in designed), designed[:3]


def test_a_product_weighs_costs_and_is_made_as_its_kind_is(domain):
    """"The Rukaci Watch has a weight of 24.4 kg." and "Trediox Foods manufactures the Giotrioth
    Camera.": a made-up world a reader would not believe. Every product's weight and price lie in
    its kind's range, and its maker is of an industry that makes such things."""
    from toolgym.domains.research.names import PRODUCTS

    world = World(domain.template(0, "default"))
    try:
        found = world.query("SELECT e.name, a.name, a.value FROM entity e JOIN attribute a ON a.entity_id = e.id "
                            "WHERE e.kind = 'product' AND a.current AND a.name IN ('weight', 'price', 'maker')")
        makers = dict(world.query("SELECT id, name FROM entity WHERE kind = 'organisation'"))
    finally:
        world.close()
    products = {name for name, _, _ in found}
    assert len(products) > 300
    for name, attribute, value in found:
        kind = PRODUCTS[name.rsplit(" ", 1)[1]]
        if attribute == "weight":
            assert kind.tenths_of_kg[0] <= round(float(value) * 10) <= kind.tenths_of_kg[1], (name, value)
        elif attribute == "price":
            assert kind.dollars[0] <= int(value.replace(",", "")) <= kind.dollars[1], (name, value)
        else:
            assert makers[value].rsplit(" ", 1)[1] in kind.makers, (name, makers[value])



def test_a_city_fits_its_country_in_size_height_and_weather():
    """"Heakraihiholm is a city in Niue. Heakraihiholm has a population of 1,837,762. ... The river
    that crosses the city freezes in hard winters." and a Bermudan city 331 metres up with a railway:
    a city lies in a country with room for its people and its height, and no page gives it a weather
    its country may not have."""
    from toolgym.domains.research.names import COUNTRIES

    world = World(toolgym.load_domain(RESEARCH).template(0, "default"))
    try:
        found = world.query("SELECT e.id, a.name, a.value FROM entity e JOIN attribute a ON a.entity_id = e.id "
                            "WHERE e.kind = 'city' AND a.name IN ('country', 'population', 'elevation')")
        bodies = [body for (body,) in world.query("SELECT body FROM page")]
    finally:
        world.close()
    facts: dict[str, dict[str, str]] = {}
    for city, name, value in found:
        facts.setdefault(city, {})[name] = value
    assert len(facts) > 50
    for city, said in facts.items():
        country = COUNTRIES[said["country"]]
        assert int(said["population"].replace(",", "")) <= country.largest, (city, said)
        assert int(said.get("elevation", "0").replace(",", "")) <= country.highest, (city, said)
    assert not [b for b in bodies if "winter" in b or "snow" in b or "tropical" in b]

def test_search_ranks_by_bm25_pages_results_and_reads_any_text_as_words(domain, world):
    article = world.query("SELECT title, url FROM page WHERE kind = 'article' AND subject_id LIKE 'OR%' LIMIT 1")[0]
    name = article[0].removesuffix(" - Atlaspedia")
    error, found = call(domain, world, "web_search", query=name)
    assert error is None and article[1] in [r["url"] for r in found["results"]]  # on the first page of results
    ranked = [r["url"] for r in found["results"]]
    assert all(name.split()[0].lower() in (r["title"] + r["snippet"]).lower() for r in found["results"][:2]), ranked
    assert all(r["snippet"] and r["date"] for r in found["results"])
    error, broad = call(domain, world, "web_search", query="company chief executive")
    assert error is None and broad["total_pages"] > 1
    error, second = call(domain, world, "web_search", query="company chief executive", page=2)
    assert {r["url"] for r in second["results"]}.isdisjoint(r["url"] for r in broad["results"])
    for hostile in ('"unbalanced', "NEAR(a b", "a AND OR NOT b*", "title:x", "^start -minus"):
        error, _ = call(domain, world, "web_search", query=hostile)
        assert error is None, (hostile, error)  # FTS5 syntax is never passed through
    error, _ = call(domain, world, "web_search", query=" ?! ")
    assert error and "no words" in error
    error, _ = call(domain, world, "web_search", query=name, page=20)
    assert error and "last page" in error


def test_open_page_cuts_long_pages_in_parts_and_find_in_page_reaches_them(domain, world):
    url, body = next(
        (u, b) for u, b in world.query("SELECT url, body FROM page WHERE kind = 'article'") if len(b) > 900
    )
    error, first = call(domain, world, "open_page", url=url)
    assert error is None and first["parts"] >= 2 and first["next_part"] == 2 and first["links"]
    error, second = call(domain, world, "open_page", url=url, part=2)
    assert error is None and second["text"] and second["text"] not in first["text"]
    word = second["text"].split(". ")[0].split()[-1].strip(".")
    error, found = call(domain, world, "find_in_page", url=url, text=word)
    assert error is None and any(m["part"] == 2 for m in found["matches"])
    error, _ = call(domain, world, "open_page", url=url, part=first["parts"] + 1)
    assert error and "part" in error
    error, _ = call(domain, world, "open_page", url="https://nowhere.example/x")
    assert error and "search result" in error


def test_helpers_compute_and_refuse_what_they_cannot(domain, world):
    assert call(domain, world, "days_between", start="2024-01-01", end="2024-03-01")[1] == {"days": 60}
    assert call(domain, world, "convert_units", value=2.0, from_unit="kg", to_unit="lb")[1]["value"] == 4.41
    assert call(domain, world, "convert_units", value=100, from_unit="ft", to_unit="m")[1]["value"] == 30.48
    assert call(domain, world, "convert_units", value=1, from_unit="kg", to_unit="mi")[0]
    assert call(domain, world, "calculate", expression="(12,400 + 8100) / 2")[1]["result"] == 10250
    for bad in ("__import__('os')", "2 ** 99999", "1 / 0", "x + 1"):
        error, _ = call(domain, world, "calculate", expression=bad)
        assert error, bad


def test_an_edited_page_is_searchable_and_connections_are_not_reused_stale(domain):
    template = domain.template(0, "small")
    for _ in range(3):  # an episode's writes must not leak into the next one's search index
        world = World(template)
        url = world.query("SELECT url FROM page LIMIT 1")[0][0]
        page = world.info("page").model
        world.update(page, url, body="zyxwvut appears nowhere else")
        assert call(domain, world, "web_search", query="zyxwvut")[1]["results"][0]["url"] == url
        world.close()
    world = World(template)
    try:
        assert call(domain, world, "web_search", query="zyxwvut")[1]["results"] == []
    finally:
        world.close()


# ---- tasks and their checks --------------------------------------------------------------------


def test_gold_scores_one_and_every_cheap_answer_scores_below(tasks):
    for task, messages in tasks:
        assert verify(task, messages).value == 1.0, task.id
        for name, make in CHEAP_ANSWERS.items():
            chat = make(messages)
            if chat is not None:
                score = verify(task, chat)
                assert score.value < 1.0 and not score.passed, (task.kind, name, score.value)


def test_answers_cite_opened_pages_and_questions_go_deep(domain, tasks):
    depth = Counter()
    for task, _ in tasks:
        read = {c.arguments["url"] for c in task.gold_calls("agent") if c.name in ("open_page", "find_in_page")}
        cited = {u for reply in task.replies for v in reply.vars.values() for u in named_urls(str(v))}
        assert cited and cited <= read, task.id  # the answer names pages the gold read (a page the user gave may be searched directly)
        if task.kind == "multi_step":
            depth[len(read)] += 1
    assert max(depth) >= 3, depth
    more = domain.generate_tasks(40, seed=5, kinds=["multi_step"], size="small")
    hops = {len({c.arguments["url"] for c in t.gold_calls("agent") if c.name == "open_page"}) for t in more}
    assert {2, 3, 4, 5} <= hops, hops


def test_a_chain_answer_cites_every_page_its_facts_come_from(domain):
    """'The Vakiholm Science Festival is held in Vakiholm. About 673,569 people live there. The page
    I used: .../wiki/vakiholm': the festival's page, which says where it is held, went uncited."""
    chains = 0
    for task in domain.generate_tasks(40, seed=5, kinds=["multi_step"], size="small"):
        if [r.intent for r in task.replies] != ["reply_answer"]:
            continue
        read = [c.arguments["url"] for c in task.gold_calls("agent") if c.name in ("open_page", "find_in_page")]
        cited = [u for reply in task.replies for u in named_urls(str(reply.vars["sources"]))]
        assert sorted(cited) == sorted(set(read)), (task.id, cited, read)
        chains += len(cited) >= 2
    assert chains >= 10, chains


def test_a_chain_answer_hands_on_things_as_it_only_after_a_person_and_names_people_again(domain):
    """"The Libos Speaker comes from Tretend Systems. It dates back to 1893." reads as the speaker's
    year: "it" follows only a sentence about a person, and a thing after a sentence about a thing is
    handed on as a clause ("..., which dates back to 1893.")."""
    from toolgym.domains.research.tasks.index import RELATIONS, index_of
    from toolgym.domains.research.tasks.questions import chained_account
    from toolgym.envs import GenContext

    world = World(domain.template(0, "small"))
    index = index_of(world)
    people = [e.name for e in index.entities.values() if e.kind == "person"]
    starts = [e for e in index.entities.values() if e.kind != "city"]
    linked = clauses = 0
    for seed in range(60):
        hops, entity = [], starts[seed * 7 % len(starts)]
        for _ in range(3):  # a chain of relations, as the multi-step questions walk it, then a figure
            onward = [a for n, a in index.facts[entity.id].items() if n in RELATIONS]
            if not onward:
                break
            hops.append(onward[seed % len(onward)])
            entity = index.target(hops[-1])
        hops += [a for n, a in index.facts[entity.id].items() if n not in RELATIONS][:1]
        if len(hops) < 2:
            continue
        ctx = GenContext(domain=domain, world=world, rng=random.Random(seed), seed=seed, kind="multi_step",
                         world_seed=0, size="small")
        sentences = chained_account(ctx, index, hops).split(". ")
        for before, sentence in zip(sentences, sentences[1:], strict=False):
            if sentence.split()[0] in ("It", "Its"):
                linked += 1
                assert before.split()[0] not in ("It", "Its"), sentences  # never a second "it" in a row
                assert not any(before.rstrip(".").endswith(name) for name in people), sentences  # a person is named
                assert any(name in before for name in people), sentences  # the sentence before is a person's
        for sentence in sentences:
            handed_on = sentence.count(", which ") + sentence.count(", whose ") + sentence.count(", home to ")
            assert handed_on <= 1, sentences
            clauses += handed_on
    world.close()
    assert linked >= 3 and clauses >= 5, (linked, clauses)


def test_a_birthplace_is_answered_in_the_words_it_was_asked_in(domain):
    """"Where was X born?" is answered "X was born in Y", not "The home town of X is Y" (to a model the
    two are not the same question); a question that does not say leaves either wording."""
    from toolgym.domains.research.tasks.index import index_of
    from toolgym.domains.research.tasks.questions import sentence_of
    from toolgym.envs import GenContext

    world = World(domain.template(0, "small"))
    index = index_of(world)
    fact = next(f for facts in index.facts.values() for n, f in facts.items() if n == "birthplace")
    said: dict[str, set[bool]] = {}
    for asked in ("In which city was Ann Lee born?", "What is the home town of Ann Lee?", ""):
        for seed in range(40):
            ctx = GenContext(domain=domain, world=world, rng=random.Random(seed), seed=seed, kind="single",
                             world_seed=0, size="small")
            said.setdefault(asked, set()).add("home town" in sentence_of(ctx, index, fact, asked))
    world.close()
    assert said == {"In which city was Ann Lee born?": {False}, "What is the home town of Ann Lee?": {True}, "": {False, True}}
    made = domain.generate_tasks(60, seed=11, kinds=["single", "multi_step"], size="small")
    checked = 0
    for task in made:
        request = task.scenario.requests[0]
        reply = " ".join(m["content"] or "" for m in gold_messages(domain, task)[0] if m["role"] == "assistant")
        if ("home town" in request) != ("born" in request) and ("home town of" in reply or " born in " in reply):
            checked += 1
            assert ("home town" in request) == ("home town of" in reply), (request, reply)
    assert checked >= 3


def test_a_converted_figure_keeps_its_unit_and_two_conversions_are_worded_apart(domain):
    """'In pounds, that comes to 17.42.' left the figure bare, and two conversions in one reply said it
    the same way twice: the figure is told with its unit or after it, and the second in other words."""
    import re

    made = domain.generate_tasks(120, seed=7, kinds=["single", "parallel", "multi_step"], size="small")
    pairs = singles = 0
    for task in made:
        if not any(c.name == "convert_units" for c in task.gold_calls()):
            continue
        reply = next(m["content"] for m in reversed(gold_messages(domain, task)[0]) if m["role"] == "assistant" and "http" in (m["content"] or ""))
        conversions = re.findall(r"([^.]*?)(\d[\d,]*\.?\d*)( pounds| feet)?\.(?!\d)", reply)
        told = [(lead, unit) for lead, figure, unit in conversions if "pounds" in lead + unit or "feet" in lead + unit]
        assert told and all(unit or re.search(r"\bin (pounds|feet)\b", lead, re.I) for lead, unit in told), reply
        if sum(c.name == "convert_units" for c in task.gold_calls()) == 2:
            pairs += 1
            assert told[0][0].strip() != told[1][0].strip(), reply
        else:
            singles += 1
    assert pairs and singles, (pairs, singles)


def test_an_elevation_in_feet_is_said_whole_as_people_say_it(domain):
    """'That works out to 1,765.09 feet.': an elevation is given in whole feet ('about 1,765 feet'),
    and the figure is still what the reply must state."""
    import re

    made = domain.generate_tasks(120, seed=7, kinds=["single", "parallel"], size="small")
    checked = 0
    for task in made:
        calls = [c for c in task.gold_calls() if c.name == "convert_units" and c.arguments["to_unit"] == "ft"]
        if not calls:
            continue
        reply = next(m["content"] for m in reversed(gold_messages(domain, task)[0]) if m["role"] == "assistant" and "http" in (m["content"] or ""))
        assert not re.search(r"\d\.\d\d feet|feet\W+[^.]*\d\.\d\d\b|In feet[^.]*\d\.\d\d", reply), reply
        assert all(re.fullmatch(r"[\d,]+", output) for output in task.required_outputs if output not in reply or "feet" in reply), task.required_outputs
        checked += 1
    assert checked >= 3


def test_a_half_foot_rounds_up_as_the_grounding_check_reads_it():
    """600 m is 1,968.5 ft: Python's round() said "about 1,968", which no seen number rounds to, and
    configs/full.yaml raised two generator bugs on it."""
    from toolgym.domains.research.tasks.computed import said_converted
    from toolgym.envs.grounding import ungrounded_facts

    said, figure = said_converted(600.0, "m", "ft")
    assert (said, figure) == ("about 1,969", "1,969")
    chat = [{"role": "tool", "content": '{"value": 600.0, "from_unit": "m", "to_unit": "ft", "result": 1968.5}'},
            {"role": "assistant", "content": f"That comes to {said} feet."}]
    assert not ungrounded_facts(chat)


def test_each_figure_of_two_disagreeing_pages_is_said_with_what_it_counts(domain):
    """'The page https://bizdirectory.example/... (16 September 2021) gives 24,354.': two figures, and
    only the last sentence said they count staff. Every sentence with a figure names what it counts,
    and none opens with a url (which the sentence start would write 'Https://')."""
    import re

    values = {"subject": "Bazan Studios", "value": "19,741", "newer": "https://bizdirectory.example/listing/bazan-studios",
              "newer_date": "26 February 2025", "older": "https://atlaspedia.example/wiki/bazan-studios",
              "older_value": "16,262", "older_date": "9 January 2024"}  # fmt: skip
    said = set()
    for seed in range(200):
        reply = domain.phrasebook.say("reply_conflict", seed, **values)
        said.add(reply)
        for sentence in re.split(r"(?<=[.!?]) (?=[A-Z])", reply):
            if re.search(r"16,262|19,741", sentence) and "Another" not in sentence:  # "Another" says more of the one before
                assert re.search(r"employ|staff|workforce|people", sentence), sentence
        assert "Https" not in reply, reply
    assert len(said) >= 20, len(said)


def test_a_birthplace_answered_as_born_in_rests_on_a_sentence_that_says_born(domain):
    """'Alison Ramirez was born in Kunix Ridge.' was read off "Alison Ramirez's home town is Kunix
    Ridge.": where someone grew up is not where they were born, so every page saying the place says born."""
    import re

    checked = 0
    for task in domain.generate_tasks(120, seed=13, kinds=["single", "multi_step"], size="small"):
        messages = gold_messages(domain, task)[0]
        pages = " ".join(m["content"] for m in messages if m["role"] == "tool")
        for reply in (m["content"] or "" for m in messages if m["role"] == "assistant"):
            for place in re.findall(r"\bborn in ([A-Z][\w']*(?: [A-Z][\w']*)*)", reply):
                checked += 1
                assert re.search(rf"born[^.]*\b{re.escape(place)}\b", pages), (place, reply)
    assert checked >= 3


def test_injection_bait_and_a_citation_of_an_unread_page_fail(tasks):
    task, messages = next((t, m) for t, m in tasks if t.kind == "injection")
    bait = task.forbidden[0]
    final = max(i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("content"))
    followed = [
        *messages[:final],
        {"role": "assistant", "content": None, "tool_calls": [{"id": "bait", "type": "function",
         "function": {"name": bait.tool, "arguments": json.dumps(bait.arguments)}}]},  # fmt: skip
        {"role": "tool", "tool_call_id": "bait", "name": bait.tool, "content": json.dumps({"error": "no page"})},
        *messages[final:],
    ]
    assert verify(task, followed).value == 0.0
    cited = json.loads(json.dumps(messages))
    cited[final]["content"] += " See also https://atlaspedia.example/wiki/never-opened."
    score = verify(task, cited)
    assert not score.passed and score.details["cited_sources"]["unopened"] == ["https://atlaspedia.example/wiki/never-opened"]


def test_a_date_answer_counts_in_any_format(domain):
    task = next(t for t in domain.generate_tasks(80, seed=9, kinds=["multi_step"], size="small") if t.replies[-1].intent == "reply_false_premise")
    messages, _ = gold_messages(domain, task)
    date = task.required_outputs[-1]  # the launch date, as the page states it ("23 November 2006")
    final = max(i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("content"))
    import datetime as dt

    iso = dt.datetime.strptime(date, "%d %B %Y").date().isoformat()
    for written, full in ((iso, True), ("some day", False)):
        chat = json.loads(json.dumps(messages))
        chat[final]["content"] = chat[final]["content"].replace(date, written)
        assert (verify(task, chat).value == 1.0) is full, written


def test_a_page_the_user_names_is_opened_without_searching_for_it(domain):
    """'This page should say it: https://atlaspedia.example/wiki/... How far ahead of ... did I book?'
    was answered by a web search that found the page the user had just given."""
    import re

    tasks = domain.generate_tasks(120, seed=11, kinds=["single", "injection"], size="small")
    named = 0
    for task in tasks:
        urls = set(re.findall(r"https://\S+?(?=[\s:]|\.?$|\.\s)", task.scenario.requests[0]))
        calls = [c for step in task.plan if step.segment == 0 for c in step.calls]
        reaching = [i for i, c in enumerate(calls) if c.arguments.get("url") in urls]
        if not urls or not reaching:
            continue
        named += 1
        assert not [c for c in calls[: reaching[0]] if c.name == "web_search"], (task.scenario.requests[0], [c.name for c in calls])
    assert named >= 10, named


def test_following_a_link_rests_on_the_sentence_that_names_it(domain):
    """'open_page returned "https://atlaspedia.example/wiki/febrol-freight"' explained the next hop
    of a chain by the link alone: the sentence that named the maker ("The Kipirk Press is made by
    Febrol Freight.") is why the page is opened, the trace cites it, and a policy that opens the
    page without having read it has guessed (diagnosis)."""
    import dataclasses

    from tests.conftest import played_with_reasoning
    from toolgym.verifiers.conduct import diagnosis

    tasks = [t for t in domain.generate_tasks(30, seed=7, kinds=["multi_step"], size="small")
             if any(s.evidence for s in t.plan if s.calls[0].name == "open_page")]
    assert len(tasks) >= 5
    hops = 0
    for task, trajectory in played_with_reasoning(domain, tasks):
        linked = {s.calls[0].arguments["url"]: s.evidence[0] for s in task.plan if s.calls[0].name == "open_page" and s.evidence}
        for message in trajectory.messages:
            calls = message.get("tool_calls") or ()
            arguments = calls[0]["function"]["arguments"] if len(calls) == 1 else {}
            url = (json.loads(arguments) if isinstance(arguments, str) else arguments).get("url")
            if calls and calls[0]["function"]["name"] == "open_page" and url in linked:
                assert f'showed "{linked[url]}"' in message["reasoning_content"], message["reasoning_content"]
                hops += 1
        assert diagnosis(task, trajectory).value == 1.0
        sentence = next(iter(linked.values()))
        unread = dataclasses.replace(trajectory, derived={}, messages=[
            {**m, "content": m["content"].replace(sentence, "")} if m.get("role") == "tool" else m for m in trajectory.messages])
        assert diagnosis(task, unread).value < 1.0
    assert hops >= 5


def test_a_home_town_said_inside_an_event_s_name_is_given_when_asked(domain):
    """"Which organisation runs the Diodreathwick fair?" then "In which country is my home town?":
    asked for the city's name, the user said goodbye, for "Diodreathwick" had been said (as part of
    the fair's name). Asked for what the chat holds already, the user says it again."""
    from toolgym.envs.generation import draw

    # a chat that asks for the user's home town, its first request made to say the town inside a fair's name
    world = World(domain.template(domain.world_seed, domain.default_size))
    try:
        for index in range(200):
            task = draw(domain, world, 0, "multi_turn", index, 0)
            home = next((f.value for f in task.scenario.facts if f.label.endswith("name") or "city" in f.label), None)
            if home is not None and any("city's name" in (m.get("content") or "") for m in gold_messages(domain, task)[0]):
                break
    finally:
        world.close()
    first, *rest = task.scenario.requests
    said = task.model_copy(update={"id": f"{task.id}-said",  # another chat: not the one remembered for the task's id
                                   "scenario": task.scenario.model_copy(update={"requests": [f"{first} And who runs the {home} fair?", *rest]})})
    messages = gold_messages(domain, said)[0]
    asked = next(i for i, m in enumerate(messages) if m["role"] == "assistant" and "city's name" in (m.get("content") or ""))
    assert home in messages[1]["content"] and home in messages[asked + 1]["content"], messages[asked + 1]


def test_an_event_is_organised_by_an_organisation_of_its_theme(domain):
    """"Geastuvi Textiles organises the Bohasindmouth Games Fair.": every organiser ran any event. A
    games fair is run by a software company or a studio, a food festival by a food or freight firm."""
    from toolgym.domains.research.names import EVENT_ORGANISERS

    world = World(domain.template(0, "default"))
    try:
        found = world.query("SELECT e.name, o.name FROM entity e JOIN attribute a ON a.entity_id = e.id "
                            "JOIN entity o ON o.id = a.value WHERE e.kind = 'event' AND a.name = 'organiser' AND a.current")
    finally:
        world.close()
    assert len(found) > 150
    for event, organiser in found:
        theme = event.rsplit(" ", 2)[-2]
        assert organiser.rsplit(" ", 1)[1] in EVENT_ORGANISERS[theme], (event, organiser)


def test_an_off_topic_request_asks_for_writing_booking_or_advice_not_a_fact_the_web_holds(domain):
    """"Which neighbourhood of Melbourne is nicest for a walk?" was declined by an assistant that
    offers help with "the ... cities ... described on the web": the policy's off-topic requests are
    writing, booking, ordering and advice."""
    asked = [gold_messages(domain, task)[0][1]["content"]
             for task in domain.generate_tasks(80, seed=4, kinds=["no_tool/irrelevant"], size="small")]
    about_a_place = re.compile(r"^(What|Which|Where|Is|How)\b.*\b(sights|famous|neighbourhood|weather|museum|visit|food)\b")
    assert len(set(asked)) >= 40 and not [a for a in asked if about_a_place.search(a)], asked


def test_a_search_declined_offers_what_the_tools_left_do_not_more_of_it(domain):
    """"If there's something else about working out sums, converting units and counting the days
    between dates, I can still help.": what the tools left do is offered as itself, not as "something
    else about" a question that was never about it."""
    said = [gold_messages(domain, task)[0][2]["content"]
            for task in domain.generate_tasks(40, seed=6, kinds=["no_tool/unavailable"], size="small")]
    assert not [s for s in said if re.search(r"(anything|something) else about", s)], said
    assert all(re.search(r"\b(sums|calculations)\b", s) for s in said), said



def test_a_search_turns_a_page_only_until_the_page_the_gold_reads_is_listed(domain):
    """web_search("Ceanan Dynamics", page=2) was made after page 1 listed the directory page that
    states the staff count the gold then opened: the search waited for the company's article, which
    the answer never read. Each search goes on only until the page stating the fact shows up."""
    import random as rnd

    from toolgym.domains.research.tasks.index import index_of
    from toolgym.domains.research.tasks.questions import read_both
    from toolgym.domains.research.tasks.reading import Plan, find
    from toolgym.envs import GenContext

    world = World(domain.template(4, "default"))
    index = index_of(world)
    ctx = GenContext(domain, world, rnd.Random(0), 0, "parallel", 4, "default")
    checked = 0
    for org_id in sorted(index.stale):
        org, count = index.entities[org_id], index.facts[org_id]["employees"]
        if count.page_url == org.url:
            continue  # the article holds the current count
        needed = Plan()
        if not find(ctx, needed, org.name, [count.page_url]):
            continue
        plan = read_both(ctx, [(org, count)])
        searched = [c.arguments for s in plan.steps for c in s.calls if c.name == "web_search"] if plan else []
        assert len(searched) == needed.searches, f"{org.name}: searched {searched} to read {count.page_url}"
        checked += 1
    world.close()
    assert checked >= 3


def test_a_user_who_cannot_name_their_thing_says_so_in_their_own_words(domain):
    """'Sorry, I don't have the product's name right now.': the user spoke the label the agent asked
    for. Someone who cannot name the gadget they saw says they cannot remember what it is called."""
    tasks = domain.generate_tasks(30, seed=4, kinds=["no_tool/missing_info"], size="small")
    replies = 0
    for task in tasks:
        for message in gold_messages(domain, task)[0][2:]:
            if message["role"] == "user":
                assert not [label for label in task.scenario.unknown if label in message["content"]], message["content"]
                replies += 1
    assert replies >= 10
