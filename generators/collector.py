"""Keeping Python's cycle collector off a job's long-lived objects.

A job process holds a few hundred thousand objects that live for the whole job (worlds and their
indexes, phrasebooks, compiled templates, caches) and allocates a great many that do not (rows).
CPython's full collections walk every tracked object, and a job triggers them often: measured
here, turning rows into Arrow batches cost 550 µs a row with the collector walking the worlds and
25 µs without. So after each batch what lives is frozen (moved out of the collector's sight,
`gc.freeze()`, O(1)); objects that die later are still freed by reference counting, and a full
collection of everything runs now and then (every `FULL_EVERY` seconds) so that cyclic garbage
cannot pile up in the frozen generation.
"""

from __future__ import annotations

import gc
import time

FULL_EVERY = 60.0  # seconds between two full collections of everything (one costs ~0.2 s at most)

_last_full: float | None = None


def settle() -> None:
    """A batch is done: freeze what lives now, with a full collection first if one is due."""
    global _last_full
    now = time.monotonic()
    if _last_full is None or now - _last_full >= FULL_EVERY:
        gc.unfreeze()
        gc.collect()
        _last_full = now
    gc.freeze()


def release() -> None:
    """The job is over: hand every object back to the collector (the process may run on)."""
    global _last_full
    gc.unfreeze()
    _last_full = None
