"""`toolgym eval` against the reference server on loopback: pass^k, the report, --compare, resume, secrets.

One small frozen set (one task per kind of retail and telecom) serves every test of the module; the
served runs share a module-scoped server each (the oracle, and the oracle spoiling a share of its
answers with injected faults), and the spoiled run is made once and read by several tests.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from tests.test_openai_job import _serve
from toolgym.cli import main as cli_main
from toolgym.config import UserConfig
from toolgym.errors import ConfigError
from toolgym.eval_config import EvalSetSpec, load_eval_config
from toolgym.generators.evaluation.eval_set import build_eval_set
from toolgym.generators.evaluation.runner import run_eval

pytestmark = pytest.mark.xdist_group("eval")  # one worker builds the set and starts the servers once
K = 3
ROOT = Path(__file__).resolve().parent.parent
SECRET = "sk-evaltest-0123456789abcdef"


@pytest.fixture(scope="module")
def eval_set(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sets") / "small-v1"
    build_eval_set(EvalSetSpec(name="small", domains=["retail", "telecom"], tasks_per_kind=1), out)
    return out


@pytest.fixture(scope="module")
def oracle_url():
    process, url = _serve("--latency-ms", "40")  # slow enough for a kill to land mid-run
    yield url
    process.kill()
    process.wait()


@pytest.fixture(scope="module")
def spoiled_run(eval_set, tmp_path_factory):
    """The oracle with a quarter of its answers replaced by "OK." and 10% of requests answered 500."""
    process, url = _serve("--spoil-rate", "0.25", "--error-rate", "0.1", "--seed", "5")
    try:
        out = tmp_path_factory.mktemp("runs") / "spoiled"
        result = run_eval(_config(eval_set, url, out, mode="text", api_key=SECRET), progress=False)
    finally:
        process.kill()
        process.wait()
    return out, result


def _config(eval_set: Path, url: str, out: Path, mode: str = "native", **policy):
    return load_eval_config({
        "eval_set": str(eval_set), "trials": K, "concurrency": 8, "output": {"dir": str(out)},
        "policy": {"type": "openai", "base_url": url, "model": "toolgym-oracle", "send_task": True, "mode": mode,
                   "timeout": 5, "max_retries": 6, **policy},
    })


def _lines(out: Path) -> int:
    path = out / "trials.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _trials(out: Path, whole_only: bool = False) -> list[dict]:
    """The trial records; with whole_only, only tasks with all their lines whole (as a rerun keeps them)."""
    records = []
    for line in (out / "trials.jsonl").read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # a line torn by a kill
            continue
        if record["type"] == "trial":
            records.append(record)
    if whole_only:
        count: dict[str, int] = defaultdict(int)
        for record in records:
            count[record["task_id"]] += 1
        records = [r for r in records if count[r["task_id"]] == 2]
    return records


def test_the_oracle_server_scores_pass_hat_one_for_every_k(eval_set, oracle_url, tmp_path):
    out = tmp_path / "oracle"
    config = _config(eval_set, oracle_url, out)  # with the server's own user model in the customer's role
    config.user = UserConfig(type="llm", base_url=oracle_url, model="toolgym-user", send_task=True)
    result = run_eval(config, progress=False)
    figures = result["summary"]["figures"]
    assert result["ok"] and result["summary"]["tasks_complete"] == 20
    for group in [figures["all"], *figures["domain"].values(), *figures["kind"].values()]:
        assert group["pass^k"] == {str(k): 1.0 for k in range(1, K + 1)}, group
        assert group["pass@1"] == 1.0 and group["score"] == 1.0
    assert all(value == 1.0 for value in figures["all"]["components"].values())
    trials = _trials(out)
    assert len(trials) == 20 * K and {t["trial"] for t in trials} == set(range(K))
    assert all(t["usage"]["requests"] == t["turns"] and t["messages"][0]["role"] == "system" for t in trials)
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 4 and "pass^3" in html
    assert "| all | 20 | 1.000 | 1.000 | 1.000 | 1.000 |" in (out / "report.md").read_text()


def test_pass_hat_k_follows_the_tau2_formula_on_a_spoiling_server(spoiled_run):
    out, result = spoiled_run
    summary = json.loads((out / "summary.json").read_text())
    assert result["summary"]["tasks_complete"] == 20, result  # 500s were retried, not counted as failures
    # Independently of the report's code: c passing trials of n per task, C(c, k) / C(n, k) averaged.
    by_task: dict[str, list[bool]] = defaultdict(list)
    by_domain: dict[str, set[str]] = defaultdict(set)
    for trial in _trials(out):
        by_task[trial["task_id"]].append(trial["passed"])
        by_domain[trial["domain"]].add(trial["task_id"])
    assert all(len(passed) == K for passed in by_task.values())
    mixed = [t for t, passed in by_task.items() if 0 < sum(passed) < K]
    assert mixed, "the spoiling server should make some task pass only sometimes"

    def pass_hat(tasks, k):
        return sum(math.comb(sum(by_task[t]), k) / math.comb(K, k) for t in tasks) / len(tasks)

    figures = summary["figures"]
    expected = [pass_hat(by_task, k) for k in range(1, K + 1)]
    assert [figures["all"]["pass^k"][str(k)] for k in range(1, K + 1)] == pytest.approx(expected, abs=1e-12)
    assert expected[0] > expected[1] >= expected[2] and expected[0] > expected[2]  # falls with k
    assert figures["all"]["pass@1"] == pytest.approx(sum(map(sum, by_task.values())) / (K * len(by_task)))
    for domain, tasks in by_domain.items():
        assert figures["domain"][domain]["pass^k"][str(K)] == pytest.approx(pass_hat(tasks, K), abs=1e-12)
    failed = sum(not p for passed in by_task.values() for p in passed)
    assert sum(figures["all"]["first_failures"].values()) == failed
    assert all(t["first_failure"] is not None for t in _trials(out) if not t["passed"])
    retries = [e["retries"] for e in summary["endpoints"].values()]
    assert retries and retries[0] > 0  # the injected 500s went through the client's retries


def test_no_key_in_any_file_of_a_run(spoiled_run):
    out, _ = spoiled_run
    for path in out.iterdir():
        assert SECRET not in path.read_text(errors="replace"), path.name


def test_compare_prints_the_table_with_intervals(spoiled_run, eval_set, tmp_path, capsys):
    oracle = tmp_path / "offline"
    run_eval(load_eval_config({"eval_set": str(eval_set), "trials": K, "output": {"dir": str(oracle)}}), progress=False)
    spoiled, _ = spoiled_run
    html = tmp_path / "compare.html"
    assert cli_main(["eval", "--compare", str(oracle), str(spoiled), "--html", str(html), "--samples", "500"]) == 0
    printed = capsys.readouterr().out
    a = json.loads((oracle / "summary.json").read_text())["figures"]["all"]
    b = json.loads((spoiled / "summary.json").read_text())["figures"]["all"]
    row = next(line for line in printed.splitlines() if line.startswith(f"| all | pass^{K} |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3:6] == [f"{a['pass^k'][str(K)]:.3f}", f"{b['pass^k'][str(K)]:.3f}",
                          f"{b['pass^k'][str(K)] - a['pass^k'][str(K)]:+.3f}"]
    low, high = (float(x) for x in cells[6].strip("[]").split(","))
    assert low <= b["pass^k"][str(K)] - 1.0 <= high < 0 and cells[7] == "*"  # the oracle is surely better
    assert "data:image/png;base64," in html.read_text()


def test_sigkill_then_rerun_runs_only_the_unfinished_tasks(eval_set, oracle_url, tmp_path):
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "toolgym.cli", "eval", "--eval-set", str(eval_set), "--base-url", oracle_url,
               "--model", "toolgym-oracle", "--send-task", "-k", "2", "--concurrency", "2", "--out", str(out), "-q"]
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.time() + 120
    while time.time() < deadline and _lines(out) < 6:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = {t["task_id"] for t in _trials(out, whole_only=True)}
    assert 0 < len(before) < 20, "the kill should land mid-run"
    config = _config(eval_set, oracle_url, out).model_copy(update={"trials": 2, "concurrency": 8})
    result = run_eval(config, progress=False)
    assert result["ok"] and result["summary"]["tasks_complete"] == 20
    assert result["tasks_run"] == 20 - len(before)  # the finished tasks are kept; a task torn by the kill runs again
    keys = [(t["task_id"], t["trial"]) for t in _trials(out)]
    assert len(keys) == len(set(keys)) == 40


def test_a_torn_task_and_another_config_on_rerun(eval_set, tmp_path):
    out = tmp_path / "resumed"
    config = load_eval_config({"eval_set": str(eval_set), "trials": 2, "output": {"dir": str(out)},
                               "kinds": ["single", "parallel", "no_tool/irrelevant"]})
    run_eval(config, progress=False)
    path = out / "trials.jsonl"
    whole = path.read_text().splitlines(keepends=True)
    first_task = json.loads(whole[0])["task_id"]
    # Killed while appending a task: its first trial is written whole, the second torn mid-line.
    kept = [line for line in whole if json.loads(line)["task_id"] != first_task]
    cut = [line for line in whole if json.loads(line)["task_id"] == first_task]
    path.write_text("".join(kept[:-2]) + cut[0] + cut[1][: len(cut[1]) // 2])
    result = run_eval(config, progress=False)
    assert result["ok"] and result["summary"]["tasks_complete"] == 6
    assert result["tasks_run"] == 2  # the task cut short and the one never started; the others are kept
    trials = _trials(out)
    keys = [(t["task_id"], t["trial"]) for t in trials]
    assert len(keys) == len(set(keys)) == 12
    with pytest.raises(ConfigError, match="trials: 2 here, 3 now"):
        run_eval(config.model_copy(update={"trials": 3}), progress=False)


def test_the_report_renders_again_from_a_results_folder(spoiled_run, capsys):
    out, _ = spoiled_run
    (out / "report.md").unlink()
    assert cli_main(["eval", "--report", str(out)]) == 0
    assert "## Failures by first failing component" in capsys.readouterr().out
    assert (out / "report.md").is_file()
