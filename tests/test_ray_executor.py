"""The Ray executor against the local one, surviving a killed worker, and resuming after a killed driver,
each with the rows of an uninterrupted run (starts local Ray)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from tests.test_gold_reuse import written
from toolgym.config import load_config
from toolgym.generators.job import run_job
from toolgym.generators.planning import plan_streams, plan_tasks
from toolgym.generators.resolver import PlanResolver

pytestmark = pytest.mark.ray


def _config(out, executor, domains=("retail",), tasks=60, shard_rows=50):
    return load_config(
        {
            "domains": list(domains),
            "world": {"seeds": [0, 1], "size": "small"},
            "mix": {"tasks_per_domain": tasks},
            "teacher": {"type": "oracle", "reasoning": True},
            "executor": executor,
            "output": {"dir": str(out), "shard_rows": shard_rows, "keep_rejected": True},
        }
    )


@pytest.fixture(scope="module")
def ray_session():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_and_local_give_the_same_rows(ray_session, tmp_path):
    domains = ("retail", "telecom", "vehicle")
    run_job(_config(tmp_path / "local", {"type": "local"}, domains), progress=False)
    result = run_job(_config(tmp_path / "ray", {"type": "ray", "workers": 2, "batch_size": 8}, domains), progress=False)
    local, remote = written(tmp_path / "local"), written(tmp_path / "ray")
    assert remote == local
    assert len(local["sft"]) > 100 and result["stats"]["tasks_run"] == 180


def test_a_killed_worker_loses_no_task(ray_session, tmp_path):
    from toolgym.generators.executors.ray_executor import RayExecutor

    config = _config(tmp_path / "kill", {"type": "ray", "workers": 2, "batch_size": 4, "max_restarts": 2})
    resolver = PlanResolver(plan_streams(config), dedup=True, batch_size=4, ahead=64)
    executor = RayExecutor(config)

    planned = [t.id for t in plan_tasks(config)]

    async def run() -> list[dict]:
        taken = []
        killed = False
        async for outcomes in executor.run(resolver):  # the plan's tasks, finished, in plan order
            taken += outcomes
            if not killed:
                os.kill((await executor.actor_pids())[0], signal.SIGKILL)
                killed = True
            if len(taken) == len(planned):  # the plan is walked: a worker dies before its stats are read
                await _stopped_for_good(ray_session, executor.actors[1])
        return taken

    try:
        taken = asyncio.run(run())
    finally:
        executor.close()
    assert [o["task_id"] for o in taken] == planned, "every task, once, in plan order"
    assert all(o["rows"].encoded if o["rows"] else o["failure"] for o in taken)
    # the job's report says which worker was lost (the one killed mid-job may be either, as Ray restarts it)
    assert executor.worker_stats[1]["worlds"] is None and executor.worker_stats[1]["lost"] == "ActorDiedError"


async def _stopped_for_good(ray, actor) -> None:
    ray.kill(actor, no_restart=True)
    for _ in range(200):  # the kill is asynchronous: wait until a call to the actor fails
        try:
            await actor.pid.remote()
        except ray.exceptions.RayActorError:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the killed actor still answers after 10 s")


# ---- faults mid-job, then resume ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("uninterrupted") / "run"
    run_job(_config(out, {"type": "local"}), progress=False)  # the Ray executor gives the same rows (above)
    return written(out)


def test_a_worker_killed_mid_job_writes_the_uninterrupted_rows_and_leaves_nothing_to_resume(
        ray_session, uninterrupted, tmp_path, monkeypatch):
    from toolgym.generators.executors.ray_executor import RayExecutor

    original = RayExecutor.run
    killed: list[int] = []

    async def run_and_kill(self, resolver, finished=frozenset()):
        async for item in original(self, resolver, finished):
            yield item
            if not killed:  # one worker dies with its batches in flight; Ray itself retries none of them
                killed.append((await self.actor_pids())[0])
                os.kill(killed[0], signal.SIGKILL)

    monkeypatch.setattr(RayExecutor, "run", run_and_kill)
    out = tmp_path / "run"
    executor = {"type": "ray", "workers": 2, "batch_size": 4, "max_task_retries": 0}
    first = run_job(_config(out, executor), progress=False)
    # the dead worker's draws are made again by a fresh worker: no task failed, none is missing
    assert killed and first["ok"] and first["failed_tasks"] == 0, first
    assert written(out) == uninterrupted
    monkeypatch.setattr(RayExecutor, "run", original)
    resumed = run_job(_config(out, executor), progress=False)
    assert resumed["ok"] and resumed["stats"]["tasks_run"] == 0, resumed["stats"]
    assert written(out) == uninterrupted


DRIVER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import toolgym.generators.job as job
from tests.test_ray_executor import _config

original = job._write

def slow_write(*args, **kwargs):  # the driver takes its time, so a kill lands mid-run
    time.sleep(0.1)
    return original(*args, **kwargs)

job._write = slow_write
job.run_job(_config(sys.argv[2], {"type": "ray", "workers": 2, "batch_size": 4, "address": sys.argv[3]},
                    shard_rows=5), progress=False)
"""


def test_the_driver_killed_mid_job_then_resume_gives_the_uninterrupted_rows(ray_session, uninterrupted, tmp_path):
    import subprocess
    import sys
    import time
    from pathlib import Path

    out = tmp_path / "run"
    root = str(Path(__file__).resolve().parents[1])
    address = ray_session.get_runtime_context().gcs_address  # the driver joins this test's cluster
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, root, str(out), address], stderr=subprocess.PIPE)
    manifest = out / "manifest.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and driver.poll() is None:
        if manifest.exists() and manifest.read_text().count('"type":"flush"') >= 2:
            driver.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    driver.wait(timeout=60)
    assert driver.returncode == -signal.SIGKILL, driver.stderr.read().decode()[-2000:]
    finished_before = manifest.read_text().count('"type":"flush"')
    resumed = run_job(_config(out, {"type": "ray", "workers": 2, "batch_size": 4, "address": address}, shard_rows=5),
                      progress=False)
    assert finished_before >= 2 and resumed["ok"], resumed
    assert resumed["stats"]["tasks_resumed"] > 0 and resumed["stats"]["tasks_run"] > 0, resumed["stats"]
    assert written(out) == uninterrupted
