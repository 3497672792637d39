"""Difficulty: the documented formula, the levels, and a job's `mix.difficulty`."""

from __future__ import annotations

import json
import logging

import pytest

from toolgym.config import load_config
from toolgym.envs.difficulty import LEVEL_BOUNDS, WEIGHTS, difficulty_of, level_of
from toolgym.envs.task import Choice, Fact, Revision, Scenario, Step, Task, ToolCall, Utterance
from toolgym.errors import ConfigError
from toolgym.generators.planning import level_quotas, plan_tasks

from .jobs import toy_config


def _task(**fields) -> Task:
    scenario = {"persona": "p", "goal": "g", "requests": ["a", "b"], **fields.pop("scenario", {})}
    return Task(domain="toy", domain_version=0, world_seed=0, world_size="default", kind="multi_turn", seed=1,
                scenario=Scenario(**scenario), tools=[], **fields)  # fmt: skip


def test_the_formula_counts_what_its_docstring_says():
    pick = Fact(key="which_order", value="the red one", label="order", keywords=["which order"])
    listing = Step(calls=[ToolCall(name="list_orders")])
    choice = Choice(fact="which_order", label="order", options=["#1", "#2", "#3"], question=Utterance(intent="ask_which"))
    act = Step(calls=[ToolCall(name="cancel", arguments={"order_id": "#2"})], needs=["which_order"], choice=choice)
    declined = Step(calls=[ToolCall(name="refund", arguments={"order_id": "#2"})], confirm="refund", declined=True)
    task = _task(
        scenario={"facts": [pick], "withheld": ["which_order"], "revisions": [Revision(segment=1, kind="revise")]},
        plan=[listing, act, declined],
        replies=[Utterance(intent="r"), Utterance(intent="r")],
    )
    listed = json.dumps([{"order_id": "#1"}, {"order_id": "#2"}, {"order_id": "#3"}, {"order_id": "#4"}])
    rated = difficulty_of(task, [(0, listed), (1, "{}")])
    parts = {"calls": 2, "dependent_steps": 1, "questions": 1, "candidates": 2, "revisions": 1, "distractors": 1}
    assert rated.model_dump(include=set(parts)) == parts  # #4 is listed but never used; #1 and #3 are choice options
    assert rated.score == sum(WEIGHTS[k] * v for k, v in parts.items())
    assert rated.level == level_of(rated.score)


def test_levels_band_the_score_at_the_documented_bounds():
    assert level_of(0) == 1
    for level, bound in enumerate(LEVEL_BOUNDS, start=2):
        assert level_of(bound - 0.01) == level - 1 and level_of(bound) == level


def test_identity_questions_are_not_questions_of_the_task():
    email = Fact(key="email", value="a@b.c", label="email address")
    plan = [Step(calls=[ToolCall(name="find", arguments={"email": "a@b.c"})], needs=["email"])]
    asked = _task(scenario={"facts": [email], "withheld": ["email"]}, plan=plan)
    identified = _task(scenario={"facts": [email], "withheld": ["email"], "identity": ["email"]}, plan=plan)
    assert difficulty_of(asked, []).questions == 1 and difficulty_of(identified, []).questions == 0


def test_the_task_id_leaves_the_difficulty_out(toy_domain):
    task = toy_domain.generate_tasks(1, seed=4, kinds=["multi_turn"])[0]
    assert task.difficulty is not None
    assert task.model_copy(update={"difficulty": None}).content_id() == task.id


def test_level_quotas_follow_the_shares():
    assert level_quotas({1: 1, 3: 1}, 5) == {1: 3, 3: 2} or level_quotas({1: 1, 3: 1}, 5) == {1: 2, 3: 3}
    assert sum(level_quotas({1: 0.2, 2: 0.3, 5: 0.5}, 17).values()) == 17
    assert level_quotas({2: 0.0, 4: 1.0}, 6) == {2: 0, 4: 6}


def test_a_difficulty_mix_picks_tasks_by_level_and_fills_what_a_kind_cannot_reach(toy_domain, tmp_path, caplog):
    # toy single tasks are all level 1, toy multi_turn ones level 2
    config = toy_config(tmp_path / "mix", mix={"kinds": {"single": 6, "multi_turn": 6}, "difficulty": {2: 1.0}})
    with caplog.at_level(logging.WARNING, logger="toolgym.generators.planning"):
        tasks = plan_tasks(config)
    by_kind = {k: [t.difficulty.level for t in tasks if t.kind == k] for k in ("single", "multi_turn")}
    assert by_kind["multi_turn"] == [2] * 6
    assert by_kind["single"] == [1] * 6  # level 2 is out of reach: the nearest level fills it, and a warning says so
    assert "toy single" in caplog.text and "not found" in caplog.text
    unmixed = plan_tasks(toy_config(tmp_path / "plain", mix={"kinds": {"multi_turn": 6}}))
    assert len(unmixed) == 6


@pytest.mark.parametrize("shares, words", [({7: 1.0}, "is not one of"), ({1: -1.0}, "0 or more"), ({1: 0.0}, "above 0")])
def test_a_bad_difficulty_mix_names_the_value(tmp_path, shares, words):
    with pytest.raises(ConfigError, match=words):
        load_config({"mix": {"difficulty": shares}})
