"""Full-text search over a domain table with SQLite's own FTS5 index (BM25 ranking, snippets).

A domain names the text columns to index: `Domain(full_text={"page": ("title", "body")})`. The
world's template then holds an external-content FTS5 table `<table>_fts` over those columns (no
second copy of the text), built once with the world and copied into every episode with the rest
of the image; triggers keep it in step with writes (an injected page edit is searchable).
`search(world, table, query, ...)` ranks rows by BM25 and cuts a snippet around the matched words.

A user's or a model's query is free text, never FTS5 syntax: it is split into words, each quoted,
and joined with OR, so punctuation, `AND`, `NEAR` or a stray quote cannot break or steer the query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolgym.errors import ToolError

if TYPE_CHECKING:
    from .world import World

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_QUERY_WORDS = 32  # a pasted paragraph is cut here: BM25 over more words ranks no better
MAX_REMEMBERED_READS = 4096  # searches remembered per built world (a few KB each)


def fts_table(table: str) -> str:
    return f"{table}_fts"


def full_text_ddl(table: str, columns: Sequence[str], table_columns: Sequence[str]) -> list[str]:
    """The statements that create and fill `<table>_fts` over `columns` of `table`, and keep it in step."""
    unknown = [c for c in columns if c not in table_columns]
    if not columns or unknown:
        raise ValueError(f"full_text columns of table {table!r} must be some of {list(table_columns)}, got {list(columns)}")
    fts = fts_table(table)
    cols = ", ".join(f'"{c}"' for c in columns)
    new = ", ".join(f'new."{c}"' for c in columns)
    old = ", ".join(f'old."{c}"' for c in columns)
    delete = f"INSERT INTO \"{fts}\"(\"{fts}\", rowid, {cols}) VALUES('delete', old.rowid, {old});"
    insert = f'INSERT INTO "{fts}"(rowid, {cols}) VALUES (new.rowid, {new});'
    return [
        f"CREATE VIRTUAL TABLE \"{fts}\" USING fts5({cols}, content='{table}', content_rowid='rowid')",
        f"INSERT INTO \"{fts}\"(\"{fts}\") VALUES('rebuild')",
        f'CREATE TRIGGER "{fts}_ai" AFTER INSERT ON "{table}" BEGIN {insert} END',
        f'CREATE TRIGGER "{fts}_ad" AFTER DELETE ON "{table}" BEGIN {delete} END',
        f'CREATE TRIGGER "{fts}_au" AFTER UPDATE ON "{table}" BEGIN {delete} {insert} END',
    ]


def match_expression(query: str) -> str:
    """Free text as an FTS5 query: every word quoted, joined with OR (BM25 ranks rows matching more)."""
    words = _WORD.findall(query.lower())[:MAX_QUERY_WORDS]
    if not words:
        raise ToolError(f"the search query {query!r} has no words to search for; give a few keywords")
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


@dataclass(frozen=True)
class Hit:
    key: str
    rank: float
    snippet: str


def search(
    world: World,
    table: str,
    query: str,
    *,
    key: str,
    snippet_column: int,
    limit: int,
    offset: int = 0,
    snippet_words: int = 16,
) -> tuple[list[Hit], int]:
    """Rows of `table` ranked by BM25 for `query`: (one page of hits, total matches).

    `key` is the column that names a row (the hit's key); `snippet_column` the index, among the
    indexed columns, of the column to cut the snippet from; ties in rank are broken by the key."""
    fts = fts_table(table)
    expression = match_expression(query)
    # BM25 over a query of common words ranks nearly every row (~2 ms): an episode that has not
    # written to the table gets the built world's answer, computed once per template
    reads = None if world.wrote(table) else world.template.reads
    asked = ("full_text", table, expression, key, snippet_column, limit, offset, snippet_words)
    if reads is not None and (known := reads.get(asked)) is not None:
        return list(known[0]), known[1]
    total = world.query(f'SELECT COUNT(*) FROM "{fts}" WHERE "{fts}" MATCH ?', [expression])[0][0]
    rows = world.query(
        f'SELECT t."{key}", bm25("{fts}") AS rank, snippet("{fts}", ?, \'\', \'\', \' … \', ?) '
        f'FROM "{fts}" JOIN "{table}" AS t ON t.rowid = "{fts}".rowid '
        f'WHERE "{fts}" MATCH ? ORDER BY rank, t."{key}" LIMIT ? OFFSET ?',
        [snippet_column, snippet_words, expression, limit, offset],
    )
    hits = [Hit(str(k), float(r), s.strip()) for k, r, s in rows]
    if reads is not None:
        if len(reads) >= MAX_REMEMBERED_READS:
            reads.clear()
        reads[asked] = (tuple(hits), int(total))
    return hits, int(total)
