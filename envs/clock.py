"""A world clock per world seed: several world seeds give several dates, never the wall clock."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable


def seeded_clock(
    base: dt.datetime, spread_days: int = 365, hours: tuple[int, int] = (8, 18)
) -> Callable[[int], dt.datetime]:
    """`now` for `Domain(now=...)`: world seed 0 keeps `base`; any other seed draws a date within
    `spread_days` of it and a time in working `hours` (on the quarter hour), the same every run.

    `build_world(seed, size)` must count its dates back from `clock(seed)`, so a world's history
    and its "today" agree.
    """
    first, last = hours
    if not 0 <= first < last <= 24:
        raise ValueError(f"hours must be (first, last) with 0 <= first < last <= 24, not {hours!r}")

    def clock(seed: int) -> dt.datetime:
        if seed == 0:
            return base
        rng = random.Random(f"clock:{seed}")
        day = base.date() + dt.timedelta(days=rng.randint(-spread_days, spread_days))
        at = dt.time(rng.randrange(first, last), 15 * rng.randrange(4))
        return dt.datetime.combine(day, at)

    return clock
