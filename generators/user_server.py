"""The reference server in the user's role: it answers LLMUser's requests as the ScriptedUser would.

A request is a user request when its model name starts with `toolgym-user` or its
`X-Toolgym-Role` header is `user`. LLMUser sends the chat role-flipped (the agent's words as
`user` turns, the customer's as `assistant` turns, device calls as the customer's own tool calls
and results) after a system prompt and an opening cue; this module turns it back into the env's
roles, asks the ScriptedUser for the task the request names, and answers in the flipped roles: a
device step as native tool calls, anything else as text. Tests and offline harness checks drive
the real LLMUser client with it; the task comes from the same metadata the oracle reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .chat_client import ROLE_HEADER as CLIENT_ROLE_HEADER

USER_MODEL = "toolgym-user"
ROLE_HEADER = CLIENT_ROLE_HEADER.lower()


def is_user_request(body: dict[str, Any], headers: dict[str, str]) -> bool:
    model = body.get("model")
    return (isinstance(model, str) and model.startswith(USER_MODEL)) or headers.get(ROLE_HEADER) == "user"


def env_messages(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A role-flipped chat (after the system prompt and the cue) in the env's roles."""
    messages: list[dict[str, Any]] = []
    for turn in chat:
        role, content = turn.get("role"), turn.get("content")
        if role == "user":  # the agent's words
            messages.append({"role": "assistant", "content": content})
        elif role == "tool" and messages and messages[-1].get("user_tool_calls") is not None:
            messages[-1]["user_tool_results"].append(content)
        elif role == "assistant" and turn.get("tool_calls"):
            calls = [_device_call(call) for call in turn["tool_calls"]]
            messages.append({"role": "user", "content": None, "user_tool_calls": calls, "user_tool_results": []})
        elif role == "assistant":
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "user" and last.get("content") is None:
                last["content"] = content  # what the customer said after acting: the same turn
            else:
                messages.append({"role": "user", "content": content})
    return messages


def _device_call(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {}
    return {"name": function.get("name"), "arguments": arguments if isinstance(arguments, dict) else {}}


class UserResponder:
    """Answers as the ScriptedUser of the task `task_for(body, headers)` names."""

    def __init__(self, task_for: Callable[[dict[str, Any], dict[str, str]], Any]):
        from toolgym.generators.user import ScriptedUser  # lazy: importing the server stays light

        self.task_for = task_for
        self.user = ScriptedUser()
        self.answered = 0

    def __call__(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        task = self.task_for(body, headers)
        chat = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        start = 2 if chat and chat[0].get("role") == "system" else 1  # the system prompt and the opening cue
        reply = self.user.reply_sync(env_messages(chat[start:]), task)
        self.answered += 1
        calls = reply.get("user_tool_calls")
        if calls:
            shaped = [{"id": f"call_{i}", "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                      for i, c in enumerate(calls)]
            return {"role": "assistant", "content": None, "tool_calls": shaped}
        return {"role": "assistant", "content": reply.get("content")}
