"""How much agent skill a corpus teaches: the figures of issue #23's "Done when", per domain.

Reads a corpus written by `toolgym generate` (the `sft` split for the chats, the `rl_tasks`
split for the tasks) and prints, per domain:

- the share of acting rows that need a question other than identity (a choice among candidates,
  a missing argument), of `multi_turn` rows with a revision or correction the gold follows, and of
  acting rows that resolve an id by a lookup from a name or description;
- per acting kind, the distinct tool sequences and the share of rows the five most frequent cover;
- tools no gold chat calls; the longest chains and the median `multi_step` row's calls;
- the difficulty histogram (levels 1-5), and whether every task and rl_tasks row carries one.

Reproduce (150 tasks per kind per domain, three world seeds, about 5 minutes on 2 cores):

    toolgym generate benchmarks/depth.yaml --out datasets_out/depth
    python benchmarks/depth.py datasets_out/depth

A question "other than identity" is read off the gold conversation: an oracle move that asks
for facts that are not the user's identity (`Scenario.identity`; for corpora written before the
field existed, the facts the identifying tool takes), or a question naming candidates (a choice).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from toolgym.envs.conversation import oracle_moves
from toolgym.envs.registry import load_domain
from toolgym.envs.task import ACTION_KINDS, Task
from toolgym.generators.reading import iter_rows

TOP = 5
LONG_CHAIN = 8


def identity_keys(task: Task) -> set[str]:
    if task.scenario.identity:
        return set(task.scenario.identity)
    identifiers = set(load_domain(task.domain).authz.identifiers)  # older corpora: what the identifying tool takes
    return {k for s in task.plan if any(c.name in identifiers for c in s.calls) for k in s.needs}


def asks_beyond_identity(task: Task) -> bool:
    own = identity_keys(task)
    return any(m.kind == "ask" and any(f.key not in own for f in m.facts) for m in oracle_moves(task))


def chat_calls(messages: list[dict[str, Any]]) -> list[str]:
    """The tool sequence of a chat: agent calls by name, the user's device calls marked `user:`."""
    names: list[str] = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            names.append(call["function"]["name"])
        for call in message.get("user_tool_calls") or ():
            names.append(f"user:{call['name']}")
    return names


def collect(corpus: Path) -> tuple[dict[str, Task], list[dict[str, Any]], list[dict[str, Any]]]:
    tasks: dict[str, Task] = {}
    rl_rows = [r for r in iter_rows(corpus, "rl_tasks") if r.get("item_type") == "episode"]
    for row in rl_rows:
        task = Task.model_validate(row["task"])
        tasks[task.id] = task
    chats = [r for r in iter_rows(corpus, "sft")]
    return tasks, chats, rl_rows


def figures(corpus: Path) -> dict[str, Any]:
    tasks, chats, rl_rows = collect(corpus)
    by_domain: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in chats:
        by_domain[row["domain"]].append(row)
    report: dict[str, Any] = {}
    for domain_name, rows in sorted(by_domain.items()):
        domain = load_domain(domain_name)
        acting = [r for r in rows if r["kind"] in ACTION_KINDS]
        task_of = {r["id"]: tasks.get(r["task_id"]) for r in rows}
        known = [r for r in acting if task_of[r["id"]] is not None]
        multi_turn = [r for r in known if r["kind"] == "multi_turn"]
        sequences: dict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
        used: set[str] = set()
        calls_of: dict[str, int] = {}
        for row in acting:
            names = chat_calls(row["messages"])
            sequences[row["kind"]][tuple(names)] += 1
            used.update(n.removeprefix("user:") for n in names)
            calls_of[row["id"]] = len(names)
        for row in rows:  # no-tool chats may read too
            used.update(n.removeprefix("user:") for n in chat_calls(row["messages"]))
        kinds = {}
        for kind, counts in sorted(sequences.items()):
            total = sum(counts.values())
            top = sum(c for _, c in counts.most_common(TOP))
            kinds[kind] = {"rows": total, "distinct": len(counts), "top5_share": round(top / total, 3)}
        multi_step_calls = [calls_of[r["id"]] for r in acting if r["kind"] == "multi_step"]
        long_rows = [r for r in acting if calls_of[r["id"]] >= LONG_CHAIN]
        domain_tasks = [t for t in tasks.values() if t.domain == domain_name]
        levels = Counter(t.difficulty.level for t in domain_tasks if t.difficulty is not None)
        report[domain_name] = {
            "acting_rows": len(acting),
            "question_share": _share(sum(asks_beyond_identity(task_of[r["id"]]) for r in known), len(known)),
            "choice_share": _share(sum(any(s.choice for s in task_of[r["id"]].plan) for r in known), len(known)),
            "revision_share_multi_turn": _share(sum(bool(task_of[r["id"]].scenario.revisions) for r in multi_turn), len(multi_turn)),
            "lookup_share": _share(sum(bool(task_of[r["id"]].scenario.lookups) for r in known), len(known)),
            "kinds": kinds,
            "unused_tools": sorted(set(domain.tools) - used),
            "long_chain_rows": len(long_rows),
            "longest_chain": max(calls_of.values(), default=0),
            "median_multi_step_calls": statistics.median(multi_step_calls) if multi_step_calls else 0,
            "difficulty_histogram": {level: levels.get(level, 0) for level in range(1, 6)},
            "tasks_without_difficulty": sum(t.difficulty is None for t in domain_tasks),
        }
    report["_rl_rows_without_difficulty"] = sum(r.get("difficulty") is None for r in rl_rows)
    return report


def _share(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def show(report: dict[str, Any]) -> None:
    domains = [d for d in report if not d.startswith("_")]
    everything = {k: sum(report[d][k] for d in domains) for k in ("acting_rows",)}
    print(f"{'domain':10s} {'acting':>6s} {'question':>8s} {'choice':>7s} {'revise(mt)':>10s} {'lookup':>7s} "
          f"{'long>=8':>7s} {'longest':>7s} {'med ms':>6s}  unused tools")  # fmt: skip
    for d in domains:
        r = report[d]
        print(f"{d:10s} {r['acting_rows']:6d} {r['question_share']:8.1%} {r['choice_share']:7.1%} "
              f"{r['revision_share_multi_turn']:10.1%} {r['lookup_share']:7.1%} {r['long_chain_rows']:7d} "
              f"{r['longest_chain']:7d} {r['median_multi_step_calls']:6g}  {', '.join(r['unused_tools']) or '-'}")  # fmt: skip
    weights = [report[d]["acting_rows"] for d in domains]
    for key in ("question_share", "revision_share_multi_turn", "lookup_share"):
        mean = sum(report[d][key] * w for d, w in zip(domains, weights, strict=True)) / max(1, sum(weights))
        print(f"  all domains, {key}: {mean:.1%}")
    print(f"  acting rows: {everything['acting_rows']}")
    print("\ntool sequences per acting kind: distinct / top-5 share of rows")
    kinds = sorted({k for d in domains for k in report[d]["kinds"]})
    print(f"{'domain':10s} " + " ".join(f"{k:>17s}" for k in kinds))
    for d in domains:
        cells = []
        for k in kinds:
            f = report[d]["kinds"].get(k)
            cells.append(f"{f['distinct']:4d} / {f['top5_share']:6.1%}" if f else " " * 17)
        print(f"{d:10s} " + " ".join(f"{c:>17s}" for c in cells))
    print("\ndifficulty histogram (tasks per level 1..5)")
    for d in domains:
        h = report[d]["difficulty_histogram"]
        print(f"{d:10s} " + " ".join(f"L{lvl}:{n:5d}" for lvl, n in h.items()) + f"   without: {report[d]['tasks_without_difficulty']}")
    print(f"rl_tasks rows without a difficulty: {report['_rl_rows_without_difficulty']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    report = figures(args.corpus)
    show(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
