"""Cheap research answers a reward must not pay in full, made from a task's gold chat.

- `do_nothing`: one reply that finds nothing, no call;
- `guessed`: the gold's final answer, right facts and citations included, with no search or read;
- `unopened_source`: the gold chat without the calls that opened the pages the answer cites;
- `uncited`: the gold chat with every url taken out of its final reply.

The benchmark (benchmarks/research.py) and the tests grade each with `toolgym.verifiers.verify`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from toolgym.verifiers.citations import named_urls

Chat = list[dict[str, Any]]


def _prompt(messages: Chat) -> Chat:
    first_user = next(i for i, m in enumerate(messages) if m.get("role") == "user")
    return copy.deepcopy(messages[: first_user + 1])


def _final(messages: Chat) -> int:
    return max(i for i, m in enumerate(messages) if m.get("role") == "assistant" and m.get("content"))


def do_nothing(messages: Chat) -> Chat:
    return [*_prompt(messages), {"role": "assistant", "content": "I couldn't find anything about that."}]


def guessed(messages: Chat) -> Chat:
    return [*_prompt(messages), {"role": "assistant", "content": messages[_final(messages)]["content"]}]


def unopened_source(messages: Chat) -> Chat | None:
    cited = set(named_urls(messages[_final(messages)]["content"]))
    if not cited:
        return None
    dropped: set[str] = set()
    kept: Chat = []
    for message in copy.deepcopy(messages):
        calls = message.get("tool_calls")
        if calls:
            keep = [c for c in calls if _url(c) not in cited]
            dropped |= {str(c.get("id")) for c in calls if _url(c) in cited}
            if not keep:
                continue
            message["tool_calls"] = keep
        if message.get("role") == "tool" and str(message.get("tool_call_id")) in dropped:
            continue
        kept.append(message)
    return kept if dropped else None


def uncited(messages: Chat) -> Chat | None:
    spoiled = copy.deepcopy(messages)
    final = _final(spoiled)
    text = spoiled[final]["content"]
    if not named_urls(text):
        return None
    spoiled[final]["content"] = re.sub(r"https?://\S+?(?=[\s)]|[.,;:]?(?:\s|$))", "the page", text)
    return spoiled


def _url(call: dict[str, Any]) -> str | None:
    import json

    arguments = call.get("function", call).get("arguments")
    if isinstance(arguments, str):
        arguments = json.loads(arguments or "{}")
    return (arguments or {}).get("url")


CHEAP_ANSWERS: dict[str, Callable[[Chat], Chat | None]] = {
    "do_nothing": do_nothing,
    "guessed": guessed,
    "unopened_source": unopened_source,
    "uncited": uncited,
}
