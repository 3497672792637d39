"""A job on an existing two-node Ray cluster (both nodes on this machine, token auth as Ray 2.60 asks)
writes the rows the local executor writes, with its workers on both nodes."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.test_gold_reuse import written
from toolgym.config import load_config
from toolgym.generators.job import run_job

pytestmark = pytest.mark.ray

CONFIG = {
    "domains": ["retail", "banking"],
    "world": {"seeds": [0, 1], "size": "small"},
    "mix": {"tasks_per_domain": 40},
    "teacher": {"type": "oracle", "reasoning": True},
    "output": {"shard_rows": 50, "keep_rejected": True},
}
WAIT_S = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run_python(code: str, env: dict[str, str], timeout: float) -> str:
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def cluster():
    """A head node and a second node (`ray start --block`, stopped by their own ids afterwards)."""
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()  # a local Ray of another test module
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    temp = tempfile.mkdtemp(prefix="tgray", dir="/tmp")  # Ray's socket paths must stay short
    address = f"127.0.0.1:{_free_port()}"
    ray_cli = str(Path(sys.executable).with_name("ray"))
    common = ["--block", "--num-cpus=1", "--disable-usage-stats", "--node-ip-address=127.0.0.1",
              "--object-store-memory=200000000"]
    nodes: list[subprocess.Popen] = []
    try:
        with open(Path(temp) / "head.log", "w") as log:
            nodes.append(subprocess.Popen([ray_cli, "start", "--head", f"--port={address.split(':')[1]}",
                                           "--include-dashboard=false", f"--temp-dir={temp}", *common],
                                          env=env, stdout=log, stderr=subprocess.STDOUT))
        _run_python(f"import ray; ray.init(address={address!r}, log_to_driver=False)", env, WAIT_S)  # the head answers
        with open(Path(temp) / "node.log", "w") as log:
            nodes.append(subprocess.Popen([ray_cli, "start", f"--address={address}", *common],
                                          env=env, stdout=log, stderr=subprocess.STDOUT))
        _run_python(
            f"import ray, time; ray.init(address={address!r}, log_to_driver=False)\n"
            f"deadline = time.time() + {WAIT_S}\n"
            "while sum(n['Alive'] for n in ray.nodes()) < 2 and time.time() < deadline: time.sleep(0.5)\n"
            "assert sum(n['Alive'] for n in ray.nodes()) == 2, ray.nodes()",
            env, WAIT_S + 30,
        )
        yield address, env
    finally:
        for node in reversed(nodes):  # each `ray start --block` stops its own node's processes on SIGTERM
            node.terminate()
        for node in nodes:
            try:
                node.wait(timeout=60)
            except subprocess.TimeoutExpired:
                node.kill()
        time.sleep(1)
        shutil.rmtree(temp, ignore_errors=True)


def test_a_job_on_a_two_node_cluster_writes_the_rows_of_the_local_executor(cluster, tmp_path):
    address, env = cluster
    run_job(load_config({**CONFIG, "output": {**CONFIG["output"], "dir": str(tmp_path / "local")}}), progress=False)
    remote = {**CONFIG, "output": {**CONFIG["output"], "dir": str(tmp_path / "cluster")},
              "executor": {"type": "ray", "workers": 2, "batch_size": 8, "address": address}}
    stdout = _run_python(
        "import json\nfrom toolgym.config import load_config\nfrom toolgym.generators.job import run_job\n"
        f"result = run_job(load_config(json.loads({json.dumps(json.dumps(remote))})), progress=False)\n"
        "print(json.dumps(result['stats']['workers']))",
        env, 600,
    )
    workers = json.loads(stdout.strip().splitlines()[-1])
    assert len({w["node"] for w in workers}) == 2 and all(w["draws"] > 0 for w in workers), workers
    assert written(tmp_path / "cluster") == written(tmp_path / "local")
