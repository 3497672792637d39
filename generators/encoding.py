"""Rows in: checked against their split's spec and turned into what pyarrow stores.

Each spec is compiled once into nested closures (the writer sees every row, so the check must
be cheap); Json values become JSON text. An error is raised where the bad value is and each
enclosing level prepends its step, so the message reads
`sft row 'x-0': messages[3].tool_calls[0].function: has an unknown key 'argument'; allowed: ...`.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Callable
from functools import cache
from typing import Any

from .features import JsonValue, ListOf, RowError, Scalar, Struct, check_split

Encoder = Callable[[Any], Any]  # called with a non-null value
_INT64 = (-(2**63), 2**63 - 1)
_WANTED = {"string": "a string", "bool": "true or false", "int64": "an integer", "float64": "a number"}
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=lambda o: _plain(o))


def _plain(obj: Any) -> Any:
    dump = getattr(obj, "model_dump", None)  # a pydantic model (a Task) is stored as its JSON form
    if callable(dump):
        return dump(mode="json")
    raise TypeError(f"a {type(obj).__name__} is not JSON-serialisable")


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _utf8(text: str) -> str:
    """The text, if Parquet can store it: a lone surrogate (no UTF-8 form) is a RowError, never a failed flush."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise RowError(f"holds a lone surrogate {text[error.start]!r} at character {error.start}, which no "
                           "file can store; clean the text first (toolgym.envs.parsing.clean_text)") from None
    return text


_last_json: tuple[Any, str] = (None, "")  # the last large dict made JSON text, and its text


def _json_text(value: Any) -> str:
    # The RL items of a task share its dict (rows.rl_rows): it is made text once, not per item.
    # Rows are not changed once built, so the same object gives the same text.
    global _last_json
    if value is _last_json[0]:
        return _last_json[1]
    try:
        text = _JSON_TEXT.encode(value)
    except (TypeError, ValueError) as error:
        raise RowError(f"holds a value that is not JSON: {error}") from None
    text = _utf8(text)
    if isinstance(value, dict) and len(text) > 512:
        _last_json = (value, text)
    return text


# Tool schemas are the domain's cached dicts, the same objects in every row of a domain: their
# text is kept by identity. The cache holds the object, so its id cannot be reused while cached;
# schemas must not be edited in place after they have been written (nothing in toolgym does).
_SCHEMA_TEXT: dict[int, tuple[Any, str]] = {}


def _schema_text(value: Any) -> str:
    hit = _SCHEMA_TEXT.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    text = _json_text(value)
    if len(_SCHEMA_TEXT) >= 4096:
        _SCHEMA_TEXT.clear()
    _SCHEMA_TEXT[id(value)] = (value, text)
    return text


def _slow_scalar(node: Scalar, value: Any) -> Any:
    """The full check, reached when the fast type test fails: converts or names the problem."""
    dtype = node.dtype
    if dtype == "string" and isinstance(value, str):
        value = str(value)
    elif dtype == "bool" and isinstance(value, bool):
        pass
    elif dtype == "int64" and isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = int(value)
        if not _INT64[0] <= value <= _INT64[1]:
            raise RowError(f"is {value}, outside the 64-bit integer range")
    elif dtype == "float64" and isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = float(value)
    else:
        raise RowError(f"must be {_WANTED[dtype]}, got {_describe(value)}")
    if node.choices is not None and value not in node.choices:
        raise RowError(f"is {value!r}; allowed: {', '.join(node.choices)}")
    return value


def _compile_scalar(node: Scalar) -> Encoder:
    fast: type[Any] = {"string": str, "int64": int, "float64": float, "bool": bool}[node.dtype]
    allowed = frozenset(node.choices) if node.choices is not None else None
    low, high = _INT64

    def encode(value: Any) -> Any:
        if value.__class__ is fast and (allowed is None or value in allowed):
            if fast is str:
                return _utf8(value)
            if fast is not int or low <= value <= high:
                return value
        value = _slow_scalar(node, value)
        return _utf8(value) if isinstance(value, str) else value

    return encode


def _compile_list(node: ListOf) -> Encoder:
    item = _schema_text if isinstance(node.item, JsonValue) else compile_node(node.item)

    def encode(value: Any) -> list[Any]:
        if not isinstance(value, list | tuple):
            raise RowError(f"must be a list, got {_describe(value)}")
        out: list[Any] = []
        append = out.append
        index = 0
        try:
            for index, x in enumerate(value):  # noqa: B007 (read by the except clause)
                append(None if x is None else item(x))
        except RowError as error:
            raise error.within(f"[{index}]") from None
        return out

    return encode


def _compile_struct(node: Struct) -> Encoder:
    fields = tuple((key, compile_node(child)) for key, child in node.fields.items())
    names = frozenset(node.fields)
    non_null, must_have = node.non_null, node.must_have
    what = "column" if must_have else "key"

    def encode(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise RowError(f"must be a dict with keys {', '.join(node.fields)}; got {_describe(value)}")
        if not names.issuperset(value):
            unknown = next(k for k in value if k not in names)
            raise RowError(f"has an unknown {what} {unknown!r}; allowed: {', '.join(node.fields)}")
        out: dict[str, Any] = {}  # absent keys stay absent: pyarrow stores them as null
        key = ""
        try:
            for key, field_encoder in fields:
                item = value.get(key)
                if item is not None:
                    out[key] = field_encoder(item)
                elif key in non_null:
                    raise RowError("is missing or null; it is required")
                elif key in must_have and key not in value:
                    raise RowError("is missing; every row must give it (null is allowed)")
        except RowError as error:
            raise error.within(f".{key}") from None
        return out

    return encode


def compile_node(node: Any) -> Encoder:
    if isinstance(node, Scalar):
        return _compile_scalar(node)
    if isinstance(node, JsonValue):
        return _json_text
    if isinstance(node, ListOf):
        return _compile_list(node)
    if isinstance(node, Struct):
        return _compile_struct(node)
    raise TypeError(f"not a schema node: {node!r}")


@cache
def row_encoder(split: str) -> Encoder:
    return compile_node(check_split(split))


def encode_row(split: str, row: Any) -> dict[str, Any]:
    """The stored form of one row, or a RowError naming the split, row id, column and the fix."""
    encoder = row_encoder(split)
    try:
        return encoder(row)
    except RowError as error:
        row_id = row.get("id") if isinstance(row, dict) else None
        where = f"{split} row {row_id!r}" if row_id is not None else f"a {split} row"
        raise RowError(f"{where}: {error}") from None
