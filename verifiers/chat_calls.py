"""The calls of a chat, each with its result: the one reading the checks that judge what a reply
says against what the results before it showed (claims, states, figure_fields) share.

An agent call is made in an assistant message and answered by the tool message that names its id;
a user-side call (a step the user takes on their device) is made and answered in the user's message.
A result that is not text (a user-side result given as an object) is read as its JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from toolgym.envs.tools import is_error_output

from .matching import arguments_of


@dataclass
class ChatCall:
    """One call of the chat: where it was made, by whom, what it asked, and what came back."""

    position: int  # the message that made it: the assistant's, or the user's for a user-side call
    caller: str  # "agent" or "user"
    name: str
    arguments: dict[str, Any]
    result: str | None = None  # None while (or where) the chat holds no result for it
    answered_at: int | None = None  # the message that holds the result

    @property
    def ok(self) -> bool:
        """Answered, and not with an error."""
        return self.result is not None and not is_error_output(self.result)


def chat_calls(messages: Iterable[dict[str, Any]]) -> list[ChatCall]:
    """Every call of the chat, in the order made, each with its result where the chat holds one."""
    calls: list[ChatCall] = []
    pending: dict[str, ChatCall] = {}
    for position, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                function = call.get("function", call)
                made = ChatCall(position, "agent", str(function.get("name")), arguments_of(function.get("arguments")))
                calls.append(made)
                pending[str(call.get("id"))] = made
        elif role == "tool":
            answered = pending.pop(str(message.get("tool_call_id")), None)
            if answered is not None:
                answered.result, answered.answered_at = _text(message.get("content")), position
        elif role == "user":
            results = message.get("user_tool_results") or ()
            for number, call in enumerate(message.get("user_tool_calls") or ()):
                result = _text(results[number]) if number < len(results) else None
                calls.append(ChatCall(position, "user", str(call.get("name")), arguments_of(call.get("arguments")), result,
                                      position if result is not None else None))
    return calls


def as_read(messages: list[dict[str, Any]]) -> Iterator[tuple[int, list[ChatCall], str]]:
    """(position, the calls whose results arrive there, the assistant's words there or ''), for each
    message in order: a check reads those results, then judges those words against all read so far."""
    arriving: dict[int, list[ChatCall]] = {}
    for call in chat_calls(messages):
        if call.answered_at is not None:
            arriving.setdefault(call.answered_at, []).append(call)
    for position, message in enumerate(messages):
        content = message.get("content") if message.get("role") == "assistant" else ""
        yield position, arriving.get(position, []), content if isinstance(content, str) else ""


def _text(result: Any) -> str:
    return result if isinstance(result, str) else "" if result is None else json.dumps(result, default=str)
