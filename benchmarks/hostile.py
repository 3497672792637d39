"""Hostile input: how long `env.step` takes on 1 MB replies and on 256 KB final replies of every
shape in `tests.hostile.REPLY_SHAPES` (graded), and the fuzz rate of hostile actions.

    python benchmarks/hostile.py [ACTIONS]

Each 1 MB reply is built to hit what used to be quadratic (confirmation keywords with no
question mark, unclosed <think> tags, unclosed <tool_call> blocks). Target: under 1 s each.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import toolgym  # noqa: E402
from tests.hostile import REPLY_SHAPES, hostile_action, long_reply  # noqa: E402

MB = 1_000_000
REPLIES = {
    "confirm keywords, no '?'": ("Could you confirm this order " * 40_000)[:MB],
    "unclosed <think> tags": ("<think>" * 150_000)[:MB],
    "unclosed <tool_call> blocks": ("<tool_call>{" * 90_000)[:MB],
    "one long word": "x" * MB,
    # facts the grounding check extracts: long digit runs and many numbers once cost n^2
    "a 5,000-digit number": "9" * 5_000,
    "'1,' 50,000 times": "1," * 50_000,
    "20,000 numbers": " ".join(str(i) for i in range(20_000)),
}


def main(actions: int = 20_000) -> None:
    for name in toolgym.list_domains():
        env = toolgym.make(name, max_turns=200).unwrapped
        tasks = env.domain.generate_tasks(20, seed=1)
        for label, reply in REPLIES.items():
            env.reset(options={"task": tasks[0]})
            started = time.perf_counter()
            env.step(reply)
            print(f"{name:8s} 1 MB reply, {label:28s} {time.perf_counter() - started:6.3f} s")
        graded = toolgym.make(name, max_turns=1).unwrapped  # the step ends the episode: the verifier runs
        spent_by_shape = {}
        for shape in REPLY_SHAPES:
            graded.reset(options={"task": tasks[0]})
            started = time.process_time()
            graded.step(long_reply(shape, 256 * 1024))
            spent_by_shape[shape] = time.process_time() - started
        worst = max(spent_by_shape, key=spent_by_shape.__getitem__)
        print(f"{name:8s} 256 KB final replies, {len(REPLY_SHAPES)} shapes graded: median "
              f"{sorted(spent_by_shape.values())[len(spent_by_shape) // 2]:.3f} s, worst {spent_by_shape[worst]:.3f} s ({worst})")
        rng = random.Random(f"hostile-{name}")
        env.reset(options={"task": tasks[0]})
        started = time.perf_counter()
        episodes = 0
        for _ in range(actions):
            if env._done:
                episodes += 1
                env.reset(options={"task": tasks[episodes % len(tasks)]})
            env.step(hostile_action(rng, env.tools, env.action_space))
        spent = time.perf_counter() - started
        print(f"{name:8s} {actions} hostile actions in {spent:.1f} s ({1e6 * spent / actions:.0f} µs each, "
              f"{episodes} episodes); 100,000 would take ~{100_000 * spent / actions:.0f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
