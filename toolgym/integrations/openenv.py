"""toolgym's worlds as an OpenEnv environment on OpenEnv's own server (the `openenv` package): `toolgym serve-env`.

One WebSocket session is one episode at a time: `reset` with a task (`task=` Task JSON, `row=` an
`rl_tasks` row, `task_id=` from `--tasks DIR`, or `domain=` with `kind=` and `seed=`), `step` with
an assistant message (an OpenAI dict, or raw model text read by the hermes parser: `<tool_call>`
blocks, optional `<think>`), `state`, `close`. The same session answers MCP JSON-RPC
(`tools/list`, `tools/call`, OpenEnv's `mcp` message): the task's tools plus `send_message_to_user`,
each call one step. The step that ends an episode has `done`, the reward (the verifier's score) and
`verification` (`passed`, `score`, `components`, `details`); `state` grades the conversation so far.
Sessions are isolated (each its own world), bounded in count, and closed when idle.

Stateless HTTP `/reset` and `/step` build a new environment per request (OpenEnv's design): an
episode lives on the WebSocket session, which `ToolgymEnvClient` (an OpenEnv `EnvClient`) opens.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.providers import Provider
from fastmcp.tools import Tool as MCPTool
from fastmcp.tools.base import ToolResult
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import JsonRpcRequest, McpMethod, WSMCPMessage
from openenv.core.env_server.types import Action, ConcurrencyConfig, EnvironmentMetadata, Observation, State
from pydantic import Field, PrivateAttr
from starlette.websockets import WebSocketDisconnect

from toolgym.version import __version__

from .episode import MAX_TURNS, Episode, Outcome, TaskPool, user_channel_tool

MAX_SESSIONS = 256
IDLE_SECONDS = 600.0


# ---- the typed protocol ------------------------------------------------------------------------
class ToolgymAction(Action):
    """An assistant message: raw model text (hermes `<tool_call>` blocks, optional `<think>`) or an OpenAI dict."""

    message: str | dict[str, Any] = Field(description="the assistant's turn: text for the user and/or tool calls")


class ToolgymObservation(Observation):
    """The messages added since the last action; the first observation is the whole prompt."""

    messages: list[dict[str, Any]] = Field(default_factory=list, description="new chat messages (OpenAI format)")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="on reset: the task's tools (OpenAI schemas)")
    task_id: str | None = None
    domain: str | None = None
    kind: str | None = None
    truncated: bool = Field(default=False, description="ended by max_turns rather than by the user leaving")
    verification: dict[str, Any] | None = Field(default=None, description="passed, score, components, details (at the end)")


class ToolgymState(State):
    """Where the session's episode stands, with the verification of the conversation so far."""

    task_id: str | None = None
    domain: str | None = None
    kind: str | None = None
    done: bool = False
    score: float | None = None
    verification: dict[str, Any] | None = None


# ---- the episode's tools over MCP ----------------------------------------------------------------
class _WorldTool(MCPTool):
    """One tool of the session's current task; a call is one step of its episode."""

    _episode: Episode = PrivateAttr()

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        outcome = await asyncio.to_thread(self._episode.call_tool, self.name, arguments)
        return tool_result(outcome)


def tool_result(outcome: Outcome) -> ToolResult:
    meta: dict[str, Any] = {"toolgym/done": outcome.done, "toolgym/reward": outcome.reward}
    if outcome.verification is not None:
        meta["toolgym/verification"] = outcome.verification
    return ToolResult(content=outcome.reply(), meta=meta, is_error=outcome.is_error)


class _EpisodeTools(Provider):
    """The tools of whatever task the session's episode runs now (none before the first reset)."""

    def __init__(self, episode: Episode):
        super().__init__()
        self.episode = episode
        self._cache: tuple[str | None, list[MCPTool]] = (None, [])

    async def _list_tools(self) -> list[MCPTool]:
        if not self.episode.started:
            return []
        task_id = self.episode.task.id
        if self._cache[0] != task_id:
            self._cache = (task_id, [self._tool(s["function"]) for s in [*self.episode.tools, user_channel_tool()]])
        return self._cache[1]

    def _tool(self, function: dict[str, Any]) -> MCPTool:
        tool = _WorldTool(name=function["name"], description=function.get("description", ""),
                          parameters=function.get("parameters") or {"type": "object", "properties": {}})
        tool._episode = self.episode
        return tool


# ---- the environment ------------------------------------------------------------------------------
class ToolgymEnvironment(MCPEnvironment):
    """One session's episodes: every domain, any task; see the module's docstring."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, *, max_turns: int = MAX_TURNS, violation_cap: float | None = None, pool: TaskPool | None = None):
        self.episode = Episode(max_turns=max_turns, violation_cap=violation_cap, pool=pool)
        super().__init__(FastMCP("toolgym", providers=[_EpisodeTools(self.episode)]))

    def reset(self, seed: int | None = None, episode_id: str | None = None, **selector: Any) -> ToolgymObservation:
        if seed is not None:
            selector["seed"] = seed
        opening = self.episode.start(episode_id, **selector)
        task = self.episode.task
        return ToolgymObservation(
            messages=opening, tools=self.episode.tools, task_id=task.id, domain=task.domain, kind=task.kind, reward=0.0
        )

    def _step_impl(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> ToolgymObservation:
        if not isinstance(action, ToolgymAction):
            raise TypeError(f"expected a ToolgymAction (an assistant message), got {type(action).__name__}")
        outcome = self.episode.act(action.message)
        task = self.episode.task
        return ToolgymObservation(
            messages=outcome.messages, task_id=task.id, domain=task.domain, kind=task.kind, done=outcome.done,
            reward=outcome.reward, truncated=outcome.truncated, verification=outcome.verification,
        )  # fmt: skip

    async def step_async(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        if isinstance(action, ToolgymAction):  # world work runs off the event loop, under the episode's lock
            return await asyncio.to_thread(self._step_impl, action)
        return await super().step_async(action, timeout_s=timeout_s, **kwargs)

    @property
    def state(self) -> ToolgymState:
        episode = self.episode
        if not episode.started:
            return ToolgymState()
        score = episode.grade()
        task = episode.task
        return ToolgymState(
            episode_id=episode.episode_id, step_count=episode.steps, task_id=task.id, domain=task.domain,
            kind=task.kind, done=episode.done, score=score.value, verification=score.to_dict(),
        )  # fmt: skip

    def get_metadata(self) -> EnvironmentMetadata:
        from toolgym.envs.registry import list_domains

        return EnvironmentMetadata(
            name="toolgym",
            description=(
                "Stateful simulated worlds for tool-using assistants (domains: " + ", ".join(list_domains()) + "); "
                "reward = the task's verifier score at the end of the episode"
            ),
            version=__version__,
        )

    def close(self) -> None:
        self.episode.close()
        super().close()


def create_app(
    *,
    max_turns: int = MAX_TURNS,
    violation_cap: float | None = None,
    pool: TaskPool | None = None,
    max_sessions: int = MAX_SESSIONS,
    idle_seconds: float | None = IDLE_SECONDS,
):
    """The FastAPI app of OpenEnv's server over toolgym's worlds (run it with uvicorn on 127.0.0.1)."""
    factory = functools.partial(ToolgymEnvironment, max_turns=max_turns, violation_cap=violation_cap, pool=pool)
    config = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=idle_seconds)
    app = create_fastapi_app(factory, ToolgymAction, ToolgymObservation, concurrency_config=config)
    app.add_middleware(_ClosedByClient)
    return app


class _ClosedByClient:
    """OpenEnv's server closes a finished WebSocket itself and, under Starlette 1.x, raises when the client
    already has: the episode is over and cleaned up by then, so that raise is not an error worth a traceback."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect:
            if scope["type"] != "websocket":
                raise


# ---- the client ----------------------------------------------------------------------------------
class ToolgymEnvClient(EnvClient[ToolgymAction, ToolgymObservation, ToolgymState]):
    """OpenEnv's WebSocket client for `toolgym serve-env`: one session, one episode at a time.

    `await env.reset(domain="retail", kind="single", seed=3)` or `reset(task=row["task"])`, then
    `await env.step(text_or_message)`; `await env.state()` grades so far; `list_tools()` and
    `call_tool(name, **arguments)` use the session's MCP interface. `.sync()` gives the blocking form.
    """

    _rpc_id = 0

    def _step_payload(self, action: ToolgymAction | str | dict[str, Any]) -> dict[str, Any]:
        if isinstance(action, ToolgymAction):
            return {"message": action.message}
        return {"message": action}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[ToolgymObservation]:
        observation = ToolgymObservation(**payload.get("observation", {}), reward=payload.get("reward"), done=payload.get("done", False))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> ToolgymState:
        return ToolgymState(**payload)

    async def _mcp(self, method: McpMethod, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._rpc_id += 1
        request = JsonRpcRequest(jsonrpc="2.0", method=method.value, params=params or {}, id=self._rpc_id)
        response = await self._send_and_receive(WSMCPMessage(data=request.model_dump()).model_dump())
        data = response.get("data", {})
        if data.get("error"):
            raise RuntimeError(f"MCP {method.value} failed: {data['error'].get('message')}")
        return data.get("result") or {}

    async def list_tools(self) -> list[dict[str, Any]]:
        """The session's MCP tools (name, description, inputSchema): the task's tools and send_message_to_user."""
        return list((await self._mcp(McpMethod.TOOLS_LIST)).get("tools", []))

    async def call_tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        """One call as one step; the result's `meta` has `toolgym/done`, `toolgym/reward` (and the verification at the end)."""
        return await self._mcp(McpMethod.TOOLS_CALL, {"name": name, "arguments": arguments})


def serve(host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning", **options: Any) -> None:
    import uvicorn

    uvicorn.run(create_app(**options), host=host, port=port, log_level=log_level, ws_max_size=64 * 1024 * 1024)


__all__ = ["ToolgymAction", "ToolgymEnvClient", "ToolgymEnvironment", "ToolgymObservation", "ToolgymState", "create_app", "serve"]
