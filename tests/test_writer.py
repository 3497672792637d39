"""The dataset writer: round trips, exact JSON columns, atomic publishing, resume after a kill, the card."""

from __future__ import annotations

import copy
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from toolgym.errors import ConfigError
from toolgym.generators import manifest
from toolgym.generators.features import COLUMNS, RowError, clean_row
from toolgym.generators.reading import iter_rows, load_split
from toolgym.generators.writer import DatasetWriter
from toolgym.version import SCHEMA_VERSION, __version__

V = {"toolgym_version": __version__, "schema_version": SCHEMA_VERSION, "difficulty": 2, "difficulty_score": 5.5}
CONFIG = {"name": "test", "teachers": [{"model": "m", "api_key": "sk-abcdefghijklmnopqrstuvwx"}], "seed": 1}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"The {name} tool.",
            "parameters": {"type": "object", "properties": {p: {"type": "string", "description": p} for p in params}},
        },
    }
    for name, params in (("search_hotels", ["city"]), ("get_hotel", ["hotel_id"]), ("toggle_wifi", ["on"]))
]


# ---- rows shaped like the env's chats ------------------------------------------------------------------
def _call(call_id: str, name: str, arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def chat_messages(calls: list[list[tuple[str, object]]], reasoning: bool = False) -> list[dict]:
    """system, user, then per step one assistant message (parallel calls inside) and its tool results."""
    messages = [{"role": "system", "content": "You are a booking agent. Café policy: be kind."}, {"role": "user", "content": "Find me a hotel."}]
    for step, group in enumerate(calls):
        assistant = {"role": "assistant", "content": None, "tool_calls": [_call(f"call_{step}_{i}", n, a) for i, (n, a) in enumerate(group)]}
        if reasoning:
            assistant["reasoning_content"] = "I should look it up."
        messages.append(assistant)
        for i, (name, _) in enumerate(group):
            messages.append({"role": "tool", "tool_call_id": f"call_{step}_{i}", "name": name, "content": json.dumps({"ok": True, "step": step})})
    messages.append({"role": "assistant", "content": "Done: the Hôtel Lumière is booked."})
    return messages


def chat_row(task_id: str, sample: int, calls, *, kind: str = "multi_step", passed: bool = True, usage=None, **extra) -> dict:
    row = {
        "id": f"{task_id}-{sample}",
        "domain": "travel",
        "domain_version": 2,
        "kind": kind,
        "messages": chat_messages(calls, reasoning=sample % 2 == 1),
        "tools": TOOLS,
        "user_tools": [],
        "task_id": task_id,
        "seeds": {"task_seed": 11, "world_seed": 7, "sample": sample},
        "teacher": {"name": "oracle", "reasoning": sample % 2 == 1},
        "user_simulator": {"name": "scripted"},
        "verification": {"passed": passed, "score": 1.0 if passed else 0.25, "components": {"end_state": 1.0, "calls": 0.5}, "details": {"missing": [] if passed else ["get_hotel"]}},
        "usage": usage,
        "augment": None,
        **V,
    }
    row.update(extra)
    return row


def rl_row(task_id: str, item: str, target=None, prompt=None) -> dict:
    return {
        "id": f"{task_id}-{item}",
        "env_id": "toolgym/Travel-v2",
        "environment": "travel",
        "domain": "travel",
        "kind": "multi_step",
        "task": {"id": task_id, "domain": "travel", "plan": [{"calls": [{"name": "get_hotel", "arguments": {"hotel_id": 3}}]}]},
        "prompt": prompt or chat_messages([])[:2],
        "tools": TOOLS,
        "verifier": {"type": "composite", "parts": [{"name": "end_state", "weight": 1.0}]},
        "reward_preset": "action",
        "item_type": "next_action" if target else "episode",
        "target": target,
        "augment": None,
        **V,
    }


def task_rows(index: int) -> tuple[str, dict, dict | None]:
    """A deterministic mix for resume tests: tasks with rows in several splits, none, or a failure."""
    task_id = f"t{index:04d}"
    if index % 11 == 5:
        return task_id, {}, {"task_id": task_id, "domain": "travel", "kind": "single", "error": f"boom {index}"}
    if index % 7 == 3:
        return task_id, {"sft": []}, None  # every rollout filtered out: finished with no rows
    calls = [[("search_hotels", {"city": "Paris"})], [("get_hotel", {"hotel_id": index})]]
    rows = {"sft": [chat_row(task_id, s, calls) for s in range(1 + index % 2)], "rl_tasks": [rl_row(task_id, "rl")]}
    if index % 3 == 0:
        rows["rejected"] = [chat_row(task_id, 9, calls[:1], passed=False)]
    return task_id, rows, None


def expected_ids(count: int) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for index in range(count):
        for split, rows in task_rows(index)[1].items():
            out.setdefault(split, []).extend(r["id"] for r in rows)
    return {split: sorted(ids) for split, ids in out.items()}


def written_ids(out: Path) -> dict[str, list[str]]:
    found = {}
    for split in COLUMNS:
        paths = sorted((out / split).glob("part-*.parquet"))
        if paths:
            found[split] = sorted(i for p in paths for i in pq.read_table(p, columns=["id"]).column("id").to_pylist())
    return found


def write_all(out: Path, count: int, **kwargs) -> dict:
    writer = DatasetWriter(out, config=CONFIG, **kwargs)
    done = writer.finished_task_ids()
    for index in range(count):
        task_id, rows, failure = task_rows(index)
        if task_id not in done:
            writer.add(task_id, rows, failure)
    return writer.close({"rollouts": count})


def normalised(row: dict) -> dict:
    """What a row reads back as: scores are floats."""
    row = copy.deepcopy(row)
    if "verification" in row:
        row["verification"]["score"] = float(row["verification"]["score"])
    return row


# ---- round trips -----------------------------------------------------------------------------------------
def test_round_trip_through_load_dataset(tmp_path):
    from datasets import load_dataset

    out = tmp_path / "run"
    sft = [
        chat_row("a", 0, [[("search_hotels", {"city": "Paris"}), ("search_hotels", {"city": "Zürich"})]], kind="parallel"),
        chat_row("a", 1, [[("get_hotel", {"hotel_id": 3, "nights": [1, 2], "extras": {"breakfast": True, "note": None}})]],
                 usage={"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}),  # fmt: skip
        chat_row("b", 0, [[("get_hotel", {})], [("search_hotels", "not an object")]]),  # a model's bad arguments stay as given
    ]
    phone = {"role": "user", "content": "I turned it on.", "user_tool_calls": [{"name": "toggle_wifi", "arguments": {"on": True}}], "user_tool_results": ['{"wifi": "on"}']}
    sft[2]["messages"].insert(2, phone)
    rl = [rl_row("a", "rl"), rl_row("a", "na0", target=sft[1]["messages"][2], prompt=sft[1]["messages"][:2])]
    writer = DatasetWriter(out, config=CONFIG)
    writer.add("a", {"sft": sft[:2], "rl_tasks": rl})
    writer.add("b", {"sft": sft[2:]})
    writer.close()

    cache = str(tmp_path / "cache")
    loaded = load_dataset(str(out), cache_dir=cache)
    assert set(loaded) == {"sft"}
    assert [clean_row(r, "sft") for r in loaded["sft"]] == [normalised(r) for r in sft]
    loaded_rl = load_dataset(str(out), "rl_tasks", split="train", cache_dir=cache)
    assert [clean_row(r, "rl_tasks") for r in loaded_rl] == rl
    # the plain parquet loader, one split folder at a time
    plain = load_dataset("parquet", data_dir=str(out / "sft"), split="train", cache_dir=cache)
    assert clean_row(plain[1], "sft") == normalised(sft[1])
    # and toolgym's own readers
    assert list(iter_rows(out, "sft")) == [normalised(r) for r in sft]
    assert list(load_split(out, "rl_tasks")) == rl


def test_arguments_are_json_never_merged_structs(tmp_path):
    from datasets import load_dataset

    out = tmp_path / "run"
    with DatasetWriter(out, config=CONFIG) as writer:
        writer.add("p", {"sft": [chat_row("p", 0, [[("search_hotels", {"city": "Paris"})]])]})
        writer.add("q", {"sft": [chat_row("q", 0, [[("get_hotel", {"hotel_id": 3})]])]})
    schema = pq.read_schema(next((out / "sft").glob("*.parquet")))
    arguments = schema.field("messages").type.value_type.field("tool_calls").type.value_type.field("function").type.field("arguments")
    assert isinstance(arguments.type, pa.BaseExtensionType) and arguments.type.extension_name == "arrow.json"
    rows = load_dataset(str(out), split="sft", cache_dir=str(tmp_path / "cache"))
    got = [r["messages"][2]["tool_calls"][0]["function"]["arguments"] for r in rows]
    assert got == [{"city": "Paris"}, {"hotel_id": 3}]
    assert [r["tools"] for r in rows] == [TOOLS, TOOLS]


def test_floats_come_back_exact_through_toolgym_readers(tmp_path):
    out = tmp_path / "run"
    values = {"amount": 0.7, "rate": 0.3, "tiny": 1e-300, "big": 2**62, "price": 19.99}
    row = chat_row("f", 0, [[("get_hotel", values)]])
    with DatasetWriter(out, config=CONFIG) as writer:
        writer.add("f", {"sft": [row]})
    [read] = iter_rows(out, "sft")
    assert read["messages"][2]["tool_calls"][0]["function"]["arguments"] == values
    exact = load_split(out, "sft")
    assert exact[0]["messages"][2]["tool_calls"][0]["function"]["arguments"] == values
    lengths = exact.map(lambda r: {"n": len(json.dumps(r["messages"][2]["tool_calls"][0]["function"]["arguments"]))})
    assert lengths[0]["n"] == len(json.dumps(values))  # a map over the dataset sees the exact values too


# ---- row checks --------------------------------------------------------------------------------------------
BAD_ROWS = [
    (lambda r: r.pop("usage"), "usage: is missing"),
    (lambda r: r.update(temperature=0.7), "unknown column 'temperature'"),
    (lambda r: r["messages"][2]["tool_calls"][0]["function"].update(args={}), "messages[2].tool_calls[0].function: has an unknown key 'args'"),
    (lambda r: r["messages"][1].update(role="human"), "messages[1].role: is 'human'; allowed: system, user, assistant, tool"),
    (lambda r: r.update(domain_version="2"), "domain_version: must be an integer, got str '2'"),
    (lambda r: r["seeds"].pop("sample"), "seeds.sample: is missing or null"),
    (lambda r: r["messages"][2]["tool_calls"][0]["function"].update(arguments={"when": object()}), "function.arguments: holds a value that is not JSON"),
    (lambda r: r.update(schema_version="0"), f"schema_version: is '0'; allowed: {SCHEMA_VERSION}"),
    (lambda r: r.update(task_id="other"), "belongs to task 'other'"),
    # a lone surrogate would pass every check and fail the flush of every task buffered with it
    (lambda r: r["messages"][1].update(content="hi \ud800"), "messages[1].content: holds a lone surrogate '\\ud800'"),
    (lambda r: r["messages"][2]["tool_calls"][0]["function"].update(arguments={"city": "\udfff"}),
     "function.arguments: holds a lone surrogate"),
]


@pytest.mark.parametrize("mutate, message", BAD_ROWS)
def test_bad_rows_are_refused_naming_the_column(tmp_path, mutate, message):
    writer = DatasetWriter(tmp_path / "run", config=CONFIG)
    row = chat_row("x", 0, [[("search_hotels", {"city": "Paris"})]])
    mutate(row)
    with pytest.raises(RowError, match=re.escape(message)):
        writer.add("x", {"sft": [row]})
    assert "x" not in writer.finished_task_ids()
    writer.add("x", {"sft": [chat_row("x", 0, [[("search_hotels", {"city": "Paris"})]])]})  # nothing was half-added
    assert writer.close()["rows"] == {"sft": 1}


def test_unknown_split_duplicate_task_and_bad_failure_are_refused(tmp_path):
    with DatasetWriter(tmp_path / "run", config=CONFIG) as writer:
        with pytest.raises(RowError, match="unknown split 'train'; allowed: sft, no_tool, rejected, rl_tasks"):
            writer.add("x", {"train": []})
        with pytest.raises(RowError, match="item_type: is 'step'"):
            writer.add("x", {"rl_tasks": [{**rl_row("x", "rl"), "item_type": "step"}]})
        with pytest.raises(RowError, match="failure for task 'x' lacks error"):
            writer.add("x", {}, {"task_id": "x", "domain": "travel", "kind": "single"})
        writer.add("x", {})
        with pytest.raises(RowError, match="task 'x' was already added"):
            writer.add("x", {})
        writer.flush()
        with pytest.raises(RowError, match="task 'x' was already added"):
            writer.add("x", {})


# ---- publishing and resuming -------------------------------------------------------------------------------
def test_uninterrupted_run_layout_and_manifest(tmp_path):
    out = tmp_path / "run"
    summary = write_all(out, 40, shard_rows=10)
    expected = expected_ids(40)
    assert written_ids(out) == expected
    assert summary["rows"] == {s: len(ids) for s, ids in expected.items()}
    assert summary["tasks"] == 40 and summary["failures"] == 4
    records = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    finished = [t for r in records if r["type"] == "flush" for t in r["tasks"]]
    assert sorted(finished) == [f"t{i:04d}" for i in range(40)]  # including tasks with no rows
    shards = {s["path"] for r in records if r["type"] == "flush" for s in r["shards"]}
    assert shards == {p.relative_to(out).as_posix() for p in out.glob("*/part-*.parquet")}
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert [f["task_id"] for f in failures] == ["t0005", "t0016", "t0027", "t0038"]
    assert failures[0]["error"] == "boom 5"


def test_crash_between_rename_and_manifest_then_resume(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real_append = manifest.append
    calls = {"flush": 0}

    def crash_on_third_flush(path, record):
        if record["type"] == "flush":
            calls["flush"] += 1
            if calls["flush"] == 3:
                raise OSError("disk gone")
        real_append(path, record)

    monkeypatch.setattr(manifest, "append", crash_on_third_flush)
    writer = DatasetWriter(out, config=CONFIG, shard_rows=5)
    with pytest.raises(OSError, match="disk gone"):
        for index in range(60):
            writer.add(*task_rows(index))
    with pytest.raises(Exception, match="failed part-way"):
        writer.add(*task_rows(59))
    writer.abort()
    published_before = len(list(out.glob("*/part-*.parquet")))
    monkeypatch.setattr(manifest, "append", real_append)

    resumed = DatasetWriter(out, config=CONFIG, shard_rows=5)
    assert resumed.orphans_removed  # the shards renamed by the failed flush
    assert len(list(out.glob("*/part-*.parquet"))) == published_before - len(resumed.orphans_removed)
    done = resumed.finished_task_ids()
    assert done and len(done) < 60
    for index in range(60):
        task_id, rows, failure = task_rows(index)
        if task_id not in done:
            resumed.add(task_id, rows, failure)
    resumed.close()
    assert written_ids(out) == expected_ids(60)


def test_torn_manifest_line_and_stray_files_are_cleaned_on_resume(tmp_path):
    out = tmp_path / "run"
    writer = DatasetWriter(out, config=CONFIG, shard_rows=4)
    for index in range(20):
        writer.add(*task_rows(index))
    writer.abort()  # unflushed tasks are dropped, as in a kill
    with open(out / "manifest.jsonl", "ab") as handle:  # a kill while flushing: intents written, flush line torn
        handle.write(b'{"type":"intent","seq":99,"shards":["sft/part-00099.parquet"]}\n')
        handle.write(b'{"type":"intent","seq":100,"shards":["sft/part-00100.parquet"]}\n')
        handle.write(b'{"type":"flush","seq":99,"shards":[{"split":"sft","path":"sft/part-00099.par')
    (out / "sft" / "part-00099.parquet").write_bytes(b"half a shard")
    (out / "sft" / ".part-00100.parquet.tmp").write_bytes(b"temp")
    (out / "sft" / "notes.txt").write_text("not ours: kept")

    resumed = DatasetWriter(out, config=CONFIG, shard_rows=4)
    assert resumed.torn_manifest
    assert resumed.orphans_removed == ["sft/.part-00100.parquet.tmp", "sft/part-00099.parquet"]
    assert (out / "sft" / "notes.txt").exists()
    lines = (out / "manifest.jsonl").read_bytes().splitlines()
    assert all(json.loads(line)["type"] in ("start", "intent", "flush") for line in lines)
    for index in range(20):
        task_id, rows, failure = task_rows(index)
        if task_id not in resumed.finished_task_ids():
            resumed.add(task_id, rows, failure)
    resumed.close()
    assert written_ids(out) == expected_ids(20)


def test_a_bad_line_before_the_end_is_not_taken_for_a_torn_write(tmp_path):
    out = tmp_path / "run"
    write_all(out, 10, shard_rows=3)
    lines = (out / "manifest.jsonl").read_bytes().splitlines(keepends=True)
    lines[1] = b'{"type": "flu\n'
    (out / "manifest.jsonl").write_bytes(b"".join(lines))
    with pytest.raises(manifest.ManifestError, match="line 2 of"):
        DatasetWriter(out, config=CONFIG)


CHILD = r"""
import os, signal, sys, time
sys.path.insert(0, sys.argv[1])
from tests.test_writer import CONFIG, task_rows
from toolgym.generators import manifest
from toolgym.generators.writer import DatasetWriter

out, mode = sys.argv[2], sys.argv[3]
real_append = manifest.append
flushes = 0

def dying_append(path, record):
    global flushes
    if record["type"] == "flush":
        flushes += 1
        if flushes == 3 and mode == "after_rename":
            os.kill(os.getpid(), signal.SIGKILL)
        if flushes == 3 and mode == "torn":
            line = (manifest.dumps(record) + "\n").encode()
            with open(path, "ab") as handle:
                handle.write(line[: len(line) // 2])
                handle.flush()
                os.fsync(handle.fileno())
            os.kill(os.getpid(), signal.SIGKILL)
    real_append(path, record)

manifest.append = dying_append
writer = DatasetWriter(out, config=CONFIG, shard_rows=6)
for index in range(int(sys.argv[4])):
    writer.add(*task_rows(index))
    if mode == "random":
        time.sleep(0.002)
writer.close()
"""


def test_sigkill_at_any_point_then_rerun_gives_exactly_the_uninterrupted_ids(tmp_path):
    count = 150
    root = str(Path(__file__).resolve().parents[1])
    runs = {mode: tmp_path / mode for mode in ("after_rename", "torn", "random")}
    children = {
        mode: subprocess.Popen([sys.executable, "-c", CHILD, root, str(out), mode, str(count)], stderr=subprocess.PIPE)
        for mode, out in runs.items()
    }
    manifest_path = runs["random"] / "manifest.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and children["random"].poll() is None:
        if manifest_path.exists() and manifest_path.read_text().count('"type":"flush"') >= 2:
            time.sleep(random.uniform(0, 0.05))
            children["random"].send_signal(signal.SIGKILL)
            break
        time.sleep(0.005)
    for mode, child in children.items():
        child.wait(timeout=60)
        assert child.returncode == -signal.SIGKILL, f"{mode}: {child.stderr.read().decode()[-2000:]}"

    for mode, out in runs.items():
        resumed = DatasetWriter(out, config=CONFIG, shard_rows=6)
        done = resumed.finished_task_ids()
        assert 0 < len(done) < count, mode
        if mode != "random":
            assert resumed.orphans_removed, mode  # the killed flush had renamed its shards
        assert not any((out / rel).exists() for rel in resumed.orphans_removed), mode
        assert resumed.torn_manifest == (mode == "torn")
        resumed.close()
        summary = write_all(out, count, shard_rows=6)
        assert written_ids(out) == expected_ids(count), mode
        assert summary["tasks"] == count
        failures = [json.loads(line)["task_id"] for line in (out / "failures.jsonl").read_text().splitlines()]
        assert len(failures) == len(set(failures)) == sum(1 for i in range(count) if i % 11 == 5)


def test_resume_false_lock_and_closed_writer(tmp_path):
    out = tmp_path / "run"
    writer = DatasetWriter(out, config=CONFIG)
    with pytest.raises(manifest.ManifestError, match=f"is being written by pid {os.getpid()}"):
        DatasetWriter(out, config=CONFIG)
    writer.add(*task_rows(1))
    writer.close()
    with pytest.raises(ConfigError, match="already holds a dataset"):
        DatasetWriter(out, config=CONFIG, resume=False)
    with pytest.raises(Exception, match="is closed"):
        writer.add(*task_rows(2))
    with pytest.warns(UserWarning, match="changed: seed"):
        DatasetWriter(out, config={**CONFIG, "seed": 2}).close()
    with open(out / "manifest.jsonl", "a") as handle:
        handle.write(json.dumps({"type": "start", "schema_version": "0", "config": CONFIG}) + "\n")
    with pytest.raises(ConfigError, match=f"holds rows of schema version 0, but this toolgym writes version {SCHEMA_VERSION}"):
        DatasetWriter(out, config=CONFIG)


def test_memory_stays_flat_as_the_job_grows(tmp_path):
    def peak(count: int) -> tuple[int, int]:
        writer = DatasetWriter(tmp_path / f"run{count}", config=CONFIG, shard_rows=100)
        most_rows = arrow_peak = 0
        tracemalloc.start()
        for index in range(count):
            task_id = f"m{index:05d}"
            calls = [[("search_hotels", {"city": "Paris", "n": index})], [("get_hotel", {"hotel_id": index})]]
            writer.add(task_id, {"sft": [chat_row(task_id, 0, calls)]})
            most_rows = max(most_rows, sum(writer._buffered_rows.values()))
            arrow_peak = max(arrow_peak, pa.total_allocated_bytes())
        python_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        writer.close()
        assert most_rows < 100
        return python_peak, arrow_peak

    small, large = peak(300), peak(1500)
    assert large[0] < 1.5 * small[0], (small, large)
    assert large[1] < 1.5 * small[1] + (1 << 20), (small, large)


# ---- the card ----------------------------------------------------------------------------------------------
def test_card_header_loads_and_lists_the_counts(tmp_path):
    from datasets import load_dataset_builder

    out = tmp_path / "run"
    write_all(out, 30, shard_rows=8)
    text = (out / "README.md").read_text()
    builder = load_dataset_builder(str(out), cache_dir=str(tmp_path / "cache"))
    assert sorted(builder.config.data_files) == ["rejected", "sft"]
    assert sorted(load_dataset_builder(str(out), "rl_tasks", cache_dir=str(tmp_path / "cache")).config.data_files) == ["train"]
    expected = expected_ids(30)
    assert f"| sft | {len(expected['sft'])} |" in text
    assert f"| rejected | travel | multi_step | {len(expected['rejected'])} | 0 | 0.0% |" in text
    # columns sft, rejected, rl_tasks: each sft row calls both tools, each rejected row only the search
    assert f"| search_hotels | {len(expected['sft'])} | {len(expected['rejected'])} | 0 |" in text
    assert f"| get_hotel | {len(expected['sft'])} | 0 | 0 |" in text
    assert "Tasks finished: 30; failed (raised, recorded in failures.jsonl): 3." in text
    assert "rollouts: 30" in text and "model: m" in text
    for path in out.rglob("*"):
        if path.is_file():
            assert b"sk-abcdef" not in path.read_bytes(), path  # the key is in no file at all


def test_card_sums_token_usage(tmp_path):
    out = tmp_path / "run"
    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    with DatasetWriter(out, config=CONFIG) as writer:
        for index in range(3):
            writer.add(f"u{index}", {"sft": [chat_row(f"u{index}", 0, [[("get_hotel", {"hotel_id": 1})]], usage=usage)]})
    assert "| sft | 3 | 300 | 60 | 360 |" in (out / "README.md").read_text()


# ---- what the env really produces --------------------------------------------------------------------------
def test_real_toy_rollouts_and_parsed_model_text_round_trip(tmp_path, toy_domain):
    import toolgym

    tasks = toy_domain.generate_tasks(3, seed=4, kinds=["single", "multi_turn", "no_tool/missing_info"], size="small")
    rows = []
    for task in tasks:
        env = toolgym.ToolEnv(toy_domain, world_size=task.world_size)
        trajectory = toolgym.rollout_sync(env, toolgym.OracleTeacher(reasoning=True), toolgym.ScriptedUser(), task)
        rows.append((task, trajectory.messages, trajectory.verification.to_dict(), env.tools))
    # a model's raw Hermes text, parsed by the env, with a malformed call kept as made
    env = toolgym.ToolEnv(toy_domain, world_size=tasks[0].world_size)
    env.reset(options={"task": tasks[0]})
    env.step('<think>look it up</think><tool_call>{"name": "find_account", "arguments": {"email": "x@example.com"}}</tool_call>')
    env.step({"role": "assistant", "content": None, "tool_calls": [{"function": {"name": None, "arguments": "{oops"}}]})
    rows.append((tasks[0], env.messages, {"passed": False, "score": 0.0, "components": {}, "details": {}}, env.tools))

    out = tmp_path / "run"
    with DatasetWriter(out, config=CONFIG) as writer:
        for number, (task, messages, verification, tools) in enumerate(rows):
            split = "rejected" if not verification["passed"] else "no_tool" if task.kind.startswith("no_tool") else "sft"
            row = {
                "id": f"{task.id}-{number}", "domain": task.domain, "domain_version": task.domain_version, "kind": task.kind,
                "messages": messages, "tools": tools, "user_tools": [], "task_id": task.id,
                "seeds": {"task_seed": task.seed, "world_seed": task.world_seed, "sample": number},
                "teacher": {"name": "oracle"}, "user_simulator": {"name": "scripted"}, "verification": verification,
                "usage": None, "augment": None, **V,
            }  # fmt: skip
            writer.add(f"{task.id}/{number}", {split: [{**row, "task_id": f"{task.id}/{number}"}]})
    read = {split: list(iter_rows(out, split)) for split in ("sft", "no_tool", "rejected")}
    assert [len(v) for v in read.values()] == [2, 1, 1]
    for number, (_, messages, _, _) in enumerate(rows):
        found = [r for rs in read.values() for r in rs if r["seeds"]["sample"] == number]
        assert found[0]["messages"] == json.loads(json.dumps(messages))  # as written (tuples would become lists)


def test_a_row_id_is_never_written_twice_and_each_flush_records_and_seals_its_ids(tmp_path):
    out = tmp_path / "run"
    calls = [[("search_hotels", {"city": "Paris"})]]
    with DatasetWriter(out, config=CONFIG) as writer:
        writer.add("a", {"sft": [chat_row("a", 0, calls)]})
        twin = {**chat_row("b", 0, calls), "id": "a-0"}  # another task's row under a taken id
        with pytest.raises(RowError, match="sft row id 'a-0' of task 'b' is already waiting to be written"):
            writer.add("b", {"sft": [twin]})
        writer.flush()
        with pytest.raises(RowError, match="sft row id 'a-0' of task 'b' is already published"):
            writer.add("b", {"sft": [twin]})
        writer.add("b", {"sft": [chat_row("b", 0, calls)]})  # nothing was half-added
    flushes = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines() if '"type":"flush"' in line]
    assert [s["ids"] for r in flushes for s in r["shards"]] == [["a-0"], ["b-0"]]
    assert all(r["checksum"] == manifest.checksum(r) for r in flushes)
    with DatasetWriter(out, config=CONFIG) as reopened:  # the ids come back on resume
        with pytest.raises(RowError, match="'b-0' of task 'c' is already published"):
            reopened.add("c", {"sft": [{**chat_row("c", 0, calls), "id": "b-0"}]})
