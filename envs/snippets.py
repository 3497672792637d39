"""Phrasing templates compiled once, most of them without Jinja.

Nine in ten phrasing variants are plain text or text with `{{ name }}` / `{{ name | filter }}`
slots. Compiling such a variant with Jinja costs ~0.5 ms and rendering it ~25 µs; joining its
pieces costs ~1 µs. So those variants are split into pieces here, and only the rest (`{% if %}`,
loops, filter arguments, expressions) are compiled by Jinja. Both render the same text: a slot
is `str(filter(value))` as Jinja writes it, a missing value raises jinja2.UndefinedError as
StrictUndefined does, and one trailing newline is dropped as `keep_trailing_newline=False` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import jinja2
import jinja2.meta

_SLOT = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*([A-Za-z_][A-Za-z0-9_]*)\s*)?\}\}")
_DELIMITERS = ("{{", "{%", "{#", "}}", "%}", "#}")
_LITERAL_NAMES = frozenset({"true", "false", "none", "True", "False", "None", "loop"})


class Snippet:
    """A compiled phrasing: `render(values)` gives its text; `variables` are the names it reads."""

    __slots__ = ("source", "variables", "_pieces", "_template")

    def __init__(self, source: str, environment: jinja2.Environment):
        self.source = source
        pieces = _split(source, environment.filters)
        self._pieces: list[Any] | None = pieces
        self._template: jinja2.Template | None = None
        if pieces is None:  # Jinja proper: parsed now (a syntax error shows where the phrasebook loads), compiled on first use
            self.variables = frozenset(jinja2.meta.find_undeclared_variables(environment.parse(source)))
        else:
            self.variables = frozenset(p[0] for p in pieces if isinstance(p, tuple))

    def render(self, values: dict[str, Any], environment: jinja2.Environment) -> str:
        if self._pieces is not None:
            out = []
            for piece in self._pieces:
                if isinstance(piece, str):
                    out.append(piece)
                    continue
                name, apply = piece
                if name not in values:
                    raise jinja2.UndefinedError(f"'{name}' is undefined")
                value = values[name]
                out.append(str(apply(value) if apply is not None else value))
            return "".join(out)
        template = self._template
        if template is None:
            template = self._template = environment.from_string(self.source)
        # A context over `values` alone: phrasings use no Jinja globals, and merging the
        # environment's globals into every context costs more than the render itself.
        context = template.new_context(values, shared=True)
        return environment.concat(template.root_render_func(context))  # type: ignore[attr-defined,no-any-return]


def _split(source: str, filters: dict[str, Callable[..., Any]]) -> list[Any] | None:
    """Text and (name, filter) slots, or None when the source needs Jinja."""
    if "\r" in source:
        return None  # Jinja normalises line endings: leave such text to it
    text = source[:-1] if source.endswith("\n") else source
    pieces: list[Any] = []
    position = 0
    for match in _SLOT.finditer(text):
        name, filter_name = match.group(1), match.group(2)
        apply = filters.get(filter_name) if filter_name is not None else None
        if name in _LITERAL_NAMES or (filter_name is not None and (apply is None or hasattr(apply, "jinja_pass_arg"))):
            return None  # a literal, or a filter Jinja hands its context or environment
        pieces.append(text[position : match.start()])
        pieces.append((name, apply))
        position = match.end()
    pieces.append(text[position:])
    if any(marker in piece for piece in pieces if isinstance(piece, str) for marker in _DELIMITERS):
        return None
    return [p for p in pieces if p != ""]


_COMPILED: dict[tuple[int, str], Snippet] = {}


def snippet(source: str, environment: jinja2.Environment) -> Snippet:
    """The compiled form of a phrasing, kept for the process (phrasebooks share the engine's variants)."""
    key = (id(environment), source)
    found = _COMPILED.get(key)
    if found is None:
        found = _COMPILED[key] = Snippet(source, environment)
    return found
