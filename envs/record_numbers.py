"""Record numbers as a real system's run: counted up, with the gaps that deleted or abandoned records
leave. A record a task adds to a built world (a look-alike the user must tell apart) takes one of
those unused numbers near the records it resembles, so its id is no different from the world's own;
a number far past the world's (or one fixed number) would tell a model which record is planted.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection

GAP_SHARE = 5  # about one number in this many is left unused


def skipped(prefix: str, number: int) -> bool:
    """Whether the world leaves `number` unused (deterministic: crc32, not hash(), differs per process)."""
    return zlib.crc32(f"{prefix}{number}".encode()) % GAP_SHARE == 0


def next_number(prefix: str, number: int) -> int:
    """The first number from `number` on that the world uses."""
    while skipped(prefix, number):
        number += 1
    return number


def unused_near(taken: Collection[int], around: int, salt: str) -> int | None:
    """An unused number between the lowest and highest taken, near `around` (one of the nearest few,
    chosen by `salt`): below the highest, so numbers the tools count on from it never meet it."""
    low, high = min(taken), max(taken)
    near = sorted((n for n in range(max(low, around - 40), min(high, around + 40)) if n not in taken),
                  key=lambda n: (abs(n - around), n))[:3]  # fmt: skip
    return near[zlib.crc32(salt.encode()) % len(near)] if near else None
