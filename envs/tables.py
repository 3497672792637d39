"""What the World needs of one SQLModel table, derived once from its metadata.

Column order, primary key, how each Python value is stored (so a value written by a tool and
the same value read back from SQLite hash alike), and the plain model rows are returned as.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import SQLModel

from toolgym.errors import DomainError


def _to_text(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value)


def _to_int(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, enum.Enum):
        value = value.value
    return int(value)


def _to_float(value: Any) -> Any:
    return None if value is None else float(value)


def _to_json(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, SQLModel):
        value = value.model_dump(mode="json")
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _storer_for(column: sa.Column) -> Callable[[Any], Any]:
    """How a Python value is stored in this column, matching SQLite's own type affinity."""
    kind = column.type
    if isinstance(kind, sa.JSON):
        return _to_json
    if isinstance(kind, sa.Boolean | sa.Integer):
        return _to_int
    if isinstance(kind, sa.Float | sa.Numeric):
        return _to_float
    return _to_text


def _plain_model_of(table_model: type[SQLModel], columns: tuple[str, ...]) -> type[SQLModel]:
    """The plain (non-table) base that holds every column, if the domain declared one.

    Building a plain SQLModel costs a few µs; a `table=True` instance several times that.
    """
    for base in table_model.__mro__[1:]:
        if (
            isinstance(base, type)
            and issubclass(base, SQLModel)
            and base is not SQLModel
            and not base.model_config.get("table")
            and set(columns) <= set(base.model_fields)
        ):
            return base
    return table_model


@dataclass
class TableInfo:
    """One table's layout and its SQL, made once per table class."""

    model: type[SQLModel]
    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    storers: tuple[Callable[[Any], Any], ...]
    json_columns: frozenset[str]
    read_model: type[SQLModel]
    select_by_key: str
    insert: str
    delete: str
    index_of: dict[str, int] = field(default_factory=dict)
    decoders: tuple[tuple[int, Callable[[Any], Any]], ...] = ()  # columns whose stored form differs
    # per column: the model's default (a value, or a factory called per row), or _REQUIRED
    defaults: tuple[tuple[bool, Any], ...] = ()

    def __post_init__(self) -> None:
        self._all_fields = set(self.columns)

    @classmethod
    def of(cls, model: type[SQLModel]) -> TableInfo:
        table = getattr(model, "__table__", None)
        if table is None:
            raise DomainError(f"{model.__name__} is not a table: declare it with table=True")
        columns = tuple(c.name for c in table.columns)
        key = tuple(c.name for c in table.primary_key.columns)
        if not key:
            raise DomainError(f"table {table.name!r} has no primary key")
        quoted = f'"{table.name}"'
        col_list = ", ".join(f'"{c}"' for c in columns)
        key_match = " AND ".join(f'"{k}" = ?' for k in key)
        return cls(
            model=model,
            name=table.name,
            columns=columns,
            key=key,
            storers=tuple(_storer_for(c) for c in table.columns),
            json_columns=frozenset(c.name for c in table.columns if isinstance(c.type, sa.JSON)),
            read_model=_plain_model_of(model, columns),
            select_by_key=f"SELECT {col_list} FROM {quoted} WHERE {key_match}",
            insert=f"INSERT INTO {quoted} ({col_list}) VALUES ({', '.join('?' * len(columns))})",
            delete=f"DELETE FROM {quoted} WHERE {key_match}",
            index_of={c: i for i, c in enumerate(columns)},
            decoders=_decoders(table, _plain_model_of(model, columns)),
            defaults=tuple(_default_of(model, c) for c in columns),
        )

    def ddl(self) -> list[str]:
        table = self.model.__table__  # type: ignore[attr-defined]
        dialect = sqlite_dialect.dialect()
        statements = [str(CreateTable(table).compile(dialect=dialect))]
        # table.indexes is a set: in name order, so a built world's image (and which index SQLite
        # picks for a query, and so the order of rows an unordered query gives) is the same in every process
        indexes = sorted(table.indexes, key=lambda ix: str(ix.name))
        statements += [str(CreateIndex(ix).compile(dialect=dialect)) for ix in indexes]
        return statements

    def store(self, values: dict[str, Any]) -> tuple[Any, ...]:
        """A full row tuple, in column order, as SQLite will hold it."""
        unknown = set(values) - set(self.columns)
        if unknown:
            raise DomainError(f"table {self.name!r} has no column(s) {sorted(unknown)}; columns: {self.columns}")
        if len(values) == len(self.columns):  # every column given: the fast path of world building
            return tuple(store(values.get(col)) for col, store in zip(self.columns, self.storers, strict=True))
        row = []
        for col, store, (factory, default) in zip(self.columns, self.storers, self.defaults, strict=True):
            if col in values:
                row.append(store(values[col]))
            elif default is _REQUIRED:
                row.append(None)  # NULL: a NOT NULL column then fails with an error naming it
            else:
                row.append(store(default() if factory else default))
        return tuple(row)

    def store_value(self, column: str, value: Any) -> Any:
        try:
            return self.storers[self.index_of[column]](value)
        except KeyError:
            raise DomainError(f"table {self.name!r} has no column {column!r}; columns: {self.columns}") from None

    def key_of_row(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(row[self.index_of[k]] for k in self.key)

    def key_tuple(self, key: Any) -> tuple[Any, ...]:
        """Normalise a key given as a scalar, tuple or dict into stored values."""
        if len(self.key) == 1 and type(key) in (str, int):  # the common case, kept fast
            return (self.storers[self.index_of[self.key[0]]](key),)
        if isinstance(key, dict):
            parts = [key[k] for k in self.key]
        elif isinstance(key, tuple):
            parts = list(key)
        else:
            parts = [key]
        if len(parts) != len(self.key):
            raise DomainError(f"table {self.name!r} has key {self.key}; got {key!r}")
        return tuple(self.store_value(k, v) for k, v in zip(self.key, parts, strict=True))

    def as_dict(self, row: tuple[Any, ...]) -> dict[str, Any]:
        """Column values as stored (JSON columns decoded)."""
        values = dict(zip(self.columns, row, strict=True))
        for col in self.json_columns:
            if isinstance(values[col], str):
                values[col] = json.loads(values[col])
        return values

    def as_model(self, row: tuple[Any, ...]) -> SQLModel:
        """The row as the domain's plain model, without validation.

        Stored values were validated on the way in; only their types are restored here
        (bool, datetime, Enum, JSON), which costs ~1 µs against ~4 µs for model_validate.
        """
        if self.decoders:
            row = list(row)  # type: ignore[assignment]
            for index, decode in self.decoders:
                if row[index] is not None:
                    row[index] = decode(row[index])  # type: ignore[index]
        obj = object.__new__(self.read_model)  # SQLModel.__new__ prepares ORM state a plain model never uses
        obj.__dict__.update(zip(self.columns, row, strict=False))  # lengths match by construction
        # Every column is set, so all rows of a table can share one fields-set (assigning a
        # field later adds a name already in it).
        _set_fields_set(obj, self._all_fields)
        _set_extra(obj, None)
        _set_private(obj, None)
        return obj


# pydantic keeps these three in slots; their descriptors set them without BaseModel.__setattr__.
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _python_type(annotation: Any) -> Any:
    """The concrete type of a field (Optional[X] -> X)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return annotation


def _decoders(table: sa.Table, model: type[SQLModel]) -> tuple[tuple[int, Callable[[Any], Any]], ...]:
    found: list[tuple[int, Callable[[Any], Any]]] = []
    for index, column in enumerate(table.columns):
        if isinstance(column.type, sa.JSON):
            found.append((index, json.loads))
            continue
        field_info = model.model_fields.get(column.name)
        kind = _python_type(field_info.annotation) if field_info else None
        if kind is bool:
            found.append((index, bool))
        elif kind is dt.datetime:
            found.append((index, dt.datetime.fromisoformat))
        elif kind is dt.date:
            found.append((index, dt.date.fromisoformat))
        elif isinstance(kind, type) and issubclass(kind, enum.Enum):
            found.append((index, kind))
    return tuple(found)


_REQUIRED = object()


def _default_of(model: type[SQLModel], column: str) -> tuple[bool, Any]:
    """(is_factory, default) of a column's model field; _REQUIRED when the model gives none.

    A row inserted without a column gets the model's default, as `Model(...)` would."""
    info = model.model_fields.get(column)
    if info is None:
        return False, _REQUIRED
    if info.default_factory is not None:
        return True, info.default_factory
    if info.is_required():
        return False, _REQUIRED
    return False, info.default


def row_values(row: Any) -> dict[str, Any]:
    """Column values of a row given as a dict or a SQLModel instance."""
    if isinstance(row, dict):
        return row
    if isinstance(row, SQLModel):
        return {name: getattr(row, name) for name in type(row).model_fields}
    raise DomainError(f"a row must be a dict or a SQLModel instance, got {type(row).__name__}")
