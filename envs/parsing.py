"""Turning a model's action into an assistant message.

An action is an OpenAI-style assistant dict, or raw model text read by a named parser:
`hermes` (Qwen/Hermes `<tool_call>` blocks, optional `<think>`) or `json`. Nothing here
raises on model output: text that cannot be read stays text, and the problems found are
reported for the format verifier.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolgym.errors import UnknownNameError

_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
MAX_DEPTH = 32  # nesting of a call's arguments; deeper is a format problem, never a RecursionError
MAX_INT = 2**63  # integers beyond 64 bits are not tool arguments (and 4,300 digits stop int())
MAX_TEXT = 4 << 20  # characters of one action; the rest is cut (a format problem)


class _Unreadable(ValueError):
    """JSON text that cannot be read as a bounded value; the message says why."""


def load_json(text: str) -> Any:
    """json.loads bounded in depth and number size: any failure is an `_Unreadable` (a ValueError)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise _Unreadable(f"nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise _Unreadable(exc.msg) from None
    except ValueError as exc:  # the 4,300-digit limit of int()
        raise _Unreadable(str(exc).split(";")[0]) from None
    problem = json_problem(value)
    if problem:
        raise _Unreadable(problem)
    return value


def json_problem(value: Any, max_depth: int = MAX_DEPTH) -> str | None:
    """Why `value` is not a bounded JSON value (None if it is); iterative, so any depth is safe."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return f"nested deeper than {max_depth} levels"
        if item is None or isinstance(item, bool | str):
            continue
        if isinstance(item, int):
            if not -MAX_INT <= item < MAX_INT:
                return "an integer beyond 64 bits"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return "a number that is not finite"
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"an object key that is not text ({type(key).__name__})"
                stack.append((child, depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((child, depth + 1) for child in item)
        else:
            return f"a value of type {type(item).__name__}"
    return None


def clean_text(text: str) -> tuple[str, list[str]]:
    """Text fit to store and compare: lone surrogates replaced, length capped; problems named."""
    problems = []
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT]
        problems.append(f"the action is longer than {MAX_TEXT} characters and was cut")
    fixed = _encodable(text)
    if fixed is not None:
        text = fixed
        problems.append(_SURROGATES)
    return text, problems


_SURROGATES = "the text holds lone surrogates (not valid Unicode); they were replaced by '?'"


def _encodable(text: str) -> str | None:
    """The text with lone surrogates replaced by '?', or None when it has none."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return None


def clean_json(value: Any) -> tuple[Any, list[str]]:
    """A decoded JSON value fit to store: lone surrogates in its strings and keys replaced, problem named.

    JSON text can spell a lone surrogate in pure ASCII (a `\\ud800` escape), so text that was clean
    before decoding may not be after it. `value` must be bounded (`json_problem` is None); a value
    with nothing to replace comes back as it was.
    """
    found = [False]

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            fixed = _encodable(item)
            if fixed is None:
                return item
            found[0] = True
            return fixed
        if isinstance(item, dict):
            return {walk(key): walk(child) for key, child in item.items()}
        if isinstance(item, list | tuple):
            return [walk(child) for child in item]
        return item

    cleaned = walk(value)
    return (cleaned, [_SURROGATES]) if found[0] else (value, [])


def storable(value: Any) -> Any:
    """Any value as one that can be stored and compared: a clean bounded JSON value, else its text."""
    if isinstance(value, str):
        return clean_text(value)[0]
    if json_problem(value) is None:
        return clean_json(value)[0]
    return clean_text(_as_text(value)[:1000])[0]


def _as_text(value: Any) -> str:
    """Any value as readable text, whatever it is (lone surrogates in a value that is not text replaced)."""
    if isinstance(value, str):
        return value
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        try:
            return repr(value)[:1000]
        except Exception:  # a hostile __repr__ or a huge int
            return f"<{type(value).__name__}>"
    return _encodable(text) or text


@dataclass
class ParsedAction:
    message: dict[str, Any]
    problems: list[str] = field(default_factory=list)  # empty: well formed

    @property
    def well_formed(self) -> bool:
        return not self.problems


def _cleaned(value: Any, problems: list[str]) -> Any:
    value, found = clean_json(value)
    problems += [problem for problem in found if problem not in problems]
    return value


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
            arguments = _cleaned(load_json(arguments), problems)
            problems.append(f"arguments of {raw['name']!r} were a JSON string, not an object")
        except ValueError as exc:
            problems.append(f"arguments of {raw['name']!r} are not valid JSON ({exc})")
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


def _split_think(text: str) -> tuple[str | None, str]:
    """(the <think> blocks joined, the text without them); a linear scan, unlike a lazy regex."""
    thoughts, rest, position = [], [], 0
    while True:
        start = text.find("<think>", position)
        end = text.find("</think>", start + 7) if start >= 0 else -1
        if end < 0:
            rest.append(text[position:])
            break
        rest.append(text[position:start])
        thoughts.append(text[start + 7 : end].strip())
        position = end + 8
    return " ".join(thoughts) or None, "".join(rest)


def parse_hermes(text: str) -> ParsedAction:
    text, problems = clean_text(text)
    reasoning, body = _split_think(text)
    if "<think>" in body or "</think>" in body:
        problems.append("unbalanced <think> tags")
    calls: list[dict[str, Any]] = []
    unreadable: list[str] = []
    for match in _TOOL_CALL.finditer(body):
        block = match.group(1).strip()
        if not match.group(0).endswith("</tool_call>"):
            problems.append("a <tool_call> block is not closed")
        try:
            decoded = load_json(block)
        except ValueError as exc:
            problems.append(f"a <tool_call> block is not valid JSON ({exc})")
            unreadable.append(match.group(0))
            continue
        decoded = _cleaned(decoded, problems)
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
    text, problems = clean_text(text)
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`").removeprefix("json").strip()
    try:
        decoded = load_json(stripped)
    except _Unreadable as exc:
        if stripped[:1] in ("{", "["):
            problems.append(f"the reply looks like JSON but cannot be read ({exc})")
        return ParsedAction(_message(text.strip(), [], None), problems)  # plain text reply
    decoded = _cleaned(decoded, problems)
    if isinstance(decoded, dict) and "tool_calls" in decoded:
        decoded = decoded["tool_calls"]
    items = decoded if isinstance(decoded, list) else [decoded]
    calls = [c for c in (_read_call(item.get("function", item) if isinstance(item, dict) else item, problems)
                         for item in items) if c]
    if not calls:
        return ParsedAction(_message(text.strip(), [], None), problems)
    return ParsedAction(_message(None, calls, None), problems)


def normalize_message(action: dict[str, Any]) -> ParsedAction:
    """An OpenAI-style assistant dict, with arguments decoded to objects where possible.

    Whatever the dict holds, the message made is storable: text is text, arguments are a
    bounded JSON object or the text that was sent, and every oddity is a format problem.
    """
    problems: list[str] = []
    if action.get("role", "assistant") != "assistant":
        problems.append(f"an action must be an assistant message, got role {_as_text(action.get('role'))[:40]!r}")
    content = action.get("content")
    if content is not None and not isinstance(content, str):
        problems.append("content must be text")
        content = _as_text(content)
    if content is not None:
        content, found = clean_text(content)
        problems += found
    raw_calls = action.get("tool_calls") or ()
    if not isinstance(raw_calls, list | tuple):
        problems.append(f"tool_calls must be a list, got {type(raw_calls).__name__}")
        raw_calls = ()
    calls = [call for raw in raw_calls if (call := _normalize_call(raw, problems)) is not None]
    reasoning = action.get("reasoning_content") or action.get("reasoning")
    if reasoning is not None:
        reasoning, found = clean_text(_as_text(reasoning))
        problems += found
    return ParsedAction(_message(content, calls, reasoning), problems)


def _normalize_call(raw: Any, problems: list[str]) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        problems.append(f"a tool call must be an object, got {type(raw).__name__}")
        return None
    function = raw.get("function", raw)
    if not isinstance(function, dict):
        problems.append(f"a tool call's 'function' must be an object, got {type(function).__name__}")
        return None
    name, arguments = function.get("name"), function.get("arguments", {})
    if isinstance(arguments, str):
        arguments, found = clean_text(arguments)
        problems += found
        try:
            arguments = _cleaned(load_json(arguments), problems) if arguments.strip() else {}
        except ValueError as exc:
            problems.append(f"arguments of {_as_text(name)[:80]!r} are not valid JSON ({exc})")
    elif (problem := json_problem(arguments)) is not None:
        problems.append(f"arguments of {_as_text(name)[:80]!r} hold {problem}")
        arguments = clean_text(_as_text(arguments)[:1000])[0]  # kept as the text sent; the tool reports it
    else:
        arguments = _cleaned(arguments, problems)
        if not isinstance(arguments, dict) and arguments is not None:
            problems.append(f"arguments of {_as_text(name)[:80]!r} must be an object")
    if not isinstance(name, str):
        problems.append(f"a tool call has no string name: {_as_text(raw)[:80]!r}")
        name = None if name is None else _as_text(name)[:200]  # keep it readable and storable
    else:
        name, found = clean_text(name)
        problems += found
    call_id = raw.get("id")
    if isinstance(call_id, str) and call_id:
        call_id, found = clean_text(call_id)
        problems += found
    return _call(name, arguments, call_id if isinstance(call_id, str) and call_id else None)


PARSERS: dict[str, Callable[[str], ParsedAction]] = {"hermes": parse_hermes, "json": parse_json}


def parse_action(action: Any, parser: str = "hermes") -> ParsedAction:
    """Any action (dict or text) as an assistant message, with the format problems found."""
    if isinstance(action, dict):
        return normalize_message(action)
    if not isinstance(action, str):
        text, problems = clean_text(_as_text(action))
        return ParsedAction(_message(text, [], None), [f"an action must be a dict or text, got {type(action).__name__}", *problems])
    try:
        read = PARSERS[parser]
    except KeyError:
        raise UnknownNameError("parser", parser, PARSERS) from None
    return read(action)
