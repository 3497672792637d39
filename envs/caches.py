"""Sizes of the engine's per-process caches, so memory stays flat however many episodes run.

A job sets them from its config (`caches:`); a program using the env directly may call
`configure(...)`. `Bounded` is the least-recently-used mapping they are kept in.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from toolgym.errors import ConfigError

K = TypeVar("K")
V = TypeVar("V")

SIZES = {"world_templates": 16, "env_tasks": 1024}


def configure(world_dir: str | None = None, **sizes: int) -> None:
    """Set cache sizes by name (world_templates, env_tasks), each at least 1, and the folder built
    worlds are kept in on disk (envs/world_cache.py; None: the default)."""
    from . import world_cache

    world_cache.configure(world_dir)
    for name, size in sizes.items():
        if name not in SIZES:
            raise ConfigError(f"unknown cache {name!r}; caches are {', '.join(SIZES)}")
        if not isinstance(size, int) or size < 1:
            raise ConfigError(f"cache size {name}={size!r} must be an integer of at least 1")
        SIZES[name] = size


class Bounded(OrderedDict[K, V], Generic[K, V]):
    """A dict that forgets its least recently used entries beyond the size named in SIZES."""

    def __init__(self, size_of: str | Callable[[], int]):
        super().__init__()
        self._size = (lambda: SIZES[size_of]) if isinstance(size_of, str) else size_of

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        if key in self:
            self.move_to_end(key)
            return self[key]
        return default

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        limit = self._size()
        while len(self) > limit:
            self.popitem(last=False)
