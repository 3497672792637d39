"""Turning a model's action into an assistant message.

An action is an OpenAI-style assistant dict, or raw model text read by a named parser:
`hermes` (Qwen/Hermes `<tool_call>` blocks, optional `<think>`) or `json`. Nothing here
raises on model output: text that cannot be read stays text, and the problems found are
reported for the format verifier.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolgym.errors import UnknownNameError

_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)


@dataclass
class ParsedAction:
    message: dict[str, Any]
    problems: list[str] = field(default_factory=list)  # empty: well formed

    @property
    def well_formed(self) -> bool:
        return not self.problems


def _call(name: Any, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _read_call(raw: Any, problems: list[str]) -> dict[str, Any] | None:
    """One call from a decoded JSON value {"name", "arguments"}; None if it is not one."""
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        problems.append(f"a tool call needs a string 'name' and an 'arguments' object, got {str(raw)[:80]!r}")
        return None
    arguments = raw.get("arguments", raw.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
            problems.append(f"arguments of {raw['name']!r} were a JSON string, not an object")
        except json.JSONDecodeError:
            problems.append(f"arguments of {raw['name']!r} are not valid JSON")
    elif not isinstance(arguments, dict):
        problems.append(f"arguments of {raw['name']!r} must be an object")
    return _call(raw["name"], arguments)


def _message(content: str | None, calls: list[dict[str, Any]], reasoning: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = calls
    if reasoning:
        message["reasoning_content"] = reasoning
    return message


def parse_hermes(text: str) -> ParsedAction:
    problems: list[str] = []
    reasoning = " ".join(m.strip() for m in _THINK.findall(text)) or None
    body = _THINK.sub("", text)
    if "<think>" in body or "</think>" in body:
        problems.append("unbalanced <think> tags")
    calls: list[dict[str, Any]] = []
    unreadable: list[str] = []
    for match in _TOOL_CALL.finditer(body):
        block = match.group(1).strip()
        if not match.group(0).endswith("</tool_call>"):
            problems.append("a <tool_call> block is not closed")
        try:
            decoded = json.loads(block)
        except json.JSONDecodeError as exc:
            problems.append(f"a <tool_call> block is not valid JSON ({exc.msg})")
            unreadable.append(match.group(0))
            continue
        call = _read_call(decoded, problems)
        if call:
            calls.append(call)
        else:
            unreadable.append(match.group(0))
    content = _TOOL_CALL.sub("", body).strip()
    if unreadable:  # keep what could not be read as text, so the user sees the reply as written
        content = (content + "\n" + "\n".join(unreadable)).strip()
    return ParsedAction(_message(content, calls, reasoning), problems)


def parse_json(text: str) -> ParsedAction:
    problems: list[str] = []
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`").removeprefix("json").strip()
    try:
        decoded = json.loads(stripped)
    except json.JSONDecodeError:
        return ParsedAction(_message(text.strip(), [], None), [])  # plain text reply
    if isinstance(decoded, dict) and "tool_calls" in decoded:
        decoded = decoded["tool_calls"]
    items = decoded if isinstance(decoded, list) else [decoded]
    calls = [c for c in (_read_call(item.get("function", item) if isinstance(item, dict) else item, problems)
                         for item in items) if c]
    if not calls:
        return ParsedAction(_message(text.strip(), [], None), problems)
    return ParsedAction(_message(None, calls, None), problems)


def normalize_message(action: dict[str, Any]) -> ParsedAction:
    """An OpenAI-style assistant dict, with arguments decoded to objects where possible."""
    problems: list[str] = []
    if action.get("role", "assistant") != "assistant":
        problems.append(f"an action must be an assistant message, got role {action.get('role')!r}")
    content = action.get("content")
    if content is not None and not isinstance(content, str):
        problems.append("content must be text")
        content = json.dumps(content) if not isinstance(content, str) else content
    calls = []
    for raw in action.get("tool_calls") or ():
        if not isinstance(raw, dict):
            problems.append(f"a tool call must be an object, got {type(raw).__name__}")
            continue
        function = raw.get("function", raw)
        name, arguments = function.get("name"), function.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                problems.append(f"arguments of {name!r} are not valid JSON")
        if not isinstance(name, str):
            problems.append(f"a tool call has no string name: {str(raw)[:80]!r}")
            name = None if name is None else json.dumps(name)  # keep it readable and storable
        calls.append(_call(name, arguments, raw.get("id")))
    reasoning = action.get("reasoning_content") or action.get("reasoning")
    return ParsedAction(_message(content, calls, reasoning), problems)


PARSERS: dict[str, Callable[[str], ParsedAction]] = {"hermes": parse_hermes, "json": parse_json}


def parse_action(action: Any, parser: str = "hermes") -> ParsedAction:
    """Any action (dict or text) as an assistant message, with the format problems found."""
    if isinstance(action, dict):
        return normalize_message(action)
    if not isinstance(action, str):
        return ParsedAction(_message(str(action), [], None), [f"an action must be a dict or text, got {type(action).__name__}"])
    try:
        read = PARSERS[parser]
    except KeyError:
        raise UnknownNameError("parser", parser, PARSERS) from None
    return read(action)
