"""End-to-end generation jobs on the toy domain: output, re-verification, resume, bad configs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import datasets
import pytest

import toolgym
from tests.jobs import toy_config
from toolgym.cli import main as cli_main
from toolgym.config import load_config
from toolgym.errors import ConfigError
from toolgym.generators.job import run_job

ROOT = Path(__file__).resolve().parent.parent


def _rows(out: Path, split: str) -> list[dict]:
    files = sorted(str(p) for p in (out / split).glob("*.parquet"))
    if not files:
        return []
    return list(datasets.load_dataset("parquet", data_files=files, split="train"))


def _ids(out: Path) -> dict[str, list[str]]:
    return {split: sorted(r["id"] for r in _rows(out, split)) for split in ("sft", "no_tool", "rl_tasks", "rejected")}


@pytest.fixture
def finished_job(toy_domain, tmp_path):
    out = tmp_path / "job"
    result = run_job(toy_config(out), progress=False)
    return out, result


def test_job_writes_verified_rows_that_load_back(finished_job):
    out, result = finished_job
    stats = result["stats"]
    assert stats["tasks_run"] == stats["tasks_planned"] > 0
    assert stats["pass_rate"] == 1.0
    sft, no_tool, rl = _rows(out, "sft"), _rows(out, "no_tool"), _rows(out, "rl_tasks")
    assert sft and no_tool and rl
    assert {r["kind"] for r in sft} == {"single", "multi_turn"}
    assert {r["kind"] for r in no_tool} == {"no_tool/irrelevant", "no_tool/missing_info", "no_tool/unavailable"}
    for row in sft + no_tool:
        assert row["verification"]["passed"] and row["teacher"]["name"] == "oracle"
        task = next(r["task"] for r in rl if r["id"] == f"{row['task_id']}-rl")
        assert toolgym.verify(task, row["messages"]).value == 1.0
        calls = [c for m in row["messages"] for c in (m.get("tool_calls") or [])]
        assert all(isinstance(c["function"]["arguments"], dict) for c in calls)
    kinds = {r["item_type"] for r in rl}
    assert kinds == {"episode", "next_action"}
    for row in sft + no_tool + rl:  # every row rated, as its task is: a trainer sorts or filters by the columns
        task = next(r["task"] for r in rl if r["id"] == f"{row.get('task_id') or row['task']['id']}-rl")
        assert (row["difficulty"], row["difficulty_score"]) == (task["difficulty"]["level"], task["difficulty"]["score"])
    card = (out / "README.md").read_text()
    assert "sft" in card and "toy" in card and "## Difficulty" in card


def test_rl_items_reset_an_env_and_next_actions_target_gold_calls(finished_job, toy_domain):
    out, _ = finished_job
    rl = _rows(out, "rl_tasks")
    episode = next(r for r in rl if r["item_type"] == "episode" and r["kind"] == "single")
    env = toolgym.make(episode["env_id"], world_size="default")
    observation, info = env.reset(options={"task": episode["task"]})
    assert observation[1]["content"] == episode["prompt"][1]["content"]
    item = next(r for r in rl if r["item_type"] == "next_action")
    from toolgym.verifiers.rewards import tool_call_reward

    assert tool_call_reward([item["target"]], target=item["target"]) == [1.0]
    assert item["prompt"][-1]["role"] in ("user", "tool")
    # rendered with its tools, for trainers that ignore the tools column; the episode's prompt is the env's own
    assert all(t["function"]["name"] in item["prompt"][0]["content"] for t in item["tools"])
    assert "<tools>" in item["prompt"][0]["content"] and "<tools>" not in episode["prompt"][0]["content"]
    assert {r["environment"] for r in rl if r["kind"] != "no_tool/unavailable"} == {"toy"}


def test_same_config_same_rows(toy_domain, tmp_path, finished_job):
    out, _ = finished_job
    again = tmp_path / "again"
    run_job(toy_config(again), progress=False)
    assert _ids(again) == _ids(out)
    first = {r["id"]: r["messages"] for r in _rows(out, "sft")}
    second = {r["id"]: r["messages"] for r in _rows(again, "sft")}
    assert first == second


def test_rerun_of_a_finished_job_adds_nothing(finished_job):
    out, _ = finished_job
    before = _ids(out)
    result = run_job(toy_config(out), progress=False)
    assert result["stats"]["tasks_run"] == 0
    assert _ids(out) == before


def test_sigkill_then_resume_gives_exactly_the_uninterrupted_ids(toy_domain, tmp_path, finished_job):
    reference, _ = finished_job
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "tests.jobs", str(out), "0.02"], cwd=ROOT, env=env)
    deadline = time.time() + 60
    while time.time() < deadline and len(list((out / "sft").glob("*.parquet"))) < 2:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    partial = sum(len(v) for v in _ids(out).values())
    total = sum(len(v) for v in _ids(reference).values())
    assert 0 < partial < total, "the kill should land mid-run"
    subprocess.run([sys.executable, "-m", "tests.jobs", str(out)], cwd=ROOT, env=env, check=True)
    resumed = _ids(out)
    assert resumed == _ids(reference)
    for split, ids in resumed.items():
        assert len(ids) == len(set(ids)), f"duplicate rows in {split}"


def test_a_task_that_raises_is_recorded_and_the_job_goes_on(toy_domain, tmp_path, monkeypatch):
    from toolgym.generators.oracle import OracleTeacher

    original = OracleTeacher.act_sync
    victims: set[str] = set()

    def flaky(self, messages, tools, task=None):
        if task.kind == "single" and (not victims or task.id in victims):
            victims.add(task.id)
            raise RuntimeError("teacher exploded")
        return original(self, messages, tools, task)

    monkeypatch.setattr(OracleTeacher, "act_sync", flaky)
    # fail the rollout, not the gold proof: the task is replayed and not played at generation
    monkeypatch.setattr("toolgym.envs.generation.prove_unfinished", lambda domain, task, finish: None)
    monkeypatch.setattr("toolgym.envs.generation.check_gold", lambda domain, task: None)
    # nor played to find the reads it repeats (envs/rereads.py): no chat, none to leave out
    monkeypatch.setattr("toolgym.envs.generation.gold_chat", lambda domain, task: ([], None))
    out = tmp_path / "flaky"
    result = run_job(toy_config(out), progress=False)
    assert result["stats"]["task_failures"] == 1
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert failures[0]["task_id"] in victims and "teacher exploded" in failures[0]["error"]
    assert result["stats"]["tasks_run"] == result["stats"]["tasks_planned"]


def test_only_the_draws_the_plan_takes_are_rolled_out(toy_domain, tmp_path, monkeypatch):
    from toolgym.generators import worker

    made, played = [], []
    draw, run_task = worker.draw, worker.run_task

    def counted_draw(*args, **kwargs):
        made.append(args[3:])  # (kind, index, attempt)
        return draw(*args, **kwargs)

    async def counted_run_task(task, *args, **kwargs):
        played.append(task.id)
        return await run_task(task, *args, **kwargs)

    monkeypatch.setattr(worker, "draw", counted_draw)
    monkeypatch.setattr(worker, "run_task", counted_run_task)
    out = tmp_path / "two_phase"
    result = run_job(toy_config(out), progress=False)
    tasks = result["stats"]["tasks_run"]
    assert len(made) > tasks  # some draws repeated a lesson and were dropped by the plan
    assert len(played) == len(set(played)) == tasks  # every task the plan took played once, no other
    assert sorted(played) == sorted({r["task_id"] for split in ("sft", "no_tool", "rejected") for r in _rows(out, split)})


def test_bad_configs_name_the_key_and_the_fix(tmp_path, capsys):
    with pytest.raises(ConfigError, match=r"unknown key 'executor.typ'. did you mean 'type'"):
        load_config({"executor": {"typ": "ray"}})
    with pytest.raises(ConfigError, match=r"did you mean 'no_tool/irrelevant'"):
        load_config({"mix": {"kinds": {"no_tool/irelevant": 3}}})
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="--set takes key=value"):
        load_config({}, ["executor.type"])
    bad = tmp_path / "bad.yaml"
    bad.write_text("executor:\n  type: spark\n")
    assert cli_main(["generate", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "executor.type" in err and "'local'" in err and "'ray'" in err


def test_unknown_domain_in_config(tmp_path):
    config = load_config({"domains": ["retial"], "output": {"dir": str(tmp_path)}})
    with pytest.raises(KeyError, match="unknown domain 'retial'"):
        run_job(config, progress=False)


def test_an_executor_started_before_a_plan_that_fails_is_closed(tmp_path, monkeypatch):
    """Executors start (Ray's actors import and build their domains) while the plan is made; a plan
    that cannot be made (a wrong domain name) must not leave them running."""
    calls: list[str] = []

    class Recording:
        ahead = 64

        def __init__(self, config):
            calls.append("made")

        def start(self):
            calls.append("start")

        def close(self):
            calls.append("close")

    monkeypatch.setattr("toolgym.generators.job.make_executor", Recording)
    config = load_config({"domains": ["retial"], "output": {"dir": str(tmp_path)}})
    with pytest.raises(KeyError, match="unknown domain 'retial'"):
        run_job(config, progress=False)
    assert calls == ["made", "start", "close"]


def test_api_key_never_reaches_the_card(toy_domain, tmp_path):
    config = toy_config(tmp_path / "card", teacher={"name": "oracle", "api_key": "sk-very-secret"})
    run_job(config, progress=False)
    for path in (tmp_path / "card").rglob("*"):
        if path.is_file():
            assert b"sk-very-secret" not in path.read_bytes(), path


def test_quickstart_config_end_to_end(tmp_path):
    """The config `make run` uses: every domain, offline, loaded back and re-verified row by row."""
    out = tmp_path / "quickstart"
    assert cli_main(["generate", str(ROOT / "configs" / "quickstart.yaml"), "--out", str(out), "-q"]) == 0
    sft = _rows(out, "sft")
    no_tool = _rows(out, "no_tool")
    rl = _rows(out, "rl_tasks")
    assert len(sft) + len(no_tool) >= 900
    assert {"retail", "telecom"} <= {r["domain"] for r in sft}  # every built-in domain (the tests' toy may join)
    tasks = {r["id"].removesuffix("-rl"): r["task"] for r in rl if r["item_type"] == "episode"}
    for row in sft + no_tool:
        score = toolgym.verify(tasks[row["task_id"]], row["messages"])
        assert score.passed and score.value == 1.0, (row["id"], score.to_dict())


def test_teachers_are_routed_per_kind_and_recorded(toy_domain, tmp_path):
    from toolgym.envs.task import NO_TOOL_KINDS

    teachers = [
        {"name": "refuser", "type": "oracle", "kinds": list(NO_TOOL_KINDS)},
        {"name": "actor", "type": "oracle", "reasoning": True},
    ]
    out = tmp_path / "routed"
    run_job(toy_config(out, teachers=teachers), progress=False)
    assert {r["teacher"]["route"] for r in _rows(out, "no_tool")} == {"refuser"}
    sft = _rows(out, "sft")
    assert {r["teacher"]["route"] for r in sft} == {"actor"}
    assert all(m.get("reasoning_content") for r in sft for m in r["messages"] if m["role"] == "assistant")
    with pytest.raises(ConfigError, match="teacher names must be distinct"):
        load_config({"teachers": [{"name": "a"}, {"name": "a"}]})


def test_several_samples_per_task_keep_the_distinct_passing_ones(toy_domain, tmp_path):
    out = tmp_path / "samples"
    result = run_job(toy_config(out, samples_per_task=3), progress=False)
    assert result["stats"]["episodes"] == 3 * result["stats"]["tasks_run"]
    rows = _rows(out, "sft") + _rows(out, "no_tool")
    # the oracle is deterministic: three samples of a task are one distinct chat
    assert len(rows) == len({r["task_id"] for r in rows}) == result["stats"]["tasks_run"]


def test_a_job_collects_young_objects_less_often_and_gives_the_thresholds_back(toy_domain, tmp_path, monkeypatch):
    import gc

    from toolgym.generators import collector

    seen: list[tuple[int, int, int]] = []
    settle = collector.settle
    monkeypatch.setattr(collector, "settle", lambda: (settle(), seen.append(gc.get_threshold())))
    before = gc.get_threshold()
    run_job(toy_config(tmp_path / "out"), progress=False)
    assert seen and set(seen) == {collector.JOB_THRESHOLDS}
    assert gc.get_threshold() == before and not gc.get_freeze_count()
