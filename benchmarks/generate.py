"""Generation throughput: the six-domain mix on the local executor (one core) against Ray (two workers).

The job is the one of issue #24: every domain, 2,000 tasks each (12,000), two world seeds, the
oracle teacher with reasoning traces, RL task items with next-action items, rejected chats kept.
Every measured run is a fresh process and runs the whole job: worlds loaded, phrasebooks and
indexes built, tasks made and proven, episodes, rows, Parquet shards and the dataset card. Built
worlds are kept on disk once per machine (envs/world_cache.py): they are built before the first
measured run, so every run loads them, as a second job (or a Ray worker) on the same machine
would; `--cold-worlds` has every run build its own (no cache), as a machine's first job does. Ray's own start (`ray.init`, seconds) is left out, as
on a cluster that is already up; starting the actors and their building of worlds is counted.
Local and Ray runs alternate, several of each, so a busy spell on this shared machine falls on
both; wall time and CPU time are printed per run (Ray: the driver, the actors and Ray's own
processes), then medians and the ratio.

A separate run of the local job measures where a task's CPU goes, stage by stage, by timing the
job's own functions (exclusive time: a stage's figure leaves out the stages it calls):
generate (the kind's generator), replay (phrasings checked; the gold plan run on its own only
where the gold play cannot stand for it), proof (the gold conversation played, its end state
recorded, graded), rollout (the episode: a copy of the gold chat
with reasoning traces, or a play with --play), rows (SFT and RL rows), encode (rows checked and
made storable), arrow (batches and Parquet shards), and the rest of the job (the card, planning,
worlds built, ...). Targets: local >= 400 tasks/s on one core (<= 2.5 ms CPU a task); Ray on two
workers >= 1.8x local.

    python benchmarks/generate.py                       # 12,000 tasks, 3 runs each
    python benchmarks/generate.py --tasks-per-domain 500 --repeat 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def job_config(out: Path, executor: dict[str, Any], tasks_per_domain: int, reuse_gold: bool = True):
    from toolgym.config import load_config

    return load_config({
        "run_name": "bench",
        "domains": "all",
        "world": {"seeds": [0, 1], "size": "default"},
        "mix": {"tasks_per_domain": tasks_per_domain, "no_tool_share": 0.2},
        "teacher": {"name": "oracle", "type": "oracle", "reasoning": True},
        "user": {"type": "scripted"},
        "executor": executor,
        "output": {"dir": str(out), "shard_rows": 5000, "keep_rejected": True},
        "rl_tasks": {"enabled": True, "next_action_items": True},
        "rollout": {"reuse_gold": reuse_gold},
    })


# ---- stage clocks --------------------------------------------------------------------------------
class StageClock:
    """Exclusive CPU time per stage: a wrapped function's time, less that of wrapped functions it calls.

    The calling thread's CPU time: work other threads do meanwhile (pyarrow's) counts in `rest`."""

    def __init__(self) -> None:
        self.cpu: Counter[str] = Counter()
        self._stack: list[list[float]] = []  # per open call: [started, time of inner stages]

    @contextmanager
    def timing(self, stage: str) -> Iterator[None]:
        frame = [time.thread_time(), 0.0]
        self._stack.append(frame)
        try:
            yield
        finally:
            self._stack.pop()
            spent = time.thread_time() - frame[0]
            self.cpu[stage] += spent - frame[1]
            if self._stack:
                self._stack[-1][1] += spent

    def wrap(self, module: Any, name: str, stage: str) -> None:
        original = getattr(module, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.timing(stage):
                return original(*args, **kwargs)

        setattr(module, name, timed)

    def wrap_async(self, module: Any, name: str, stage: str) -> None:
        original = getattr(module, name)

        async def timed(*args: Any, **kwargs: Any) -> Any:  # the oracle's episodes never wait: timed like a call
            with self.timing(stage):
                return await original(*args, **kwargs)

        setattr(module, name, timed)


def install_stage_clocks() -> StageClock:
    from toolgym.envs import generation
    from toolgym.generators import worker, writer

    clock = StageClock()
    clock.wrap(worker, "draw", "generate")
    clock.wrap(generation, "check_phrasings", "replay")
    clock.wrap(generation, "replay_plan", "replay")
    clock.wrap(generation, "prove_unfinished", "proof")
    clock.wrap(generation, "check_gold", "proof")
    clock.wrap_async(worker, "run_task", "rollout")
    clock.wrap(worker, "rows_for", "rows")
    clock.wrap(writer, "encode_row", "encode")
    clock.wrap(writer, "to_batch", "arrow")
    clock.wrap(writer, "write_shard", "parquet")
    return clock


# ---- one measured run (in its own process) -------------------------------------------------------
class ChildrenCpu:
    """CPU seconds of this process's descendants (Ray's processes and actors), sampled every half
    second so that actors killed at the job's end are counted up to their last sample."""

    def __init__(self) -> None:
        import psutil

        self._me = psutil.Process()
        self._start = self._sample()
        self._last = dict(self._start)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _sample(self) -> dict[int, float]:
        found = {}
        for process in self._me.children(recursive=True):
            try:
                times = process.cpu_times()
                found[process.pid] = times.user + times.system
            except Exception:  # noqa: BLE001 - a process that ended in between
                pass
        return found

    def _poll(self) -> None:
        while not self._stop.wait(0.5):
            self._last.update(self._sample())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        self._last.update(self._sample())
        return sum(cpu - self._start.get(pid, 0.0) for pid, cpu in self._last.items())


def measure(mode: str, tasks_per_domain: int, workers: int, stages: bool, play: bool) -> dict[str, Any]:
    """One whole job in this process: wall, CPU (this process and, for Ray, its cluster's), tasks, rows."""
    from toolgym.generators.job import run_job

    result: dict[str, Any] = {"mode": mode}
    if mode == "local":
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
        executor: dict[str, Any] = {"type": "local", "concurrency": 32}
    else:
        import ray

        started = time.perf_counter()
        ray.init(num_cpus=len(os.sched_getaffinity(0)), include_dashboard=False, log_to_driver=False)
        result["ray_init_s"] = round(time.perf_counter() - started, 1)
        executor = {"type": "ray", "workers": workers, "batch_size": 64, "concurrency": 32}
    clock = install_stage_clocks() if stages else None
    with tempfile.TemporaryDirectory() as tmp:
        config = job_config(Path(tmp), executor, tasks_per_domain, reuse_gold=not play)
        children = ChildrenCpu() if mode == "ray" else None
        cpu, wall = time.process_time(), time.perf_counter()
        done = run_job(config, progress=False)
        result["wall_s"] = time.perf_counter() - wall
        result["driver_cpu_s"] = time.process_time() - cpu
        if children is not None:
            result["cluster_cpu_s"] = children.stop()
    stats = done["stats"]
    result["tasks"] = stats["tasks_run"]
    result["rows"] = sum(stats["rows"].values())
    result["pass_rate"] = stats["pass_rate"]
    result["resident_mb"] = max(stats["resident_mb_by_tasks_done"].values(), default=0)
    if clock is not None:
        result["stages_cpu_s"] = dict(clock.cpu)
    if mode == "ray":
        import ray

        ray.shutdown()
    return result


def warm_worlds() -> None:
    """Every world the job draws from, built (or found) in the machine's world cache."""
    from toolgym.envs.registry import domains, load_domain

    for name in sorted(domains()):
        for seed in (0, 1):
            load_domain(name).template(seed, "default")


def run_in_fresh_process(mode: str, args: argparse.Namespace, stages: bool = False, play: bool = False) -> dict[str, Any]:
    command = [sys.executable, __file__, "--one", mode, "--tasks-per-domain", str(args.tasks_per_domain),
               "--workers", str(args.workers)] + (["--stages"] if stages else []) + (["--play"] if play else [])
    env = {**os.environ, "TOOLGYM_WORLD_CACHE": "off"} if args.cold_worlds else None
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# ---- report --------------------------------------------------------------------------------------
def stage_table(run: dict[str, Any], title: str) -> None:
    tasks = run["tasks"]
    stages = run["stages_cpu_s"]
    total = run["driver_cpu_s"]
    print(f"\n{title}: CPU ms per task, stage by stage ({tasks:,} tasks, one core)")
    order = ["generate", "replay", "proof", "rollout", "rows", "encode", "arrow", "parquet"]
    for name in order:
        print(f"  {name:10s} {1000 * stages.get(name, 0.0) / tasks:6.3f}")
    rest = total - sum(stages.values())
    print(f"  {'rest':10s} {1000 * rest / tasks:6.3f}  (worlds, indexes and phrasebooks built, planning, the writer's "
          "bookkeeping, the card, other threads)")
    print(f"  {'total':10s} {1000 * total / tasks:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks-per-domain", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="measured runs of each executor, alternating")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--no-stages", action="store_true")
    parser.add_argument("--cold-worlds", action="store_true", help="every run builds its worlds (no world cache)")
    parser.add_argument("--one", choices=["local", "ray"], help=argparse.SUPPRESS)
    parser.add_argument("--stages", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--play", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.warm:
        warm_worlds()
        return
    if args.one:
        print(json.dumps(measure(args.one, args.tasks_per_domain, args.workers, args.stages, args.play)))
        return

    print(f"six domains x {args.tasks_per_domain:,} tasks, two worlds, reasoning and RL items on; "
          f"{len(os.sched_getaffinity(0))} cores; load average {os.getloadavg()[0]:.1f}; "
          f"worlds {'built by every run' if args.cold_worlds else 'loaded from the world cache'}")
    if not args.cold_worlds:
        subprocess.run([sys.executable, __file__, "--warm"], check=True)
    if not args.no_stages:
        stage_table(run_in_fresh_process("local", args, stages=True), "episodes copied from the proven gold chat")
        stage_table(run_in_fresh_process("local", args, stages=True, play=True), "episodes played a second time")
    runs: dict[str, list[dict[str, Any]]] = {"local": [], "ray": []}
    for _ in range(args.repeat):
        for mode in ("local",) if args.no_ray else ("local", "ray"):
            run = run_in_fresh_process(mode, args)
            runs[mode].append(run)
            cpu = run["driver_cpu_s"] + run.get("cluster_cpu_s", 0.0)
            print(f"  {mode:5s} {run['tasks']:,} tasks in {run['wall_s']:6.1f} s = {run['tasks'] / run['wall_s']:5.0f} tasks/s;"
                  f" CPU {cpu:6.1f} s ({1000 * cpu / run['tasks']:.2f} ms a task; driver {run['driver_cpu_s']:.1f} s)"
                  f"; pass {run['pass_rate']:.0%}; load {os.getloadavg()[0]:.1f}", flush=True)
    local_wall = statistics.median(r["wall_s"] for r in runs["local"])
    tasks = runs["local"][0]["tasks"]
    local_cpu = statistics.median(r["driver_cpu_s"] for r in runs["local"])
    print(f"\nlocal, one core: median {local_wall:.1f} s = {tasks / local_wall:.0f} tasks/s "
          f"({1000 * local_cpu / tasks:.2f} ms CPU a task = {tasks / local_cpu:.0f} tasks per CPU-second); target >= 400")
    if runs["ray"]:
        ray_wall = statistics.median(r["wall_s"] for r in runs["ray"])
        print(f"ray, {args.workers} workers: median {ray_wall:.1f} s = {tasks / ray_wall:.0f} tasks/s")
        print(f"ray / local = {local_wall / ray_wall:.2f}x by medians; best runs {min(r['wall_s'] for r in runs['local']) / min(r['wall_s'] for r in runs['ray']):.2f}x (target >= 1.8x)")


if __name__ == "__main__":
    main()
