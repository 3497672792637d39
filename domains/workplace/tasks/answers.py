"""Answers read out of the workplace: documents, threads, chat and the directory (read-only pieces)."""

from __future__ import annotations

from toolgym.envs import GenContext, Piece, Step, Utterance, call
from toolgym.envs.phrasing import said_day, zone_in_words

from .index import Desk, index_of
from .parts import (
    FACT_FIELDS,
    first_name,
    named_fact,
)


def _said(ctx: GenContext, field: str, value: str) -> str:
    """A file's field as a reply says it: a deadline the file writes as a form does ("2025-04-11")
    is said as people write a day ("April 11"), and required so: a day of this year goes without its
    year, and the file's own form states it too."""
    return said_day(value, ctx.world.now.date()) if field == "Deadline" else value


def doc_answer(ctx: GenContext, desk: Desk) -> Piece | None:
    """What a document says: its deadline, budget, status or owner, read from its text."""
    if not desk.readable:
        return None
    doc = ctx.pick(desk.readable)
    field = ctx.pick(FACT_FIELDS)
    value = index_of(ctx.world).facts[doc.id][field]
    return Piece(
        request=ctx.say(f"req_doc_{field.lower()}", title=doc.title),
        goal=f"Find out the {field.lower()} written in the file '{doc.title}'.",
        steps=[
            Step(calls=[call("search_files", query=doc.title)]),
            Step(calls=[call("read_file", file_id=doc.id)]),
        ],
        reply=Utterance(intent=f"reply_doc_{field.lower()}", vars={"title": doc.title, "value": _said(ctx, field, value)}),
        outputs=[_said(ctx, field, value)],
        facts=[named_fact("file_title", doc.title, "file name", "file", "title")],
        keys=frozenset({doc.id}),
    )


def thread_answer(ctx: GenContext, desk: Desk) -> Piece | None:
    """What a mail thread settled on, read from its last message."""
    if not desk.decisions:
        return None
    d = ctx.pick(desk.decisions)
    return Piece(
        request=ctx.say("req_decision", topic=d.topic, sender=d.sender.name),
        goal=f"Find out what the mail thread with {d.sender.name} settled on for the {d.topic}.",
        steps=[
            Step(calls=[call("search_email", text=d.topic)]),
            Step(calls=[call("read_thread", thread_id=d.thread_id)]),
        ],
        reply=Utterance(
            intent="reply_decision",
            vars={"topic": d.topic, "choice": d.choice, "sender": first_name(d.sender)},
        ),
        outputs=[d.choice],
        keys=frozenset({d.thread_id, d.last.id}),
    )


# ---- chains across apps -------------------------------------------------------------------------


def colleagues_where(ctx: GenContext, desk: Desk) -> Piece | None:
    """Two colleagues looked up together: where each works and in which time zone."""
    people = list(index_of(ctx.world).people.values())
    a, b = ctx.rng.sample(people, 2)
    if desk.person.id in (a.id, b.id):
        return None
    return Piece(
        request=ctx.say("req_where", a=a.name, b=b.name),
        goal=f"Find out which office and time zone {a.name} and {b.name} work in.",
        steps=[Step(calls=[call("lookup_colleague", query=a.name), call("lookup_colleague", query=b.name)])],
        reply=Utterance(
            intent="reply_where",
            vars={
                "a": a.name,
                "b": b.name,
                "office_a": a.office,
                "office_b": b.office,
                "zone_a": a.time_zone,
                "zone_b": b.time_zone,
            },
        ),
        outputs=[a.office, b.office],
        keys=frozenset({a.id, b.id}),
    )


def same_zone(ctx: GenContext, desk: Desk) -> Piece | None:
    """The user's own profile and a colleague's, read together: are they in the same time zone."""
    other = ctx.pick(list(index_of(ctx.world).people.values()))
    if other.id == desk.person.id:
        return None
    me = desk.person
    return Piece(
        request=ctx.say("req_same_zone", name=other.name),
        goal=f"Find out whether {other.name} works in your time zone.",
        steps=[Step(calls=[call("get_my_profile"), call("lookup_colleague", query=other.name)])],
        reply=Utterance(
            intent="reply_same_zone" if me.time_zone == other.time_zone else "reply_other_zone",
            vars={
                "name": other.name,
                "mine": zone_in_words(me.time_zone),  # "Chicago time", as people name a zone
                "theirs": zone_in_words(other.time_zone),
                "office": other.office,
            },
        ),
        outputs=[zone_in_words(other.time_zone)],
        keys=frozenset({other.id}),
    )


def two_docs(ctx: GenContext, desk: Desk) -> Piece | None:
    """One fact from each of two documents: both searched together, then both read together."""
    if len(desk.readable) < 2:
        return None
    first, second = ctx.rng.sample(desk.readable, 2)
    field = ctx.pick(FACT_FIELDS[:3])
    facts = index_of(ctx.world).facts
    values = [facts[first.id][field], facts[second.id][field]]
    return Piece(
        request=ctx.say("req_two_docs", first=first.title, second=second.title, field=field.lower()),
        goal=f"Compare the {field.lower()} written in '{first.title}' and in '{second.title}'.",
        steps=[
            Step(calls=[call("search_files", query=first.title), call("search_files", query=second.title)]),
            Step(calls=[call("read_file", file_id=first.id), call("read_file", file_id=second.id)]),
        ],
        reply=Utterance(
            intent="reply_two_docs",
            vars={
                "first": first.title,
                "second": second.title,
                "field": field.lower(),
                "a": _said(ctx, field, values[0]),
                "b": _said(ctx, field, values[1]),
            },
        ),
        outputs=[_said(ctx, field, v) for v in values],
        keys=frozenset({first.id, second.id}),
    )


_PLAIN = frozenset(
    "anyone anything around before better between couple enough especially everyone finally latest newest "
    "nothing please really second should someone thanks thought through together whether asking chance "
    "seeing minutes lovely".split()
)


def chat_search(ctx: GenContext, desk: Desk) -> Piece | None:
    """Who wrote the latest message in a channel that mentions a word the user remembers."""
    index = index_of(ctx.world)
    channel = ctx.pick(index.channels)
    messages = index.chat.get(channel.id, [])
    if not messages:
        return None
    message = ctx.pick(messages[:12])
    # a word someone would remember a message by: not a name (capitalised) nor a word any message may use
    words = [
        w.lower() for w in message.text.split() if len(w) >= 6 and w.isalpha() and w.islower() and w not in _PLAIN
    ]
    if not words:
        return None
    word = ctx.pick(words)
    newest = next(m for m in messages if word in m.text.lower())  # what the search lists first
    author = index.people[newest.author_id]
    return Piece(
        request=ctx.say("req_chat_search", channel=f"#{channel.name}", word=word),
        goal=f"Find who last mentioned '{word}' in #{channel.name}.",
        steps=[Step(calls=[call("search_messages", text=word, channel=f"#{channel.name}")])],
        reply=Utterance(
            intent="reply_chat_search",
            vars={"channel": f"#{channel.name}", "word": word, "name": author.name, "email": author.email},
        ),
        outputs=[author.name],
        keys=frozenset({f"chat:#{channel.name}"}),
    )


def channel_topic(ctx: GenContext, desk: Desk) -> Piece | None:
    """What a channel is for: its topic, read from the channel list."""
    channel = ctx.pick(index_of(ctx.world).channels)
    return Piece(
        request=ctx.say("req_channel_topic", channel=f"#{channel.name}"),
        goal=f"Find out what #{channel.name} is about.",
        steps=[Step(calls=[call("list_channels")])],
        reply=Utterance(
            intent="reply_channel_topic", vars={"channel": f"#{channel.name}", "topic": channel.topic}
        ),
        outputs=[channel.topic],
        keys=frozenset({f"topic:{channel.id}"}),
    )
