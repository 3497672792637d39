"""The conformance suite: every discovered domain must pass all of it."""

from __future__ import annotations

import copy
import json

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import toolgym
from toolgym.envs.task import ACTION_KINDS
from toolgym.verifiers import verify
from toolgym.verifiers.spoil import spoil_failures

from .conftest import builtin_domains

DOMAINS = builtin_domains()
TASKS_PER_KIND = 200
pytestmark = pytest.mark.skipif(not DOMAINS, reason="no built-in domain is installed yet")


def _oracle_messages(domain_name, task):
    env = toolgym.make(domain_name, world_size=task.world_size)
    return toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)


@pytest.mark.parametrize("name", DOMAINS)
def test_schemas_build_and_describe_every_parameter(name):
    domain = toolgym.load_domain(name)
    assert domain.tools, f"{name} has no tools"
    for tool in domain.tools.values():
        function = tool.schema["function"]
        assert function["description"]
        for param, spec in function["parameters"]["properties"].items():
            assert spec.get("description"), f"{tool.name}.{param} has no description"
        json.dumps(tool.schema)


@pytest.mark.parametrize("name", DOMAINS)
def test_gymnasium_make_and_check_env(name):
    domain = toolgym.load_domain(name)
    env = gymnasium.make(domain.env_id, world_size="small")
    check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("name", DOMAINS)
def test_reset_with_same_seed_and_task_is_identical(name):
    domain = toolgym.load_domain(name)
    task = domain.generate_tasks(1, seed=3, size="small")[0]
    first = toolgym.make(name).reset(seed=5, options={"task": task})
    second = toolgym.make(name).reset(seed=5, options={"task": task})
    assert first == second
    assert toolgym.make(name).reset(seed=9) == toolgym.make(name).reset(seed=9)


@pytest.mark.parametrize("name", DOMAINS)
def test_generation_is_deterministic(name):
    domain = toolgym.load_domain(name)
    assert [t.id for t in domain.generate_tasks(30, seed=11)] == [t.id for t in domain.generate_tasks(30, seed=11)]


@pytest.mark.parametrize("name", DOMAINS)
def test_every_kind_is_generated(name):
    domain = toolgym.load_domain(name)
    assert set(domain.kinds) == set(toolgym.envs.ALL_KINDS), f"{name} misses kinds"


@pytest.mark.parametrize("name", DOMAINS)
def test_oracle_replays_every_generated_task_to_one(name):
    domain = toolgym.load_domain(name)
    env = toolgym.make(name)
    oracle, user = toolgym.OracleTeacher(), toolgym.ScriptedUser()
    for kind in domain.kinds:
        tasks = domain.generate_tasks(TASKS_PER_KIND, seed=7, kinds=[kind])
        assert len({t.id for t in tasks}) == len(tasks), f"{kind}: duplicate tasks"
        for task in tasks:
            trajectory = toolgym.rollout_sync(env, oracle, user, task)
            score = trajectory.verification
            assert score.value == 1.0 and score.passed, (kind, task.id, score.to_dict())


@pytest.mark.parametrize("name", DOMAINS)
def test_spoiled_gold_never_scores_one_nor_passes(name):
    """Lazy, claimed success, emptied final reply, no consent, no diagnosis, duplicated write (issue #8)."""
    domain = toolgym.load_domain(name)
    assert spoil_failures(name, domain.generate_tasks(6 * len(domain.kinds), seed=5)) == []


@pytest.mark.parametrize("name", DOMAINS)
def test_wrong_trajectories_score_below_one(name):
    domain = toolgym.load_domain(name)
    tasks = domain.generate_tasks(60, seed=13, kinds=[k for k in ACTION_KINDS if k in domain.kinds])
    checked_write = checked_value = 0
    for task in tasks:
        messages = _oracle_messages(name, task).messages
        prompt = messages[:2]
        assert verify(task, prompt).value < 1.0, f"empty trajectory scored 1.0 on {task.kind} {task.id}"
        write_calls = [
            (i, j)
            for i, m in enumerate(messages)
            for j, c in enumerate(m.get("tool_calls") or [])
            if domain.tool(c["function"]["name"]).writes
        ]
        if write_calls:
            i, j = write_calls[-1]
            dropped = copy.deepcopy(messages)
            del dropped[i]["tool_calls"][j]
            assert verify(task, dropped).value < 1.0, f"missing write scored 1.0 on {task.id}"
            checked_write += 1
        for i, m in enumerate(messages):
            calls = m.get("tool_calls") or []
            args = calls[0]["function"]["arguments"] if calls else {}
            key = next((k for k, v in args.items() if isinstance(v, str | int | float)), None)
            if key is not None:
                wrong = copy.deepcopy(messages)
                value = wrong[i]["tool_calls"][0]["function"]["arguments"][key]
                wrong[i]["tool_calls"][0]["function"]["arguments"][key] = (
                    value + 1 if isinstance(value, int | float) and not isinstance(value, bool) else f"{value}-wrong"
                )
                assert verify(task, wrong).value < 1.0, f"wrong {key} scored 1.0 on {task.id}"
                checked_value += 1
                break
    assert checked_write > 0 and checked_value > 0


@pytest.mark.parametrize("name", DOMAINS)
def test_random_actions_never_raise(name):
    env = toolgym.make(name, world_size="small", max_turns=50)
    env.action_space.seed(0)
    env.reset(seed=0)
    for _ in range(10_000):
        _, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert 0.0 <= reward <= 1.0
        if terminated or truncated:
            assert "verification" in info
            env.reset()
