"""The rewrite stage against serve-policy's deterministic rewrite mode on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.jobs import toy_config
from tests.test_openai_job import _serve
from toolgym.cli import main as cli_main
from toolgym.config import load_config
from toolgym.errors import ConfigError
from toolgym.generators import load_split, serve_policy
from toolgym.generators.job import run_job_async
from toolgym.generators.rewrite import ROW_SUFFIX, read_texts
from toolgym.generators.rewrite_server import BROKEN_FACT, rewrite_text
from toolgym.verifiers.regrade import verify

CHAT_SPLITS = ("sft", "no_tool")


def _job(out: Path, url: str, **rewrite):
    return toy_config(out, rewrite={"base_url": url, "timeout": 5.0, "max_retries": 1, **rewrite},
                      mix={"tasks_per_domain": 20, "no_tool_share": 0.3})


async def _run(out: Path, break_rate: float = 0.0, **rewrite):
    running = await serve_policy.start(rewrite_break_rate=break_rate)
    try:
        result = await run_job_async(_job(out, running.base_url, **rewrite))
    finally:
        await running.close()
    return result, running.policy.rewriter


def _chats(out: Path) -> list[dict]:
    return [row for split in CHAT_SPLITS if (out / split).is_dir() for row in load_split(out, split)]


def _skeleton(messages: list[dict]) -> list:
    """Everything of a chat but its user and assistant text: roles, calls, results, reasoning."""
    return [(m["role"], json.dumps(m.get("tool_calls"), sort_keys=True), m.get("content") if m["role"] in ("tool", "system") else None,
             m.get("reasoning_content"), json.dumps(m.get("user_tool_calls"), sort_keys=True)) for m in messages]


def test_rewritten_rows_keep_every_call_and_all_verify(toy_domain, tmp_path):
    out = tmp_path / "out"
    result, server = asyncio.run(_run(out, keep_original=True))
    counts = result["stats"]["rewrite"]
    # a draw the plan discards (a lesson its stream gave already) is never played, so never rewritten
    assert 0 < counts["rewritten"] == server.rewritten
    rows = {r["id"]: r for r in _chats(out)}
    rewritten = {i: r for i, r in rows.items() if i.endswith(ROW_SUFFIX)}
    assert len(rewritten) == counts["kept"] > 0
    tasks = {r["task"]["id"]: r["task"] for r in load_split(out, "rl_tasks")}
    changed = 0
    for row_id, row in rewritten.items():
        original = rows[row_id[: -len(ROW_SUFFIX)]]
        assert _skeleton(row["messages"]) == _skeleton(original["messages"])
        changed += row["messages"] != original["messages"]
        score = verify(tasks[row["task_id"]], row["messages"])
        assert score.passed and score.value == 1.0, (row_id, score.to_dict())
        assert row["teacher"]["rewritten_by"]["model"] == "toolgym-rewrite"
        assert row["usage"]["requests"] == 1 and original["usage"] is None  # the rewriter's call beside the oracle's none
    assert changed == len(rewritten)  # an unchanged rewrite is dropped, never written twice
    card = (out / "README.md").read_text()
    assert f"Chats rewritten by the rewrite model: {counts['rewritten']}; kept after verifying again: {counts['kept']}" in card


def test_broken_rewrites_are_dropped_and_counted(toy_domain, tmp_path):
    out = tmp_path / "out"
    result, server = asyncio.run(_run(out, break_rate=0.5, on_drop="nothing"))
    counts = result["stats"]["rewrite"]
    broken = counts["dropped"]["grounded"]  # each broken fact is caught by grounding
    assert 0 < broken == server.broken
    rows = _chats(out)
    assert len(rows) == counts["kept"] == counts["rewritten"] - sum(counts["dropped"].values())
    assert all(r["id"].endswith(ROW_SUFFIX) for r in rows)  # replaced, and nothing written for a dropped one
    assert not any(BROKEN_FACT.strip() in (m.get("content") or "") for r in rows for m in r["messages"])
    card = (out / "README.md").read_text()
    assert f"| grounded | {broken} |" in card
    rejected = [r for r in load_split(out, "rejected") if r["id"].endswith(ROW_SUFFIX)]  # output.keep_rejected
    assert len(rejected) == broken
    assert all(r["verification"]["components"]["grounded"] < 1.0 for r in rejected)


def test_a_dropped_rewrite_keeps_its_original_by_default(toy_domain, tmp_path):
    out = tmp_path / "out"
    result, server = asyncio.run(_run(out, break_rate=1.0))
    counts = result["stats"]["rewrite"]
    assert counts.get("kept", 0) == 0 and 0 < counts["rewritten"] == server.broken
    rows = _chats(out)
    assert len(rows) == counts["rewritten"] and not any(r["id"].endswith(ROW_SUFFIX) for r in rows)


def test_a_failing_rewriter_fails_its_tasks_and_a_resume_completes_them(toy_domain, tmp_path, capsys):
    bad, bad_url = _serve("--error-rate", "1")
    config = tmp_path / "job.yaml"
    config.write_text(
        "domains: [toy]\nworld: {size: default}\nmix: {tasks_per_domain: 8, no_tool_share: 0.25}\n"
        f"rewrite: {{base_url: '{bad_url}', max_retries: 0, timeout: 2.0}}\n"
        "failures: {retry: true, max_attempts: 3, max_rate: 0.0}\n"
    )
    out = tmp_path / "out"
    try:
        code = cli_main(["generate", str(config), "-q", "--out", str(out)])
    finally:
        bad.kill()
        bad.wait()
    assert code == 1
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert len(failures) == 8 and all("rewrite request failed" in f["error"] for f in failures)
    assert _chats(out) == []  # no row of a task whose rewrite failed

    good, good_url = _serve()
    try:
        with pytest.warns(UserWarning, match="different config"):
            code = cli_main(["generate", str(config), "-q", "--out", str(out), "--set", f"rewrite.base_url={good_url}"])
    finally:
        good.kill()
        good.wait()
    assert code == 0, capsys.readouterr().err
    rows = _chats(out)
    assert len(rows) == 8 and len({r["task_id"] for r in rows}) == 8
    assert not (out / "failures.jsonl").read_text().strip()
    card = (out / "README.md").read_text()  # counts sum over sessions; failed attempts count nothing
    kept = sum(r["id"].endswith(ROW_SUFFIX) for r in rows)
    assert f"Chats rewritten by the rewrite model: 8; kept after verifying again: {kept} " in card


def test_deterministic_rewrite_keeps_facts_and_answers():
    text = "Hi, I'm Ana. Could you check order #W1234 for $12.50? Yes, please proceed right away. Thanks!"
    once = rewrite_text(text, 0)
    assert once == rewrite_text(text, 0) and once != text
    for kept in ("#W1234", "$12.50", "Yes", "proceed", "Ana"):
        assert kept in once


def test_read_texts_takes_only_the_texts_asked_for():
    assert read_texts('```json\n{"texts": ["a", "b"]}\n```', 2) == ["a", "b"]
    assert read_texts('["a", "b"]', 2) == ["a", "b"]
    assert read_texts('{"texts": ["a"]}', 2) is None  # one missing
    assert read_texts('{"texts": ["a", ""]}', 2) is None  # an emptied text
    assert read_texts("Sure! Here you go.", 1) is None
    assert read_texts(None, 1) is None


def test_rewrite_config_errors_name_the_key_and_the_fix(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown key 'rewrite.keep_orignal'. did you mean 'keep_original'"):
        load_config({"rewrite": {"keep_orignal": True}})
    with pytest.raises(ConfigError, match=r"did you mean 'single'"):
        load_config({"rewrite": {"kinds": ["singel"]}})
    with pytest.raises(ConfigError, match=r"rewrite.on_drop = 'skip'"):
        load_config({"rewrite": {"on_drop": "skip"}})
    with pytest.raises(ConfigError, match=r"is not a file"):
        load_config({"rewrite": {"template": str(tmp_path / "missing.j2")}})
    public = load_config({"rewrite": {"api_key": "sk-secret123456"}}).public_dict()
    assert "api_key" not in public["rewrite"]


def test_a_rewrite_request_without_texts_is_a_clear_400():
    async def ask() -> tuple[int, dict]:
        import aiohttp

        running = await serve_policy.start()
        try:
            async with aiohttp.ClientSession() as session:
                body = {"model": "toolgym-rewrite", "messages": [{"role": "user", "content": "rewrite this"}]}
                async with session.post(f"{running.base_url}/chat/completions", json=body) as response:
                    return response.status, await response.json()
        finally:
            await running.close()

    status, body = asyncio.run(ask())
    assert status == 400 and "<texts>" in body["error"]["message"]


@pytest.mark.parametrize("domain", ["retail", "telecom"])
def test_one_server_answers_as_teacher_user_and_rewriter(domain, tmp_path):
    out = tmp_path / "out"

    async def run():
        running = await serve_policy.start()
        endpoint = {"base_url": running.base_url, "timeout": 5.0, "max_retries": 1, "send_task": True}
        try:
            config = load_config({
                "domains": [domain], "mix": {"kinds": {"multi_step": 3, "single": 2, "no_tool/irrelevant": 1}},
                "teachers": [{"name": "served", "type": "openai", "model": "toolgym-oracle", **endpoint}],
                "user": {"type": "llm", "model": "toolgym-user", **endpoint},
                "rewrite": endpoint, "output": {"dir": str(out)}, "failures": {"max_rate": 0.0},
            })
            return await run_job_async(config)
        finally:
            await running.close()

    result = asyncio.run(run())
    assert result["ok"], result
    counts = result["stats"]["rewrite"]
    rows = _chats(out)
    assert counts["rewritten"] == 6 and len(rows) == 6
    rewritten = [r for r in rows if r["id"].endswith(ROW_SUFFIX)]
    assert len(rewritten) == counts["kept"] >= 4  # an unchanged chat keeps its original row
    tasks = {r["task"]["id"]: r["task"] for r in load_split(out, "rl_tasks")}
    for row in rewritten:
        score = verify(tasks[row["task_id"]], row["messages"])
        assert score.passed and score.value == 1.0, (row["id"], score.to_dict())
        teacher_calls = sum(m["role"] == "assistant" for m in row["messages"]) - 1  # the closer is no call
        assert row["usage"]["requests"] == teacher_calls + 1  # it replaced its original: teacher and rewriter tokens


def test_a_template_of_ones_own_is_read_from_the_working_directory(tmp_path, monkeypatch):
    from toolgym.envs.registry import load_domain
    from toolgym.generators.rewrite import Rewriter

    monkeypatch.chdir(tmp_path)
    Path("mine.j2").write_text("Say it as {{ persona }} would: {{ texts | length }} texts\n<texts>{{ texts | compact_json }}</texts>")
    config = load_config({"rewrite": {"template": "mine.j2", "base_url": "http://127.0.0.1:9/v1"}})
    task = load_domain("retail").generate_tasks(1, seed=0)[0]
    prompt = Rewriter.from_config(config.rewrite).prompt(task, [{"role": "user", "text": "hi"}])
    assert prompt.startswith(f"Say it as {task.scenario.persona} would: 1 texts")


def test_the_example_config_loads():
    config = load_config(Path(__file__).resolve().parent.parent / "configs" / "rewrite.yaml")
    assert config.rewrite is not None and config.rewrite.model == "toolgym-rewrite" and not config.rewrite.keep_original
