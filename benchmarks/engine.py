"""Engine measurements per domain, on one core, with baselines measured in the same run.

Prints: median world copy and env reset; median read-tool call next to the exact SQL it runs,
executed in raw sqlite3 (ratio); median verify; gold replay + verify tasks per second; gold
rollouts (oracle and scripted user through `rollout_sync`) per second next to the old path (an
event loop started per episode with `asyncio.run`); peak RSS.
Targets (default world): reset <= 100 us, tool call <= 3x raw sqlite3, >= 2,000 tasks/s,
>= 500 rollouts/s, <= 200 MB resident. For scale, a well-known peer resets its retail env in ~69 ms and replays
and grades ~1 task/s on this kind of machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import time

import toolgym
from toolgym.verifiers import verify


def median_us(fn, repeat: int, batch: int = 1) -> float:
    """Median time of one call; calls are timed in batches so the clock's own cost drops out."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter_ns() - start) / batch)
    return statistics.median(samples) / 1000


def read_probe(domain, tasks):
    """A gold read call of a generated task, and the SQL statements it executes."""
    for task in tasks:
        for call in task.gold_calls():
            tool = domain.tool(call.name)
            if tool.writes:
                continue
            world = domain.new_world(task)
            statements: list[str] = []
            world.conn.set_trace_callback(statements.append)
            outcome = tool.run(world, call.arguments)
            world.conn.set_trace_callback(None)
            statements = [s for s in statements if not s.startswith(("SAVEPOINT", "RELEASE"))]
            if outcome.error is None and statements:
                return task, tool, call.arguments, statements, world
    raise SystemExit(f"{domain.name}: no read call to probe")


def rollout_rates(env, oracle, user, tasks) -> tuple[float, float]:
    """Gold rollouts per second through `rollout_sync`, and through `asyncio.run(rollout(...))`."""
    rates = []
    for run in (lambda t: toolgym.rollout_sync(env, oracle, user, t), lambda t: asyncio.run(toolgym.rollout(env, oracle, user, t))):
        started = time.perf_counter()
        for task in tasks:
            trajectory = run(task)
            assert trajectory.verification is not None and trajectory.verification.value == 1.0, task.id
        rates.append(len(tasks) / (time.perf_counter() - started))
    return rates[0], rates[1]


def bench_domain(name: str, size: str, n_tasks: int, repeat: int) -> dict[str, float]:
    domain = toolgym.load_domain(name)
    started = time.perf_counter()
    template = domain.template(size=size)
    build_s = time.perf_counter() - started
    tasks = domain.generate_tasks(n_tasks, seed=1, size=size)
    env = toolgym.make(name, world_size=size)
    oracle, user = toolgym.OracleTeacher(), toolgym.ScriptedUser()
    chats = [toolgym.rollout_sync(env, oracle, user, t).messages for t in tasks]

    copy_us = median_us(lambda: domain.new_world(tasks[0]).close(), repeat)
    reset_us = median_us(lambda: env.reset(options={"task": tasks[0]}), repeat)

    task, tool, arguments, statements, world = read_probe(domain, tasks)
    raw = world.conn

    def raw_query():
        for sql in statements:
            raw.execute(sql).fetchall()

    tool_us = median_us(lambda: tool.run(world, arguments), repeat, batch=50)
    raw_us = median_us(raw_query, repeat, batch=50)

    verify_us = median_us(lambda: verify(tasks[0], chats[0]), repeat)
    started = time.perf_counter()
    for task, chat in zip(tasks, chats, strict=True):
        score = verify(task, chat)  # replays the gold calls of the oracle's chat on a fresh world, then grades
        assert score.value == 1.0, (task.id, score.to_dict())
    rate = len(tasks) / (time.perf_counter() - started)
    sync_rate, old_rate = rollout_rates(env, oracle, user, tasks)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{domain.env_id} (world '{size}': {len(template.image) / 1e6:.2f} MB image, built in {build_s:.2f}s)")
    print(f"  world copy per episode   {copy_us:9.1f} us")
    print(f"  env reset (with prompt)  {reset_us:9.1f} us   target <= 100 us; peer ~69,000 us ({69000 / reset_us:,.0f}x)")
    print(f"  tool call {tool.name:<14} {tool_us:9.1f} us   same SQL in raw sqlite3 {raw_us:.1f} us ({len(statements)} statement(s)) -> {tool_us / raw_us:.2f}x (target <= 3x)")
    print(f"  verify one chat          {verify_us:9.1f} us")
    print(f"  gold replay + verify     {rate:9.0f} tasks/s  target >= 2,000; peer ~1/s ({rate:,.0f}x)")
    print(f"  gold rollouts (sync)     {sync_rate:9.0f} /s      target >= 500; asyncio.run per episode {old_rate:.0f}/s ({sync_rate / old_rate:.2f}x)")
    print(f"  peak resident memory     {rss_mb:9.0f} MB      target <= 200 MB")
    return {"reset_us": reset_us, "tool_ratio": tool_us / raw_us, "tasks_per_s": rate, "rollouts_per_s": sync_rate, "rss_mb": rss_mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--domains", nargs="*", default=None)
    parser.add_argument("--size", default="default")
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the targets say
    for name in args.domains or toolgym.list_domains():
        bench_domain(name, args.size, args.tasks, args.repeat)


if __name__ == "__main__":
    main()
