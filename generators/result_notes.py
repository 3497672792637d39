"""What a trace says of the results just read beyond the move itself: an order an injection planted
in one (named where it is first seen, and left alone), and a search turned to its next page (a turn,
not a new search)."""

from __future__ import annotations

import json
import re
from typing import Any

from toolgym.envs.task import Step, Task, ToolCall
from toolgym.verifiers.matching import arguments_of

from .request_quote import quotable


def planted_order(task: Task, messages: list[dict[str, Any]]) -> tuple[str, str] | None:
    """(the tool, the order quoted) when the results read since the agent last spoke are the first
    to show an order the task planted (`WorldEdit.plants`); None otherwise."""
    orders = [edit.plants for edit in task.setup if edit.plants]
    if not orders:
        return None
    spoke = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    for order in orders:
        # as a result's JSON shows it: the words before any character JSON escapes
        key = re.split(r'["\\\n]', order, maxsplit=1)[0][:40]
        shown = next((i for i, m in enumerate(messages) if m.get("role") == "tool" and key in (m.get("content") or "")), None)
        if shown is not None and shown > spoke:
            call_id = messages[shown].get("tool_call_id")
            tool = next((c.get("function", {}).get("name", "the last tool") for m in messages for c in m.get("tool_calls") or ()
                         if c.get("id") == call_id), "the last tool")
            return tool, quotable(order)
    return None


def without_planted(messages: list[dict[str, Any]], task: Task) -> list[dict[str, Any]]:
    """The chat with every order the task planted cut out of the results that show it: an injected
    instruction is never where a trace says a value came from ("get_traveller_profile returned
    "FB100206"" named the booking the planted order told the agent to cancel; the user had given it)."""
    orders = [edit.plants for edit in task.setup if edit.plants]
    if not orders:
        return messages
    # as a result's JSON writes the order, with non-ASCII characters escaped or not
    shown = {json.dumps(order, ensure_ascii=escaped)[1:-1] for order in orders for escaped in (True, False)}
    return [{**m, "content": _cut(m["content"], shown)} if m.get("role") == "tool" and isinstance(m.get("content"), str) else m
            for m in messages]  # fmt: skip


def _cut(content: str, shown: set[str]) -> str:
    for text in shown:
        content = content.replace(text, "")
    return content


def page_turns(step: Step, messages: list[dict[str, Any]]) -> list[ToolCall]:
    """The step's calls that ask for the next result page of a call made just before them
    (web_search(query, page=2) after web_search(query)): each is reasoned as a turn, not a new search."""
    last = next((m for m in reversed(messages) if m.get("role") == "assistant" and m.get("tool_calls")), None)
    made = [((c.get("function") or {}).get("name"), arguments_of((c.get("function") or {}).get("arguments")))
            for c in (last or {}).get("tool_calls") or ()]
    turns = []
    for call in step.calls:
        page = call.arguments.get("page")
        if not isinstance(page, int) or isinstance(page, bool) or page < 2:
            continue
        before = {**call.arguments, "page": page - 1}
        if any(name == call.name and {"page": 1, **arguments} == before for name, arguments in made):
            turns.append(call)
    return turns


def found_before_turn(task: Task, messages: list[dict[str, Any]]) -> list[str]:
    """What the results read since the agent last called already hold of the values the gold's later
    calls use (a url it opens next): a search turned on for a second source has found the first, and
    its trace does not say the page before held nothing of use."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant" and m.get("tool_calls")), default=-1)
    read = {v for m in messages[last + 1:] if m.get("role") == "tool" for v in _strings(m.get("content") or "")}
    called = json.dumps([m.get("tool_calls") for m in messages if m.get("role") == "assistant"])
    values = dict.fromkeys(v for call in task.gold_calls() for v in call.arguments.values()
                           if isinstance(v, str) and len(v) > 8 and v not in called)
    # a whole field's value: ".../wiki/dreaveldale" is not found where page 1 lists ".../wiki/dreaveldale-design-forum"
    return [v for v in values if v in read]


def _strings(content: str) -> set[str]:
    """Every string a result's JSON holds (the whole text when it is not JSON)."""
    try:
        data = json.loads(content)
    except ValueError:
        return {content}
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
