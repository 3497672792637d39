"""The same change made twice at once: one message to two colleagues or two channels, two tasks
ticked off. The reads come first, then both writes in one parallel step after one confirmation."""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Step, Utterance, call

from .index import Desk, index_of
from .parts import asked, fragment, leaves_out, named_fact, quoted


def dm_two(ctx: GenContext, desk: Desk) -> Piece | None:
    """One chat message to two colleagues (looked up together, then both sent together)."""
    people = [p for p in index_of(ctx.world).by_team[desk.person.team] if p.id != desk.person.id]
    if len(people) < 2:
        return None
    a, b = ctx.rng.sample(people, 2)
    text = ctx.say("dm_two_text")
    ask = leaves_out(ctx)
    words = named_fact("dm_text", quoted(text), "message", "message", "say")
    names = [a.name, b.name]
    return Piece(
        request=ctx.say("req_dm_two_ask" if ask else "req_dm_two", a=a.name, b=b.name, text=text),
        goal=f"Send {a.name} and {b.name} each this direct message: {text}",
        steps=[
            Step(calls=[call("lookup_colleague", query=a.name), call("lookup_colleague", query=b.name)]),
            Step(
                calls=[call("send_direct_message", email=p.email, text=text) for p in (a, b)],
                needs=[words.key],
                confirm=fragment(ctx, "do_dm_two", names=names, text=text),
            ),
        ],
        reply=Utterance(intent="reply_dm_two", vars={"names": names}),
        outputs=names,
        facts=[words],
        withheld=asked([words], ask),
        keys=frozenset({f"dm:{a.id}", f"dm:{b.id}"}),
    )


def post_two(ctx: GenContext, desk: Desk) -> Piece | None:
    """One note posted in two channels."""
    first, second = ctx.rng.sample(index_of(ctx.world).channels, 2)
    channels = [f"#{first.name}", f"#{second.name}"]
    text = ctx.say("post_text")
    ask = leaves_out(ctx)
    words = named_fact("post_text", quoted(text), "message to post", "message", "post", "say")
    return Piece(
        request=ctx.say("req_post_two_ask" if ask else "req_post_two", a=channels[0], b=channels[1], text=text),
        goal=f"Post this in {channels[0]} and in {channels[1]}: {text}",
        steps=[
            Step(
                calls=[call("post_to_channel", channel=c, text=text) for c in channels],
                needs=[words.key],
                confirm=fragment(ctx, "do_post_two", channels=channels, text=text),
            )
        ],
        reply=Utterance(intent="reply_post_two", vars={"channels": channels}),
        outputs=channels,
        facts=[words],
        withheld=asked([words], ask),
        keys=frozenset({f"chat:{c}" for c in channels}),
    )


def complete_two(ctx: GenContext, desk: Desk) -> Piece | None:
    """Two open tasks ticked off, found on the task list."""
    if len(desk.open_todos) < 2:
        return None
    a, b = ctx.rng.sample(desk.open_todos, 2)
    titles = [a.title, b.title]
    quoted = [f'"{t}"' for t in titles]  # a title reads as one name inside a sentence
    return Piece(
        request=ctx.say("req_complete_two", a=a.title, b=b.title),
        goal=f"Mark the tasks '{a.title}' and '{b.title}' as done.",
        steps=[
            Step(calls=[call("list_tasks", status="open")]),
            Step(
                calls=[call("complete_task", task_id=t.id) for t in (a, b)],
                confirm=fragment(ctx, "do_complete_two", titles=quoted),
            ),
        ],
        reply=Utterance(intent="reply_complete_two", vars={"titles": quoted}),
        outputs=titles,
        keys=frozenset({a.id, b.id, f"todos:{desk.person.id}"}),
    )
