"""`toolgym serve-env`: OpenEnv's server over the worlds, driven by OpenEnv's own WebSocket client.

One server on 127.0.0.1: the gold of 20 tasks per domain scores 1.0 and a do-nothing rollout less;
100 sessions at once each see only their own episode; the session's MCP tools complete a task;
sessions beyond the bound are refused and idle ones are closed.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.conftest import builtin_domains
from tests.serving import DO_NOTHING, all_gold, gold, imported, running

pytestmark = pytest.mark.xdist_group("openenv")


def _openenv():
    return imported("toolgym.integrations.openenv")
SESSIONS = 100


@pytest.fixture(scope="module")
def server():
    with running(_openenv().create_app(max_sessions=SESSIONS)) as url:
        yield url


async def _play(url: str, task, moves) -> tuple[float, dict]:
    async with _openenv().ToolgymEnvClient(base_url=url) as env:
        result = await env.reset(task=task.model_dump(mode="json"))
        assert result.observation.task_id == task.id and result.observation.messages[0]["role"] == "system"
        for move in moves:
            assert not result.done, f"{task.id} ended before its gold did"
            result = await env.step(move)
        assert result.done, f"{task.id}: the user did not leave after the gold's last turn"
        return result.reward, result.observation.verification


async def _do_nothing(url: str, task) -> tuple[float, dict, int]:
    async with _openenv().ToolgymEnvClient(base_url=url) as env:
        result = await env.reset(task=task.model_dump(mode="json"))
        steps = 0
        while not result.done:
            result = await env.step(DO_NOTHING)
            steps += 1
        return result.reward, result.observation.verification, steps


def test_gold_scores_full_and_doing_nothing_does_not_in_every_domain(server):
    played = all_gold(20)
    assert {t.domain for t, _ in played} == set(builtin_domains())

    async def run():
        slots = asyncio.Semaphore(SESSIONS)  # the server's bound

        async def bounded(episode):
            async with slots:
                return await episode

        golds = await asyncio.gather(*(bounded(_play(server, t, m)) for t, m in played))
        lazy = await asyncio.gather(*(bounded(_do_nothing(server, t)) for t, _ in played))
        return golds, lazy

    golds, lazy = asyncio.run(run())
    for (task, _), (reward, verification) in zip(played, golds, strict=True):
        assert reward == 1.0 and verification["passed"], (task.id, task.kind, verification["details"])
        assert set(verification) == {"passed", "score", "components", "details"} and verification["components"]
    for (task, _), (reward, verification, steps) in zip(played, lazy, strict=True):
        assert reward < 1.0 and not verification["passed"], (task.id, task.kind)
        assert verification["score"] == reward and steps <= 60


def test_hundred_concurrent_sessions_see_only_their_own_episode(server):
    """All 100 sessions are open at once (a barrier after the resets); each plays the start of its own
    task and must receive exactly the messages the same moves get when played alone."""
    played = all_gold(20)[:SESSIONS]
    assert len(played) == SESSIONS and len({t.domain for t, _ in played}) >= 5
    expected, grades = {}, {}
    import toolgym

    for task, moves in played:  # what the same moves bring in a private env
        env = toolgym.make(task.domain, max_turns=60)
        env.reset(options={"task": task})
        expected[task.id] = [env.step(dict(move))[0] for move in moves[:2]]
        grades[task.id] = env.grade().value

    async def session(task, moves, opened: asyncio.Barrier):
        async with _openenv().ToolgymEnvClient(base_url=server) as env:
            first = await env.reset(task=task.model_dump(mode="json"))
            await opened.wait()
            seen = [(await env.step(move)).observation.messages for move in moves[:2]]
            state = await env.state()
            return first.observation.task_id, seen, state

    async def run():
        opened = asyncio.Barrier(SESSIONS)
        return await asyncio.gather(*(session(t, m, opened) for t, m in played))

    results = asyncio.run(run())
    for (task, _), (task_id, seen, state) in zip(played, results, strict=True):
        assert task_id == task.id and state.task_id == task.id and state.step_count == len(expected[task.id])
        assert json.dumps(seen, sort_keys=True) == json.dumps(expected[task.id], sort_keys=True), task.id
        assert state.score == grades[task.id] and state.verification["score"] == pytest.approx(grades[task.id], abs=1e-6)


def test_session_mcp_tools_complete_a_task(server):
    task, moves = next((t, m) for t, m in gold("retail", 20) if t.kind == "multi_step")

    async def run():
        async with _openenv().ToolgymEnvClient(base_url=server) as env:
            await env.reset(task=task.model_dump(mode="json"))
            tools = await env.list_tools()
            assert {t["name"] for t in tools} == {*task.tools, "send_message_to_user"}
            result = {}
            for move in moves:  # each call of a turn as its own tools/call, the words through the user channel
                for call in move.get("tool_calls") or []:
                    result = await env.call_tool(call["function"]["name"], **call["function"]["arguments"])
                    assert not result["is_error"], result
                if move.get("content"):
                    result = await env.call_tool("send_message_to_user", message=move["content"])
            return result, await env.state()

    result, state = asyncio.run(run())
    assert result["meta"]["toolgym/done"] and result["meta"]["toolgym/reward"] == 1.0
    assert "has left" in result["content"][0]["text"]
    assert state.done and state.score == 1.0 and state.verification["passed"]


def test_bad_input_gets_a_clear_error_and_the_session_goes_on(server):
    task, moves = gold("banking", 20)[0]

    async def run():
        async with _openenv().ToolgymEnvClient(base_url=server) as env:
            with pytest.raises(RuntimeError, match="reset needs a task"):
                await env.reset(seed=3)
            with pytest.raises(RuntimeError, match="unknown kind"):
                await env.reset(domain="banking", kind="singel")
            with pytest.raises(RuntimeError, match="no episode yet"):
                await env.step("hello")
            await env.reset(task=task.model_dump(mode="json"))
            broken = await env.step('<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>')
            assert "unknown tool 'no_such_tool'" in broken.observation.messages[0]["content"]
            drawn = await env.reset(domain="banking", kind="single", seed=7)
            return drawn.observation

    drawn = asyncio.run(run())
    assert drawn.kind == "single" and drawn.domain == "banking" and drawn.tools


def test_health_metadata_and_schema_over_http(server):
    assert httpx.get(f"{server}/health").json()["status"] == "healthy"
    assert httpx.get(f"{server}/metadata").json()["name"] == "toolgym"
    schema = httpx.get(f"{server}/schema").json()
    assert schema["action"]["required"] == ["message"] and "verification" in schema["observation"]["properties"]


def test_sessions_are_bounded_and_idle_ones_closed():
    task, _ = gold("retail", 20)[0]

    async def run(url):
        first = _openenv().ToolgymEnvClient(base_url=url)
        await first.connect()
        await first.reset(task=task.model_dump(mode="json"))
        async with connect(url.replace("http", "ws") + "/ws") as second:  # the server says why, then closes
            refusal = json.loads(await second.recv())
        assert refusal["type"] == "error" and refusal["data"]["code"] == "CAPACITY_REACHED", refusal
        await asyncio.sleep(7)  # the reaper looks every 5 s at most; the session has been idle for 1 s
        with pytest.raises(RuntimeError, match="no episode yet"):
            await first.step(DO_NOTHING)
        await first.close()
        async with _openenv().ToolgymEnvClient(base_url=url) as third:  # the slot is free again
            return (await third.reset(task=task.model_dump(mode="json"))).observation.task_id

    with running(_openenv().create_app(max_sessions=1, idle_seconds=1.0)) as url:
        assert asyncio.run(run(url)) == task.id
