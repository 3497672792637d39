"""verifiers v1's own OpenEnv taskset and `OpenEnvEnv.run` loop over `toolgym serve-env` on 127.0.0.1.

The model's seat is scripted (it replays the gold, or says "OK."): everything between it and the world
is verifiers' code (its schema fetch, action parsing, OpenEnv client and reward sum) and toolgym's server.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager

import pytest

from tests.conftest import builtin_domains
from tests.serving import DO_NOTHING, gold, imported, running
from toolgym.errors import ConfigError
from toolgym.generators.chat_format import hermes_text

pytestmark = pytest.mark.xdist_group("openenv")


def _vf():
    return imported("verifiers.v1")


def _adapter():
    return imported("toolgym.integrations.verifiers_v1")


class _Trace:
    def __init__(self):
        self.rewards: dict[str, float] = {}
        self.stopped: str | None = None

    def record_reward(self, name: str, value: float) -> None:
        self.rewards[name] = value

    def stop(self, reason: str) -> None:
        self.stopped = reason


class _ScriptedInteraction:
    """The model's side of a verifiers interaction: reads each user turn, answers with the next scripted reply."""

    def __init__(self, replies: list[str]):
        self.replies, self.seen, self.trace = iter(replies), [], _Trace()

    async def turn(self, message: str):
        self.seen.append(json.loads(message))
        reply = next(self.replies, None)
        if reply is None:
            return _vf().Segment(messages=[], terminated=True)
        return _vf().Segment(messages=[_vf().AssistantMessage(content=reply)])


class _ScriptedPlayer:
    def __init__(self, replies: list[str]):
        self.played = _ScriptedInteraction(replies)

    @asynccontextmanager
    async def interaction(self, task):
        yield self.played


class _Agents:
    def __init__(self, replies: list[str]):
        self.player = _ScriptedPlayer(replies)


@pytest.fixture(scope="module")
def server():
    with running(imported("toolgym.integrations.openenv").create_app()) as url:
        yield url


def _run(server: str, task, replies: list[str]) -> _ScriptedInteraction:
    env = _adapter().openenv_env(server, [task])
    (vf_task,) = list(env.taskset.load())
    agents = _Agents(replies)
    asyncio.run(env.run(vf_task, agents))
    return agents.player.played


def test_verifiers_openenv_loop_scores_the_gold_full_and_doing_nothing_below(server):
    for domain in builtin_domains():
        task, moves = gold(domain, 4)[1]
        played = _run(server, task, [hermes_text(m.get("content"), m.get("tool_calls")) for m in moves])
        assert played.trace.rewards == {"openenv_reward": 1.0}, (task.id, played.seen[-1])
        opening = played.seen[0]
        assert opening["action_schema"]["required"] == ["message"] and opening["observation"]["task_id"] == task.id
        assert opening["observation"]["messages"][0]["role"] == "system" and opening["observation"]["tools"]

        lazy = _run(server, task, [DO_NOTHING] * 60)
        assert lazy.trace.rewards["openenv_reward"] < 1.0, task.id


def test_resets_come_from_tasks_rows_or_ids_once_each():
    task, _ = gold("retail", 4)[0]
    row = {"task": task.model_dump_json(), "prompt": []}
    assert _adapter().reset_arguments([row, row, "retail-x"]) == [{"task": row["task"]}, {"task_id": "retail-x"}]
    assert _adapter().reset_arguments([task]) == [{"task": task.model_dump(mode="json")}]
    with pytest.raises(ConfigError, match=r"`task` column.*\['prompt'\]"):
        _adapter().reset_arguments([{"prompt": []}])
