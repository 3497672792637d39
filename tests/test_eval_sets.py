"""Frozen eval sets (deterministic, hashed, version-checked) and a training job kept apart from them."""

from __future__ import annotations

import json

import pytest

from tests.jobs import toy_config
from tests.test_generate import _rows
from toolgym.cli import main as cli_main
from toolgym.envs.task import Task
from toolgym.errors import ConfigError
from toolgym.eval_config import EvalSetSpec
from toolgym.generators.evaluation.eval_set import build_eval_set, check_eval_set, load_eval_set
from toolgym.generators.evaluation.held_out import HeldOutOverlap
from toolgym.generators.evaluation.metrics import first_failure, pass_hat_k
from toolgym.generators.job import run_job

# The toy job's own seeds (world 0, task seed 0): every task of this set is one the job would draw.
OVERLAPPING = {"name": "toyheld", "domains": ["toy"], "world_seeds": [0], "seed": 0, "tasks_per_kind": 4}


@pytest.fixture(scope="module")
def toy_set(toy_domain, tmp_path_factory):
    return build_eval_set(EvalSetSpec(**OVERLAPPING), tmp_path_factory.mktemp("sets") / "toyheld-v1")


def test_the_same_spec_gives_the_same_bytes_and_an_edit_is_refused(toy_set, tmp_path):
    again = build_eval_set(EvalSetSpec(**OVERLAPPING), tmp_path / "again")
    assert (again.path / "tasks.jsonl").read_bytes() == (toy_set.path / "tasks.jsonl").read_bytes()
    assert again.content_hash == toy_set.content_hash and again.meta["domains"] == {"toy": {"version": 0, "env_id": "toolgym/Toy-v0"}}
    assert check_eval_set(again.path) == []
    with pytest.raises(ConfigError, match="never overwritten"):  # another spec into the same folder
        build_eval_set(EvalSetSpec(**{**OVERLAPPING, "tasks_per_kind": 2}), again.path)
    tasks = again.path / "tasks.jsonl"
    tasks.write_text(tasks.read_text().replace('"world_seed":0', '"world_seed":1', 1))
    with pytest.raises(ConfigError, match="content hash"):
        load_eval_set(again.path)


def test_a_set_made_for_another_domain_version_is_refused(toy_set, tmp_path):
    meta = json.loads((toy_set.path / "eval_set.json").read_text())
    meta["domains"]["toy"]["version"] = 7
    moved = tmp_path / "old"
    moved.mkdir()
    (moved / "tasks.jsonl").write_bytes((toy_set.path / "tasks.jsonl").read_bytes())
    (moved / "eval_set.json").write_text(json.dumps(meta))
    with pytest.raises(ConfigError, match="made with toy v7; toy is now v0"):
        load_eval_set(moved)


def _tasks(out) -> list[Task]:
    """Every task a corpus holds: those of its RL items (one per task and more), from their task JSON."""
    found = {}
    for row in _rows(out, "rl_tasks"):
        task = Task.model_validate(json.loads(row["task"]) if isinstance(row["task"], str) else row["task"])
        found[task.id] = task
    return list(found.values())


def test_a_training_job_drops_the_sets_tasks_and_draws_others(toy_set, tmp_path):
    plain = run_job(toy_config(tmp_path / "plain"), progress=False)
    set_ids = {t.id for t in toy_set.tasks}
    lessons = {t.lesson_key() for t in toy_set.tasks}
    overlap = set_ids & {t.id for t in _tasks(tmp_path / "plain")}
    assert overlap  # without held_out the job trains on the set's tasks
    out = tmp_path / "held"
    result = run_job(toy_config(out, held_out={"eval_sets": [str(toy_set.path)]}), progress=False)
    tasks = _tasks(out)
    assert tasks and not set_ids & {t.id for t in tasks} and not lessons & {t.lesson_key() for t in tasks}
    assert not set_ids & {r["task_id"] for split in ("sft", "no_tool", "rejected") for r in _rows(out, split)}
    assert result["stats"]["held_out"]["dropped"]["toyheld-v1"] >= len(overlap)
    planned, short = result["stats"]["tasks_planned"], result["stats"]["short_of_asked"]
    assert planned > plain["stats"]["tasks_planned"] - len(overlap)  # the worlds drew others instead ...
    assert planned + sum(c["asked"] - c["planned"] for c in short.values()) == 40  # ... and a kind short says so
    assert "## Held-out eval sets" in (out / "README.md").read_text()


def test_a_training_config_that_refuses_overlap_stops_naming_the_task(toy_set, tmp_path, capsys):
    config = tmp_path / "job.yaml"
    config.write_text(
        f"domains: [toy]\nmix: {{tasks_per_domain: 20}}\noutput: {{dir: '{tmp_path / 'out'}'}}\n"
        f"held_out: {{eval_sets: ['{toy_set.path}'], on_overlap: refuse}}\n"
    )
    assert cli_main(["generate", str(config), "-q"]) == 2
    err = capsys.readouterr().err
    assert "is in eval set toyheld-v1" in err and "on_overlap" in err
    with pytest.raises(HeldOutOverlap):
        run_job(toy_config(tmp_path / "direct", held_out={"eval_sets": [str(toy_set.path)], "on_overlap": "refuse"}),
                progress=False)


def test_a_held_out_path_that_is_not_a_set_is_a_config_error(tmp_path, capsys):
    config = tmp_path / "job.yaml"
    config.write_text(f"domains: [toy]\nheld_out: {{eval_sets: ['{tmp_path}']}}\n")
    assert cli_main(["generate", str(config), "-q"]) == 2
    assert "is not an eval set" in capsys.readouterr().err


def test_pass_hat_k_and_the_first_failure():
    assert [pass_hat_k(2, 3, k) for k in (1, 2, 3)] == [2 / 3, 1 / 3, 0.0]
    assert pass_hat_k(3, 3, 3) == 1.0 and pass_hat_k(0, 4, 1) == 0.0
    with pytest.raises(ValueError):
        pass_hat_k(2, 3, 4)
    spec = {"weights": {"end_state": 0.5, "tool_calls": 0.5}, "multipliers": ["format"], "required": ["end_state"]}
    failed = {"passed": False, "components": {"end_state": 1.0, "format": 0.5, "tool_calls": 0.2},
              "details": {"violations": ["grounded", "consent"]}}
    assert first_failure(failed, spec) == "grounded"
    failed["details"] = {}
    assert first_failure(failed, spec) == "format"  # required first, then multipliers, then the outcome
    assert first_failure({**failed, "passed": True}, spec) is None


def test_the_eval_config_in_configs_validates_and_a_typo_is_named():
    from toolgym.eval_config import load_eval_config

    config = load_eval_config("configs/eval.yaml", ["policy.model=\"1.5\""])
    assert config.trials == 3 and config.policy.type == "openai" and config.policy.model == "1.5"
    with pytest.raises(ConfigError, match="did you mean 'trials'"):
        load_eval_config("configs/eval.yaml", ["trails=4"])
