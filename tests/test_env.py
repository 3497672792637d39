import json

import pytest

import toolgym
from toolgym.errors import ToolgymError, UnknownNameError


@pytest.fixture
def env(toy_domain):
    return toolgym.make("toy", world_size="small")


def test_reset_gives_prompt_and_tools(env, toy_domain):
    task = toy_domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    observation, info = env.reset(options={"task": task})
    assert [m["role"] for m in observation] == ["system", "user"]
    assert "Toy shop agent policy" in observation[0]["content"]
    assert observation[1]["content"] == task.scenario.requests[0]
    assert {t["function"]["name"] for t in info["tools"]} == set(task.tools)
    assert info["task_id"] == task.id


def test_tool_calls_run_and_text_goes_to_user(env, toy_domain):
    task = toy_domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    env.reset(options={"task": task})
    email = task.scenario.facts[0].value
    obs, reward, terminated, truncated, info = env.step(
        "<tool_call>" + json.dumps({"name": "find_account", "arguments": {"email": email}}) + "</tool_call>"
    )
    assert obs[0]["role"] == "tool" and email in obs[0]["content"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    obs, *_ = env.step({"role": "assistant", "content": "Anything else?"})
    assert obs[0]["role"] == "user"


def test_bad_calls_do_not_crash(env, toy_domain):
    env.reset(seed=1)
    obs, *_ = env.step({"role": "assistant", "tool_calls": [{"function": {"name": "nope", "arguments": "{bad"}}]})
    assert "unknown tool 'nope'" in obs[0]["content"]
    assert env.tool_errors == 1


def test_episode_ends_with_verification_and_truncates(toy_domain):
    env = toolgym.make("toy", world_size="small", max_turns=2)
    task = toy_domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    env.reset(options={"task": task})
    env.step({"role": "assistant", "tool_calls": [{"function": {"name": "get_balance", "arguments": {"account_id": "A000"}}}]})
    obs, reward, terminated, truncated, info = env.step({"role": "assistant", "tool_calls": [{"function": {"name": "get_balance", "arguments": {"account_id": "A000"}}}]})
    assert truncated and not terminated
    assert info["verification"]["passed"] is False and reward < 1.0
    with pytest.raises(ToolgymError, match="reset"):
        env.step({"role": "assistant", "content": "hi"})


def test_task_by_id_and_unknown_id(toy_domain):
    tasks = toy_domain.generate_tasks(3, seed=0, size="small")
    env = toolgym.make("toy", world_size="small", tasks=tasks)
    _, info = env.reset(options={"task": tasks[2].id})
    assert info["task_id"] == tasks[2].id
    _, info = env.reset(options={"task": tasks[1].model_dump_json()})
    assert info["task_id"] == tasks[1].id
    with pytest.raises(UnknownNameError, match="unknown task id"):
        env.reset(options={"task": "toy-0000"})


def test_unknown_domain_and_parser_are_named():
    with pytest.raises(UnknownNameError, match="unknown domain 'retial'"):
        toolgym.make("retial")
    with pytest.raises(UnknownNameError, match="unknown parser 'xml'"):
        toolgym.ToolEnv("toy", parser="xml")


async def test_async_rollout_matches_sync(toy_domain):
    task = toy_domain.generate_tasks(1, seed=4, kinds=["multi_turn"], size="small")[0]
    a = await toolgym.rollout(toolgym.make("toy", world_size="small"), toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
    assert a.verification.passed
    assert [m["role"] for m in a.messages].count("user") == 5  # two requests, the email, a yes, the goodbye


def test_a_failed_reset_leaves_no_half_episode(toy_domain):
    from toolgym.envs.task import WorldEdit
    from toolgym.errors import ToolError

    env = toolgym.make("toy", world_size="small")
    task = toy_domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    env.reset(options={"task": task})
    broken = task.model_copy(update={"setup": [WorldEdit(table="account", key="A999", set={"status": "closed"})]})
    with pytest.raises(ToolError, match="A999"):
        env.reset(options={"task": broken})
    with pytest.raises(ToolgymError, match="reset"):
        env.step({"role": "assistant", "content": "hello"})


def test_user_reports_a_failed_device_action_in_words():
    from toolgym.generators.user import ScriptedUser

    telecom = toolgym.load_domain("telecom")
    task = telecom.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    pending = {"role": "user", "content": None, "user_tool_calls": [{"name": "run_speed_test", "arguments": {}}],
               "user_tool_results": ['{"error": "run_speed_test: phone is off"}']}  # fmt: skip
    reply = ScriptedUser().reply_sync([{"role": "system", "content": ""}, {"role": "user", "content": "hi"}, pending], task)
    assert "phone is off" in reply["content"]
    odd = {**pending, "user_tool_results": ['{"unexpected": 1}']}
    reply = ScriptedUser().reply_sync([{"role": "system", "content": ""}, {"role": "user", "content": "hi"}, odd], task)
    assert "unexpected: 1" in reply["content"]
