"""The generation job with a served teacher: `toolgym serve-policy` in a subprocess on loopback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.jobs import toy_config
from tests.test_generate import _rows
from toolgym.cli import main as cli_main
from toolgym.generators.job import run_job

ROOT = Path(__file__).resolve().parent.parent


def _serve(*flags: str):
    process = subprocess.Popen(
        [sys.executable, "-m", "toolgym.cli", "serve-policy", "--port", "0", "--import", "tests.toy", *flags],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    match = re.search(r"(http://127\.0\.0\.1:\d+/v1)", line)
    assert match, f"serve-policy printed {line!r}"
    return process, match.group(1)


@pytest.fixture
def server():
    process, url = _serve()
    yield url
    process.kill()
    process.wait()


@pytest.fixture
def faulty_server():
    process, url = _serve("--error-rate", "0.1", "--timeout-rate", "0.05", "--malformed-rate", "0.05", "--hang-s", "3")
    yield url
    process.kill()
    process.wait()


def _served(url: str, **teacher):
    return {"name": "served", "type": "openai", "base_url": url, "model": "toolgym-oracle", "send_task": True,
            "concurrency": 32, "timeout": 1.0, "max_retries": 4, **teacher}  # fmt: skip


def _by_id(out: Path, split: str) -> dict[str, dict]:
    return {r["id"]: r for r in _rows(out, split)}


@pytest.mark.parametrize("mode", ["native", "text"])
def test_served_oracle_gives_the_offline_rows(toy_domain, tmp_path, server, mode):
    run_job(toy_config(tmp_path / "offline"), progress=False)
    result = run_job(toy_config(tmp_path / "served", teacher=_served(server, mode=mode)), progress=False)
    assert result["stats"]["task_failures"] == 0
    for split in ("sft", "no_tool", "rl_tasks"):
        offline, served = _by_id(tmp_path / "offline", split), _by_id(tmp_path / "served", split)
        assert offline.keys() == served.keys() and offline, split
        for row_id, row in offline.items():
            other = served[row_id]
            ignore = {"teacher", "usage"}
            assert {k: v for k, v in row.items() if k not in ignore} == {k: v for k, v in other.items() if k not in ignore}
    served_row = next(iter(_by_id(tmp_path / "served", "sft").values()))
    assert served_row["teacher"]["name"] == "served" and served_row["teacher"]["mode"] == mode
    assert served_row["usage"]["requests"] >= 1


def test_faults_lose_no_task(toy_domain, tmp_path, faulty_server):
    out = tmp_path / "faulty"
    result = run_job(toy_config(out, teacher=_served(faulty_server)), progress=False)
    stats = result["stats"]
    assert stats["tasks_run"] == stats["tasks_planned"] > 0
    written = {r["task_id"] for split in ("sft", "no_tool", "rejected") for r in _rows(out, split)}
    failures = out / "failures.jsonl"
    failed = {json.loads(line)["task_id"] for line in failures.read_text().splitlines()} if failures.exists() else set()
    assert len(written | failed) == stats["tasks_run"], "each task is a row or a recorded failure"
    assert not written & failed
    usage = [r["usage"] for r in _rows(out, "sft") + _rows(out, "rejected") if r["usage"]]
    assert any(u.get("requests", 0) > 1 for u in usage)
    (endpoint,) = stats["endpoints"].values()
    assert endpoint["retries"] > 0, endpoint  # counted, and shown in the card
    assert "retries" in (out / "README.md").read_text()


def test_server_down_stops_the_job_within_seconds(toy_domain, tmp_path, capsys):
    config = tmp_path / "down.yaml"
    config.write_text(
        "domains: [toy]\nworld: {size: default}\nmix: {tasks_per_domain: 20}\n"
        "teacher: {name: served, type: openai, base_url: 'http://127.0.0.1:9/v1', model: m, timeout: 2}\n"
        f"output: {{dir: '{tmp_path / 'out'}'}}\n"
    )
    started = time.monotonic()
    code = cli_main(["generate", str(config), "-q"])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 2 and elapsed < 15
    assert "127.0.0.1:9" in err and err.count("\n") <= 3, err
