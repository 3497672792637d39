"""What the claims check costs on gold chats, beside the grounding check measured in the same run.

    python benchmarks/claims.py --tasks 50

Per domain: µs per gold chat (its closing line included) for `claims` and for `grounded`, the
ratio between them, and how long reading a 256 KB reply of mixed shapes takes next to one of 16 KB.
"""

from __future__ import annotations

import argparse
import time

from toolgym.envs.claim_reading import read_claims
from toolgym.envs.claims import claim_vocabulary
from toolgym.envs.diff import Diff
from toolgym.envs.gold import gold_messages
from toolgym.envs.registry import list_domains, load_domain
from toolgym.envs.trajectory import Trajectory
from toolgym.generators.rows import with_closer
from toolgym.verifiers.claims import claims
from toolgym.verifiers.conduct import grounded

_MIXED = (
    "I've cancelled order #W1234567 and refunded $1,234.50 to your card ending in 4242. "
    "Your booking is now cancelled, and nothing else has been changed! Let me check that; "
    "the transfer planned for 2025-07-10 is cancelled, which is processed: order W1: cancelled "
    '"quoted text, cancelled, refunded" '
)


def _forget() -> None:
    """Empty the text caches both checks keep: generation already read these chats once."""
    from toolgym.envs import claim_reading, grounding
    from toolgym.verifiers import claims as claims_module

    for cached in (claim_reading._read, grounding._extract, grounding._index, claims_module._records, claims_module._parsed):
        cached.cache_clear()


def per_chat(check, trajectories) -> float:
    _forget()
    started = time.perf_counter()
    for task, trajectory in trajectories:
        check(task, trajectory)
    return (time.perf_counter() - started) / len(trajectories) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=50, help="tasks per kind per domain")
    args = parser.parse_args()
    for name in list_domains():
        if name == "toy":
            continue
        domain = load_domain(name)
        tasks = domain.generate_tasks(args.tasks * len(domain.kinds), seed=1)
        trajectories = []
        for task in tasks:
            messages = with_closer(task, gold_messages(domain, task)[0])
            trajectories.append((task, Trajectory(task, messages, "", Diff([], [], []))))
        # read every chat once in a throwaway order: both checks then start from the same warm domain caches
        claims(*trajectories[0])
        grounded(*trajectories[0])
        baseline = per_chat(grounded, trajectories)
        cost = per_chat(claims, trajectories)
        print(f"{name:9} claims {cost:7.0f} µs/chat   grounded {baseline:7.0f} µs/chat   ratio {cost / baseline:.2f}")
    vocabulary = claim_vocabulary(load_domain("retail"))
    text = _MIXED * (256 * 1024 // len(_MIXED) + 1)

    def best_of_three(body: str) -> float:
        timings = []
        for attempt in range(3):  # each text new: the reader remembers texts it has read
            started = time.perf_counter()
            read_claims(f"{body} {attempt}", vocabulary)
            timings.append(time.perf_counter() - started)
        return min(timings)

    small, large = best_of_three(text[: len(text) // 16]), best_of_three(text)
    print(f"reading a 256 KB reply: {large:.3f}s; 16 KB: {small:.4f}s (ratio {large / small:.1f}; linear is 16)")


if __name__ == "__main__":
    main()
