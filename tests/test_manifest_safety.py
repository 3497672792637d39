"""Resume never deletes what it cannot prove it wrote, detects damaged shards, and OS errors
reach the user as one line naming the path and the cause."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from tests.jobs import toy_config
from tests.test_generate import _rows
from toolgym.cli import main as cli_main
from toolgym.generators import shards as shards_module
from toolgym.generators.job import run_job
from toolgym.generators.manifest import ManifestError

SPLITS = ("sft", "no_tool", "rejected", "rl_tasks")


def _ids(out: Path) -> dict[str, list[str]]:
    return {split: sorted(r["id"] for r in _rows(out, split)) for split in SPLITS}


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("part-*.parquet")}


@pytest.fixture(scope="module")
def clean(toy_domain, tmp_path_factory):
    out = tmp_path_factory.mktemp("clean") / "run"
    run_job(toy_config(out), progress=False)
    return out


@pytest.mark.parametrize("damage", ["lost", "emptied", "garbage"])
def test_a_lost_or_ruined_manifest_is_an_error_and_no_shard_is_deleted(clean, tmp_path, damage):
    out = tmp_path / "run"
    run_job(toy_config(out), progress=False)
    before = _files(out)
    manifest = out / "manifest.jsonl"
    if damage == "lost":
        manifest.unlink()
    elif damage == "emptied":
        manifest.write_bytes(b"")
    else:
        manifest.write_bytes(b"\x00garbage, not JSON")  # one bad line: read as a torn write, so no records
    with pytest.raises(ManifestError, match="Nothing was deleted|nothing was deleted") as caught:
        run_job(toy_config(out), progress=False)
    assert "part-" in str(caught.value) and ("--out" in str(caught.value) or "move them" in str(caught.value))
    assert _files(out) == before


def test_a_foreign_output_directory_is_refused_and_left_alone(toy_domain, tmp_path):
    other = tmp_path / "other"
    (other / "sft").mkdir(parents=True)
    (other / "README.md").write_text("someone else's dataset")
    (other / "sft" / "part-00000.parquet").write_bytes(b"their data")
    with pytest.raises(ManifestError, match="no manifest.jsonl"):
        run_job(toy_config(other), progress=False)
    assert (other / "sft" / "part-00000.parquet").read_bytes() == b"their data"
    assert (other / "README.md").read_text() == "someone else's dataset"
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("mine")
    with pytest.raises(ManifestError, match="not empty .*todo.txt.* not a toolgym dataset"):
        run_job(toy_config(notes), progress=False)
    assert sorted(p.name for p in notes.iterdir()) == ["todo.txt"]


def test_a_stray_shard_next_to_a_dataset_is_not_deleted(clean, tmp_path):
    out = tmp_path / "run"
    run_job(toy_config(out), progress=False)
    stray = out / "sft" / "part-09999.parquet"
    stray.write_bytes(b"put here by hand")
    with pytest.raises(ManifestError, match="never planned them, e.g. sft/part-09999.parquet"):
        run_job(toy_config(out), progress=False)
    assert stray.read_bytes() == b"put here by hand"


def test_a_corrupted_shard_is_detected_and_repair_redoes_its_tasks(clean, tmp_path):
    out = tmp_path / "run"
    run_job(toy_config(out), progress=False)
    victim = sorted((out / "sft").glob("part-*.parquet"))[0]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    with pytest.raises(ManifestError, match=f"shard sft/{victim.name} does not match the checksum.*--repair"):
        run_job(toy_config(out), progress=False)
    assert victim.exists()
    result = run_job(toy_config(out), progress=False, repair=True)
    assert result["stats"]["tasks_run"] > 0  # the dropped flush's tasks ran again
    assert _ids(out) == _ids(clean)
    assert run_job(toy_config(out), progress=False)["stats"]["tasks_run"] == 0  # and now it is whole


def test_a_full_disk_is_one_line_naming_the_file_and_nothing_is_lost(clean, tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    config = tmp_path / "job.yaml"
    config.write_text(json.dumps({**toy_config(out).model_dump(mode="json")}))
    real = shards_module.write_shard
    calls = {"n": 0}

    def full_disk(path, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, *args, **kwargs)

    monkeypatch.setattr("toolgym.generators.writer.write_shard", full_disk)
    assert cli_main(["generate", str(config), "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "part-" in err and "disk full" in err and "Traceback" not in err, err
    monkeypatch.setattr("toolgym.generators.writer.write_shard", real)
    assert cli_main(["generate", str(config), "-q"]) == 0
    assert _ids(out) == _ids(clean)


def test_an_output_path_that_is_a_file_is_one_line(toy_domain, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    config = tmp_path / "job.yaml"
    config.write_text(json.dumps(toy_config(blocker / "run").model_dump(mode="json")))
    assert cli_main(["generate", str(config), "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(blocker) in err and "not a directory" in err, err


def test_a_damaged_flush_record_is_named(clean, tmp_path):
    out = tmp_path / "run"
    run_job(toy_config(out), progress=False)
    manifest = out / "manifest.jsonl"
    lines = manifest.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"type":"flush"' in line)
    record = json.loads(lines[index])
    del record["tasks"]
    lines[index] = json.dumps(record)
    manifest.write_text("\n".join(lines) + "\n")
    with pytest.raises(ManifestError, match="flush record seq=0 is damaged: its 'tasks'"):
        run_job(toy_config(out), progress=False)


def _edit_first_flush(out: Path, edit) -> dict:
    """Apply `edit` to the first flush record that published sft rows; returns the record as edited."""
    manifest = out / "manifest.jsonl"
    lines = manifest.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"type":"flush"' in line and '"sft/' in line)
    record = json.loads(lines[index])
    edit(record)
    lines[index] = json.dumps(record, separators=(",", ":"))
    manifest.write_text("\n".join(lines) + "\n")
    return record


def _duplicates(out: Path) -> dict[str, int]:
    return {split: len(ids) - len(set(ids)) for split, ids in _ids(out).items()}


def _drop_an_sft_task(out: Path):
    sft_tasks = {r["task_id"] for r in _rows(out, "sft")}

    def edit(record):
        record["tasks"].remove(next(t for t in record["tasks"] if t in sft_tasks))

    return edit


def test_an_edited_flush_record_is_refused_and_repair_redoes_its_tasks(clean, tmp_path):
    out = tmp_path / "run"
    run_job(toy_config(out), progress=False)
    _edit_first_flush(out, _drop_an_sft_task(out))  # resume would run that task again and write its rows twice
    before = _files(out)
    with pytest.raises(ManifestError, match="does not match its checksum: its task list.*--repair"):
        run_job(toy_config(out), progress=False)
    assert _files(out) == before
    result = run_job(toy_config(out), progress=False, repair=True)
    assert result["ok"] and result["stats"]["tasks_run"] > 0
    assert _ids(out) == _ids(clean) and not any(_duplicates(out).values())


def test_a_row_id_already_published_is_never_written_again(clean, tmp_path):
    from toolgym.generators import manifest

    out = tmp_path / "run"
    run_job(toy_config(out), progress=False)

    def forge(record):  # drop a task and seal the edit: the checksum cannot tell
        _drop_an_sft_task(out)(record)
        if "checksum" in record:
            record["checksum"] = manifest.checksum(record)

    _edit_first_flush(out, forge)
    run_job(toy_config(out), progress=False)  # the task runs again; its rows are refused, not written twice
    assert not any(_duplicates(out).values()), _duplicates(out)
    assert _ids(out) == _ids(clean)
    errors = [f["error"] for f in json_lines(out / "failures.jsonl")]
    assert any("is already published" in e and "never holds a row id twice" in e for e in errors), errors


def test_a_row_id_in_two_flushes_is_found_even_without_checksums(clean, tmp_path):
    out = tmp_path / "run"
    run_job(toy_config(out), progress=False)
    manifest_path = out / "manifest.jsonl"
    records = [json.loads(line) for line in manifest_path.read_text().splitlines()]
    flushes = [r for r in records if r["type"] == "flush" and any(s["split"] == "sft" for s in r["shards"])]
    first, second = flushes[0], flushes[1]
    # an older manifest (no ids, no checksum) whose second sft shard was replaced by a copy of the first
    shard = {s["split"]: s for s in first["shards"]}["sft"]
    victim = {s["split"]: s for s in second["shards"]}["sft"]
    (out / victim["path"]).write_bytes((out / shard["path"]).read_bytes())
    for record in records:
        record.pop("checksum", None)
        for item in record.get("shards", ()):
            if isinstance(item, dict):
                item.pop("ids", None)
                item.pop("sha256", None)
    manifest_path.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(ManifestError, match=f"sft row id .* is in flush seq={first['seq']} and again in flush seq={second['seq']}"):
        run_job(toy_config(out), progress=False)
    run_job(toy_config(out), progress=False, repair=True)
    assert _ids(out) == _ids(clean)


def json_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
