"""skyrl-gym's own registry and `BaseTextEnv` loop over toolgym's worlds: raw model text in, reward at the end."""

from __future__ import annotations

import pytest
import skyrl_gym

import toolgym.integrations.skyrl  # noqa: F401  (registers env_class "toolgym")
from tests.conftest import builtin_domains
from tests.serving import DO_NOTHING, gold
from toolgym.errors import ConfigError
from toolgym.generators.chat_format import hermes_text


def _run(task, texts):
    env = skyrl_gym.make("toolgym", env_config={"max_turns": 60}, extras={"task": task.model_dump_json(), "env_class": "toolgym"})
    prompt, info = env.init([{"role": "user", "content": "(the dataset's prompt is replaced by the world's opening)"}])
    assert prompt[0]["role"] == "system" and "<tools>" in prompt[0]["content"] and info["task_id"] == task.id
    output = None
    for text in texts:
        output = env.step(text)
        if output["done"]:
            break
    assert all(set(m) == {"role", "content"} for m in output["observations"])
    metrics = env.get_metrics()
    env.close()
    return output, metrics


@pytest.mark.parametrize("domain", builtin_domains())
def test_gold_as_model_text_scores_full_and_doing_nothing_does_not(domain):
    for task, moves in gold(domain, 4):
        output, metrics = _run(task, [hermes_text(m.get("content"), m.get("tool_calls")) for m in moves])
        assert output["done"] and output["reward"] == 1.0, (task.id, output["metadata"])
        assert output["metadata"]["verification"]["passed"] and metrics["passed"] == 1.0
        lazy, _ = _run(task, [DO_NOTHING] * 60)
        assert lazy["done"] and lazy["reward"] < 1.0 and not lazy["metadata"]["verification"]["passed"]


def test_the_generators_turn_budget_in_the_extras_truncates_the_episode():
    task, _ = gold("retail", 4)[1]
    env = skyrl_gym.make("toolgym", extras={"task": task.model_dump_json(), "max_turns": 2})
    env.init([])
    call = '<tool_call>{"name": "calculate", "arguments": {"expression": "1 + 1"}}</tool_call>'  # the customer waits
    first, second = env.step(call), env.step(call)
    assert not first["done"] and second["done"] and second["metadata"]["truncated"] and second["reward"] < 1.0


def test_a_row_without_its_task_is_refused_by_name():
    with pytest.raises(ConfigError, match="`task` column"):
        skyrl_gym.make("toolgym", extras={"prompt": "hi"})
