"""The worlds served over OpenEnv's WebSocket protocol: what gold and do-nothing episodes score, and how fast.

Starts `toolgym serve-env` on 127.0.0.1 (its own process), plays the gold of N tasks per domain (kinds in turn)
and a do-nothing episode ("OK." until the customer leaves) of each through OpenEnv's client with up
to S sessions at once, and, as the baseline in the same run, the same episodes in-process through
`Episode` (the core every adapter shares). Prints per domain the gold's and do-nothing's scores and
the episodes per second of both paths (docs/trainers/openenv.md quotes it).

    python benchmarks/serving.py --tasks 20 --sessions 100
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from toolgym.envs.gold import gold_messages
from toolgym.envs.registry import list_domains, load_domain
from toolgym.integrations.episode import Episode
from toolgym.integrations.openenv import ToolgymEnvClient

DO_NOTHING = "OK."


def episodes(per_domain: int, seed: int) -> list[tuple[Any, list[dict[str, Any]]]]:
    played = []
    for name in list_domains():
        domain = load_domain(name)
        for task in domain.generate_tasks(per_domain, seed=seed):
            messages, _ = gold_messages(domain, task)
            moves = [{k: m[k] for k in ("role", "content", "tool_calls") if k in m} for m in messages if m["role"] == "assistant"]
            played.append((task, moves))
    return played


def in_process(played) -> tuple[list[float], list[float], float]:
    start = time.perf_counter()
    gold, lazy = [], []
    for task, moves in played:
        for script, scores in ((moves, gold), (None, lazy)):
            episode = Episode()
            episode.start(task=task)
            outcome = None
            for move in script or iter(lambda: DO_NOTHING, None):
                outcome = episode.act(move)
                if outcome.done:
                    break
            scores.append(outcome.reward if outcome is not None else 0.0)
            episode.close()
    return gold, lazy, time.perf_counter() - start


async def served(url: str, played, sessions: int) -> tuple[list[float], list[float], float]:
    slots = asyncio.Semaphore(sessions)

    async def play(task, script) -> float:
        async with slots, ToolgymEnvClient(base_url=url, message_timeout_s=300) as env:
            result = await env.reset(task=task.model_dump(mode="json"))
            for move in script or iter(lambda: DO_NOTHING, None):
                result = await env.step(move)
                if result.done:
                    break
            return float(result.reward or 0.0)

    start = time.perf_counter()
    gold = await asyncio.gather(*(play(task, moves) for task, moves in played))
    lazy = await asyncio.gather(*(play(task, None) for task, _ in played))
    return list(gold), list(lazy), time.perf_counter() - start


def serve(sessions: int) -> tuple[subprocess.Popen, str]:
    """`toolgym serve-env` in its own process, as a trainer would run it (the client here has its own GIL)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [str(Path(sys.executable).parent / "toolgym"), "serve-env", "--port", str(port), "--max-sessions", str(sessions)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"toolgym serve-env did not start (exit code {process.poll()})")
        time.sleep(0.1)


def report(played, label: str, gold: list[float], lazy: list[float], seconds: float) -> None:
    print(f"\n{label}: {2 * len(played)} episodes in {seconds:.1f} s ({2 * len(played) / seconds:.1f} episodes/s)")
    print("| domain | tasks | gold mean | gold min | do-nothing mean | do-nothing max |")
    print("|---|---|---|---|---|---|")
    for name in list_domains():
        index = [i for i, (task, _) in enumerate(played) if task.domain == name]
        g, z = [gold[i] for i in index], [lazy[i] for i in index]
        print(f"| {name} | {len(index)} | {statistics.mean(g):.2f} | {min(g):.2f} | {statistics.mean(z):.2f} | {max(z):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20, help="tasks per domain (default 20)")
    parser.add_argument("--sessions", type=int, default=100, help="OpenEnv sessions at once (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    played = episodes(args.tasks, args.seed)
    report(played, "in-process (Episode)", *in_process(played))
    process, url = serve(args.sessions)
    try:
        gold, lazy, seconds = asyncio.run(served(url, played, args.sessions))
    finally:
        process.terminate()
        process.wait(timeout=30)
    report(played, f"served (OpenEnv WebSocket, {args.sessions} sessions at once)", gold, lazy, seconds)


if __name__ == "__main__":
    main()
