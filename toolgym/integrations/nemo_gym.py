"""toolgym's worlds in NeMo Gym (Python >= 3.12): a Gymnasium-style resources server for its `gymnasium_agent`.

NeMo Gym speaks the Responses API and keeps a rollout's state per session cookie. Its
`GymnasiumServer` resources server (`/reset`, `/step`) fits a toolgym episode as it is:

- `/reset` receives the dataset row; its `task` column (Task JSON, as `rl_tasks` writes it) starts
  the session's own world, and the observation is the customer's opening message. The row's
  `responses_create_params` carry the system prompt and the task's tools in Responses format:
  `responses_rows(tasks)` writes such rows from toolgym tasks.
- `/step` receives the model's whole response: its `function_call` items and its text become one
  assistant turn; the tool results go back as `function_call_output`s (by `call_id`) and the
  customer's reply as the next user message. The step that ends the episode has the verifier's
  score as its reward (every other step 0, so the agent's reward sum is the score) and the
  verification in `info["verification"]`.

NeMo Gym's `gymnasium_agent` stops after `max_steps` (default 10): raise it to toolgym's turn budget
(60) in its config, or long tasks end truncated.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from typing import Any

from fastapi import HTTPException
from nemo_gym.base_resources_server import BaseResourcesServerConfig
from nemo_gym.openai_utils import NeMoGymResponse
from pydantic import Field
from resources_servers.gymnasium import GymnasiumServer

from toolgym.envs.task import Task
from toolgym.errors import ConfigError, ToolgymError
from toolgym.verifiers.rewards import load_task

from .episode import MAX_TURNS, Episode


def task_of(row: Mapping[str, Any]) -> Any:
    task = row.get("task")
    if task is None:
        raise ConfigError(
            f"a toolgym NeMo Gym row needs its `task` column (Task JSON; see responses_rows); the row has {sorted(row)}"
        )
    return task


def assistant_message(response: NeMoGymResponse) -> dict[str, Any]:
    """The model's Responses output as one OpenAI chat assistant message (text, and the function calls as tool calls)."""
    text: list[str] = []
    calls: list[dict[str, Any]] = []
    for item in response.output:
        kind = getattr(item, "type", None)
        if kind == "message":
            content = item.content
            text.extend([content] if isinstance(content, str) else [c.text for c in content if c.type == "output_text"])
        elif kind == "function_call":
            calls.append({"id": item.call_id, "type": "function", "function": {"name": item.name, "arguments": item.arguments}})
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = calls
    return message


class ToolgymResourcesServerConfig(BaseResourcesServerConfig):
    """The server's config block (NeMo Gym's YAML): the episode's turn budget and the open worlds' bound."""

    max_turns: int = Field(MAX_TURNS, ge=1)
    # A session the agent leaves without a final step (its max_steps below max_turns) is never closed by
    # NeMo Gym: past this many open worlds the oldest is closed, so a long run cannot grow without bound.
    max_sessions: int = Field(4096, ge=1)


class ToolgymResourcesServer(GymnasiumServer):
    """One toolgym episode per NeMo Gym session; see the module's docstring."""

    config: ToolgymResourcesServerConfig

    async def reset(self, metadata: dict, session_id: str | None = None) -> tuple[str | None, dict]:
        await self.close_session(session_id)  # a reset in the same session starts afresh
        episode = Episode(max_turns=self.config.max_turns)
        try:
            opening = await asyncio.to_thread(episode.start, task=task_of(metadata))
        except (ToolgymError, ValueError) as error:  # a bad row: say so to the agent, not as a server fault
            episode.close()
            raise HTTPException(status_code=400, detail=str(error)) from error
        self.session_state[session_id] = episode
        while len(self.session_state) > self.config.max_sessions:
            await self.close_session(next(iter(self.session_state)))
        task = episode.task
        first = [m for m in opening if m.get("role") == "user"]
        return (str(first[-1]["content"]) if first else None), {"task_id": task.id, "domain": task.domain, "kind": task.kind}

    async def step(self, action: NeMoGymResponse, metadata: dict, session_id: str | None = None) -> tuple[str | None, float, bool, bool, dict]:
        episode = self.session_state.get(session_id)
        if episode is None:
            raise HTTPException(status_code=400, detail="no episode in this session: call /reset (with the row's `task`) first")
        try:
            outcome = await asyncio.to_thread(episode.act, assistant_message(action))
        except ToolgymError as error:  # the episode has ended
            raise HTTPException(status_code=400, detail=str(error)) from error
        info: dict[str, Any] = {
            "tool_outputs": [
                {"call_id": m.get("tool_call_id"), "output": str(m.get("content") or "")} for m in outcome.messages if m["role"] == "tool"
            ]
        }
        if outcome.verification is not None:
            info["verification"] = outcome.verification
        said = "\n".join(str(m.get("content") or "") for m in outcome.messages if m["role"] == "user")
        return said or None, outcome.reward, outcome.terminated, outcome.truncated, info

    async def close_session(self, session_id: str | None) -> None:
        episode = self.session_state.pop(session_id, None)
        if episode is not None:
            episode.close()


def responses_tool(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI chat tool schema in the Responses API's flat form."""
    function = schema["function"]
    return {
        "type": "function", "name": function["name"], "description": function.get("description", ""),
        "parameters": function.get("parameters") or {"type": "object", "properties": {}}, "strict": False,
    }  # fmt: skip


def responses_rows(tasks: Iterable[Task | Mapping[str, Any] | str]) -> list[dict[str, Any]]:
    """NeMo Gym dataset rows (JSONL) for toolgym tasks: the system prompt and tools in Responses form, and the task.

    The customer's first message is not in the row: `/reset` returns it from the world itself.
    """
    rows = []
    episode = Episode()  # one world per domain, reset per task
    try:
        for item in tasks:
            task = load_task(item["task"] if isinstance(item, Mapping) else item)
            opening = episode.start(task=task)
            tools = [responses_tool(s) for s in episode.tools]
            system = [{"role": "system", "content": str(m["content"])} for m in opening if m.get("role") == "system"]
            rows.append({
                "responses_create_params": {"input": system, "tools": tools, "parallel_tool_calls": True},
                "task": task.model_dump_json(),
            })  # fmt: skip
    finally:
        episode.close()
    return rows


def write_jsonl(rows: Iterable[Mapping[str, Any]], path: str) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


__all__ = ["ToolgymResourcesServer", "ToolgymResourcesServerConfig", "assistant_message", "responses_rows", "responses_tool", "task_of", "write_jsonl"]
