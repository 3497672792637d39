"""Start-up: `import toolgym`, `toolgym --help`, and what building every domain up front would cost.

Each figure is the median of several fresh interpreters (wall and CPU time of the child process).
The baseline, measured in the same run, is what importing used to do: build every domain and its
phrasebook before registering the Gymnasium ids. Targets: import <= 1 s, --help <= 1.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOOLGYM = str(Path(sys.executable).with_name("toolgym"))
COMMANDS = {
    "python (nothing imported)": [sys.executable, "-c", "pass"],
    "import toolgym": [sys.executable, "-c", "import toolgym"],
    "toolgym --help": [TOOLGYM, "--help"],
    "import toolgym + one domain used": [sys.executable, "-c", "import toolgym; toolgym.make('retail')"],
    "baseline: every domain and phrasebook built": [
        sys.executable, "-c",
        "import toolgym\nfrom toolgym.envs import registry\n"
        "for domain in registry.domains().values(): domain.phrasebook",
    ],
}


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of the command in a fresh process."""
    before = os.times()
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"median of {args.repeat} fresh processes each; load average {os.getloadavg()[0]:.1f}")
    for name, command in COMMANDS.items():
        timed(command)  # the files in the page cache, as for a user's second command
        runs = [timed(command) for _ in range(args.repeat)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(f"  {name:46s} {wall:5.2f} s wall  {cpu:5.2f} s CPU   (runs: {', '.join(f'{r[0]:.2f}' for r in runs)})")


if __name__ == "__main__":
    main()
