"""A draw whose task generator raises: the job stops with the error, or (`failures.generator_bugs: skip`)
records the draw, draws on, and a resume meets the same bugs and writes the same rows."""

from __future__ import annotations

import json

import pytest

from tests.jobs import toy_config
from toolgym.errors import GeneratorBug
from toolgym.generators import worker
from toolgym.generators.job import run_job

BROKEN_KIND = "single"


@pytest.fixture
def broken_draws(monkeypatch):
    """Every fourth index of the toy's `single` kind raises, at every attempt (a deterministic bug)."""
    original = worker.draw

    def draw(domain, world, seed, kind, index, attempt):
        if kind == BROKEN_KIND and index % 4 == 1:
            raise GeneratorBug(f"{kind} generator: no customer fits draw {index}")
        return original(domain, world, seed, kind, index, attempt)

    monkeypatch.setattr(worker, "draw", draw)


def _written_ids(out) -> list[str]:
    """Every task id the manifest's flushes published, in order, repeats kept."""
    ids = []
    for line in (out / "manifest.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "flush":
            ids += record["tasks"]
    return ids


def test_by_default_a_generator_bug_stops_the_job_naming_it(toy_domain, broken_draws, tmp_path):
    with pytest.raises(GeneratorBug, match="no customer fits draw 1"):
        run_job(toy_config(tmp_path / "stop"), progress=False)


def test_skipped_bugs_are_recorded_replaced_and_met_again_on_resume(toy_domain, broken_draws, tmp_path):
    out = tmp_path / "skip"
    config = toy_config(out, failures={"generator_bugs": "skip", "max_rate": 0.5})
    first = run_job(config, progress=False)
    assert first["ok"] and first["skipped_draws"] > 0
    bugs = [json.loads(line) for line in (out / "generator_bugs.jsonl").read_text().splitlines()]
    assert len(bugs) == first["skipped_draws"] == first["stats"]["generator_bugs"]["skipped"]
    assert {b["kind"] for b in bugs} == {BROKEN_KIND} and all(b["index"] % 4 == 1 for b in bugs)
    assert all(b["error"].startswith("GeneratorBug: single generator: no customer fits draw") for b in bugs)
    # the kind still gets its share: the stream drew on past the skipped draws
    assert f"toy/{BROKEN_KIND}" not in first["stats"]["short_of_asked"], first["stats"]["short_of_asked"]
    card = (out / "README.md").read_text()
    assert "## Draws skipped for a generator bug" in card and "generator_bugs.jsonl" in card

    ids = _written_ids(out)
    assert len(ids) == len(set(ids)) == first["stats"]["tasks_planned"] > 0
    again = run_job(config, progress=False)  # a resume makes every draw again: the same bugs, nothing new written
    assert again["skipped_draws"] == first["skipped_draws"]
    assert [json.loads(line) for line in (out / "generator_bugs.jsonl").read_text().splitlines()] == bugs
    assert _written_ids(out) == ids


def test_a_session_that_meets_no_bug_removes_the_last_sessions_record(toy_domain, broken_draws, monkeypatch, tmp_path):
    out = tmp_path / "fixed"
    config = toy_config(out, failures={"generator_bugs": "skip", "max_rate": 0.5})
    assert run_job(config, progress=False)["skipped_draws"] > 0 and (out / "generator_bugs.jsonl").exists()
    monkeypatch.undo()  # the generator is fixed
    again = run_job(config, progress=False)
    assert "skipped_draws" not in again and "generator_bugs" not in again["stats"]
    assert not (out / "generator_bugs.jsonl").exists()  # no record of bugs that are gone


def test_too_many_skipped_draws_fail_the_job_with_a_verdict_naming_them(toy_domain, broken_draws, tmp_path):
    result = run_job(toy_config(tmp_path / "many", failures={"generator_bugs": "skip", "max_rate": 0.0}), progress=False)
    assert not result["ok"]
    assert "generator bug (skipped draws, see generator_bugs.jsonl)" in result["verdict"], result["verdict"]
