"""The pieces workplace tasks are made of: one request of the signed-in person, its steps and reply.

A builder takes the context and a `Desk` (the signed-in person's world) and returns a Piece, or
None when this person has nothing for it. `keys` name what a piece reads or changes, so the
pieces of one task never touch the same file, message, event or calendar day.
"""

from __future__ import annotations

import datetime as dt

from toolgym.envs import Fact, GenContext, Piece, Step, Utterance, WorldEdit, call
from toolgym.envs.phrasing import day_in_words, moment_in_words, month_day, zone_in_words

from ..catalogue import DURATIONS, MEETING_TOPICS, NOW
from ..tables import EmployeeBase
from ..tools.calendar import free_slots
from ..tools.common import local_text
from .index import TOMORROW, Desk, Meeting, index_of

LEVEL_WORDS = {"view": "read-only", "comment": "with comment rights", "edit": "with edit rights"}
LEVEL_ASKED = {"view": "view only", "comment": "comment", "edit": "edit"}
FACT_FIELDS = ("Deadline", "Budget", "Status", "Owner")
WORKDAYS = [
    NOW.date() + dt.timedelta(days=d)
    for d in range(1, 9)
    if (NOW.date() + dt.timedelta(days=d)).weekday() < 5
]


def session_edit(desk: Desk) -> WorldEdit:
    """Signs the task's employee in: every tool then acts for them."""
    return WorldEdit(table="session", key=1, set={"employee_id": desk.person.id})


def fragment(ctx: GenContext, intent: str, **values: object) -> str:
    """A phrase said mid-sentence (a confirmation's action, "tomorrow", a rule after a colon): its first
    letter stays lower case, though rendering capitalises what opens an utterance."""
    text = ctx.say(intent, **values)
    return text[:1].lower() + text[1:]


def quoted(text: str) -> str:
    """Words to send as the user gives them when asked: in quotes, so a sign-off inside ("Speak soon.") is
    part of the message, not the end of the user's turn."""
    return f'"{text}"'


def level_fact(level: str) -> Fact:
    """The access level as the user says it when asked ("view only", "comment", "edit")."""
    return named_fact("access_level", LEVEL_ASKED[level], "preferred access level", "access", "level")


def first_name(person: EmployeeBase) -> str:
    return person.name.split()[0]


def when_words(ctx: GenContext, day: str) -> str:
    """How the user names a day ('2025-03-13'): 'tomorrow' for tomorrow (sometimes), else 'on March 13'
    or 'on Thursday, March 13' (its year goes without saying), at times 'on 2025-03-13'."""
    if day == TOMORROW.isoformat() and ctx.rng.random() < 0.7:
        return fragment(ctx, "day_tomorrow")
    said = ctx.typed_day(day)
    if said == day:  # typed as forms write it: no weekday before it
        return f"on {said}"
    return fragment(ctx, "day_on", day=said, weekday=f"{dt.date.fromisoformat(day):%A}")


def said_start(start: str) -> list[str]:
    """The outputs of a meeting's start ('2025-03-13 09:00'), as a reply says it ("Thursday, March 13
    at 09:00"): its day, whose year goes without saying, and its time."""
    day, _, time = start.partition(" ")
    return [month_day(day), time]


def named_fact(key: str, value: str, label: str, *keywords: str) -> Fact:
    return Fact(key=key, value=value, label=label, keywords=list(keywords) or [label])


def calendar_keys(people: list[EmployeeBase], day: str) -> set[str]:
    return {f"cal:{p.id}:{day}" for p in people}


ASK_SHARE = 0.65  # requests that leave out a value only the user can give (the words, a date): the gold asks


def leaves_out(ctx: GenContext) -> bool:
    """Whether this request leaves a value out, so the gold must ask for it before the write."""
    return ctx.rng.random() < ASK_SHARE


def asked(facts: list[Fact], ask: bool) -> list[str]:
    """The keys of `facts` the user gives only when asked (all of them when the request leaves them out)."""
    return [f.key for f in facts] if ask else []


# ---- answers read out of files and threads ------------------------------------------------------


def _shareable_meeting(ctx: GenContext, desk: Desk, file_id: str) -> Meeting | None:
    granted = index_of(ctx.world).grants.get(file_id, set())
    meetings = [
        m
        for m in desk.organised + desk.invited
        if 1 <= len(m.others) <= 4 and not any(o.email in granted for o in m.others)
    ]
    tomorrow = [m for m in meetings if m.day == TOMORROW.isoformat()]
    pool = tomorrow if tomorrow and ctx.rng.random() < 0.6 else meetings
    return ctx.pick(pool) if pool else None


def share_from_mail(ctx: GenContext, desk: Desk) -> Piece | None:
    """Find the file named in a colleague's last mail and share it with everyone in a meeting."""
    if not desk.mentions:
        return None
    mention = ctx.pick(desk.mentions)
    meeting = _shareable_meeting(ctx, desk, mention.file.id)
    if meeting is None:
        return None
    level = ctx.pick(("view", "view", "comment", "edit"))
    names = [o.name for o in meeting.others]
    title = mention.file.title
    ask = leaves_out(ctx)
    access = level_fact(level)
    return Piece(
        request=ctx.say(
            "req_share_from_mail_ask" if ask else "req_share_from_mail",
            sender=mention.sender.name,
            meeting=meeting.event.title,
            when=when_words(ctx, meeting.day),
            level=LEVEL_WORDS[level],
        ),
        goal=f"Share the file named in {mention.sender.name}'s last email ({LEVEL_WORDS[level]}) with everyone in the "
        f"{meeting.event.title} on {meeting.day}.",
        steps=[
            Step(calls=[call("search_email", sender=mention.sender.name)]),
            Step(calls=[call("read_message", message_id=mention.mail.id)]),
            Step(calls=[call("search_files", query=title), call("list_events", date=meeting.day)]),
            Step(
                calls=[
                    call("share_file", file_id=mention.file.id, email=o.email, level=level)
                    for o in meeting.others
                ],
                needs=[access.key],
                confirm=fragment(ctx, "do_share", title=title, names=names, level=LEVEL_WORDS[level]),
            ),
        ],
        reply=Utterance(
            intent="reply_shared", vars={"title": title, "names": names, "level": LEVEL_WORDS[level]}
        ),
        outputs=[title, *names],
        facts=[
            named_fact("sender", mention.sender.name, "colleague's name", "who", "name"),
            named_fact("meeting", meeting.event.title, "meeting", "meeting"),
            access,
        ],
        withheld=asked([access], ask),
        keys=frozenset({mention.file.id, mention.mail.id, meeting.event.id}),
    )


def schedule(ctx: GenContext, desk: Desk) -> Piece | None:
    """Book a meeting with colleagues in the first slot when everyone is free and in working hours."""
    index = index_of(ctx.world)
    me = desk.person
    pool = (
        [p for p in index.by_team[me.team] if p.id != me.id]
        if ctx.rng.random() < 0.6
        else list(index.people.values())
    )
    count = ctx.pick((1, 1, 2, 2, 3))
    guests = [p for p in ctx.rng.sample(pool, min(count + 1, len(pool))) if p.id != me.id][:count]
    if not guests:
        return None
    day = ctx.pick(WORKDAYS)
    minutes = ctx.pick(DURATIONS)
    starts = free_slots(ctx.world, [me, *guests], day, minutes, me.time_zone)
    if not starts:
        return None
    start = local_text(starts[0], me.time_zone)
    title = f"{ctx.pick(MEETING_TOPICS).capitalize()}: {ctx.say('meeting_subject')}"
    names, emails = [g.name for g in guests], [g.email for g in guests]
    ask = leaves_out(ctx)
    said = ctx.typed_day(day)
    date = named_fact("day", said, "preferred date", "date", "day", "when")
    return Piece(
        request=ctx.say("req_schedule_ask" if ask else "req_schedule", names=names, day=said, minutes=minutes, title=title),
        goal=f"Book '{title}', {minutes} minutes with {', '.join(names)} on {month_day(day)}, at the first time everyone is free.",
        steps=[
            Step(calls=[call("lookup_colleague", query=n) for n in names]),
            Step(
                calls=[call("find_free_slots", emails=emails, date=day.isoformat(), duration_minutes=minutes)],
                needs=[date.key],
            ),
            Step(
                calls=[
                    call("create_event", title=title, start=start, duration_minutes=minutes, attendees=emails)
                ],
                confirm=fragment(ctx, "do_schedule", title=title, start=moment_in_words(start), minutes=minutes, names=names),
            ),
        ],
        reply=Utterance(
            intent="reply_scheduled",
            vars={"title": title, "start": moment_in_words(start), "names": names, "zone": zone_in_words(me.time_zone)},
        ),
        outputs=said_start(start),
        facts=[date],
        withheld=asked([date], ask),
        keys=frozenset(calendar_keys([me, *guests], day.isoformat())),
    )


def reply_mail(ctx: GenContext, desk: Desk) -> Piece | None:
    """Answer a colleague's last mail with the words the user gives."""
    if not desk.mentions:
        return None
    mention = ctx.pick(desk.mentions)
    text = ctx.say("reply_text", first=first_name(mention.sender))
    ask = leaves_out(ctx)
    words = named_fact("reply_text", quoted(text), "reply", "reply", "say")
    return Piece(
        request=ctx.say("req_reply_ask" if ask else "req_reply", sender=mention.sender.name, text=text),
        goal=f"Reply to {mention.sender.name}'s last email with: {text}",
        steps=[
            Step(calls=[call("search_email", sender=mention.sender.name)]),
            Step(
                calls=[call("reply_to_message", message_id=mention.mail.id, body=text)],
                needs=[words.key],
                confirm=fragment(ctx, "do_reply", sender=mention.sender.name, text=text),
            ),
        ],
        reply=Utterance(
            intent="reply_replied", vars={"sender": mention.sender.name, "subject": mention.mail.subject}
        ),
        outputs=[mention.sender.name],
        facts=[words],
        withheld=asked([words], ask),
        keys=frozenset({mention.mail.id, f"sent:{desk.person.id}"}),
    )


def forward_mail(ctx: GenContext, desk: Desk) -> Piece | None:
    """Forward a colleague's last mail to another colleague the user names."""
    if not desk.mentions:
        return None
    mention = ctx.pick(desk.mentions)
    people = index_of(ctx.world).people
    to = ctx.pick(list(people.values()))
    if to.id in (desk.person.id, mention.sender.id):
        return None
    return Piece(
        request=ctx.say("req_forward", sender=mention.sender.name, to=to.name),
        goal=f"Forward {mention.sender.name}'s last email to {to.name}.",
        steps=[
            Step(
                calls=[
                    call("search_email", sender=mention.sender.name),
                    call("lookup_colleague", query=to.name),
                ]
            ),
            Step(
                calls=[call("forward_message", message_id=mention.mail.id, to=[to.email])],
                confirm=fragment(ctx, "do_forward", sender=mention.sender.name, to=to.name, email=to.email, subject=mention.mail.subject),
            ),
        ],
        reply=Utterance(
            intent="reply_forwarded",
            vars={"sender": mention.sender.name, "to": to.name, "subject": mention.mail.subject},
        ),
        outputs=[to.name],
        keys=frozenset({mention.mail.id, f"sent:{desk.person.id}"}),
    )


def file_mail(ctx: GenContext, desk: Desk) -> Piece | None:
    """Archive, move, flag or mark a colleague's last mail."""
    if not desk.mentions:
        return None
    mention = ctx.pick(desk.mentions)
    # the marks that change something (a read mail cannot be marked read), as often as the moves
    marks = ["flagged"] * (not mention.mail.flagged) + ["unread" if not mention.mail.unread else "read"]
    action = ctx.pick(("archive", "projects", *marks, *marks))
    if action in ("archive", "projects"):
        write = call("move_message", message_id=mention.mail.id, folder=action)
    else:
        write = call("mark_message", message_id=mention.mail.id, mark=action)
    return Piece(
        request=ctx.say(f"req_mail_{action}", sender=mention.sender.name),
        goal=f"Have {mention.sender.name}'s last email {action if action in ('flagged', 'read', 'unread') else 'moved to ' + action}.",
        steps=[
            Step(calls=[call("search_email", sender=mention.sender.name)]),
            Step(
                calls=[write],
                confirm=fragment(
                    ctx, f"do_mail_{action}", sender=mention.sender.name, subject=mention.mail.subject
                ),
            ),
        ],
        reply=Utterance(
            intent=f"reply_mail_{action}",
            vars={"sender": mention.sender.name, "subject": mention.mail.subject},
        ),
        outputs=[mention.mail.subject],
        keys=frozenset({mention.mail.id}),
    )


# ---- calendar and tasks -------------------------------------------------------------------------


def cancel_meeting(ctx: GenContext, desk: Desk) -> Piece | None:
    """Cancel a meeting the user organises, found on its day's calendar."""
    if not desk.organised:
        return None
    m = ctx.pick(desk.organised)
    return Piece(
        request=ctx.say("req_cancel", meeting=m.event.title, when=when_words(ctx, m.day)),
        goal=f"Cancel your {m.event.title} on {month_day(m.day)}.",
        steps=[
            Step(calls=[call("list_events", date=m.day)]),
            Step(
                calls=[call("cancel_event", event_id=m.event.id)],
                confirm=fragment(ctx, "do_cancel", meeting=m.event.title, start=moment_in_words(m.start)),
            ),
        ],
        reply=Utterance(intent="reply_cancelled", vars={"meeting": m.event.title, "start": moment_in_words(m.start)}),
        outputs=[m.event.title],
        keys=frozenset({m.event.id} | calendar_keys([desk.person, *m.others], m.day)),
    )


def decline_meeting(ctx: GenContext, desk: Desk) -> Piece | None:
    """Decline (or accept) an invitation to someone else's meeting."""
    if not desk.invited:
        return None
    m = ctx.pick(desk.invited)
    answer = ctx.pick(("declined", "declined", "accepted", "tentative"))
    if answer == m.response:
        return None
    organiser = index_of(ctx.world).people[m.event.organizer_id]
    ask = leaves_out(ctx)
    choice = named_fact("response", answer, "answer to the invitation", "answer", "accept", "decline")
    return Piece(
        request=ctx.say("req_respond_ask" if ask else f"req_respond_{answer}", meeting=m.event.title, when=when_words(ctx, m.day)),
        goal=f"Answer the invitation to the {m.event.title} on {month_day(m.day)}: {answer}.",
        steps=[
            Step(calls=[call("list_events", date=m.day)]),
            Step(
                calls=[call("respond_to_event", event_id=m.event.id, response=answer)],
                needs=[choice.key],
                confirm=fragment(ctx, f"do_respond_{answer}", meeting=m.event.title, start=moment_in_words(m.start)),
            ),
        ],
        reply=Utterance(
            intent=f"reply_respond_{answer}",
            vars={"meeting": m.event.title, "organiser": organiser.name, "start": moment_in_words(m.start)},
        ),
        outputs=[m.event.title],
        facts=[choice],
        withheld=asked([choice], ask),
        keys=frozenset({m.event.id} | calendar_keys([desk.person], m.day)),
    )


def complete_todo(ctx: GenContext, desk: Desk) -> Piece | None:
    if not desk.open_todos:
        return None
    todo = ctx.pick(desk.open_todos)
    return Piece(
        request=ctx.say("req_complete", title=todo.title),
        goal=f"Mark the task '{todo.title}' as done.",
        steps=[
            Step(calls=[call("list_tasks", status="open")]),
            Step(
                calls=[call("complete_task", task_id=todo.id)],
                confirm=fragment(ctx, "do_complete", title=todo.title),
            ),
        ],
        reply=Utterance(intent="reply_completed", vars={"title": todo.title}),
        outputs=[todo.title],
        keys=frozenset({todo.id, f"todos:{desk.person.id}"}),
    )


def add_todo(ctx: GenContext, desk: Desk) -> Piece | None:
    title = ctx.say("todo_title")
    due = ctx.pick(WORKDAYS + [NOW.date() + dt.timedelta(days=d) for d in range(9, 30)]).isoformat()
    ask = leaves_out(ctx)
    said = ctx.typed_day(due)
    when = named_fact("due", said, "due date", "due date", "deadline")
    return Piece(
        request=ctx.say("req_add_task_ask" if ask else "req_add_task", title=title, due=said),
        goal=f"Add '{title}' to your task list, due {month_day(due)}.",
        steps=[
            Step(
                calls=[call("create_task", title=title, due=due)],
                needs=[when.key],
                confirm=fragment(ctx, "do_add_task", title=title, due=day_in_words(due)),
            )
        ],
        reply=Utterance(intent="reply_task_added", vars={"title": title, "due": day_in_words(due)}),
        outputs=[title],
        facts=[when],
        withheld=asked([when], ask),
        keys=frozenset({f"todos:{desk.person.id}"}),
    )


# ---- chat ---------------------------------------------------------------------------------------


def post_channel(ctx: GenContext, desk: Desk) -> Piece | None:
    channel = f"#{ctx.pick(index_of(ctx.world).channels).name}"
    text = ctx.say("post_text")
    ask = leaves_out(ctx)
    words = named_fact("post_text", quoted(text), "message to post", "message", "post", "say")
    return Piece(
        request=ctx.say("req_post_ask" if ask else "req_post", channel=channel, text=text),
        goal=f"Post this in {channel}: {text}",
        steps=[
            Step(
                calls=[call("post_to_channel", channel=channel, text=text)],
                needs=[words.key],
                confirm=fragment(ctx, "do_post", channel=channel, text=text),
            )
        ],
        reply=Utterance(intent="reply_posted", vars={"channel": channel}),
        outputs=[channel],
        facts=[words],
        withheld=asked([words], ask),
        keys=frozenset({f"chat:{channel}"}),
    )


def direct_message(ctx: GenContext, desk: Desk) -> Piece | None:
    to = ctx.pick(list(index_of(ctx.world).people.values()))
    if to.id == desk.person.id:
        return None
    text = ctx.say("dm_text", first=first_name(to))
    ask = leaves_out(ctx)
    words = named_fact("dm_text", quoted(text), "message", "message", "say")
    return Piece(
        request=ctx.say("req_dm_ask" if ask else "req_dm", name=to.name, text=text),
        goal=f"Send {to.name} this direct message: {text}",
        steps=[
            Step(calls=[call("lookup_colleague", query=to.name)]),
            Step(
                calls=[call("send_direct_message", email=to.email, text=text)],
                needs=[words.key],
                confirm=fragment(ctx, "do_dm", name=to.name, email=to.email, text=text),
            ),
        ],
        reply=Utterance(intent="reply_dm_sent", vars={"name": to.name}),
        outputs=[to.name],
        facts=[words],
        withheld=asked([words], ask),
        keys=frozenset({f"dm:{to.id}"}),
    )


def share_with_two(ctx: GenContext, desk: Desk) -> Piece | None:
    """Share one of the user's files with two colleagues at once."""
    if not desk.owned:
        return None
    doc = ctx.pick(desk.owned)
    granted = index_of(ctx.world).grants.get(doc.id, set())
    pool = [
        p
        for p in index_of(ctx.world).by_team[desk.person.team]
        if p.id != desk.person.id and p.email not in granted
    ]
    if len(pool) < 2:
        return None
    a, b = ctx.rng.sample(pool, 2)
    level = ctx.pick(("view", "comment", "edit"))
    names = [a.name, b.name]
    ask = leaves_out(ctx)
    access = level_fact(level)
    return Piece(
        request=ctx.say("req_share_two_ask" if ask else "req_share_two", title=doc.title, a=a.name, b=b.name, level=LEVEL_WORDS[level]),
        goal=f"Share '{doc.title}' ({LEVEL_WORDS[level]}) with {a.name} and {b.name}.",
        steps=[
            Step(
                calls=[
                    call("search_files", query=doc.title),
                    call("lookup_colleague", query=a.name),
                    call("lookup_colleague", query=b.name),
                ]
            ),
            Step(
                calls=[call("share_file", file_id=doc.id, email=p.email, level=level) for p in (a, b)],
                needs=[access.key],
                confirm=fragment(ctx, "do_share", title=doc.title, names=names, level=LEVEL_WORDS[level]),
            ),
        ],
        reply=Utterance(
            intent="reply_shared", vars={"title": doc.title, "names": names, "level": LEVEL_WORDS[level]}
        ),
        outputs=[doc.title, *names],
        facts=[named_fact("file_title", doc.title, "file name", "file", "title"), access],
        withheld=asked([access], ask),
        keys=frozenset({doc.id}),
    )


def reschedule(ctx: GenContext, desk: Desk) -> Piece | None:
    """Move a meeting the user organises to the first slot on another day when all its attendees are free."""
    if not desk.organised:
        return None
    m = ctx.pick(desk.organised)
    minutes = int((m.event.end - m.event.start).total_seconds() // 60)
    days = [d for d in WORKDAYS if d.isoformat() != m.day]
    if minutes not in DURATIONS or not m.others or not days:
        return None
    day = ctx.pick(days)
    me = desk.person
    starts = free_slots(ctx.world, [me, *m.others], day, minutes, me.time_zone)
    if not starts:
        return None
    start = local_text(starts[0], me.time_zone)
    ask = leaves_out(ctx)
    said = ctx.typed_day(day)
    date = named_fact("day", said, "new date", "date", "day", "when")
    return Piece(
        request=ctx.say(
            "req_reschedule_ask" if ask else "req_reschedule", meeting=m.event.title, when=when_words(ctx, m.day), day=said
        ),
        goal=f"Move your {m.event.title} on {month_day(m.day)} to the first time on {month_day(day)} when everyone invited is free.",
        steps=[
            Step(calls=[call("list_events", date=m.day)]),
            Step(
                calls=[
                    call(
                        "find_free_slots",
                        emails=[o.email for o in m.others],
                        date=day.isoformat(),
                        duration_minutes=minutes,
                    )
                ],
                needs=[date.key],
                derived={"duration_minutes": "the meeting's length, from the start and end list_events shows"},
            ),
            Step(
                calls=[call("reschedule_event", event_id=m.event.id, start=start)],
                confirm=fragment(ctx, "do_reschedule", meeting=m.event.title, old=moment_in_words(m.start),
                                 start=moment_in_words(start)),
            ),
        ],
        reply=Utterance(
            intent="reply_rescheduled",
            vars={"meeting": m.event.title, "start": moment_in_words(start), "zone": zone_in_words(me.time_zone)},
        ),
        outputs=said_start(start),
        facts=[date],
        withheld=asked([date], ask),
        keys=frozenset(
            {m.event.id} | calendar_keys([me, *m.others], m.day) | calendar_keys([me, *m.others], day.isoformat())
        ),
    )
