"""Full-text search in the engine (envs/full_text.py): FTS5 inside the world's own SQLite image."""

from __future__ import annotations

import datetime as dt

import pytest

from toolgym.domains.research.tables import Attribute, Entity, Link, Page
from toolgym.envs import World
from toolgym.envs.full_text import match_expression, search
from toolgym.envs.world import WorldTemplate
from toolgym.errors import DomainError, ToolError

TABLES = [Page, Link, Entity, Attribute]


def _page(url: str, title: str, body: str) -> tuple:
    return (Page, {"url": url, "site": "x.example", "title": title, "published": dt.date(2024, 1, 1), "kind": "article", "body": body})


def _template(full_text) -> WorldTemplate:
    rows = [
        _page("https://x.example/a", "Kettles", "A kettle boils water. Kettles are common."),
        _page("https://x.example/b", "Lamps", "A lamp gives light; one kettle is mentioned."),
        _page("https://x.example/c", "Tents", "Nothing about it here."),
    ]
    return WorldTemplate.build(domain="t", seed=0, size="small", now=dt.datetime(2025, 1, 1), tables=TABLES,
                               rows=rows, full_text=full_text)  # fmt: skip


def test_search_ranks_matches_and_counts_them():
    world = World(_template({"page": ("title", "body")}))
    try:
        hits, total = search(world, "page", "kettle", key="url", snippet_column=1, limit=10)
        assert total == 2 and [h.key for h in hits] == ["https://x.example/a", "https://x.example/b"]
        assert "kettle" in hits[0].snippet.lower()
        hits, total = search(world, "page", "kettle", key="url", snippet_column=1, limit=1, offset=1)
        assert total == 2 and [h.key for h in hits] == ["https://x.example/b"]
    finally:
        world.close()


def test_a_search_is_remembered_per_built_world_until_an_episode_writes_the_table():
    template = _template({"page": ("title", "body")})
    first, second = World(template), World(template)
    try:
        found = search(first, "page", "kettle", key="url", snippet_column=1, limit=10)
        assert len(template.reads) == 1
        assert search(second, "page", "kettle", key="url", snippet_column=1, limit=10) == found
        found[0].clear()  # a caller's list is its own
        assert len(search(second, "page", "kettle", key="url", snippet_column=1, limit=10)[0]) == 2
        # a page edited in one episode's setup: that episode searches its own rows, the other the built world's
        second.update(Page, "https://x.example/c", body="A kettle in a tent.")
        second.mark_baseline()  # the edit is the task's setup: no longer a change, still not the built world
        hits, total = search(second, "page", "kettle", key="url", snippet_column=1, limit=10)
        assert total == 3 and "https://x.example/c" in [h.key for h in hits]
        assert search(first, "page", "kettle", key="url", snippet_column=1, limit=10)[1] == 2
        assert len(template.reads) == 1
    finally:
        first.close()
        second.close()


def test_with_full_text_only_connections_of_episodes_that_wrote_nothing_are_reused():
    template = _template({"page": ("title", "body")})
    reader = World(template)
    search(reader, "page", "kettle", key="url", snippet_column=1, limit=10)
    reader.close()
    assert len(template.idle) == 1  # read only: its FTS5 cache still matches the built world
    for body in ("A kettle in a tent.", "A tent and no kettle."):
        writer = World(template)  # takes the idle connection
        writer.update(Page, "https://x.example/c", body=body)
        assert search(writer, "page", "tent", key="url", snippet_column=1, limit=10)[1] >= 1
        writer.close()
        assert template.idle == []  # wrote to an indexed table: closed, not rolled back for the next
    fresh = World(template)
    try:  # a new connection reads the built index, with no stale cache
        assert search(fresh, "page", "tents", key="url", snippet_column=1, limit=10)[1] == 1
    finally:
        fresh.close()


def test_queries_are_words_never_fts5_syntax():
    assert match_expression('Kettle AND "lamp" NEAR(x*') == '"kettle" OR "and" OR "lamp" OR "near" OR "x"'
    with pytest.raises(ToolError, match="no words"):
        match_expression("*** ??")


def test_a_bad_declaration_names_what_is_wrong():
    with pytest.raises(DomainError, match="not one of the domain's tables"):
        _template({"pages": ("body",)})
    with pytest.raises(ValueError, match="must be some of"):
        _template({"page": ("text",)})
