"""Reads a gold play made again and got the same answer: dropped from the plan before it is proven.

A request that comes second often starts by reading what the first one read ("list_accounts",
"search_places" for the same category). `pieces.without_repeated_reads` drops such a read when no
write came between; after a write, only the play can tell whether the world still answers the
same. Where it did, word for word, the earlier result is still in the chat, and the gold that
reads it again would teach a model to repeat lookups it already has.

A read whose result did change (the accounts after a payment, with a new balance) is often made
only for what did not (the credit card's id for a dispute). `finalize` tries the plan without
those too, and keeps that plan only where its gold is still proven: a reply or confirmation that
needs what changed is grounded by no earlier read, and the read stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .pieces import call_key
from .replay import calls_with_outputs
from .task import Task

if TYPE_CHECKING:
    from .domain import Domain


def repeated_reads(domain: Domain, task: Task, messages: list[dict[str, Any]], changed: bool = False) -> set[tuple[int, int]]:
    """(step number, call number) of each agent read in the played `messages` whose call and result
    both repeat the latest earlier read of that call; with `changed`, whose call does (whatever it
    returned). A step that asks the user something (a yes, which of several records) is kept
    whole: its question needs the result it shows."""
    planned = [(number, index, step) for number, step in enumerate(task.plan) if not step.declined
               for index in range(len(step.calls))]
    played = calls_with_outputs(messages)
    if len(planned) != len(played):
        return set()  # not a play of this plan: nothing to say about it
    latest: dict[str, Any] = {}  # a call -> the result it last showed
    repeated = set()
    for (number, index, step), (caller, name, _, output) in zip(planned, played, strict=True):
        if caller != "agent" or domain.tools[name].writes:
            continue
        key = call_key(step.calls[index])  # the planned call: the one `pieces.without_repeated_reads` compares
        if key in latest and (changed or latest[key] == output) and step.confirm is None and step.choice is None:
            repeated.add((number, index))
        latest[key] = output
    return repeated


def without_calls(task: Task, dropped: set[tuple[int, int]]) -> Task:
    """The task with the plan's calls at `dropped` ((step number, call number)) left out, and any
    step left without a call."""
    plan = []
    for number, step in enumerate(task.plan):
        calls = [call for index, call in enumerate(step.calls) if (number, index) not in dropped]
        if len(calls) == len(step.calls):
            plan.append(step)
        elif calls:
            plan.append(step.model_copy(update={"calls": calls}))
    return task.model_copy(update={"plan": plan})
