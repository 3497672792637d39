"""No action escapes `env.step` as an exception: 100,000 seeded hostile actions per domain."""

from __future__ import annotations

import random
import time

import pytest

import toolgym
from tests.conftest import FUZZ_SAMPLE, heavy_domains
from tests.hostile import hostile_action

ACTIONS = 100_000


@pytest.mark.parametrize("name", heavy_domains(FUZZ_SAMPLE))
def test_hostile_actions_never_escape_step(name):
    env = toolgym.make(name, max_turns=200).unwrapped
    tasks = env.domain.generate_tasks(20, seed=1)  # a pool: the fuzz is about steps, not task generation
    rng = random.Random(f"hostile-{name}")
    escaped: list[str] = []
    episodes = 0
    env.reset(options={"task": tasks[0]})
    for number in range(ACTIONS):
        if env._done:
            episodes += 1
            env.reset(options={"task": tasks[episodes % len(tasks)]})
        action = hostile_action(rng, env.tools, env.action_space)
        try:
            observation, reward, terminated, truncated, info = env.step(action)
        except Exception as exc:  # the failure this test exists to find
            escaped.append(f"action {number}: {type(exc).__name__}: {exc}"[:300])
            env.reset(options={"task": tasks[0]})
            continue
        assert isinstance(observation, list) and observation, "every step observes something"
        assert 0.0 <= reward <= 1.0
    assert not escaped, f"{len(escaped)} of {ACTIONS} actions raised, e.g. {escaped[:3]}"
    assert episodes > 100, "the fuzz ended episodes and began new ones"


@pytest.mark.parametrize("name", toolgym.list_domains())
def test_a_megabyte_reply_is_read_and_answered(name):
    env = toolgym.make(name).unwrapped
    env.reset(options={"task": env.domain.generate_tasks(1, seed=0)[0]})
    reply = ("Could you confirm this order " * 40_000)[:1_000_000]  # many keywords, no question mark
    started = time.process_time()
    observation, *_ = env.step(reply)
    spent = time.process_time() - started
    assert observation[-1]["role"] == "user" and observation[-1]["content"]
    assert env.messages[-2]["content"] == reply.strip()
    assert spent < 5.0, f"a 1 MB reply took {spent:.1f}s of CPU (the quadratic regex took minutes)"


def test_hostile_completions_never_escape_verify_or_the_rewards():
    from toolgym.verifiers import rewards

    env = toolgym.make("retail").unwrapped
    tasks = env.domain.generate_tasks(5, seed=1)
    env.reset(options={"task": tasks[0]})
    rng = random.Random("hostile-rewards")
    target = {"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "calculate", "arguments": {"expression": "1+1"}}}]}
    wrong_shapes = 0
    for number in range(3000):
        action = hostile_action(rng, env.tools, env.action_space)
        if number % 10 == 0:
            score = toolgym.verify(tasks[number % 5], [{"role": "user", "content": "hi"}, action])
            assert score.value < 1.0, "a hostile reply never earns full marks"
        if not _completion_shaped(action):
            # not text, a message or a list of messages: a wiring mistake, named as such
            wrong_shapes += 1
            with pytest.raises(ValueError, match="a completion must be raw text, an assistant message dict"):
                rewards.tool_call_reward([action], target=[target])
            continue
        for reward in (rewards.tool_call_reward, rewards.exact_match_reward, rewards.f1_reward):
            (value,) = reward([action], target=[target])
            assert 0.0 <= value <= 1.0
        assert rewards.format_reward([action])[0] in (0.0, 1.0)
    assert 0 < wrong_shapes < 3000, "the fuzz sent both completions and things that are not"


def _completion_shaped(action) -> bool:
    if isinstance(action, list):
        return all(isinstance(item, dict) for item in action)
    return isinstance(action, str | dict)

