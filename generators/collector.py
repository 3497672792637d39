"""Keeping Python's cycle collector off a job's long-lived objects.

A job process holds a few hundred thousand objects that live for the whole job (worlds and their
indexes, phrasebooks, compiled templates, caches) and allocates a great many that do not (rows).
CPython's full collections walk every tracked object, and a job triggers them often: measured
here, turning rows into Arrow batches cost 550 µs a row with the collector walking the worlds and
25 µs without. So after each batch what lives is frozen (moved out of the collector's sight,
`gc.freeze()`, O(1)); objects that die later are still freed by reference counting, and a full
collection of everything runs now and then (every `FULL_EVERY` seconds) so that cyclic garbage
cannot pile up in the frozen generation.

While a job runs, the youngest generation is also collected less often (every `YOUNG_EVERY`
allocations rather than CPython's 700): an episode allocates tens of thousands of short-lived
objects, nearly all freed by reference counting, so the default threshold ran a young collection
every few hundred µs for almost nothing (measured: 5% of a job's CPU in the collector, 1.5% after).
"""

from __future__ import annotations

import gc
import time

FULL_EVERY = 60.0  # seconds between two full collections of everything (one costs ~0.2 s at most)
# Allocations between young collections, and young (middle) collections between middle (old) ones.
JOB_THRESHOLDS = (50_000, 50, 1_000)

_last_full: float | None = None
_thresholds: tuple[int, int, int] | None = None  # the process's own, while a job's are set


def start() -> None:
    """A job's work begins in this process: young collections less often (until `release`)."""
    global _thresholds
    if _thresholds is None:
        _thresholds = gc.get_threshold()
        gc.set_threshold(*JOB_THRESHOLDS)


def settle() -> None:
    """A batch is done: freeze what lives now, with a full collection first if one is due."""
    global _last_full
    start()
    now = time.monotonic()
    if _last_full is None or now - _last_full >= FULL_EVERY:
        gc.unfreeze()
        gc.collect()
        _last_full = now
    gc.freeze()


def release() -> None:
    """The job is over: hand every object back to the collector (the process may run on), with its thresholds."""
    global _last_full, _thresholds
    gc.unfreeze()
    if _thresholds is not None:
        gc.set_threshold(*_thresholds)
    _last_full = _thresholds = None
