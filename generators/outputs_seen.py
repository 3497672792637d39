"""The required outputs a reasoning trace names: those a result or the user already showed word for
word (an output not seen yet is never named), and at most a few of them, saying so where more are left."""

from __future__ import annotations

from typing import Any

from toolgym.envs.task import Task
from toolgym.verifiers.matching import normalize_text, output_stated

from .last_said import whole

MOST_REPORTED = 6  # the outputs a reply's trace names ("The reply must carry ...")
MOST_RECALLED = 2  # the outputs a closing trace names ("I've given the user ...")


def named(values: list[str], most: int) -> list[str]:
    """At most `most` values, the last of them saying so where more are left out: a trace that names
    three of six outputs must not read as naming them all."""
    return values if len(values) <= most else [*values[: most - 1], f"{values[most - 1]}, among others"]


def seen_outputs(task: Task, messages: list[dict[str, Any]], latest: bool = False, stated_in: str | None = None) -> list[str]:
    """The task's required outputs already shown word for word by a tool or the user: what the
    reply is about to state, cited in the trace (an output not seen yet is never named). An output
    the user's request names (the town whose elevation no page gives, the file they asked for) is
    what they asked about, not what the reply brings them. With `latest`, only those shown since the
    latest request (a chat's closing names what its last request brought, not its first). With
    `stated_in`, only the outputs that text states."""
    shown = [m.get("content") for m in messages if m.get("role") in ("tool", "user")]
    texts = [t for t in shown if isinstance(t, str)]
    asked = [t for t in texts if t in task.scenario.requests]
    # a whole token: the status "delivered" is not shown again by a later result's key "delivered_at"
    last_shown = {o: max((i for i, t in enumerate(texts) if whole(o, t)), default=-1) for o in task.required_outputs}
    normalized = normalize_text(stated_in) if stated_in is not None else None  # one text, read once for every output
    found = [o for o in task.required_outputs if last_shown[o] >= 0 and not any(whole(o, t) for t in asked)
             and (stated_in is None or output_stated(o, stated_in, normalized))]
    if latest:  # shown since the latest request: an earlier request's outputs are not what this one brought
        start = max((i for i, t in enumerate(texts) if t in task.scenario.requests), default=-1)
        found = [o for o in found if last_shown[o] > start]
    return [f'"{o}"' for o in found]
