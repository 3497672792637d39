"""Utterance templates: several Jinja2 phrasings per intent, one chosen by a seed.

The engine ships generic phrasings (greeting, asking, confirming, declining); a domain's
`utterances.yaml` adds its own intents and may replace the engine's.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import jinja2
import yaml

from toolgym.errors import DomainError, UnknownNameError

ENGINE_UTTERANCES = Path(__file__).parent / "templates" / "utterances.yaml"
_JINJA = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)


def _join_words(items: Any, last: str = "and") -> str:
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


_JINJA.filters["join_words"] = _join_words
def money(value: float) -> str:
    """An amount as agents state it and required outputs expect it: '$1,234.50'."""
    return f"${float(value):,.2f}"


_JINJA.filters["money"] = money


class Phrasebook:
    def __init__(self, *sources: Path):
        self._raw: dict[str, list[str]] = {}
        self._all: dict[str, list[str]] = {}  # every source's variants, for pools that add up
        for source in sources:
            if not source.exists():
                continue
            data = yaml.safe_load(source.read_text()) or {}
            for intent, variants in data.items():
                if isinstance(variants, str):
                    variants = [variants]
                if not isinstance(variants, list) or not variants:
                    raise DomainError(f"{source}: intent {intent!r} must be a non-empty list of templates")
                self._raw[intent] = [str(v) for v in variants]
                pool = self._all.setdefault(intent, [])
                pool += [str(v) for v in variants if str(v) not in pool]
        self._compiled: dict[str, list[jinja2.Template]] = {}

    def intents(self) -> list[str]:
        return sorted(self._raw)

    def pooled(self, intent: str) -> list[str]:
        """The variants of an intent from the engine and the domain together (not replaced)."""
        if intent not in self._all:
            raise UnknownNameError("utterance intent", intent, self._all)
        return self._all[intent]

    def variants(self, intent: str) -> list[str]:
        if intent not in self._raw:
            raise UnknownNameError("utterance intent", intent, self._raw)
        return self._raw[intent]

    def render(self, intent: str, index: int, /, **values: Any) -> str:
        """Render one given variant of an intent (when the caller draws the variant itself)."""
        templates = self._templates(intent)
        return self._render(intent, templates, index % len(templates), values)

    def say(self, intent: str, seed: int, /, **values: Any) -> str:
        """Render one phrasing of `intent`, chosen by `seed` (stable across runs)."""
        templates = self._templates(intent)
        return self._render(intent, templates, zlib.crc32(f"{seed}:{intent}".encode()) % len(templates), values)

    def _templates(self, intent: str) -> list[jinja2.Template]:
        templates = self._compiled.get(intent)
        if templates is None:  # compiled once: compiling costs ~5 ms, rendering ~30 µs
            templates = self._compiled[intent] = [_JINJA.from_string(v) for v in self.variants(intent)]
        return templates

    @staticmethod
    def _render(intent: str, templates: list[jinja2.Template], choice: int, values: dict[str, Any]) -> str:
        template = templates[choice]
        try:
            # A context over `values` alone: phrasings use no Jinja globals, and merging the
            # environment's globals into every context costs more than the render itself.
            context = template.new_context(values, shared=True)
            return " ".join(_JINJA.concat(template.root_render_func(context)).split())  # type: ignore[attr-defined]
        except jinja2.UndefinedError as exc:
            raise DomainError(f"utterance {intent!r} (variant {choice}) needs a value: {exc.message}") from None


def render_file(path: Path, **values: Any) -> str:
    return _JINJA.from_string(path.read_text()).render(**values).strip() + "\n"
