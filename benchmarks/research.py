"""The research domain: how deep its questions go, what cheap answers score, and what search costs.

Prints, over `--tasks` tasks per kind (world 0, size `--size`):
- the gold score of every task (all must be 1.0) and the hop histogram (distinct pages the gold
  opens) per acting kind, and the share of acting tasks that need 3 or more searches or page reads;
- the highest score of each cheap answer (domains/research/cheap_answers.py) per acting kind;
- one web_search through the tool next to the same FTS5 statements run in raw sqlite3 (ratio), and
  next to a LIKE scan of every page (what a search without an index costs), median over repeats;
- with `--show N`, N gold conversations of 3 or more pages (the deepest first, one per depth).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict

import toolgym
from toolgym.domains.research.cheap_answers import CHEAP_ANSWERS
from toolgym.envs.gold import gold_messages
from toolgym.verifiers import verify

ACTING = ("single", "parallel", "multi_step", "multi_turn", "injection")
READS = ("web_search", "open_page", "find_in_page")


def median_us(fn, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - started)
    return statistics.median(samples) / 1000


def hops(task) -> int:
    return len({c.arguments["url"] for c in task.gold_calls("agent") if c.name == "open_page"})


def reads(task) -> int:
    return sum(1 for c in task.gold_calls("agent") if c.name in READS)


def search_costs(domain, size: str, repeat: int) -> tuple[float, float, float]:
    world = domain.new_world(seed=0, size=size)
    tool = domain.tool("web_search")
    arguments = {"query": "chief executive flagship product"}
    statements: list[str] = []
    world.conn.set_trace_callback(statements.append)
    outcome = tool.run(world, arguments)
    world.conn.set_trace_callback(None)
    assert outcome.error is None, outcome.error
    statements = [s for s in statements if not s.startswith(("SAVEPOINT", "RELEASE"))]
    tool_us = median_us(lambda: tool.run(world, arguments), repeat)
    raw_us = median_us(lambda: [world.conn.execute(s).fetchall() for s in statements], repeat)
    like = "SELECT url FROM page WHERE body LIKE ? OR body LIKE ? OR body LIKE ? OR body LIKE ?"
    words = [f"%{w}%" for w in ("chief", "executive", "flagship", "product")]
    like_us = median_us(lambda: world.conn.execute(like, words).fetchall(), repeat)
    world.close()
    return tool_us, raw_us, like_us


def show(domain, task) -> None:
    messages, _ = gold_messages(domain, task)
    print(f"\n--- {task.kind}, {hops(task)} pages, task {task.id}")
    for message in messages[1:]:
        if message.get("tool_calls"):
            for call in message["tool_calls"]:
                function = call.get("function", call)
                print(f"  assistant -> {function['name']}({json.dumps(function['arguments']) if not isinstance(function['arguments'], str) else function['arguments']})")
        elif message["role"] == "tool":
            print(f"  tool: {message['content'][:160]}{'...' if len(message['content']) > 160 else ''}")
        else:
            print(f"  {message['role']}: {message.get('content')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200, help="tasks per kind")
    parser.add_argument("--size", default="default")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--show", type=int, default=0, help="print this many gold conversations of 3+ hops")
    args = parser.parse_args()
    domain = toolgym.load_domain("research")
    started = time.perf_counter()
    tasks = domain.generate_tasks(args.tasks * len(domain.kinds), size=args.size)
    generated = time.perf_counter() - started
    hop_counts: dict[str, Counter] = defaultdict(Counter)
    cheap: dict[tuple[str, str], float] = {}
    deep = total = 0
    below = []
    for task in tasks:
        messages, _ = gold_messages(domain, task)
        score = verify(task, messages)
        if score.value < 1.0:
            below.append(task.id)
        if task.kind not in ACTING:
            continue
        total += 1
        deep += reads(task) >= 3
        hop_counts[task.kind][hops(task)] += 1
        for name, make in CHEAP_ANSWERS.items():
            chat = make(messages)
            if chat is not None:
                cheap[(task.kind, name)] = max(cheap.get((task.kind, name), 0.0), verify(task, chat).value)
    print(f"{len(tasks)} tasks ({args.tasks} per kind, world '{args.size}') generated in {generated:.1f} s")
    print(f"gold below 1.0: {len(below)} {below[:5]}")
    print(f"acting tasks needing 3+ searches or reads: {deep}/{total} = {deep / max(total, 1):.0%}")
    print("pages opened by the gold, per acting kind:")
    for kind in ACTING:
        print(f"  {kind:12s} " + "  ".join(f"{h}:{n}" for h, n in sorted(hop_counts[kind].items())))
    print("highest score of each cheap answer:")
    for kind in ACTING:
        print(f"  {kind:12s} " + "  ".join(f"{name} {cheap.get((kind, name), float('nan')):.3f}" for name in CHEAP_ANSWERS))
    tool_us, raw_us, like_us = search_costs(domain, args.size, args.repeat)
    print(f"web_search: tool {tool_us:.0f} us, its FTS5 SQL in raw sqlite3 {raw_us:.0f} us ({tool_us / raw_us:.1f}x), "
          f"a LIKE scan of every page {like_us:.0f} us ({like_us / raw_us:.1f}x the FTS5 SQL)")  # fmt: skip
    deep_tasks = [t for t in tasks if t.kind == "multi_step" and hops(t) >= 3]
    by_depth = {hops(t): t for t in reversed(deep_tasks)}  # one of each depth first (5, 4, 3), then the rest
    shown = [*sorted(by_depth.values(), key=hops, reverse=True), *(t for t in deep_tasks if t not in by_depth.values())]
    shown = shown[: args.show]
    for task in shown:
        show(domain, task)


if __name__ == "__main__":
    main()
