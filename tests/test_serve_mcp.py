"""`toolgym serve-mcp` driven by the `mcp` package's own client: over streamable HTTP on 127.0.0.1 and stdio.

A client lists the task's tools, plays the gold to a passing verification, and a do-nothing client
does not pass; two sessions at once each have their own world.
"""

from __future__ import annotations

import functools
import gc
import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import ToolListChangedNotification

from tests.serving import DO_NOTHING, gold, running
from toolgym.integrations.episode import TaskPool
from toolgym.integrations.mcp_server import PROMPT, TASK_URI, VERIFICATION_URI, EpisodeServer, http_app

pytestmark = pytest.mark.xdist_group("mcp")


@functools.cache
def _played() -> list:
    """Four gold chats (three retail, one travel), played when a test first needs them, not while collecting."""
    return [gold("retail", 20)[i] for i in (0, 1, 2)] + [gold("travel", 4)[1]]


@pytest.fixture(scope="module")
def url():
    episodes = EpisodeServer("retail", pool=TaskPool([task for task, _ in _played()]))
    with running(http_app(episodes)) as base:
        yield f"{base}/mcp"


async def _verification(client: Client) -> dict:
    return json.loads((await client.read_resource(VERIFICATION_URI)).contents[0].text)


async def _play_gold(client: Client, task, moves) -> tuple[object, dict]:
    opening = await client.get_prompt(PROMPT, {"task_id": task.id})
    assert task.id in (opening.description or "") and len(opening.messages) >= 2
    listed = {tool.name for tool in (await client.list_tools()).tools}
    assert listed == {*task.tools, "send_message_to_user"}
    result = None
    for move in moves:  # each call of a turn as its own tools/call, the words through the user channel
        for call in move.get("tool_calls") or []:
            result = await client.call_tool(call["function"]["name"], call["function"]["arguments"])
            assert not result.is_error, (task.id, result.content)
        if move.get("content"):
            result = await client.call_tool("send_message_to_user", {"message": move["content"]})
    return result, await _verification(client)


def test_an_mcp_client_lists_the_tools_and_plays_the_gold_to_a_pass(url):
    changed = []

    async def notice(message) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.append(message)

    async def run():
        async with Client(url, mode="legacy", message_handler=notice) as client:
            assert client.server_capabilities.tools.list_changed
            return [await _play_gold(client, task, moves) for task, moves in _played()]

    played = anyio.run(run)
    assert changed, "the retail to travel switch changes the tools, and the client is told"
    for (task, _), (last, verification) in zip(_played(), played, strict=True):
        assert last.meta["toolgym/done"] and last.meta["toolgym/reward"] == 1.0, (task.id, verification["details"])
        assert verification["passed"] and verification["score"] == 1.0
        assert "has left" in last.content[0].text


def test_doing_nothing_does_not_pass(url):
    task, _ = _played()[1]

    async def run():
        async with Client(url, mode="legacy") as client:
            await client.get_prompt(PROMPT, {"task_id": task.id})
            result = None
            for _ in range(60):
                result = await client.call_tool("send_message_to_user", {"message": DO_NOTHING})
                if result.meta["toolgym/done"]:
                    break
            after = await client.call_tool("send_message_to_user", {"message": DO_NOTHING})
            return result, after, await _verification(client)

    result, after, verification = anyio.run(run)
    assert result.meta["toolgym/done"] and result.meta["toolgym/reward"] < 1.0
    assert not verification["passed"] and verification["score"] == result.meta["toolgym/reward"]
    assert after.is_error and "has ended" in after.content[0].text


def test_two_sessions_at_once_have_their_own_worlds(url):
    (first, first_moves), (second, _) = _played()[0], _played()[3]

    async def run():
        async with Client(url, mode="legacy") as a, Client(url, mode="legacy") as b:
            await a.get_prompt(PROMPT, {"task_id": first.id})
            await b.get_prompt(PROMPT, {"task_id": second.id})
            call = first_moves[0]["tool_calls"][0]["function"]
            await a.call_tool(call["name"], call["arguments"])
            tasks = [json.loads((await c.read_resource(TASK_URI)).contents[0].text)["id"] for c in (a, b)]
            tools = [{t.name for t in (await c.list_tools()).tools} for c in (a, b)]
            return tasks, tools

    tasks, tools = anyio.run(run)
    assert tasks == [first.id, second.id]
    assert tools == [{*first.tools, "send_message_to_user"}, {*second.tools, "send_message_to_user"}]


def test_an_idle_session_is_closed_with_its_world():
    episodes = EpisodeServer("retail")

    async def run(base: str):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            await client.list_tools()
            opened = len(episodes._episodes)
            await anyio.sleep(2.5)  # idle past the 1 s timeout: the server ends the session
            gc.collect()
            return opened, len(episodes._episodes)

    with running(http_app(episodes, idle_seconds=1.0)) as base:
        opened, left = anyio.run(run, base)
    assert opened == 1 and left == 0


def test_a_stateless_request_is_refused_with_what_to_do(url):
    async def run():
        async with Client(url) as client:  # the 2026 stateless protocol: no session, so no world to keep
            return await client.call_tool("send_message_to_user", {"message": "hi"})

    with pytest.raises(ExceptionGroup) as raised:
        anyio.run(run)
    assert raised.group_contains(MCPError, match="initialize handshake", depth=None)


def test_over_stdio_a_client_starts_the_default_episode_and_reads_its_task():
    server = StdioServerParameters(command=str(Path(sys.executable).parent / "toolgym"), args=["serve-mcp", "--domain", "banking", "--seed", "2"])

    async def run():
        async with Client(stdio_client(server), mode="legacy") as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            task = json.loads((await client.read_resource(TASK_URI)).contents[0].text)
            unknown = await client.call_tool("no_such_tool", {})
            return tools, task, unknown

    tools, task, unknown = anyio.run(run)
    assert task["domain"] == "banking" and tools == {*task["tools"], "send_message_to_user"}
    assert unknown.is_error and "no_such_tool" in unknown.content[0].text
