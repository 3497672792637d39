"""Ground-truth measurements: how many gold rows state an unseen fact, how many fix before the
fault was shown, and how many cheap answers a verifier still pays 1.0 for, per domain and kind.

    python benchmarks/ground_truth.py --tasks 1000
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from toolgym.envs.grounding import ungrounded_facts
from toolgym.envs.registry import list_domains, load_domain
from toolgym.generators.oracle import OracleTeacher
from toolgym.generators.rollout import rollout_sync
from toolgym.generators.user import ScriptedUser
from toolgym.verifiers.regrade import verify

CHEAP = ("OK.", "Done, it's all taken care of.", "")


def cheap_chat(messages: list[dict], answer: str) -> list[dict]:
    """The prompt (system and the user's opening) and one cheap assistant reply."""
    return [*messages[:2], {"role": "assistant", "content": answer}]


def gold_check_cost(per_kind: int) -> None:
    """Milliseconds per task: generating and replaying it (finalize without the check) vs checking its gold chat."""
    from toolgym.envs.gold import gold_messages

    for name in list_domains():
        domain = load_domain(name)
        enforced, domain.enforce_ground_truth = domain.enforce_ground_truth, False
        try:
            domain.template()
            started = time.perf_counter()
            tasks = domain.generate_tasks(per_kind * len(domain.kinds), seed=1)
            generate = (time.perf_counter() - started) / len(tasks)
            domain.enforce_ground_truth = True  # the check as a fixed domain runs it (grounded included)
            started = time.perf_counter()
            for task in tasks:
                gold_messages(domain, task)
            check = (time.perf_counter() - started) / len(tasks)
        finally:
            domain.enforce_ground_truth = enforced
        print(
            f"{name:8} generation {1000 * generate:.2f} ms/task, gold check {1000 * check:.2f} ms/task "
            f"(generation with the check: {1 / (generate + check):.0f} tasks/s vs {1 / generate:.0f} without)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=1000, help="tasks per kind per domain")
    parser.add_argument("--cheap", type=int, default=100, help="tasks per kind re-graded with cheap answers")
    parser.add_argument("--domains", nargs="*", default=None, help="domains to measure (default: all)")
    parser.add_argument("--cost", action="store_true", help="only time the gold-conversation check against task generation")
    args = parser.parse_args()
    if args.cost:
        gold_check_cost(args.tasks)
        return
    from toolgym.envs.env import ToolEnv

    teacher, user = OracleTeacher(), ScriptedUser()
    for name in args.domains or list_domains():
        domain = load_domain(name)
        env = ToolEnv(domain)
        for kind in domain.kinds:
            started = time.perf_counter()
            try:
                tasks = domain.generate_tasks(args.tasks, seed=0, kinds=[kind])
            except Exception as error:  # noqa: BLE001 - a measurement reports what fails and goes on
                print(f"{name:8} {kind:24} generation failed: {str(error)[:200]}")
                continue
            ungrounded, kinds_of_fact, cheap = 0, Counter(), Counter()
            for index, task in enumerate(tasks):
                messages = rollout_sync(env, teacher, user, task).messages
                schemas = [{"role": "system", "content": json.dumps(domain.schemas(task.tools))}]  # seen too
                bad = ungrounded_facts(schemas + messages)
                if bad:
                    ungrounded += 1
                    kinds_of_fact.update(f.kind for f in bad)
                if index < args.cheap:
                    for answer in CHEAP:
                        if verify(task, cheap_chat(messages, answer)).value >= 1.0:
                            cheap[answer or "<empty>"] += 1
            elapsed = time.perf_counter() - started
            print(
                f"{name:8} {kind:24} ungrounded rows {ungrounded}/{len(tasks)} ({100 * ungrounded / len(tasks):.1f}%) "
                f"{dict(kinds_of_fact)} cheap answers at 1.0 (of {min(args.cheap, len(tasks))} each): {dict(cheap)} [{elapsed:.1f}s]",
                flush=True,
            )


if __name__ == "__main__":
    main()
