"""Running calls against a world: one call as the env runs it, a gold plan, a stored chat."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from toolgym.errors import DomainError, GeneratorBug, unknown_name_message

from .task import Task
from .tools import ToolOutcome
from .world import World

if TYPE_CHECKING:
    from .domain import Domain


def run_call(
    domain: Domain, world: World, offered: Iterable[str], name: Any, arguments: Any, caller: str = "agent"
) -> ToolOutcome:
    """One call as the env runs it: a tool not offered to this caller is an error message."""
    tool = domain.tools.get(name) if isinstance(name, str) else None
    if tool is None or tool.caller != caller or (caller == "agent" and name not in offered):
        allowed = list(offered) if caller == "agent" else [t.name for t in domain.user_tools]
        message = unknown_name_message("tool", str(name), allowed)
        refused = ToolOutcome(content=json.dumps({"error": message}), error=message)
        return domain.authz.run(world, None, caller, arguments, lambda: refused)

    def run() -> ToolOutcome:
        try:
            return tool.run(world, arguments)
        except DomainError:  # the domain breaks its own rules (a read tool that writes): its author must see it
            raise
        except Exception as exc:  # a tool bug hit by odd arguments: an error the agent sees, never a crash
            return tool_failure(name, exc)

    # the authorization log notes who acted on which record (envs/authz.py)
    return domain.authz.run(world, tool, caller, arguments, run)


def tool_failure(name: Any, exc: Exception) -> ToolOutcome:
    """The error message for a call whose tool raised something other than a ToolError."""
    message = f"{name}: the tool failed on these arguments ({type(exc).__name__})"
    return ToolOutcome(content=json.dumps({"error": message}), error=message)


def replay_plan(domain: Domain, task: Task, results: list[tuple[int, str]] | None = None) -> World:
    """Run a task's gold plan on a fresh world; a call that errors is a generator bug.

    `results`, when given, gets (step number, tool output) for every call, in order."""
    world = domain.new_world(task)
    offered = set(task.tools)
    for number, step in enumerate(task.plan):
        if step.declined:  # the user said no: the gold makes none of its calls
            continue
        for call in step.calls:
            outcome = run_call(domain, world, offered, call.name, call.arguments, step.caller)
            if results is not None:
                results.append((number, outcome.content))
            if outcome.error:
                raise GeneratorBug(
                    f"{domain.name} task (kind {task.kind}, seed {task.seed}): gold step {number} "
                    f"{call.name}({json.dumps(call.arguments)}) failed: {outcome.error}"
                )
    return world


def message_calls(messages: Iterable[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """(caller, name, arguments) of every call in a chat, in order; user-side calls included."""
    return [call[:3] for call in calls_with_outputs(messages)]


def calls_with_outputs(messages: Iterable[dict[str, Any]]) -> list[tuple[str, str, Any, str | None]]:
    """(caller, name, arguments, output) of every call in a chat, in order; user-side calls included.
    The output is None where the chat holds none."""
    messages = list(messages)
    outputs = {m.get("tool_call_id"): m.get("content") for m in messages if m.get("role") == "tool"}
    calls: list[tuple[str, str, Any, str | None]] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                function = call.get("function", call)
                calls.append(("agent", function.get("name"), function.get("arguments"), outputs.get(call.get("id"))))
        elif role == "user":
            results = message.get("user_tool_results") or ()
            for index, call in enumerate(message.get("user_tool_calls") or ()):
                calls.append(("user", call.get("name"), call.get("arguments"), results[index] if index < len(results) else None))
    return calls


def replay_messages(domain: Domain, task: Task, messages: Iterable[dict[str, Any]]) -> World:
    """Re-run a stored chat's calls on a fresh world, errors answered as the env answers them."""
    world = domain.new_world(task)
    offered = set(task.tools)
    for caller, name, arguments in message_calls(messages):
        run_call(domain, world, offered, name, arguments, caller)
    return world
