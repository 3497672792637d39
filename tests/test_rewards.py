import json

import pytest

import toolgym
from toolgym.verifiers.rewards import (
    episode_reward,
    exact_match_reward,
    f1_reward,
    format_reward,
    tool_call_reward,
)

TARGET = {
    "role": "assistant",
    "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "get", "arguments": {"id": 1}}},
        {"id": "2", "type": "function", "function": {"name": "get", "arguments": {"id": 2}}},
    ],
}
GOOD = '<think>two lookups</think><tool_call>{"name": "get", "arguments": {"id": 2}}</tool_call><tool_call>{"name": "get", "arguments": {"id": 1}}</tool_call>'
HALF = '<tool_call>{"name": "get", "arguments": {"id": 1}}</tool_call>'


def test_call_rewards_in_batch_shape():
    completions = [GOOD, HALF, "I cannot help.", [{"role": "assistant", "content": None, "tool_calls": TARGET["tool_calls"]}]]
    assert tool_call_reward(completions, target=[json.dumps(TARGET)] * 4) == [1.0, 0.5, 0.0, 1.0]
    assert exact_match_reward(completions, target=TARGET) == [1.0, 0.0, 0.0, 1.0]
    assert f1_reward(completions, target=TARGET)[:3] == [1.0, pytest.approx(2 / 3), 0.0]
    assert format_reward(completions) == [1.0, 0.0, 0.0, 1.0]  # raw text needs <think>; parsed messages do not


def test_target_is_required_and_lengths_checked():
    with pytest.raises(ValueError, match="target"):
        tool_call_reward([GOOD])
    with pytest.raises(ValueError, match="2 target values"):
        tool_call_reward([GOOD], target=[TARGET, TARGET])


def test_episode_reward_replays_on_a_fresh_world(toy_domain):
    task = toy_domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    env = toolgym.make("toy", world_size="small")
    messages = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task).messages
    full, empty = episode_reward([messages, messages[:2]], task=task.model_dump_json())
    assert full == 1.0 and empty < 1.0
