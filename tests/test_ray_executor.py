"""The Ray executor against the local one, and surviving a killed worker (starts local Ray)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from tests.test_generate import _ids, _rows
from toolgym.config import load_config
from toolgym.generators.job import run_job
from toolgym.generators.planning import plan_tasks

pytestmark = pytest.mark.ray


def _config(out, executor):
    return load_config(
        {
            "domains": ["retail"],
            "world": {"size": "small"},
            "mix": {"tasks_per_domain": 60},
            "executor": executor,
            "output": {"dir": str(out), "shard_rows": 50},
        }
    )


@pytest.fixture(scope="module")
def ray_session():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_and_local_give_the_same_rows(ray_session, tmp_path):
    run_job(_config(tmp_path / "local", {"type": "local"}), progress=False)
    run_job(_config(tmp_path / "ray", {"type": "ray", "workers": 2, "batch_size": 8}), progress=False)
    assert _ids(tmp_path / "ray") == _ids(tmp_path / "local")
    local = {r["id"]: (r["messages"], r["verification"]) for r in _rows(tmp_path / "local", "sft")}
    remote = {r["id"]: (r["messages"], r["verification"]) for r in _rows(tmp_path / "ray", "sft")}
    assert local == remote and local


def test_a_killed_worker_loses_no_task(ray_session, tmp_path):
    from toolgym.generators.executors.ray_executor import RayExecutor

    config = _config(tmp_path / "kill", {"type": "ray", "workers": 2, "batch_size": 4, "max_restarts": 2})
    tasks = plan_tasks(config)
    executor = RayExecutor(config)

    async def run() -> list[dict]:
        results = []
        killed = False
        async for _, result in executor.run(tasks):
            results.append(result)
            if not killed:
                os.kill((await executor.actor_pids())[0], signal.SIGKILL)
                killed = True
        return results

    try:
        results = asyncio.run(run())
    finally:
        executor.close()
    ids = [r["task_id"] for r in results]
    assert sorted(ids) == sorted(t.id for t in tasks), "every task ends as a result or a recorded failure"
    assert len(ids) == len(set(ids))
    assert all(r["episodes"] or r["error"] for r in results)
