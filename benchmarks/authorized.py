"""The `authorized` check on gold conversations: the share of gold rows it fails per domain and
kind, what it finds, and what it costs per task beside the rest of the verifier.

    python benchmarks/authorized.py --tasks 200
    python benchmarks/authorized.py --tasks 200 --domains travel retail
    python benchmarks/authorized.py --tasks 30 --engine     # the engine's log: replays with and without it

Tasks are generated without proving their gold against the verifier (a gold the check fails would
stop generation), then each gold chat is played once and judged. The cost is the check alone on a
played chat (its log recorded as the chat ran), against the whole verifier on the same chat.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from toolgym.envs.authz import accesses
from toolgym.envs.gold import gold_messages
from toolgym.envs.registry import list_domains, load_domain
from toolgym.envs.replay import replay_messages
from toolgym.envs.trajectory import Trajectory
from toolgym.verifiers.authorized import authorized
from toolgym.verifiers.compose import score_trajectory


def measure(name: str, per_kind: int, seed: int, show: int) -> tuple[float, float]:
    domain = load_domain(name)
    enforced, domain.enforce_ground_truth = domain.enforce_ground_truth, False
    check_time = verifier_time = 0.0
    judged = 0
    reasons: Counter[str] = Counter()
    try:
        for kind in domain.kinds:
            tasks = domain.generate_tasks(per_kind, seed=seed, kinds=[kind])
            failed = 0
            for task in tasks:
                messages, _ = gold_messages(domain, task)
                world = replay_messages(domain, task, messages)
                trajectory = Trajectory(task, messages, world.state_hash(), world.diff(), terminated=True, acted_on=accesses(world))
                world.close()
                started = time.perf_counter()
                score = authorized(task, trajectory)
                check_time += time.perf_counter() - started
                started = time.perf_counter()
                score_trajectory(task, trajectory)
                verifier_time += time.perf_counter() - started
                judged += 1
                if not score.passed:
                    failed += 1
                    for problem in score.details.get("problems", []):
                        reasons[_shape(problem)] += 1
                    if show:
                        show -= 1
                        print(f"    {kind} {task.id}: {score.details['problems'][:2]}")
            print(f"  {name:9} {kind:24} {failed:4}/{len(tasks)} gold rows fail authorized ({100 * failed / max(1, len(tasks)):.1f}%)")
    finally:
        domain.enforce_ground_truth = enforced
    for reason, count in reasons.most_common(8):
        print(f"    {count:5}  {reason}")
    return 1e6 * check_time / max(1, judged), 1e6 * verifier_time / max(1, judged)


def engine_cost(name: str, per_kind: int, seed: int, rounds: int = 5) -> None:
    """The engine's access log: resolving a write's records and owners, against replaying the chat."""
    from toolgym.verifiers.matching import arguments_of

    domain = load_domain(name)
    chats = []
    for kind in ("single", "multi_step", "multi_turn"):
        for task in domain.generate_tasks(per_kind, seed=seed, kinds=[kind]):
            chats.append((task, gold_messages(domain, task)[0]))
    writes = [(task, c.name, c.arguments) for task, _ in chats for c in task.gold_calls() if domain.authz.records.get(c.name)]
    replay = resolve = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for task, messages in chats:
            replay_messages(domain, task, messages).close()
        replay = min(replay, time.perf_counter() - started)
        spent = 0.0
        for task, tool, arguments in writes:
            world = domain.new_world(task)
            started = time.perf_counter()
            domain.authz.targets(world, tool, arguments_of(arguments))
            spent += time.perf_counter() - started
            world.close()
        resolve = min(resolve, spent)
    print(
        f"  {name:9} {len(writes)} writes on owned records in {len(chats)} gold chats: {1e6 * resolve / max(1, len(writes)):.1f} µs "
        f"per write to log its records and owners; replaying the chats takes {1e6 * replay / len(chats):.0f} µs a chat "
        f"(the log: {100 * resolve / replay:.1f}% of it)"
    )


def _shape(problem: str) -> str:
    """A problem with its ids left out, so like problems count together."""
    words = problem.split()
    return " ".join("<id>" if any(ch.isdigit() for ch in w) else w for w in words)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=200, help="tasks per kind per domain")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--domains", nargs="*", default=None)
    parser.add_argument("--show", type=int, default=3, help="failing rows to print per domain")
    parser.add_argument("--engine", action="store_true", help="only time the engine's access log (replays with and without it)")
    args = parser.parse_args()
    for name in args.domains or list_domains():
        if args.engine:
            engine_cost(name, args.tasks, args.seed)
            continue
        check, whole = measure(name, args.tasks, args.seed, args.show)
        print(f"  {name:9} authorized: {check:.1f} µs per gold chat; the whole verifier: {whole:.0f} µs ({100 * check / whole:.1f}%)")


if __name__ == "__main__":
    main()
