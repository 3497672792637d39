"""LLMUser: a model plays the customer, from the task's scenario.

Its system prompt is rendered from the scenario by templates/llm_user.md.j2 (persona, goal,
requests in order, what it may say, what it gives only when asked, what it does not know) and
tells it to end with the stop marker. It sees the chat role-flipped: the agent's words are
"user" turns, its own earlier words "assistant" turns; the agent's policy, tool calls and tool
results are not shown to it. Consecutive turns of one side are joined, and a short opening cue
stands first so every chat template sees a user turn before the first assistant turn.

    user = LLMUser(model="Qwen/Qwen3-8B", base_url="http://127.0.0.1:8000/v1", temperature=0.7)

After `max_turns` user messages it ends the chat itself (closing line + stop marker). With
`opening="scenario"` the first message is the task's first request verbatim (no call). It
shares the connection machinery and constructor arguments of OpenAITeacher (chat_client.py);
its token usage is recorded under the role "user".

On-device steps: the domain's user-side tools (`caller="user"`, such as telecom's phone) are
offered to the model in the request. A reply with tool calls becomes `user_tool_calls`, which the
env runs on the user's device exactly as it runs the ScriptedUser's; the model is then asked
again, now seeing its calls and their results as its own tool turns, and writes what it tells
the agent. Text written beside calls is dropped: it was written before the results were seen.
`device_tools=False` offers no tools (the agent's instructions are then only talked about).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from toolgym.envs.conversation import STOP_MARKER
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.errors import ConfigError

from .base import Message, UserSimulator
from .chat_client import ChatClient
from .chat_format import read_choice, template
from .http_client import TeacherError, public_url

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
OPENINGS = ("model", "scenario")


class LLMUser(ChatClient, UserSimulator):
    role = "user"

    def __init__(
        self,
        model: str,
        *,
        max_turns: int = 20,
        opening: str = "model",
        opening_cue: str = "Hi! How can I help you today?",
        prompt_template: str | Path = "llm_user.md.j2",
        name: str | None = None,
        device_tools: bool = True,
        **client: Any,
    ):
        if max_turns < 1:
            raise ConfigError(f"LLMUser max_turns must be at least 1, got {max_turns}")
        if opening not in OPENINGS:
            raise ConfigError(f"LLMUser opening {opening!r} is not one of {OPENINGS}: 'model' lets the model "
                              "open the chat, 'scenario' sends the task's first request as written")
        super().__init__(model, **client)
        self.max_turns = max_turns
        self.opening = opening
        self.opening_cue = opening_cue
        self.prompt_template = prompt_template
        self._template = template(prompt_template)
        self.name = name or f"llm_user:{model}"
        self.device_tools = device_tools
        self._device_schemas: dict[str, list[dict[str, Any]]] = {}  # per domain; one list object keeps the body cache warm

    @classmethod
    def from_config(cls, config: Any) -> LLMUser:
        """From a job config's user entry (toolgym.config.UserConfig)."""
        return cls(
            config.model,
            max_turns=getattr(config, "max_turns", 20),
            device_tools=getattr(config, "device_tools", True),
            **cls.client_options(config),
        )

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "llm_user", "max_turns": self.max_turns, "opening": self.opening,
                "template": str(self.prompt_template), "device_tools": self.device_tools, **self._describe()}

    def device_schemas(self, task: Task) -> list[dict[str, Any]]:
        """The OpenAI schemas of the tools the user holds in this task's domain (none if switched off)."""
        if not self.device_tools:
            return []
        if task.domain not in self._device_schemas:
            self._device_schemas[task.domain] = [t.schema for t in load_domain(task.domain).user_tools]
        return self._device_schemas[task.domain]

    def system_prompt(self, task: Task) -> str:
        scenario = task.scenario
        withheld = [f for f in scenario.facts if f.key in scenario.withheld]
        shared = [f for f in scenario.facts if f.key not in scenario.withheld]
        return self._template.render(
            scenario=scenario, shared=shared, withheld=withheld, stop_marker=STOP_MARKER, device=bool(self.device_schemas(task))
        ).strip()

    def flipped(self, messages: list[Message], task: Task) -> list[Message]:
        """The chat as the user's model sees it: its own turns are the assistant's."""
        turns: list[Message] = [{"role": "user", "content": self.opening_cue}]
        for message in messages:
            role, content = message.get("role"), message.get("content")
            if role == "user" and message.get("user_tool_calls"):
                turns.extend(_device_turns(message, len(turns)))  # its own device actions, as its tool turns
            if role not in ("assistant", "user") or not content:
                continue  # the agent's policy, tool calls and tool results stay unseen
            flipped = "user" if role == "assistant" else "assistant"
            last = turns[-1]
            if last["role"] == flipped and not last.get("tool_calls"):
                turns[-1] = {"role": flipped, "content": f"{last['content']}\n\n{content}"}
            else:
                turns.append({"role": flipped, "content": content})
        return [{"role": "system", "content": self.system_prompt(task)}, *turns]

    async def reply(self, messages: list[Message], task: Task) -> Message:
        said = sum(1 for m in messages if m.get("role") == "user")
        if said >= self.max_turns:
            return {"role": "user", "content": f"{task.scenario.closing} {STOP_MARKER}"}
        if said == 0 and self.opening == "scenario":
            return {"role": "user", "content": task.scenario.requests[0]}
        tools = self.device_schemas(task)
        data = await self._complete(self._body(self.flipped(messages, task), task, tools or None), task)
        try:
            message, _ = read_choice(data)
        except ValueError as exc:
            raise TeacherError(f"{public_url(self.base_url)}: {exc}", endpoint=public_url(self.base_url)) from None
        if message.get("tool_calls") and tools:
            return {"role": "user", "content": None, "user_tool_calls": [_device_call(c) for c in message["tool_calls"]]}
        text = _THINK.sub("", message.get("content") or "").strip()
        if not text:  # a user with nothing to say has left
            return {"role": "user", "content": f"{task.scenario.closing} {STOP_MARKER}"}
        return {"role": "user", "content": text}


def _device_call(call: Message) -> dict[str, Any]:
    """A model's tool call as a user-side call: arguments decoded when they are a JSON object."""
    function = call.get("function") or {}
    arguments: Any = function.get("arguments")
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            decoded = None
        arguments = decoded if isinstance(decoded, dict) else arguments  # the tool reports what is wrong
    return {"name": str(function.get("name") or ""), "arguments": arguments if arguments is not None else {}}


def _device_turns(message: Message, offset: int) -> list[Message]:
    """A user message's device calls and results as the user model's own assistant/tool turns."""
    calls = message.get("user_tool_calls") or []
    results = message.get("user_tool_results") or []
    ids = [f"device_{offset}_{index}" for index in range(len(calls))]
    shaped = [
        {"id": call_id, "type": "function", "function": {
            "name": call.get("name"),
            "arguments": call["arguments"] if isinstance(call.get("arguments"), str)
            else json.dumps(call.get("arguments") or {}, ensure_ascii=False),
        }}
        for call_id, call in zip(ids, calls, strict=True)
    ]
    turns: list[Message] = [{"role": "assistant", "content": None, "tool_calls": shaped}]
    turns += [{"role": "tool", "tool_call_id": call_id, "content": result} for call_id, result in zip(ids, results, strict=False)]
    return turns
