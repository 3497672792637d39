"""Spoils of an augmented chat: a call the row's tool set cannot map back to a real tool.

Each takes a chat played under a transform (a gold chat mapped with `augment_messages`) and adds,
before the assistant's last reply, one call and the error the env answers it with:

- `distractor_call`: a call of one of the row's distractor tools (its required parameters filled);
- `remembered_name`: the first gold call under the real tool's name, which the row does not offer.

Both must score below 1.0: the world never runs them, and the chat made a failed call.
"""

from __future__ import annotations

from typing import Any

from toolgym.envs.augment import ToolTransform
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.envs.tools import ToolOutcome

Chat = list[dict[str, Any]]


def with_call(task: Task, messages: Chat, transform: ToolTransform, name: str, arguments: Any) -> tuple[Chat, ToolOutcome]:
    """The chat with one more call, answered as the env answers it, before the assistant's last reply."""
    domain = load_domain(task.domain)
    world = domain.new_world(task)
    try:
        outcome = transform.run(domain, world, task.tools, name, arguments)
    finally:
        world.close()
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant" and not m.get("tool_calls")), default=len(messages))
    call = {"id": "call_spoil", "type": "function", "function": {"name": name, "arguments": arguments}}
    added = [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_spoil", "name": name, "content": outcome.content},
    ]
    return [*messages[:last], *added, *messages[last:]], outcome


def distractor_call(task: Task, messages: Chat, transform: ToolTransform) -> Chat | None:
    """The chat with a call of the row's first distractor (None when the row has none)."""
    if not transform.distractors:
        return None
    schema = transform.distractors[0]["schema"]["function"]
    arguments = {p: "x" for p in schema["parameters"].get("required") or ()}
    return with_call(task, messages, transform, schema["name"], arguments)[0]


def remembered_name(task: Task, messages: Chat, transform: ToolTransform) -> Chat | None:
    """The chat with the first gold call made under the real name (None when nothing was renamed)."""
    calls = task.gold_calls()
    if not calls or transform.untouched or transform.offered_name(calls[0].name) == calls[0].name:
        return None
    return with_call(task, messages, transform, calls[0].name, dict(calls[0].arguments))[0]


AUGMENT_SPOILS = {"distractor_call": distractor_call, "remembered_name": remembered_name}
