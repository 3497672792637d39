"""Teacher calls against serve-policy: throughput and client CPU per call, beside the plain client.

    python benchmarks/teacher.py [--domain retail] [--concurrency 256] [--latency-ms 200] [--seconds 3]

The reference server runs in a subprocess on loopback with added latency and answers as the
oracle. This process replays real chat states (every prefix of the oracle's rollouts that ends
before an assistant turn) as teacher calls, `concurrency` in flight, for a fixed time per path:

- OpenAITeacher as configured by default (the `openai` package's aiohttp transport);
- OpenAITeacher on the client's httpx2 transport (pool sized to the concurrency);
- the plain `openai` client, `chat.completions.create` with default settings.

Throughput is reported as a share of the ideal (concurrency / latency), client CPU as this
process's CPU time over the calls made. Targets: >= 90% of ideal, <= 1 ms CPU per call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class State:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    task: Any


@dataclass
class Result:
    path: str
    calls: int
    seconds: float
    cpu: float
    errors: int

    def per_second(self) -> float:
        return self.calls / self.seconds

    def cpu_ms(self) -> float:
        return 1000 * self.cpu / max(self.calls, 1)


def load(domain_name: str):
    import toolgym

    if domain_name in toolgym.list_domains():
        return toolgym.load_domain(domain_name), []
    from toolgym.envs import registry
    from toolgym.generators.serve_policy import register_domain_module

    register_domain_module("tests.toy")  # the tests' tiny domain, when no built-in is asked for
    return registry.load_domain("toy"), ["--import", "tests.toy"]


def chat_states(domain, tasks) -> list[State]:
    from toolgym.envs.env import ToolEnv
    from toolgym.generators import OracleTeacher, ScriptedUser, rollout_sync

    states = []
    env = ToolEnv(domain)
    for task in tasks:
        trajectory = rollout_sync(env, OracleTeacher(), ScriptedUser(), task)
        tools = domain.schemas(task.tools)
        for index, message in enumerate(trajectory.messages):
            if message["role"] == "assistant":
                states.append(State(trajectory.messages[:index], tools, task))
    return states


def start_server(tasks, latency_ms: float, extra: list[str]) -> tuple[subprocess.Popen, str, Path]:
    folder = Path(tempfile.mkdtemp(prefix="toolgym-bench-"))
    task_file = folder / "tasks.jsonl"
    task_file.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    command = [sys.executable, "-m", "toolgym.generators.serve_policy", "--port", "0",
               "--latency-ms", str(latency_ms), "--tasks", str(task_file), *extra]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline() if process.stdout else ""
    if "serving" not in line:
        process.kill()
        raise SystemExit(f"serve-policy did not start (got {line!r}); run: {' '.join(command)}")
    return process, line.strip().rsplit(" ", 1)[-1], task_file


def process_cpu(pid: int) -> float | None:
    """CPU seconds of another process (Linux /proc), or None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


async def measure(path: str, call, states: list[State], concurrency: int, seconds: float,
                  warmup: float = 1.0) -> Result:
    counting = False
    stop = False
    calls = errors = 0

    async def worker(start: int) -> None:
        nonlocal calls, errors
        index = start
        while not stop:
            try:
                await call(states[index % len(states)])
                calls += counting
            except Exception:
                errors += 1
            index += concurrency

    workers = [asyncio.create_task(worker(i)) for i in range(concurrency)]
    await asyncio.sleep(warmup)
    counting = True
    cpu0, wall0, calls0 = time.process_time(), time.perf_counter(), calls
    await asyncio.sleep(seconds)
    cpu1, wall1, calls1 = time.process_time(), time.perf_counter(), calls
    counting, stop = False, True
    await asyncio.gather(*workers)
    return Result(path, calls1 - calls0, wall1 - wall0, cpu1 - cpu0, errors)


def paths(base_url: str, concurrency: int) -> list[tuple[str, Any]]:
    """(name, factory); a factory, called inside a fresh event loop, gives (call, close)."""
    model = "toolgym-oracle"

    def plain():
        import openai

        from toolgym.generators.chat_format import api_messages

        client = openai.AsyncOpenAI(base_url=base_url, api_key="bench")

        async def call(state: State) -> None:
            await client.chat.completions.create(
                model=model, messages=api_messages(state.messages), tools=state.tools,
                metadata={"toolgym_task_id": state.task.id},
            )
        return call, client.close

    def teacher(**options: Any):
        def make():
            from toolgym.generators.http_client import close_endpoints
            from toolgym.generators.openai_teacher import OpenAITeacher

            ours = OpenAITeacher(model, base_url=base_url, api_key="bench", concurrency=concurrency, **options)

            async def call(state: State) -> None:
                await ours.act(state.messages, state.tools, state.task)
            return call, close_endpoints
        return make

    return [
        ("OpenAITeacher (default)", teacher()),
        ("OpenAITeacher, httpx2 transport", teacher(transport="httpx")),
        ("openai chat.completions.create", plain),
    ]


def run_path(name: str, factory, states: list[State], args) -> Result:
    """One path in its own event loop, so no path inherits another's connections or tasks."""

    async def run() -> Result:
        call, close = factory()
        try:
            return await measure(name, call, states, args.concurrency, args.seconds)
        finally:
            await close()

    return asyncio.run(run())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--domain", default="retail", help="a built-in domain (falls back to the tests' toy domain)")
    parser.add_argument("--tasks", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=3.0, help="measured time per path")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))

    domain, extra = load(args.domain)
    tasks = domain.generate_tasks(args.tasks, seed=0)
    states = chat_states(domain, tasks)
    process, base_url, task_file = start_server(tasks, args.latency_ms, extra)
    try:
        server_cpu0 = process_cpu(process.pid)
        results = [run_path(name, factory, states, args) for name, factory in paths(base_url, args.concurrency)]
        server_cpu1 = process_cpu(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)
        task_file.unlink(missing_ok=True)
        task_file.parent.rmdir()

    ideal = args.concurrency / (args.latency_ms / 1000)
    busy = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    mean_messages = sum(len(s.messages) for s in states) / len(states)
    print(f"teacher calls against serve-policy ({domain.name}, {len(states)} chat states of {mean_messages:.1f} "
          f"messages on average), {args.concurrency} in flight, {args.latency_ms:g} ms latency: "
          f"ideal {ideal:.0f} calls/s; {args.seconds:g} s per path; {os.cpu_count()} CPUs, load {busy:.1f} "
          "(client and server share them)")
    print(f"{'path':36s} {'calls/s':>8s} {'% ideal':>8s} {'client CPU ms/call':>19s} {'errors':>7s}")
    for r in results:
        print(f"{r.path:36s} {r.per_second():8.0f} {100 * r.per_second() / ideal:7.0f}% {r.cpu_ms():19.3f} {r.errors:7d}")
    ours, plain = results[0], results[-1]
    print(f"ratio create / OpenAITeacher: {plain.cpu_ms() / ours.cpu_ms():.1f}x the CPU per call, "
          f"{ours.per_second() / plain.per_second():.2f}x the throughput")
    if server_cpu0 is not None and server_cpu1 is not None:
        served = sum(r.calls for r in results)
        print(f"server CPU (whole run, incl. warm-up): {1000 * (server_cpu1 - server_cpu0) / max(served, 1):.3f} ms "
              "per counted call")
    met = ours.per_second() >= 0.9 * ideal and ours.cpu_ms() <= 1.0
    print(f"targets (>= 90% of ideal, <= 1 ms client CPU per call): {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
