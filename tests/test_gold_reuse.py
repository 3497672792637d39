"""The oracle and the scripted user do not play a task twice: the episode is the gold chat proven
when the task was made, and the rows are the ones a second play writes."""

from __future__ import annotations

import pytest

from toolgym.config import load_config
from toolgym.generators.job import run_job
from toolgym.generators.reading import iter_rows

SPLITS = ("sft", "no_tool", "rl_tasks", "rejected")


def _config(out, **rollout):
    return load_config({
        "domains": ["retail", "telecom"],
        "world": {"seeds": [0, 1], "size": "small"},
        "mix": {"tasks_per_domain": 30, "no_tool_share": 0.3},
        "teacher": {"type": "oracle", "reasoning": True},
        "output": {"dir": str(out), "shard_rows": 40, "keep_rejected": True},
        "rl_tasks": {"enabled": True, "next_action_items": True},
        "rollout": rollout,
    })


def written(out) -> dict[str, dict[str, dict]]:
    """Every row of every split, by id."""
    return {split: {row["id"]: row for row in iter_rows(out, split)} for split in SPLITS}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("played")
    run_job(_config(out, reuse_gold=False), progress=False)
    return written(out)


def test_the_reused_gold_chat_gives_the_rows_of_a_second_play(played, tmp_path, monkeypatch):
    async def no_second_play(*args, **kwargs):
        raise AssertionError("a task was played again")

    monkeypatch.setattr("toolgym.generators.episodes.rollout", no_second_play)
    result = run_job(_config(tmp_path, reuse_gold=True), progress=False)
    assert result["stats"]["task_failures"] == 0
    reused = written(tmp_path)
    assert reused == played
    chats = [*played["sft"].values(), *played["no_tool"].values()]
    assert len(chats) >= 50 and all(r["verification"]["passed"] for r in chats)
    traces = [m for r in chats for m in r["messages"] if m.get("reasoning_content")]
    assert len(traces) > len(chats)  # the teacher's reasoning is in the copies, as it is in a play


def test_reverified_copies_carry_the_same_verification(played, tmp_path):
    run_job(_config(tmp_path, reuse_gold=True, reverify=True), progress=False)
    assert written(tmp_path) == played


def test_a_job_whose_turn_limit_cuts_the_gold_chat_plays_it(tmp_path):
    # the gold chats of multi-turn tasks are longer than 3 turns: copying them would be wrong
    out_short = tmp_path / "short"
    out_played = tmp_path / "played"
    run_job(load_config({**_config(out_short).model_dump(), "max_turns": 3}), progress=False)
    run_job(load_config({**_config(out_played, reuse_gold=False).model_dump(), "max_turns": 3}), progress=False)
    assert written(out_short) == written(out_played)
    assert any(not r["verification"]["passed"] for r in written(out_short)["rejected"].values())
