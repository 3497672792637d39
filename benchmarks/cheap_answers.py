"""What cheap, careless and hostile answers score, per task kind, against the gold.

Every spoil of `toolgym.verifiers.spoil` (a lazy "OK.", a claim of success, a stuffed no-tool
reply, a write without consent, a false claim, ...) is made from each task's gold chat and
graded on a fresh world. Prints, per kind over all domains asked, the gold's mean score and
each spoil's mean and maximum score and how many passed, as a markdown table (the one in
docs/rl.md).

    python benchmarks/cheap_answers.py --tasks 20
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from toolgym.envs.gold import gold_messages
from toolgym.envs.registry import list_domains, load_domain
from toolgym.verifiers.regrade import verify
from toolgym.verifiers.spoil import SPOILS, spoil_variants


def measure(domains: list[str], per_kind: int, seed: int) -> tuple[dict, dict]:
    scores: dict[tuple[str, str], list[tuple[float, bool]]] = defaultdict(list)
    gold: dict[str, list[float]] = defaultdict(list)
    for name in domains:
        domain = load_domain(name)
        for kind in domain.kinds:
            for task in domain.generate_tasks(per_kind, seed=seed, kinds=[kind]):
                messages, verification = gold_messages(domain, task)
                gold[kind].append(verification.value if verification else 0.0)
                for spoil, chat in spoil_variants(task, messages).items():
                    score = verify(task, chat)
                    scores[(kind, spoil)].append((score.value, score.passed))
    return scores, gold


def table(scores: dict, gold: dict) -> str:
    spoils = [s for s in SPOILS if any(key[1] == s for key in scores)]
    head = "| kind | gold | " + " | ".join(f"`{s}`" for s in spoils) + " |"
    lines = [head, "|" + "---|" * (len(spoils) + 2)]
    for kind in gold:
        cells = []
        for spoil in spoils:
            found = scores.get((kind, spoil))
            if not found:
                cells.append("—")
                continue
            values = [v for v, _ in found]
            passed = sum(p for _, p in found)
            cells.append(f"{sum(values) / len(values):.2f} (max {max(values):.2f}{', PASSED ' + str(passed) if passed else ''})")
        lines.append(f"| {kind} | {sum(gold[kind]) / len(gold[kind]):.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20, help="tasks per kind per domain")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--domains", nargs="*", default=None, help="domains (default: all)")
    args = parser.parse_args()
    domains = args.domains or list_domains()
    started = time.perf_counter()
    scores, gold = measure(domains, args.tasks, args.seed)
    print(f"{len(domains)} domain(s), {args.tasks} tasks per kind, {time.perf_counter() - started:.1f} s")
    print("cells: mean score (max, and how many passed if any); — where the spoil does not apply")
    print(table(scores, gold))


if __name__ == "__main__":
    main()
