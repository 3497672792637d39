"""The Ray executor against the local one, and surviving a killed worker (starts local Ray)."""

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


def _config(out, executor, domains=("retail",), tasks=60):
    return load_config(
        {
            "domains": list(domains),
            "world": {"seeds": [0, 1], "size": "small"},
            "mix": {"tasks_per_domain": tasks},
            "teacher": {"type": "oracle", "reasoning": True},
            "executor": executor,
            "output": {"dir": str(out), "shard_rows": 50, "keep_rejected": True},
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

    async def run() -> list[dict]:
        taken = []
        killed = False
        async for outcomes in executor.run(resolver):
            resolver.add(outcomes)
            taken += resolver.resolved()
            if not killed:
                os.kill((await executor.actor_pids())[0], signal.SIGKILL)
                killed = True
        return taken

    try:
        taken = asyncio.run(run())
    finally:
        executor.close()
    assert [o["task_id"] for o in taken] == [t.id for t in plan_tasks(config)], "every task, once, in plan order"
    assert all(o["rows"] or o["failure"] for o in taken)
