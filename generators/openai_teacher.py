"""OpenAITeacher: a real model behind any OpenAI-compatible server writes the assistant turns.

    teacher = OpenAITeacher(model="Qwen/Qwen3-8B", base_url="http://127.0.0.1:8000/v1",
                            mode="native", temperature=0.7, max_tokens=2048)
    with usage_scope() as usage:
        trajectory = await rollout(env, teacher, user, task)
    # usage["teacher"].prompt_tokens, .completion_tokens, .reasoning_tokens, .calls, .retries

Modes: `native` sends `tools=` and reads `tool_calls`; `text` renders the tools into the system
prompt (templates/tools_prompt.md.j2) and reads Hermes `<tool_call>` blocks from the text, for
servers without a tool-call parser. In text mode a well-formed answer comes back as a message
dict; an answer with format problems comes back as the raw text, so the env parses it itself
and the format verifier sees what was wrong.

Constructor arguments shared with LLMUser (connection, sampling, task metadata, concurrency,
timeouts, retries, circuit breaker): see chat_client.py; `from_config` takes a job config's
teacher entry. Token usage: `pop_usage(task_id)` or `usage_scope()` (usage.py).

CPU per call (benchmarks/teacher.py; details in http_client.py): the stock
`chat.completions.create` converts the whole request recursively; this teacher sends
pre-encoded JSON through the same client's `post(content=...)` on the openai package's aiohttp
transport and reads plain JSON (`cast_to=Response`): about 3-5x less client CPU per call.
"""

from __future__ import annotations

from typing import Any

from toolgym.envs.conversation import assistant_turns
from toolgym.envs.parsing import parse_hermes
from toolgym.envs.task import Task
from toolgym.errors import ConfigError

from .base import Message, Policy
from .chat_client import ChatClient
from .chat_format import api_messages, hermes_text, read_choice, with_tools_prompt
from .http_client import TeacherError, public_url

MODES = ("native", "text")


class OpenAITeacher(ChatClient, Policy):
    """A Policy answered by a model over the chat-completions API."""

    role = "teacher"

    def __init__(self, model: str, *, mode: str = "native", keep_reasoning: bool = True, name: str | None = None,
                 **client: Any):
        if mode not in MODES:
            raise ConfigError(f"OpenAITeacher mode {mode!r} is not one of {MODES}: use 'native' (tools= in the "
                              "request) or 'text' (tools in the system prompt, Hermes <tool_call> answers)")
        super().__init__(model, **client)
        self.mode = mode
        self.keep_reasoning = keep_reasoning
        self.name = name or f"openai:{model}"

    @classmethod
    def from_config(cls, config: Any) -> OpenAITeacher:
        """From a job config's teacher entry (toolgym.config.TeacherConfig)."""
        return cls(config.model, mode=getattr(config, "mode", "native"), name=getattr(config, "name", None),
                   **cls.client_options(config))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "openai", "mode": self.mode, **self._describe()}

    async def act(self, messages: list[Message], tools: list[dict[str, Any]], task: Task | None = None) -> Any:
        if self.mode == "native":
            body = self._body(api_messages(messages, "native"), task, tools)
        else:
            body = self._body(with_tools_prompt(api_messages(messages, "text"), tools), task)
        data = await self._complete(body, task)
        try:
            message, _finish = read_choice(data)
        except ValueError as exc:
            raise TeacherError(f"{public_url(self.base_url)}: {exc}", endpoint=public_url(self.base_url)) from None
        if not self.keep_reasoning:
            message.pop("reasoning_content", None)
        if self.mode == "text":
            result = self._from_text(message, assistant_turns(messages))
            if isinstance(result, dict) and not self.keep_reasoning:
                result.pop("reasoning_content", None)  # a <think> block in the text
            return result
        return message

    def _from_text(self, message: Message, turn: int) -> Any:
        """Parse Hermes text; hand malformed text to the env as written, so its format is scored."""
        reasoning = message.get("reasoning_content")
        text = message.get("content") or ""
        parsed = parse_hermes(text)
        if parsed.problems:
            return hermes_text(text, None, reasoning) if reasoning else text
        result = parsed.message
        for index, call in enumerate(result.get("tool_calls") or ()):
            call["id"] = f"call_{turn}_{index}"
        if reasoning:  # a server-side reasoning parser split it off; <think> in the text is kept too
            found = result.get("reasoning_content")
            result["reasoning_content"] = f"{reasoning}\n{found}" if found else reasoning
        return result
