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
its token usage is recorded under the role "user". On-device steps (`user_tool_calls`) are not
made by this simulator: tasks that need them want the ScriptedUser.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from toolgym.envs.conversation import STOP_MARKER
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

    @classmethod
    def from_config(cls, config: Any) -> LLMUser:
        """From a job config's user entry (toolgym.config.UserConfig)."""
        return cls(config.model, max_turns=getattr(config, "max_turns", 20), **cls.client_options(config))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "llm_user", "max_turns": self.max_turns, "opening": self.opening,
                "template": str(self.prompt_template), **self._describe()}

    def system_prompt(self, task: Task) -> str:
        scenario = task.scenario
        withheld = [f for f in scenario.facts if f.key in scenario.withheld]
        shared = [f for f in scenario.facts if f.key not in scenario.withheld]
        return self._template.render(scenario=scenario, shared=shared, withheld=withheld, stop_marker=STOP_MARKER).strip()

    def flipped(self, messages: list[Message], task: Task) -> list[Message]:
        """The chat as the user's model sees it: its own turns are the assistant's."""
        turns: list[Message] = [{"role": "user", "content": self.opening_cue}]
        for message in messages:
            role, content = message.get("role"), message.get("content")
            if role not in ("assistant", "user") or not content:
                continue  # the agent's policy, tool calls and tool results stay unseen
            flipped = "user" if role == "assistant" else "assistant"
            if turns[-1]["role"] == flipped:
                turns[-1] = {"role": flipped, "content": f"{turns[-1]['content']}\n\n{content}"}
            else:
                turns.append({"role": flipped, "content": content})
        return [{"role": "system", "content": self.system_prompt(task)}, *turns]

    async def reply(self, messages: list[Message], task: Task) -> Message:
        said = sum(1 for m in messages if m.get("role") == "user")
        if said >= self.max_turns:
            return {"role": "user", "content": f"{task.scenario.closing} {STOP_MARKER}"}
        if said == 0 and self.opening == "scenario":
            return {"role": "user", "content": task.scenario.requests[0]}
        data = await self._complete(self._body(self.flipped(messages, task), task), task)
        try:
            message, _ = read_choice(data)
        except ValueError as exc:
            raise TeacherError(f"{public_url(self.base_url)}: {exc}", endpoint=public_url(self.base_url)) from None
        text = _THINK.sub("", message.get("content") or "").strip()
        if not text:  # a user with nothing to say has left
            return {"role": "user", "content": f"{task.scenario.closing} {STOP_MARKER}"}
        return {"role": "user", "content": text}
