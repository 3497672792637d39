"""toolgym's worlds for any MCP client, on the `mcp` package's server (`toolgym serve-mcp`).

Each client session gets its own world. What the agent sees are the tools: the task's agent tools
and `send_message_to_user`, the channel to the simulated user (its reply is the tool's result;
when the user leaves, the result says so). What the host application drives are the prompt and
the resources:

- prompt `toolgym_episode` (arguments `domain`, `kind`, `seed`, `task_id`, all optional) starts an
  episode in this session and returns its opening: the policy and the user's first message. A
  tool called before any prompt starts the server's default episode.
- resource `toolgym://episode/verification`: the verifier's score of the conversation so far
  (`passed`, `score`, `components`, `details`); `toolgym://episode/task`: the task as JSON.

Over stdio a client is one process; over streamable HTTP each client session (the transport's
`Mcp-Session-Id`) has its world. Requests of MCP's stateless 2026-07-28 era carry no session, so
they are refused with an error saying to connect with the initialize handshake (`mode="legacy"`).
"""

from __future__ import annotations

import itertools
import json
import threading
import weakref
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolgym.errors import ConfigError
from toolgym.version import __version__

from .episode import MAX_TURNS, Episode, TaskPool, user_channel_tool

PROMPT = "toolgym_episode"
IDLE_SECONDS = 600.0
VERIFICATION_URI = "toolgym://episode/verification"
TASK_URI = "toolgym://episode/task"
INSTRUCTIONS = (
    "A customer-service world: the tools act on its records, and send_message_to_user talks to the customer "
    f"(their reply is the result). Get the prompt {PROMPT!r} for the policy and the customer's request."
)


class EpisodeServer:
    """One world per client session; the default episode is drawn from `domain`, `kind` and the next seed."""

    def __init__(
        self,
        domain: str = "retail",
        *,
        kind: str | None = None,
        seed: int = 0,
        max_turns: int = MAX_TURNS,
        violation_cap: float | None = None,
        pool: TaskPool | None = None,
    ):
        self.domain, self.kind, self.max_turns, self.violation_cap, self.pool = domain, kind, max_turns, violation_cap, pool
        self._seeds = itertools.count(seed)
        self._episodes: weakref.WeakKeyDictionary[Any, Episode] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self.server: Server[Any] = _Server(
            "toolgym", version=__version__, instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_list_prompts=self._list_prompts, on_get_prompt=self._get_prompt,
            on_list_resources=self._list_resources, on_read_resource=self._read_resource,
        )  # fmt: skip

    # ---- the session's episode ---------------------------------------------------------------
    def _episode(self, ctx: ServerRequestContext[Any]) -> Episode:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and ctx.request is not None:
            raise MCPError(
                types.INVALID_REQUEST,
                "toolgym keeps one world per client session, and stateless HTTP requests (protocol "
                f"{ctx.protocol_version}) have none: connect with the initialize handshake (mcp.Client(url, "
                "mode='legacy')) or over stdio",
            )
        connection = _connection(ctx)
        with self._lock:
            episode = self._episodes.get(connection)
            if episode is None:
                episode = self._episodes[connection] = Episode(
                    max_turns=self.max_turns, violation_cap=self.violation_cap, pool=self.pool
                )
            return episode

    async def _started(self, ctx: ServerRequestContext[Any]) -> Episode:
        episode = self._episode(ctx)
        if not episode.started:
            await anyio.to_thread.run_sync(lambda: episode.start(domain=self.domain, kind=self.kind, seed=next(self._seeds)))
        return episode

    # ---- tools -------------------------------------------------------------------------------
    async def _list_tools(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        episode = await self._started(ctx)
        schemas = [*episode.tools, user_channel_tool()]
        return types.ListToolsResult(tools=[
            types.Tool(name=f["name"], description=f.get("description"), input_schema=f.get("parameters") or {"type": "object"})
            for f in (s["function"] for s in schemas)
        ])  # fmt: skip

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        episode = await self._started(ctx)
        if episode.done:
            return _text_result(json.dumps({"error": "the conversation has ended; get the prompt again to start anew"}), True)
        outcome = await anyio.to_thread.run_sync(episode.call_tool, params.name, params.arguments or {})
        meta = {"toolgym/done": outcome.done, "toolgym/reward": outcome.reward}
        return _text_result(outcome.reply(), outcome.is_error, meta)

    # ---- the opening -------------------------------------------------------------------------
    async def _list_prompts(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListPromptsResult:
        arguments = [
            types.PromptArgument(name="domain", description=f"the world (default {self.domain})"),
            types.PromptArgument(name="kind", description="the kind of task, such as single or multi_turn"),
            types.PromptArgument(name="seed", description="which task of that kind (an integer)"),
            types.PromptArgument(name="task_id", description="a task loaded with --tasks"),
        ]
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=PROMPT, description="start an episode: the policy and the customer's first message", arguments=arguments,
        )])  # fmt: skip

    async def _get_prompt(self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != PROMPT:
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {params.name!r}; the prompt is {PROMPT!r}")
        episode = self._episode(ctx)
        selector = _selector(params.arguments or {}, self)
        before = _tool_names(episode)
        opening = await anyio.to_thread.run_sync(lambda: episode.start(**selector))
        if before is not None and before != _tool_names(episode):  # a client that cached the list refreshes it
            await ctx.session.send_tool_list_changed()
        messages = [
            types.PromptMessage(role="user", content=types.TextContent(text=str(m.get("content") or ""))) for m in opening
        ]
        return types.GetPromptResult(description=f"{episode.task.domain} task {episode.task.id} ({episode.task.kind})",
                                     messages=messages)

    # ---- what the host reads -----------------------------------------------------------------
    async def _list_resources(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=VERIFICATION_URI, name="verification", mime_type="application/json",
                           description="the verifier's score of the conversation so far"),
            types.Resource(uri=TASK_URI, name="task", mime_type="application/json", description="the episode's task"),
        ])  # fmt: skip

    async def _read_resource(self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        episode = await self._started(ctx)
        readers: dict[str, Callable[[], str]] = {
            VERIFICATION_URI: lambda: json.dumps(episode.grade().to_dict()),
            TASK_URI: lambda: episode.task.model_dump_json(),
        }
        reader = readers.get(str(params.uri))
        if reader is None:
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {params.uri!r}; known: {sorted(readers)}")
        text = await anyio.to_thread.run_sync(reader)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=str(params.uri), mime_type="application/json", text=text)]
        )


class _Server(Server[Any]):
    """The `mcp` server, announcing that the tool list changes (a new episode may be of another task)."""

    def create_initialization_options(self, notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any):
        options = notification_options or NotificationOptions()
        options.tools_changed = True
        return super().create_initialization_options(options, *args, **kwargs)


def _tool_names(episode: Episode) -> list[str] | None:
    return [s["function"]["name"] for s in episode.tools] if episode.started else None


def _connection(ctx: ServerRequestContext[Any]) -> Any:
    """The client connection a request came on: the key of its world. mcp 2.x builds a new `ServerSession`
    per request around the connection's one `Connection`, so the session object cannot be the key."""
    return getattr(ctx.session, "_connection", ctx.session)


def _selector(arguments: dict[str, str], server: EpisodeServer) -> dict[str, Any]:
    if arguments.get("task_id"):
        return {"task_id": arguments["task_id"]}
    seed = arguments.get("seed")
    if seed is not None and not str(seed).lstrip("-").isdigit():
        raise MCPError(types.INVALID_PARAMS, f"seed must be an integer, got {seed!r}")
    return {
        "domain": arguments.get("domain") or server.domain,
        "kind": arguments.get("kind") or server.kind,
        "seed": int(seed) if seed is not None else next(server._seeds),
    }


def _text_result(text: str, is_error: bool, meta: dict[str, Any] | None = None) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error, _meta=meta)


async def serve_stdio(episodes: EpisodeServer) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await episodes.server.run(read_stream, write_stream, episodes.server.create_initialization_options())


def http_app(episodes: EpisodeServer, host: str = "127.0.0.1", idle_seconds: float | None = IDLE_SECONDS):
    """A Starlette app serving MCP over streamable HTTP at /mcp, one world per client session.

    A session idle for `idle_seconds` (None: never) is closed, and its world with it: a client that
    vanishes without ending its session does not hold a world for the server's lifetime."""
    if idle_seconds is not None and idle_seconds <= 0:
        raise ConfigError(f"idle_seconds must be positive (or None: never), got {idle_seconds}")
    app = episodes.server.streamable_http_app(host=host)
    episodes.server.session_manager.session_idle_timeout = idle_seconds
    return app


__all__ = ["PROMPT", "TASK_URI", "VERIFICATION_URI", "EpisodeServer", "http_app", "serve_stdio"]
