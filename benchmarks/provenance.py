"""What argument provenance costs per task: `arguments_grounded` and `requested` on gold chats.

Both run on every gold conversation at generation and at the end of every RL episode. The
baseline, measured in the same run on the same chats, is `grounded` (the fact check of
assistant text), which reads the same texts. Prints µs per task per domain and the ratio.

    python benchmarks/provenance.py --tasks 30
"""

from __future__ import annotations

import argparse
import time

from toolgym.envs.diff import Diff
from toolgym.envs.gold import gold_messages
from toolgym.envs.registry import list_domains, load_domain
from toolgym.envs.trajectory import Trajectory
from toolgym.verifiers.conduct import grounded
from toolgym.verifiers.provenance import arguments_grounded, requested

CHECKS = {"grounded (baseline)": grounded, "arguments_grounded": arguments_grounded, "requested": requested}


def per_task_us(check, trajectories, repeats: int) -> tuple[float, float]:
    """µs per task on the first pass (texts never read before) and the best of `repeats` passes."""
    passes = []
    for _ in range(repeats):  # the best of several passes: the machine is shared and noisy
        fresh = [Trajectory(task=t.task, messages=t.messages, state_hash="", diff=Diff([], [], [])) for t in trajectories]
        start = time.perf_counter()
        for trajectory in fresh:
            check(trajectory.task, trajectory)
        passes.append((time.perf_counter() - start) / len(trajectories) * 1e6)
    return passes[0], min(passes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=30, help="tasks per kind per domain")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--domains", nargs="*", default=None)
    args = parser.parse_args()
    names = args.domains or [n for n in list_domains() if n != "toy"]
    print("µs per task: first pass / best pass")
    print(f"| domain | tasks | {' | '.join(CHECKS)} | provenance / baseline (first pass) |")
    print(f"|---|---|{'---|' * len(CHECKS)}---|")
    for name in names:
        domain = load_domain(name)
        trajectories = []
        for kind in domain.kinds:
            for task in domain.generate_tasks(args.tasks, seed=11, kinds=[kind]):
                messages, _ = gold_messages(domain, task)
                trajectories.append(Trajectory(task=task, messages=messages, state_hash="", diff=Diff([], [], [])))
        costs = {label: per_task_us(check, trajectories, args.repeats) for label, check in CHECKS.items()}
        ratio = (costs["arguments_grounded"][0] + costs["requested"][0]) / costs["grounded (baseline)"][0]
        figures = " | ".join(f"{costs[c][0]:.0f} / {costs[c][1]:.0f}" for c in CHECKS)
        print(f"| {name} | {len(trajectories)} | {figures} | {ratio:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
