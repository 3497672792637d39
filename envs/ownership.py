"""Who owns a row: a path from a table, through the rows it points at, to its owner's id.

An `OwnerPath` is resolved once per (domain, table) from the tables' metadata: the owner column
of the row itself (`order.customer_id`), or a chain of key columns that lead to it
(`transaction.account_id -> account.customer_id`). It reads a row's owner with one SQL join, and
lists rows of the same table that belong to someone else (the spoil suite redirects a write to one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolgym.errors import DomainError

from .tables import TableInfo
from .world import World

MAX_HOPS = 3  # rows further than this from their owner are not found by inference
# Columns that name the users' table row whatever the table is called (workplace `mail.owner_id`).
OWNER_COLUMNS = ("owner_id", "user_id")


@dataclass(frozen=True)
class Hop:
    """From a row, follow `column`: it holds the key of a row of `table` (key column `key`)."""

    column: str
    table: str
    key: str


@dataclass(frozen=True)
class OwnerPath:
    """How to read the owner of a row of `table` (keyed by `key`): hops, then the owner column.

    A row of the users' table is its own owner (no hops, `owner` is the key column)."""

    table: str
    key: str
    hops: tuple[Hop, ...]
    owner: str

    @property
    def chain_sql(self) -> tuple[str, str]:
        """(SELECT list, FROM clause): the row's key, each hop's key, the owner."""
        joins = [f'"{self.table}" AS r0']
        values = [f'r0."{self.key}"']
        for n, hop in enumerate(self.hops, start=1):
            joins.append(f'JOIN "{hop.table}" AS r{n} ON r{n}."{hop.key}" = r{n - 1}."{hop.column}"')
            values.append(f'r{n}."{hop.key}"')
        last = len(self.hops)
        if self.owner != (self.hops[-1].key if self.hops else self.key):
            values.append(f'r{last}."{self.owner}"')
        return ", ".join(values), " ".join(joins)

    def describe(self) -> str:
        parts = [f"{self.table}.{self.hops[0].column if self.hops else self.owner}"]
        for n, hop in enumerate(self.hops):
            nxt = self.hops[n + 1].column if n + 1 < len(self.hops) else self.owner
            parts.append(f"{hop.table}.{nxt}")
        return " -> ".join(parts)

    def chain(self, world: World, value: Any) -> tuple[str, ...] | None:
        """(key, each hop's key, owner) of the row keyed by `value`, or None if there is none.

        The key is looked up as given, then trimmed and without regard to case (tools normalise
        ids that way), so a differently written id of another's row is still found."""
        select, joins = self.chain_sql
        sql = f'SELECT {select} FROM {joins} WHERE r0."{self.key}" = ?'
        row = _first(world, sql, value)
        if row is None and isinstance(value, str) and value.strip():
            row = _first(world, sql + " COLLATE NOCASE", value.strip())
        return None if row is None else tuple(str(v) for v in row)

    def others(self, world: World, owner: str, limit: int = 50) -> list[tuple[str, ...]]:
        """Chains of rows of this table whose owner is not `owner`, in key order."""
        select, joins = self.chain_sql
        column = f'r{len(self.hops)}."{self.owner}"'
        sql = f'SELECT {select} FROM {joins} WHERE {column} IS NOT NULL AND {column} != ? ORDER BY r0."{self.key}" LIMIT ?'
        return [tuple(str(v) for v in row) for row in world.query(sql, (owner, limit))]


def _first(world: World, sql: str, value: Any) -> tuple[Any, ...] | None:
    if not isinstance(value, str | int) or isinstance(value, bool):
        return None
    try:
        rows = world.query(sql, (value,))
    except (OverflowError, UnicodeEncodeError):  # a value no stored row can have
        return None
    return rows[0] if rows else None


def single_key(info: TableInfo) -> str | None:
    return info.key[0] if len(info.key) == 1 else None


def refers_to(column: str, table: str, key: str) -> bool:
    """Whether a column named `column` holds keys of `table` by the usual naming: the key column's
    own name (`account_id`), or `<table>_id` for a table keyed by `id`."""
    return column == (f"{table}_id" if key == "id" else key)


def owner_path(tables: Mapping[str, TableInfo], table: str, users: str, owner: str | None = None) -> OwnerPath | None:
    """The path from `table` to the users' table: declared (`owner`) or found (shortest first).

    `owner` is a column of `table` holding the user's id (`"organizer_id"`), or a chain such as
    `"order_id->order.customer_id"` (follow `order_id` to the `order` table, read `customer_id`).
    Found: a column that names the users' table (see `refers_to`, or `owner_id`), else the shortest
    chain of key columns that reaches one. None when no path exists: the table is not owned."""
    info = _table(tables, table)
    key = single_key(info)
    if key is None:
        return None
    if owner is not None:
        return _declared(tables, info, key, owner)
    if table == users:
        return OwnerPath(table, key, (), key)
    return _found(tables, info, key, users)


def _declared(tables: Mapping[str, TableInfo], info: TableInfo, key: str, owner: str) -> OwnerPath:
    parts = [p.strip() for p in owner.split("->")]
    here, column, hops = info, parts[0], []
    for part in parts[1:]:
        _column(here, column)
        table, _, next_column = part.partition(".")
        following = _table(tables, table)
        following_key = single_key(following)
        if not next_column or following_key is None:
            raise DomainError(f"owner path {owner!r}: {part!r} must be '<table>.<column>' of a table with a one-column key")
        hops.append(Hop(column, following.name, following_key))
        here, column = following, next_column
    _column(here, column)
    return OwnerPath(info.name, key, tuple(hops), column)


def _found(tables: Mapping[str, TableInfo], info: TableInfo, key: str, users: str) -> OwnerPath | None:
    users_key = single_key(_table(tables, users))
    assert users_key is not None
    frontier: list[tuple[TableInfo, tuple[Hop, ...]]] = [(info, ())]
    visited = {info.name}
    for _ in range(MAX_HOPS + 1):
        following: list[tuple[TableInfo, tuple[Hop, ...]]] = []
        for here, hops in frontier:
            direct = next((c for c in here.columns if refers_to(c, users, users_key) or c in OWNER_COLUMNS), None)
            if direct is not None:
                return OwnerPath(info.name, key, hops, direct)
            if len(hops) == MAX_HOPS:
                continue
            for column in here.columns:
                for other in tables.values():
                    other_key = single_key(other)
                    if other.name in visited or other_key is None or column in here.key:
                        continue
                    if refers_to(column, other.name, other_key):
                        visited.add(other.name)
                        following.append((other, (*hops, Hop(column, other.name, other_key))))
        frontier = following
    return None


def tables_keyed_by(tables: Iterable[TableInfo], argument: str) -> list[str]:
    """Tables whose rows an argument names by the usual naming: `booking_id` (key column),
    `from_account_id` (a prefix before it), `item_ids` (a list of them)."""
    name = argument[:-1] if argument.endswith("_ids") else argument
    found = []
    for info in tables:
        key = single_key(info)
        if key is None:
            continue
        column = f"{info.name}_id" if key == "id" else key
        if name == column or name.endswith("_" + column):
            found.append(info.name)
    return found


def _table(tables: Mapping[str, TableInfo], name: str) -> TableInfo:
    try:
        return tables[name]
    except KeyError:
        raise DomainError(f"no table {name!r}; tables: {sorted(tables)}") from None


def _column(info: TableInfo, column: str) -> None:
    if column not in info.columns:
        raise DomainError(f"table {info.name!r} has no column {column!r}; columns: {list(info.columns)}")
