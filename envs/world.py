"""The state of one episode: a private SQLite database copied from a per-world template.

A template is built once per (domain, world seed, size) and kept as a serialized SQLite image;
every episode gets its own copy: a connection holding the image, whose writes are rolled back
when the episode closes (the image is copied in, ~0.2 ms, only for a new connection). Tools read
and write through the World, which logs every row change. From that log come `diff()` and an order-independent state hash
that is updated per change, so verifying costs O(changes) rather than O(world).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlmodel import SQLModel

from toolgym.errors import DomainError, ToolError

from .diff import Change, Diff
from .full_text import full_text_ddl
from .tables import TableInfo, row_values

M = TypeVar("M", bound=SQLModel)

_HASH_MOD = 1 << 128
_IDLE_CONNECTIONS = 16
COUNTER_TABLE = "_toolgym_counters"
_TRAILING_DIGITS = re.compile(r"\d+$")


def row_hash(table: str, row: tuple[Any, ...]) -> int:
    """The hash of one stored row; the state hash is the sum of these over all rows."""
    digest = hashlib.blake2b(repr((table, row)).encode(), digest_size=16).digest()
    return int.from_bytes(digest, "little")


def format_hash(value: int) -> str:
    return f"{value:032x}"


@dataclass(frozen=True)
class WorldTemplate:
    """A built world: the SQLite image every episode of it starts from."""

    domain: str
    seed: int
    size: str
    now: dt.datetime
    image: bytes
    state_hash: int
    tables: dict[str, TableInfo]
    # Connections of closed episodes, reused: a connection that has read this schema before
    # answers its first query in a few µs instead of ~60 µs.
    idle: list[sqlite3.Connection] = field(default_factory=list, repr=False, compare=False)
    highest_ids: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    # FTS5 caches an index's structure per connection; a connection whose episode wrote to an
    # indexed table would read a stale cache once rolled back ("database disk image is malformed"),
    # so with full-text tables only connections of episodes that wrote nothing are reused.
    reuse_connections: bool = True
    # Answers to costly reads of the built world (full-text searches), for episodes that have not
    # written to the tables read: the generator, the replay and the proof ask the same ones.
    reads: dict[tuple, Any] = field(default_factory=dict, repr=False, compare=False)

    def connection(self) -> sqlite3.Connection:
        """A connection holding the built world, inside a transaction that keeps an episode's writes.

        A connection given back (`release`) has its transaction rolled back, which restores the
        built world in a few µs; copying the image in (`deserialize`) costs ~0.2 ms for 1-2 MB.
        """
        try:
            conn = self.idle.pop()
        except IndexError:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            conn.deserialize(self.image)
        conn.execute("BEGIN")
        return conn

    def highest_id(self, table: str) -> int:
        """The highest number among the built rows' keys of a one-key table (0 if none)."""
        found = self.highest_ids.get(table)
        if found is None:
            info = self.tables[table]
            found = 0
            if len(info.key) == 1:
                conn = self.connection()
                try:
                    for (key,) in conn.execute(f'SELECT "{info.key[0]}" FROM "{table}"'):
                        digits = _TRAILING_DIGITS.search(str(key))
                        if digits:
                            found = max(found, int(digits.group()))
                finally:
                    self.release(conn, wrote=False)
            self.highest_ids[table] = found  # the same for every caller: a race only repeats the work
        return found

    def release(self, conn: sqlite3.Connection, wrote: bool = True) -> None:
        """Take a connection back: its writes are rolled back, so it holds the built world again.

        One whose transaction ended some other way (a COMMIT) may hold other rows: it is closed.
        wrote: whether the episode wrote to a table (see `reuse_connections`)."""
        reusable = self.reuse_connections or not wrote
        if reusable and conn.in_transaction and len(self.idle) < _IDLE_CONNECTIONS:
            conn.execute("ROLLBACK")
            self.idle.append(conn)
        else:
            conn.close()

    @classmethod
    def build(
        cls,
        *,
        domain: str,
        seed: int,
        size: str,
        now: dt.datetime,
        tables: Iterable[type[SQLModel]],
        rows: Iterable[Any],
        full_text: Mapping[str, Sequence[str]] | None = None,
    ) -> WorldTemplate:
        infos = {info.name: info for info in map(TableInfo.of, tables)}
        by_model = {info.model: info for info in infos.values()}
        conn = sqlite3.connect(":memory:", isolation_level=None)
        for info in infos.values():
            for statement in info.ddl():
                conn.execute(statement)
        conn.execute(f"CREATE TABLE {COUNTER_TABLE} (name TEXT PRIMARY KEY, value INTEGER NOT NULL)")
        batches: dict[str, list[tuple[Any, ...]]] = {name: [] for name in infos}
        for row in rows:
            # A row is a table instance, or (TableClass, values) which skips building the instance.
            model, values = row if isinstance(row, tuple) else (type(row), row)
            row_info = by_model.get(model)
            if row_info is None:
                raise DomainError(f"build_world yielded a {getattr(model, '__name__', model)}, which is not one of the domain's tables")
            batches[row_info.name].append(row_info.store(row_values(values)))
        conn.execute("BEGIN")
        for name, batch in batches.items():
            try:
                conn.executemany(infos[name].insert, batch)
            except sqlite3.IntegrityError as exc:
                raise DomainError("build_world: " + _first_bad_row(infos[name], batch, exc)) from None
        conn.execute("COMMIT")
        for name, columns in (full_text or {}).items():
            if name not in infos:
                raise DomainError(f"full_text names table {name!r}, which is not one of the domain's tables: {sorted(infos)}")
            for statement in full_text_ddl(name, columns, infos[name].columns):
                conn.execute(statement)
        total = 0
        for name, info in infos.items():
            columns = ", ".join(f'"{c}"' for c in info.columns)
            for row in conn.execute(f'SELECT {columns} FROM "{name}"'):
                total += row_hash(name, row)
        image = conn.serialize()
        conn.close()
        return cls(domain, seed, size, now, image, total % _HASH_MOD, infos, reuse_connections=not full_text)

    @classmethod
    def from_image(
        cls,
        *,
        domain: str,
        seed: int,
        size: str,
        now: dt.datetime,
        tables: Iterable[type[SQLModel]],
        image: bytes,
        state_hash: int,
        full_text: Mapping[str, Sequence[str]] | None = None,
    ) -> WorldTemplate:
        """A world built before (its image and state hash, as `build` made them), e.g. read from disk."""
        infos = {info.name: info for info in map(TableInfo.of, tables)}
        return cls(domain, seed, size, now, image, state_hash % _HASH_MOD, infos, reuse_connections=not full_text)


def _first_bad_row(info: TableInfo, batch: list[tuple[Any, ...]], error: sqlite3.IntegrityError) -> str:
    """Find the row of a failed batch insert (on a scratch copy of the table) and explain it."""
    scratch = sqlite3.connect(":memory:", isolation_level=None)
    try:
        for statement in info.ddl():
            scratch.execute(statement)
        for stored in batch:
            try:
                scratch.execute(info.insert, stored)
            except sqlite3.IntegrityError as exc:
                return explain_constraint(info, stored, exc)
    finally:
        scratch.close()
    return explain_constraint(info, batch[0], error)


class World:
    """One episode's state. Tools receive it as their first argument."""

    def __init__(self, template: WorldTemplate):
        self.template = template
        self.now = template.now
        self.conn = template.connection()
        self._tables = template.tables
        self._by_model = {info.model: info for info in template.tables.values()}
        self._hash = template.state_hash
        self._log: list[Change] = []
        self._written: set[str] = set()  # tables written since the episode began, setup included
        self._writer: str | None = None  # name of the write tool running, or None
        self._read_only_tool: str | None = None  # name of the read tool running, or None
        self._select_sql: dict[tuple, str] = {}
        # What the conversation has established that is not world state (who proved their
        # identity): tools may read and set it; it is not hashed, not in the diff, gone with the episode.
        self.session: dict[str, Any] = {}

    # ---- reads -------------------------------------------------------------------------
    def info(self, model: type[SQLModel] | str) -> TableInfo:
        try:
            return self._tables[model] if isinstance(model, str) else self._by_model[model]
        except KeyError:
            name = model if isinstance(model, str) else model.__name__
            raise DomainError(f"{name} is not a table of domain {self.template.domain!r}") from None

    def get(self, model: type[M], key: Any) -> M | None:
        """The row with this primary key as a plain model, or None."""
        info = self._by_model.get(model) or self.info(model)  # type: ignore[call-overload]
        try:
            row = self.conn.execute(info.select_by_key, info.key_tuple(key)).fetchone()
        except (UnicodeEncodeError, OverflowError):  # a key no stored row can have (lone surrogate, huge int)
            return None
        return None if row is None else info.as_model(row)  # type: ignore[return-value]

    def require(self, model: type[M], key: Any, what: str | None = None) -> M:
        """Like `get`, but a missing row is a ToolError the model can read."""
        found = self.get(model, key)
        if found is None:
            raise ToolError(f"{what or self.info(model).name} {key!r} not found")
        return found

    def select(
        self,
        model: type[M],
        where: dict[str, Any] | None = None,
        *,
        order_by: str | Iterable[str] | None = None,
        limit: int | None = None,
    ) -> list[M]:
        """Rows whose columns equal the given values, as plain models."""
        info = self.info(model)
        return [info.as_model(row) for row in self._select_rows(info, where, order_by, limit)]  # type: ignore[misc]

    def count(self, model: type[SQLModel], where: dict[str, Any] | None = None) -> int:
        info = self.info(model)
        where = where or {}
        sql = self._sql(("count", info.name, _where_shape(where)), lambda: f'SELECT COUNT(*) FROM "{info.name}"' + _where(where))
        return self.conn.execute(sql, _where_params(info, where)).fetchone()[0]

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        """A raw read for what `select` cannot say (joins, ranges). Writes are refused."""
        head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
        if head not in ("SELECT", "WITH"):
            raise DomainError(f"World.query only reads; use insert/update/delete to write (got {head!r})")
        return self.conn.execute(sql, tuple(params)).fetchall()

    def _select_rows(self, info: TableInfo, where, order_by, limit) -> list[tuple[Any, ...]]:
        where = where or {}
        order = (order_by,) if isinstance(order_by, str) else tuple(order_by or info.key)
        cache_key = ("select", info.name, _where_shape(where), order, limit is not None)

        def build() -> str:
            cols = ", ".join(f'"{c}"' for c in info.columns)
            sql = f'SELECT {cols} FROM "{info.name}"' + _where(where)
            sql += " ORDER BY " + ", ".join(f'"{c}"' for c in order)
            return sql + (" LIMIT ?" if limit is not None else "")

        params = _where_params(info, where)
        if limit is not None:
            params.append(limit)
        return self.conn.execute(self._sql(cache_key, build), params).fetchall()

    def _sql(self, key: tuple, build) -> str:
        sql = self._select_sql.get(key)
        if sql is None:
            sql = self._select_sql[key] = build()
        return sql

    # ---- writes ------------------------------------------------------------------------
    def insert(self, model: type[M], row: Any) -> M:
        info = self.info(model)
        self._check_writable(info.name)
        stored = info.store(row_values(row))
        try:
            self.conn.execute(info.insert, stored)
        except sqlite3.IntegrityError as exc:
            raise DomainError(explain_constraint(info, stored, exc)) from None
        self._record(info, info.key_of_row(stored), None, stored)
        return info.as_model(stored)  # type: ignore[return-value]

    def update(self, model: type[M], key: Any, **changes: Any) -> M:
        """Set columns of one row; returns the row after the change."""
        info, key_values, before = self._existing_row(model, key)
        after = list(before)
        for column, value in changes.items():
            stored = info.store_value(column, value)  # raises for an unknown column
            after[info.index_of[column]] = stored
        after_row = tuple(after)
        if after_row != before:
            names = list(changes)
            sql = self._sql(
                ("update", info.name, tuple(names)),
                lambda: f'UPDATE "{info.name}" SET '
                + ", ".join(f'"{c}" = ?' for c in names)
                + " WHERE "
                + " AND ".join(f'"{k}" = ?' for k in info.key),
            )
            self.conn.execute(sql, [after_row[info.index_of[c]] for c in names] + list(key_values))
            self._record(info, key_values, before, after_row)
        return info.as_model(after_row)  # type: ignore[return-value]

    def delete(self, model: type[SQLModel], key: Any) -> None:
        info, key_values, before = self._existing_row(model, key)
        self.conn.execute(info.delete, key_values)
        self._record(info, key_values, before, None)

    def _existing_row(self, model: type[SQLModel], key: Any) -> tuple[TableInfo, tuple[Any, ...], tuple[Any, ...]]:
        """The table, stored key and current row of a row about to change (it must exist)."""
        info = self.info(model)
        self._check_writable(info.name)
        key_values = info.key_tuple(key)
        row = self.conn.execute(info.select_by_key, key_values).fetchone()
        if row is None:
            raise ToolError(f"{info.name} {key!r} not found")
        return info, key_values, row

    def new_id(self, counter: str, start: int = 1, *, table: str | None = None) -> int:
        """The next number of a named counter: deterministic, part of the episode's copy.

        When the counter names a table (or `table=` does), the first number is past the numbers
        of that table's built rows (an integer key, or the digits that end a text key such as
        'PAY00042'), so new rows never collide with built ones; `start` is a lower bound.
        """
        self._check_writable(COUNTER_TABLE)
        row = self.conn.execute(f"SELECT value FROM {COUNTER_TABLE} WHERE name = ?", (counter,)).fetchone()
        if row is None:
            name = table or counter
            if table is not None and table not in self._tables:
                raise DomainError(f"new_id({counter!r}, table={table!r}): no such table; tables: {sorted(self._tables)}")
            value = max(start, self.template.highest_id(name) + 1) if name in self._tables else start
        else:
            value = row[0] + 1
        self.conn.execute(f"INSERT OR REPLACE INTO {COUNTER_TABLE} (name, value) VALUES (?, ?)", (counter, value))
        self._written.add(COUNTER_TABLE)
        return value

    def _check_writable(self, table: str) -> None:
        if self._read_only_tool is not None:
            raise DomainError(
                f"tool {self._read_only_tool!r} wrote to table {table!r} but is not marked "
                "@tool(writes=True)"
            )

    def _record(self, info: TableInfo, key, before, after) -> None:
        self._log.append(Change(info.name, key, before, after))
        self._written.add(info.name)
        if before is not None:
            self._hash -= row_hash(info.name, before)
        if after is not None:
            self._hash += row_hash(info.name, after)
        self._hash %= _HASH_MOD

    # ---- tool-call scopes ----------------------------------------------------------------
    def begin_read(self, tool_name: str) -> None:
        """From here until end_read, any write is a DomainError naming this read tool."""
        self._read_only_tool = tool_name

    def end_read(self) -> None:
        self._read_only_tool = None

    @contextmanager
    def tool_scope(self, tool_name: str, writes: bool) -> Iterator[None]:
        """Run one tool call: a read tool may not write; a failed write tool leaves no trace."""
        if not writes:
            self.begin_read(tool_name)
            try:
                yield
            finally:
                self.end_read()
            return
        mark, saved_hash = len(self._log), self._hash
        self.conn.execute("SAVEPOINT tool_call")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK TO tool_call")
            self.conn.execute("RELEASE tool_call")
            del self._log[mark:]
            self._hash = saved_hash
            raise
        self.conn.execute("RELEASE tool_call")

    # ---- what changed --------------------------------------------------------------------
    def state_hash(self) -> str:
        """Order-independent hash of the whole content: equal content, equal hash."""
        return format_hash(self._hash)

    def mark_baseline(self) -> None:
        """Forget the changes so far (a task's setup): `diff()` counts from here."""
        self._log.clear()

    def diff(self) -> Diff:
        return Diff.from_changes(self._log, self._tables)

    @property
    def changes(self) -> list[Change]:
        return list(self._log)

    def wrote(self, table: str) -> bool:
        """Whether this episode has written to `table`, in its setup too (then its rows may differ
        from the built world's)."""
        return table in self._written

    def close(self) -> None:
        """End the episode; its connection goes back to the template for the next one."""
        if self.conn is not None:
            self.template.release(self.conn, wrote=bool(self._written))
            self.conn = None  # type: ignore[assignment]


def _where(where: dict[str, Any]) -> str:
    """The WHERE clause of an equality filter; a None value means IS NULL (as `= NULL` matches nothing)."""
    if not where:
        return ""
    return " WHERE " + " AND ".join(f'"{c}" IS NULL' if v is None else f'"{c}" = ?' for c, v in where.items())


def _where_shape(where: dict[str, Any]) -> tuple[tuple[str, bool], ...]:
    """What the SQL of a filter depends on (cache key): the columns, and which of them are None."""
    return tuple((c, v is None) for c, v in where.items())


def _where_params(info: TableInfo, where: dict[str, Any]) -> list[Any]:
    return [info.store_value(k, v) for k, v in where.items() if v is not None]


_CONSTRAINT = re.compile(r"(NOT NULL|UNIQUE|CHECK|FOREIGN KEY) constraint failed: (.*)")


def explain_constraint(info: TableInfo, stored: tuple[Any, ...], error: sqlite3.IntegrityError) -> str:
    """A constraint failure in words: which column, which value, and what would be right."""
    match = _CONSTRAINT.search(str(error))
    values = dict(zip(info.columns, stored, strict=True))
    if match is None:
        return f"insert into {info.name!r} violates a constraint ({error}); row: {values}"
    kind, where = match.groups()
    columns = [part.strip().rsplit(".", 1)[-1] for part in where.split(",")]
    if kind == "NOT NULL":
        column = columns[0]
        return (
            f"insert into {info.name!r}: column {column!r} is missing (NULL) and the table requires it; "
            f"give {column!r} a value, or a default in the model; row: {values}"
        )
    if kind == "UNIQUE":
        taken = {c: values.get(c) for c in columns}
        hint = " (take new ids from world.new_id)" if set(columns) & set(info.key) else ""
        return f"insert into {info.name!r}: {taken} already exists; {', '.join(columns)} must be unique{hint}"
    return f"insert into {info.name!r} violates a {kind} constraint ({where}); row: {values}"
