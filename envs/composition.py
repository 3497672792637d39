"""An utterance as a composition: parts in order, each a list of variants, one drawn per part.

A variant is a Jinja2 template, or itself a mapping of parts (a nested composition), so a whole
optional sentence can be built from fragments ("If anything else comes up" + ", just write to
us."): the fragments multiply inside one sentence, which is what keeps any one sentence rare.
Draws are keyed by the seed and the part's path, so they are stable across runs and independent.
"""

from __future__ import annotations

import functools
import hashlib
import re
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any


def _hash(text: str) -> int:
    """A well-mixed hash: crc32's low bits move together for keys differing in one character,
    which would tie the parts' draws to each other."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


_WORD = re.compile(r"[a-z']{4,}|\bnow\b")  # 'now' too: 'nothing more for now ... Bye for now!'
_SLOTS = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
# Words a sentence may well say twice: they carry the grammar, not what is said.
_GRAMMAR_WORDS = frozenset(
    "that this with your have from what there will they them then been were when into about more also than some "
    "only very it's i've we've you've that's which would could should their these those just".split()
)


@functools.cache  # fragments are the phrasebooks' own: a few thousand
def words_of(fragment: str) -> frozenset[str]:
    """The words a template fragment says itself (not its slots), four letters or more, grammar aside."""
    return frozenset(_WORD.findall(_SLOTS.sub(" ", fragment).lower())) - _GRAMMAR_WORDS


@dataclass
class Composition:
    parts: list[list[Any]]  # each variant: a template string or a nested Composition
    names: tuple[str, ...] = ()  # the parts' names when read from a mapping ("ack", "act", "close")

    @classmethod
    def read(cls, data: Any, fail: Callable[[str], Exception]) -> Composition:
        """From YAML: a list of variants (one part), or a mapping of part name -> variants."""
        if isinstance(data, str):
            return cls([[data]])
        if isinstance(data, list):
            if not data:
                raise fail("must be a non-empty list of templates or a mapping of parts")
            return cls([[cls._variant(v, fail) for v in data]])
        if isinstance(data, dict):
            parts = [[cls._variant(v, fail) for v in ([p] if isinstance(p, str) else p or [])] for p in data.values()]
            if not parts or any(not p for p in parts):
                raise fail(f"needs parts, each a non-empty list of variants (use \"\" for an optional part); got {data!r}")
            found = cls(parts, tuple(str(name) for name in data))
            if not any(leaf.strip() for leaf in found.leaves()):
                raise fail(f"needs parts with some text; got {data!r}")
            return found
        raise fail("must be a non-empty list of templates or a mapping of parts")

    @classmethod
    def _variant(cls, value: Any, fail: Callable[[str], Exception]) -> Any:
        if isinstance(value, list):  # a list inside a part would render as its Python repr
            raise fail(f"has a list where a variant should be ({value!r}); write a nested part as a mapping of parts")
        return cls.read(value, fail) if isinstance(value, dict) else str(value)

    def leaves(self) -> Iterator[str]:
        for part in self.parts:
            for variant in part:
                if isinstance(variant, Composition):
                    yield from variant.leaves()
                else:
                    yield variant

    def leaves_of(self, names: frozenset[str]) -> Iterator[str]:
        """The templates of the top-level parts with the given names."""
        for name, part in zip(self.names, self.parts, strict=False):
            if name in names:
                yield from Composition([part]).leaves()

    def count(self) -> int:
        """How many distinct utterances it can make (texts may still coincide)."""
        total = 1
        for part in self.parts:
            total *= sum(v.count() if isinstance(v, Composition) else 1 for v in part)
        return total

    def without(self, dropped: set[str]) -> Composition:
        """The composition with the given template variants left out (empty parts stay empty)."""
        parts = [
            [v.without(dropped) if isinstance(v, Composition) else v for v in part if isinstance(v, Composition) or v not in dropped]
            for part in self.parts
        ]
        return Composition(parts, self.names)

    def has_empty_part(self) -> bool:
        return any(not part or any(isinstance(v, Composition) and v.has_empty_part() for v in part) for part in self.parts)

    # ---- drawing ---------------------------------------------------------------------------
    def by_seed(self, seed: int, key: str, swap: Mapping[str, str] | None = None) -> list[str]:
        """The templates one draw picks, in order: each part drawn with crc32(seed:key:path).

        `swap` gives a template for top-level parts by name, said instead of their draw ("" leaves
        the part out); each other part keeps its own key, so leaving out a last part changes nothing
        before it."""
        if len(self.parts) == 1 and all(isinstance(v, str) for v in self.parts[0]):  # a plain list intent
            part = self.parts[0]
            return [part[zlib.crc32(f"{seed}:{key}".encode()) % len(part)]]
        return self._draw(lambda path, n: _hash(f"{seed}:{key}:{path}") % n, "", set(), swap or {})

    def _draw(self, choose: Callable[[str, int], int], path: str, said: set[str], swap: Mapping[str, str] | None = None) -> list[str]:
        """Each part's draw; a fragment that says again a word an earlier one said ('Happy to help.
        Should you need more help, ...') is drawn again among the part's fragments that do not."""
        chosen: list[str] = []
        for index, part in enumerate(self.parts):
            if swap and index < len(self.names) and self.names[index] in swap:
                chosen.append(swap[self.names[index]])
                continue
            here = f"{path}{index}" if not path else f"{path}.{index}"
            variant = part[choose(here, len(part))]
            if not isinstance(variant, Composition) and not said.isdisjoint(words_of(variant)):
                fresh = [v for v in part if isinstance(v, Composition) or said.isdisjoint(words_of(v))]
                if fresh:
                    variant = fresh[choose(f"{here}~", len(fresh))]
            if isinstance(variant, Composition):
                chosen += variant._draw(choose, here, said)
            else:
                chosen.append(variant)
                said.update(words_of(variant))
        return chosen

    def by_index(self, index: int) -> list[str]:
        """The templates of combination number `index` (mixed radix over the parts)."""
        chosen: list[str] = []
        for part in self.parts:
            sizes = [v.count() if isinstance(v, Composition) else 1 for v in part]
            index, within = divmod(index, sum(sizes))
            for variant, size in zip(part, sizes, strict=True):
                if within < size:
                    chosen += variant.by_index(within) if isinstance(variant, Composition) else [variant]
                    break
                within -= size
        return chosen

