"""Pieces where the employee's words fit several colleagues: the agent looks them up, asks which one
(naming each), and acts on the one picked."""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Step, Utterance, call, structures

from ..tables import EmployeeBase
from .index import Desk, index_of
from .parts import first_name, fragment

MOST_LISTED = 5  # lookup_colleague lists at most five matches: every namesake must be among them


def _namesakes(ctx: GenContext, first: str) -> list[EmployeeBase] | None:
    """The colleagues lookup_colleague lists for a first name, or None when it would cut some off."""
    text = first.lower()
    listed = [p for p in index_of(ctx.world).people.values() if text in p.name.lower() or text in p.email]
    return listed if len(listed) <= MOST_LISTED else None


def dm_by_first_name(ctx: GenContext, desk: Desk) -> Piece | None:
    """"Message Lisa" when several colleagues are called Lisa: the one meant is told apart by team."""
    to = ctx.pick(list(index_of(ctx.world).people.values()))
    first = first_name(to)
    listed = _namesakes(ctx, first)
    if to.id == desk.person.id or listed is None:
        return None
    same = [p for p in listed if first_name(p) == first and p.id != desk.person.id]
    if len(same) < 2 or len({p.team for p in same}) < len(same):
        return None
    text = ctx.say("dm_text", first=first)
    piece = Piece(
        request=ctx.say("req_dm_first_name", name=first, text=text),
        goal=f"Send {first} from {to.team} ({to.name}) this direct message: {text}",
        steps=[
            Step(calls=[call("lookup_colleague", query=first)]),
            Step(
                calls=[call("send_direct_message", email=to.email, text=text)],
                confirm=fragment(ctx, "do_dm", name=to.name, email=to.email, text=text),
            ),
        ],
        reply=Utterance(intent="reply_dm_sent", vars={"name": to.name}),
        outputs=[to.name],
        keys=frozenset({f"dm:{p.id}" for p in same}),
    )
    piece = structures.ask_which(
        piece, label="colleague", what=f"colleagues named {first}", options=[p.name for p in same],
        described=[f"{p.name} ({p.team})" for p in same], answer=f"the one in {to.team}",
    )  # fmt: skip
    return structures.looked_up(piece, label="email address", value=to.email, keywords=["email address", "their email"])


def todo_by_thing(ctx: GenContext, desk: Desk) -> Piece | None:
    """"Tick off my task about the budget sheet" when two open tasks are about it: the agent lists the
    tasks, asks which (naming both) and completes the one picked."""
    from ..world import TODO_OBJECTS

    by_thing: dict[str, list] = {}
    for todo in desk.open_todos:
        thing = next((t for t in TODO_OBJECTS if todo.title.endswith(" " + t)), None)
        if thing is not None:
            by_thing.setdefault(thing, []).append(todo)
    groups = [(thing, todos) for thing, todos in by_thing.items() if len(todos) >= 2]
    if not groups:
        return None
    thing, todos = ctx.pick(groups)
    todo = ctx.pick(todos)
    piece = Piece(
        request=ctx.say("req_complete_thing", thing=thing),
        goal=f"Mark your task '{todo.title}' as done.",
        steps=[
            Step(calls=[call("list_tasks", status="open")]),
            Step(calls=[call("complete_task", task_id=todo.id)], confirm=fragment(ctx, "do_complete", title=todo.title)),
        ],
        reply=Utterance(intent="reply_completed", vars={"title": todo.title}),
        outputs=[todo.title],
        keys=frozenset({*(t.id for t in todos), f"todos:{desk.person.id}"}),
    )
    return structures.ask_which(
        piece, label="task", what=f"open tasks about {thing}", options=[t.title for t in todos],
        described=[f'"{t.title}"' for t in todos], answer=f'"{todo.title}"',
    )  # fmt: skip
