"""A read-only index of a built world, made once per world template, for task generators.

Generators must take about a millisecond, so they never scan tables per task: a domain lists
its candidates (pending orders, healthy subscribers, ...) once per built world. Decorate the
function that builds the index with `@world_index`; calling it with any World of the same
template returns the same object. One cache and one lock serve every domain.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from .world import World

T = TypeVar("T")

_CACHE: dict[tuple[Any, int], tuple[object, Any]] = {}
_LOCK = threading.Lock()


def world_index(build: Callable[[World], T]) -> Callable[[World], T]:
    """`build(world)` runs once per world template (per seed and size); later calls reuse it."""

    @wraps(build)
    def index_of(world: World) -> T:
        template = world.template
        key = (build, id(template))
        found = _CACHE.get(key)
        if found is None or found[0] is not template:  # an id may be reused by a later template
            with _LOCK:
                found = _CACHE.get(key)
                if found is None or found[0] is not template:
                    found = _CACHE[key] = (template, build(world))
        return found[1]

    return index_of
