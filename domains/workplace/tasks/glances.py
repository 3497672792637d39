"""One-call reads of the signed-in person's desk, and two of them asked in one message (made together).

Each glance reads one app (the task list, the directory, the profile, the channels, the chat), so
two of them drawn at random make many different parallel pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolgym.envs import GenContext, Piece, Step, Utterance, call, structures
from toolgym.envs.phrasing import day_in_words, month_day

from .answers import channel_topic, chat_search
from .index import Desk, index_of


def first_due(ctx: GenContext, desk: Desk) -> Piece | None:
    """Which open task is due first (list_tasks lists by due date; a tie would not have one answer)."""
    dated = sorted((t for t in desk.open_todos if t.due is not None), key=lambda t: (t.due, t.id))
    if not dated or (len(dated) > 1 and dated[0].due == dated[1].due):
        return None
    todo = dated[0]
    due = todo.due.isoformat() if todo.due else ""
    today = ctx.world.now.date()
    intent = "reply_first_due_overdue" if todo.due < today else "reply_first_due_today" if todo.due == today else "reply_first_due"
    return Piece(
        request=ctx.say("req_first_due"),
        goal="Find out which of your open tasks is due first.",
        steps=[Step(calls=[call("list_tasks", status="open")])],
        reply=Utterance(intent=intent, vars={"title": todo.title, "due": day_in_words(due)}),
        outputs=[todo.title, month_day(due)],  # a day this spring: its year goes without saying
        keys=frozenset({f"todos:{desk.person.id}"}),
    )


def colleague_role(ctx: GenContext, desk: Desk) -> Piece | None:
    """A colleague's job title and team, from the directory."""
    other = ctx.pick(list(index_of(ctx.world).people.values()))
    if other.id == desk.person.id:
        return None
    return Piece(
        request=ctx.say("req_colleague_role", name=other.name),
        goal=f"Find out what {other.name}'s job title is and which team they are in.",
        steps=[Step(calls=[call("lookup_colleague", query=other.name)])],
        reply=Utterance(intent="reply_colleague_role", vars={"name": other.name, "title": other.title, "team": other.team}),
        outputs=[other.title],
        keys=frozenset({other.id}),
    )


def my_listing(ctx: GenContext, desk: Desk) -> Piece | None:
    """What the directory says about the person themself: their title and office."""
    me = desk.person
    return Piece(
        request=ctx.say("req_my_listing"),
        goal="Check the job title and office your own profile lists.",
        steps=[Step(calls=[call("get_my_profile")])],
        reply=Utterance(intent="reply_my_listing", vars={"title": me.title, "office": me.office}),
        outputs=[me.title, me.office],
        keys=frozenset({f"profile:{me.id}"}),
    )


Builder = Callable[[GenContext, Desk], Piece | None]
GLANCES: Sequence[Builder] = (first_due, colleague_role, my_listing, channel_topic, chat_search)


def two_glances(ctx: GenContext, desk: Desk) -> Piece | None:
    """Two glances at different apps in one message, read in one parallel step."""
    first, second = ctx.rng.sample(list(GLANCES), 2)
    a, b = first(ctx, desk), second(ctx, desk)
    if a is None or b is None:
        return None
    return structures.together(ctx, a, b)
