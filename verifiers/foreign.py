"""The `foreign_record` spoil: a gold write redirected to a record of another customer.

The first gold write that acts on an owned record (envs/authz.py) gets, in place of that record's
key, the key of a row of the same table that belongs to someone else (one in the same status
where the table has one, so the tool would accept it as it accepted the gold's). Nothing else in
the chat changes: the agent now acts on a stranger's order, booking, card or message.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from toolgym.envs.authz import Authorization
from toolgym.envs.ownership import OwnerPath
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.envs.world import World

from .matching import arguments_of

Chat = list[dict[str, Any]]


def foreign_record(task: Task, messages: Chat) -> Chat | None:
    domain = load_domain(task.domain)
    world = domain.new_world(task)
    try:
        for index, message in enumerate(messages):
            if message.get("role") != "assistant":
                continue
            for number, call in enumerate(message.get("tool_calls") or ()):
                function = call.get("function", call)
                swapped = _redirected(domain.authz, world, task.seed, function.get("name"), arguments_of(function.get("arguments")))
                if swapped is not None:
                    spoiled = copy.deepcopy(messages)
                    target = spoiled[index]["tool_calls"][number].get("function", spoiled[index]["tool_calls"][number])
                    target["arguments"] = swapped if not isinstance(function.get("arguments"), str) else json.dumps(swapped)
                    return spoiled
    finally:
        world.close()
    return None


def _redirected(spec: Authorization, world: World, seed: int, tool: Any, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The call's arguments with its first owned record swapped for another owner's, or None."""
    for record in spec.records.get(tool, ()) if isinstance(tool, str) else ():
        if record.allowed:
            continue  # the policy lets the user act on others' rows of this kind: not a violation to spoil
        value = arguments.get(record.arg)
        first = value[0] if isinstance(value, list) and value else value
        for path in record.paths:
            chain = path.chain(world, first) if first is not None else None
            if chain is None:
                continue
            other = _stranger(world, path, chain, seed)
            if other is None:
                break
            return {**arguments, record.arg: [other, *value[1:]] if isinstance(value, list) else other}
    return None


def _stranger(world: World, path: OwnerPath, chain: tuple[str, ...], seed: int) -> str | None:
    """A key of a row of the same table owned by someone else, in the same status if it has one."""
    candidates = [c[0] for c in path.others(world, chain[-1])]
    if not candidates:
        return None
    if "status" in world.info(path.table).columns:
        sql = f'SELECT "{path.key}", status FROM "{path.table}" WHERE "{path.key}" IN ({", ".join("?" * (len(candidates) + 1))})'
        status = {str(key): value for key, value in world.query(sql, [chain[0], *candidates])}
        alike = [c for c in candidates if status.get(c) == status.get(chain[0])]
        candidates = alike or candidates
    return candidates[seed % len(candidates)]
