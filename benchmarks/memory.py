"""Resident memory over many seeded resets: it must stay flat (bounded task and world caches).

    python benchmarks/memory.py [RESETS] [DOMAIN]

Prints RSS every tenth of the run and the growth from the first tenth to the end.
"""

from __future__ import annotations

import gc
import sys
import time

import toolgym
from toolgym.generators.progress import resident_mb


def main(resets: int = 100_000, name: str = "retail") -> None:
    env = toolgym.make(name).unwrapped
    step = max(1, resets // 10)
    readings = []
    started = time.perf_counter()
    for seed in range(resets):
        env.reset(seed=seed)
        if (seed + 1) % step == 0:
            gc.collect()
            readings.append((seed + 1, resident_mb()))
            print(f"{seed + 1:>8} resets  RSS {readings[-1][1]:7.1f} MB  {time.perf_counter() - started:6.1f}s", flush=True)
    first, last = readings[0][1], readings[-1][1]
    print(f"{name}: {resets} seeded resets, RSS {first:.1f} MB after {readings[0][0]} -> {last:.1f} MB at the end "
          f"({last - first:+.1f} MB); env remembers {len(env._tasks)} tasks")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000, sys.argv[2] if len(sys.argv) > 2 else "retail")
