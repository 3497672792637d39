"""Spoils for argument provenance: a write nobody asked for, an argument nobody gave.

- `unrequested_write`: a later request of the user (and the assistant's reply before it) removed
  from a gold chat, the write that answers it kept: the assistant acts unasked.
- `swapped_argument`: one argument of a gold call replaced by another valid value nobody had
  mentioned before the call: another value of the same world column (another customer's order,
  another city), another enum value nobody named, or a nearby number nobody said. The value is
  one the tool accepts on the world as it stood, and the call's result in the chat is the one the
  new value gives.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from toolgym.envs.provenance import agent_calls, derived_key, seen_before, tool_specs, value_problem
from toolgym.envs.registry import load_domain
from toolgym.envs.replay import replay_messages, run_call
from toolgym.envs.task import Task
from toolgym.envs.world import World
from toolgym.envs.world_index import world_index

from .matching import arguments_of

Chat = list[dict[str, Any]]
_MAX_TRIES = 12  # candidate values tried per argument (each is run on a replayed world)
_LONGEST_VALUE = 80  # world values longer than this are text, not identifiers to swap


def unrequested_write(task: Task, messages: Chat) -> Chat | None:
    """The request of the first later segment with a write removed, with the reply before it.

    A segment that revises the one before it is left alone: its write is the earlier request's, in
    other terms the user then consents to ("make it 3 GB" gone, "buy 3 GB? yes" kept); executing a
    request taken back is `abandoned_request`'s."""
    domain = load_domain(task.domain)
    writes = domain.write_tools
    revising = task.scenario.revising_segments()
    segments = sorted(
        {
            s.segment
            for s in task.plan
            if s.caller == "agent" and not s.declined and s.segment > 0 and s.segment not in revising and any(c.name in writes for c in s.calls)
        }
    )
    for segment in segments:
        request = task.scenario.requests[segment]
        at = next((i for i, m in enumerate(messages) if m.get("role") == "user" and m.get("content") == request), None)
        if at is None or at == 0 or messages[at - 1].get("role") != "assistant":
            continue
        return [copy.deepcopy(m) for i, m in enumerate(messages) if i not in (at - 1, at)]
    return None


@world_index
def _world_values(world: World) -> dict[str, Any]:
    """Every short text value of the world: value -> its columns, and column -> its values (sorted)."""
    columns: dict[tuple[str, str], list[str]] = {}
    where: dict[str, list[tuple[str, str]]] = {}
    for name, info in world.template.tables.items():
        for column in info.columns:
            values = sorted({v for (v,) in world.query(f'SELECT DISTINCT "{column}" FROM "{name}"') if isinstance(v, str) and 0 < len(v) <= _LONGEST_VALUE})
            columns[(name, column)] = values
            for value in values:
                where.setdefault(value, []).append((name, column))
    return {"columns": columns, "where": where}


def _candidates(value: Any, spec: Any, world: World, rng: random.Random) -> list[Any]:
    """Other valid values for an argument: the enum's, the same world column's, or nearby numbers."""
    if spec is not None and spec.enum and value in spec.enum:
        return rng.sample([v for v in spec.enum if v != value and type(v) is type(value)], k=len(spec.enum) - 1)
    if isinstance(value, bool):
        return []
    if isinstance(value, str):
        index = _world_values(world)
        found: list[Any] = []
        for column in index["where"].get(value, ()):
            values = index["columns"][column]
            found += [v for v in rng.sample(values, k=min(len(values), _MAX_TRIES * 4)) if v != value]
        return found
    if isinstance(value, int | float):
        return [type(value)(value + sign * step) for step in (1, 2, 3, 5, 7, 10) for sign in (1, -1)]
    return []


def swapped_argument(task: Task, messages: Chat) -> Chat | None:
    """One gold argument replaced by a valid value of the world nobody mentioned (writes tried first)."""
    domain = load_domain(task.domain)
    today = domain.clock(task.world_seed).date()
    rng = random.Random(task.seed)
    derived = {(c.name, p) for s in task.plan for c in s.calls for p in s.derived}
    calls = [
        (index, name, arguments)
        for index, message in enumerate(messages)
        if message.get("role") == "assistant"
        for name, arguments in agent_calls(message)
        if name in domain.tools and arguments
    ]
    calls.sort(key=lambda c: (not domain.tools[c[1]].writes, c[0]))  # a write first: the costliest mistake
    world = domain.new_world(task)  # for the world's values
    try:
        for index, name, arguments in calls:
            specs = tool_specs(domain.tools[name], domain)
            seen = seen_before(messages, index, domain, today)
            options = {
                parameter: _candidates(value, specs[parameter], world, rng)
                for parameter, value in arguments.items()
                if (name, parameter) not in derived and parameter in specs and not specs[parameter].free_text
            }
            swapped = _first_valid(domain, task, messages, index, name, arguments, options, seen)
            if swapped is not None:
                return swapped
    finally:
        world.close()
    return None


def _first_valid(
    domain: Any, task: Task, messages: Chat, index: int, name: str, arguments: dict[str, Any], options: dict[str, list[Any]], seen: Any
) -> Chat | None:
    """The chat with the first candidate nobody mentioned that the tool accepts at that point of the chat.

    The candidates run on one replay of the chat up to the call: a failed call leaves no trace (a
    write is rolled back), and the first that succeeds ends the search."""
    specs = tool_specs(domain.tools[name], domain)
    trial: World | None = None
    try:
        for parameter, candidates in options.items():
            tried = 0
            for candidate in candidates:
                if tried >= _MAX_TRIES:
                    break
                if derived_key(candidate) == derived_key(arguments[parameter]) or value_problem(candidate, specs[parameter], seen) is None:
                    continue  # somebody mentioned it: not a swap the check should catch
                tried += 1
                if trial is None:
                    trial = replay_messages(domain, task, messages[:index])
                changed = {**arguments, parameter: candidate}
                outcome = run_call(domain, trial, set(task.tools), name, changed)
                if not outcome.error:
                    return _with_call(messages, index, name, arguments, changed, outcome.content)
    finally:
        if trial is not None:
            trial.close()
    return None


def _with_call(messages: Chat, index: int, name: str, old: dict[str, Any], new: dict[str, Any], result: str) -> Chat:
    """The chat with one call's arguments changed and its result replaced by what the new call returned."""
    spoiled = copy.deepcopy(messages)
    for call in spoiled[index].get("tool_calls") or ():
        function = call.get("function", call)
        if function.get("name") == name and _arguments_equal(function.get("arguments"), old):
            function["arguments"] = new if isinstance(function.get("arguments"), dict) else _dump(new)
            for message in spoiled[index + 1 :]:
                if message.get("role") == "tool" and message.get("tool_call_id") == call.get("id"):
                    message["content"] = result
                    break
            break
    return spoiled


def _arguments_equal(raw: Any, arguments: dict[str, Any]) -> bool:
    return arguments_of(raw) == arguments


def _dump(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments)
