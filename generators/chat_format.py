"""Between the env's chat and the chat-completions wire format, both ways.

The env keeps tool-call arguments as dicts and adds fields of its own (`user_tool_calls`,
`reasoning_content`); the API wants arguments as JSON text and only its own fields. Text mode
(servers without tool-call parsing) renders the tools into the system prompt and calls and
results as Hermes `<tool_call>` / `<tool_response>` blocks, which the reference server also
uses to answer in text.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).parent / "templates"

Message = dict[str, Any]


@cache
def _jinja() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        auto_reload=False,
    )
    env.filters["compact_json"] = lambda value: json.dumps(value, ensure_ascii=False)
    return env


@cache
def template(name_or_path: str | Path) -> jinja2.Template:
    """A template by file name under generators/templates/, or by a path of its own."""
    path = Path(name_or_path)
    if path.is_absolute() or path.parent != Path("."):
        if not path.exists():
            raise FileNotFoundError(f"template {path} does not exist")
        return _jinja().from_string(path.read_text())
    return _jinja().get_template(str(name_or_path))


def arguments_text(arguments: Any) -> str:
    """Arguments as the API carries them: JSON text (a string the model wrote stays as written)."""
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def hermes_call(name: Any, arguments: Any) -> str:
    """One call as a Hermes block; arguments the model wrote as text are kept as text."""
    if isinstance(arguments, str):
        return f'<tool_call>\n{{"name": {json.dumps(name, ensure_ascii=False)}, "arguments": {arguments}}}\n</tool_call>'
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<tool_call>\n{body}\n</tool_call>"


def hermes_text(content: str | None, calls: list[dict[str, Any]] | None, reasoning: str | None = None) -> str:
    """An assistant message as a Hermes model writes it: <think>, text, then <tool_call> blocks."""
    parts = []
    if reasoning:
        parts.append(f"<think>\n{reasoning}\n</think>")
    if content:
        parts.append(content)
    for call in calls or ():
        function = call.get("function", call) if isinstance(call, dict) else {}
        parts.append(hermes_call(function.get("name"), function.get("arguments", {})))
    return "\n\n".join(parts)


REASONING_PLACES = ("field", "think", "drop")


def reasoning_placed(messages: list[Message], place: str) -> list[Message]:
    """The chat with each assistant trace where a chat template will read it: 'field' keeps
    `reasoning_content`; 'think' moves it into `content` as a <think> block before the words (a template
    without a reasoning field, Qwen2.5 or Hermes, would otherwise drop it silently); 'drop' leaves it out."""
    if place not in REASONING_PLACES:
        raise ValueError(f"reasoning place {place!r} is not one of {list(REASONING_PLACES)}")
    if place == "field":
        return messages
    placed = []
    for message in messages:
        trace = message.get("reasoning_content") if message.get("role") == "assistant" else None
        if "reasoning_content" not in message:
            placed.append(message)
            continue
        moved = {k: v for k, v in message.items() if k != "reasoning_content"}
        if place == "think" and isinstance(trace, str) and trace.strip():
            content = _text(message.get("content"))
            moved["content"] = f"<think>\n{trace.strip()}\n</think>" + (f"\n\n{content}" if content else "")
        placed.append(moved)
    return placed


def _text(content: Any) -> str | None:
    """Message content as text (a list of parts is joined)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def api_messages(messages: list[Message], mode: str = "native") -> list[Message]:
    """The env's chat as the API expects it (native tool calls, or Hermes text)."""
    out: list[Message] = []
    for message in messages:
        role = message.get("role")
        content = _text(message.get("content"))
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if mode == "text":
                out.append({"role": "assistant", "content": hermes_text(content, calls)})
                continue
            entry: Message = {"role": "assistant", "content": content if content or not calls else None}
            if calls:
                entry["tool_calls"] = [_api_call(c) for c in calls]
            out.append(entry)
        elif role == "tool":
            if mode == "text":
                block = f"<tool_response>\n{content or ''}\n</tool_response>"
                previous = out[-1] if out else None
                if previous is not None and previous.get("_responses"):
                    previous["content"] += "\n" + block
                else:
                    out.append({"role": "user", "content": block, "_responses": True})
                continue
            out.append({"role": "tool", "tool_call_id": message.get("tool_call_id") or "", "content": content or ""})
        else:
            out.append({"role": role if role in ("system", "user", "developer") else "user", "content": content or ""})
    for entry in out:
        entry.pop("_responses", None)
    return out


def _api_call(call: Any) -> dict[str, Any]:
    function = call.get("function", call) if isinstance(call, dict) else {}
    if not isinstance(function, dict):
        function = {}
    return {
        "id": str(call.get("id") or "") if isinstance(call, dict) else "",
        "type": "function",
        "function": {"name": str(function.get("name")), "arguments": arguments_text(function.get("arguments", {}))},
    }


_TOOL_BLOCKS: dict[tuple[int, ...], tuple[list, str]] = {}


def with_tools_prompt(messages: list[Message], tools: list[dict[str, Any]]) -> list[Message]:
    """Text mode: the tools rendered into the system prompt (a system message is added if none).

    The template puts the system text first and the tools after it, so the tools part is rendered
    once per set of tool schemas (the domain's cached dicts) and joined to each system text.
    """
    if not tools:
        return messages
    first = messages[0] if messages and messages[0].get("role") == "system" else None
    system = (first or {}).get("content") or ""
    key = tuple(map(id, tools))
    found = _TOOL_BLOCKS.get(key)
    if found is None or any(a is not b for a, b in zip(found[0], tools, strict=True)):
        if len(_TOOL_BLOCKS) > 256:
            _TOOL_BLOCKS.clear()
        found = _TOOL_BLOCKS[key] = (list(tools), template("tools_prompt.md.j2").render(system="", tools=tools))
    rendered = (system + found[1]).strip()
    if first is None:
        return [{"role": "system", "content": rendered}, *messages]
    return [{"role": "system", "content": rendered}, *messages[1:]]


def read_choice(data: Any) -> tuple[Message, str | None]:
    """The assistant message of a chat completion, shaped for the env, and its finish reason.

    Nothing the model wrote is fixed: arguments stay as the text it wrote (the env decodes them
    and reports what is malformed). Only the structure is made safe to hand on.
    """
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices or not isinstance(choices[0], dict):
        error = data.get("error") if isinstance(data, dict) else None
        raise ValueError(f"no choices in the answer: {str(error or data)[:200]}")
    choice = choices[0]
    raw = choice.get("message") or {}
    message: Message = {"role": "assistant", "content": _text(raw.get("content"))}
    calls = raw.get("tool_calls")
    if isinstance(calls, list) and calls:
        shaped = []
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):  # not a call object at all: keep what was sent, as text
                function = {"name": None, "arguments": json.dumps(call, ensure_ascii=False)}
            shaped.append({
                "id": call.get("id") if isinstance(call, dict) else None,
                "type": "function",
                "function": {"name": function.get("name"), "arguments": function.get("arguments", "{}")},
            })
        message["tool_calls"] = shaped
    reasoning = raw.get("reasoning_content") or raw.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        message["reasoning_content"] = reasoning
    return message, choice.get("finish_reason")


# ---- the user channel: user turns as calls of one tool, as RL environments without a user turn see them ----
USER_CHANNEL = "send_message_to_user"
USER_CHANNEL_SCHEMA: dict[str, Any] = {  # what transformers' get_json_schema makes of the TRL environment's method
    "type": "function",
    "function": {
        "name": USER_CHANNEL,
        "description": (
            "Send a message to the customer and return their reply.\n\nEverything meant for the customer goes "
            "through this tool: questions, requests to confirm,\ninstructions for their device, answers and the "
            "closing words."
        ),
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string", "description": "The text the customer reads."}},
            "required": ["message"],
        },
        "return": {"type": "string"},
    },
}


def user_channel_chat(messages: list[Message], tools: list[dict[str, Any]]) -> tuple[list[Message], list[dict[str, Any]]]:
    """A chat rewritten so every word to the user is a `send_message_to_user` call and each reply its result.

    The opening user message stays a user turn (it is the prompt); what the user did on their
    device is already in the reply's text. The tool list gains the channel's schema. This is
    the format `toolgym.integrations.trl` environments train in, so SFT and RL rows match.
    """
    out: list[Message] = []
    waiting: str | None = None  # the id of a channel call that the next user turn answers
    for message in messages:
        role = message.get("role")
        if role == "assistant" and not message.get("tool_calls") and waiting is None:
            waiting = f"user_{len(out)}"
            call = {"id": waiting, "type": "function",
                    "function": {"name": USER_CHANNEL, "arguments": {"message": message.get("content") or ""}}}
            entry: Message = {"role": "assistant", "content": None, "tool_calls": [call]}
            if message.get("reasoning_content"):
                entry["reasoning_content"] = message["reasoning_content"]
            out.append(entry)
        elif role == "user" and waiting is not None:
            out.append({"role": "tool", "tool_call_id": waiting, "name": USER_CHANNEL, "content": message.get("content") or ""})
            waiting = None
        else:
            out.append({k: v for k, v in message.items() if k not in ("user_tool_calls", "user_tool_results")})
    return out, [*tools, USER_CHANNEL_SCHEMA]
