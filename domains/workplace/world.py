"""Building a workplace world: once per (seed, size), then kept as a SQLite image.

Every mailbox gets mail from colleagues (some naming one of the owner's files, one thread that
settles a decision), every person organises a few meetings in the two weeks around `NOW`, owns
a few documents with a header of facts (owner, deadline, budget, status), and has a task list.
What the mail, chat and files say comes from `texts/` (whole templates filled from the world).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from toolgym.envs.fakes import person_name, seeded_faker, undoubled

from . import texts
from .catalogue import (
    CHANNEL_NAMES,
    DECISIONS,
    EXTERNAL_DOMAINS,
    FILE_FOLDERS,
    FILE_PERIODS,
    FILE_TOPICS,
    LOCATIONS,
    MEETING_TOPICS,
    NOW,
    OFFICES,
    ORG_DOMAIN,
    STATUSES,
    TEAM_FILE_TOPICS,
    TEAMS,
    TITLES,
    WORK_END,
    WORK_START,
)
from .tables import (
    Attachment,
    Attendee,
    Channel,
    ChatMessage,
    Document,
    Employee,
    Event,
    Mail,
    Permission,
    Session,
    Todo,
)

if TYPE_CHECKING:
    from faker import Faker

EMPLOYEES = {"small": 36, "default": 240}
Row = tuple[type, dict[str, Any]]


def build_world(seed: int, size: str) -> Iterator[Row]:
    fake = seeded_faker(seed)
    rng = random.Random(seed)
    people = list(_people(fake, rng, EMPLOYEES[size]))
    writer = texts.Writer(rng, fake, people)  # what mail, chat and files say
    yield from ((Employee, p) for p in people)
    yield Session, {"id": 1, "employee_id": people[0]["id"]}
    files = list(_documents(writer, people))
    yield from files
    yield from _mail(writer, people, [f[1] for f in files if f[0] is Document])
    yield from _events(rng, people)
    yield from _chat(writer, people)
    yield from _todos(rng, people)


def _people(fake: Faker, rng: random.Random, count: int) -> Iterator[dict[str, Any]]:
    seen: set[str] = set()
    leads: dict[str, str] = {}
    number = 0
    while number < count:
        first, last = person_name(fake)
        if f"{first} {last}" in seen:  # names are unique in an organisation the assistant searches by name
            continue
        seen.add(f"{first} {last}")
        number += 1
        team = TEAMS[number % len(TEAMS)]
        office = rng.choice(list(OFFICES))
        employee_id = f"E{number:04d}"
        manager = leads.setdefault(team, employee_id)
        yield {
            "id": employee_id,
            "name": f"{first} {last}",
            "email": f"{first}.{last}@{ORG_DOMAIN}".lower().replace("'", ""),
            "team": team,
            "title": f"{team} {'Lead' if manager == employee_id else rng.choice(TITLES)}",
            "manager_id": None if manager == employee_id else manager,
            "office": office,
            "time_zone": OFFICES[office],
        }


def _documents(writer: texts.Writer, people: list[dict[str, Any]]) -> Iterator[Row]:
    rng = writer.rng
    team_of: dict[str, list[dict[str, Any]]] = {}
    for p in people:
        team_of.setdefault(p["team"], []).append(p)
    titles: set[str] = set()
    number = 0
    for person in people:
        for _ in range(rng.randint(2, 4)):
            period, topic = rng.choice(FILE_PERIODS), rng.choice(FILE_TOPICS + TEAM_FILE_TOPICS[person["team"]])
            title = f"{person['team']} {period} {topic}"
            if title in titles:
                continue
            titles.add(title)
            number += 1
            file_id = f"F{number:05d}"
            deadline = NOW.date() + dt.timedelta(days=rng.randint(3, 60))
            status = rng.choice(STATUSES)
            header = (
                f"{title}\nOwner: {person['name']}\nDeadline: {deadline.isoformat()}\n"
                f"Budget: ${rng.randrange(20, 900) * 100:,}\nStatus: {status}\n\n"
            )
            body = texts.document_body(writer, person, team_of[person["team"]], period, topic, status)
            yield (
                Document,
                {
                    "id": file_id,
                    "owner_id": person["id"],
                    "title": title,
                    "folder": rng.choice(FILE_FOLDERS),
                    "content": header + body,
                    "updated_at": NOW - dt.timedelta(days=rng.randint(1, 90), minutes=rng.randint(0, 600)),
                },
            )
            for grantee in rng.sample(people, rng.randint(0, 2)):
                if grantee["id"] != person["id"]:
                    level = rng.choice(("view", "comment", "edit"))
                    yield (
                        Permission,
                        {
                            "id": f"{file_id}/{grantee['email']}",
                            "file_id": file_id,
                            "grantee": grantee["email"],
                            "level": level,
                        },
                    )


class _Mailer:
    """Numbers messages and threads as they are written into mailboxes."""

    def __init__(self) -> None:
        self.mail = 0
        self.thread = 0
        self.attachment = 0

    def thread_id(self) -> str:
        self.thread += 1
        return f"T{self.thread:05d}"

    def message(
        self,
        owner: dict[str, Any],
        thread: str,
        sender: dict[str, Any],
        subject: str,
        body: str,
        when: dt.datetime,
        **more: Any,
    ) -> Row:
        self.mail += 1
        return Mail, {
            "id": f"M{self.mail:06d}",
            "owner_id": owner["id"],
            "thread_id": thread,
            "sender": sender["email"],
            "sender_name": sender["name"],
            "to": owner["email"],
            "subject": subject,
            "body": body,
            "sent_at": when,
            **more,
        }


def _mail(writer: texts.Writer, people: list[dict[str, Any]], files: list[dict[str, Any]]) -> Iterator[Row]:
    fake, rng = writer.fake, writer.rng
    mailer = _Mailer()
    files_of: dict[str, list[dict[str, Any]]] = {}
    for f in files:
        files_of.setdefault(f["owner_id"], []).append(f)
    for owner in people:
        colleagues = rng.sample([p for p in people if p["id"] != owner["id"]], 6)
        # a colleague's mail naming one of the owner's files
        for sender, file in zip(
            colleagues[:2],
            rng.sample(files_of.get(owner["id"], []), min(2, len(files_of.get(owner["id"], [])))),
            strict=False,
        ):
            back = rng.randint(2, 120)
            subject, body = texts.file_request(writer, owner, sender, file["title"])
            when = _at_work(sender, NOW - dt.timedelta(hours=back), body)
            yield mailer.message(owner, mailer.thread_id(), sender, subject, body, when, unread=rng.random() < 0.5)
        # a thread that settles a decision: the last message says what was chosen
        topic = rng.choice(list(DECISIONS))
        choice = rng.choice(DECISIONS[topic])
        thread, sender = mailer.thread_id(), colleagues[2]
        start = NOW - dt.timedelta(hours=rng.randint(30, 200))
        asked, answered, settled = texts.decision_thread(writer, owner, sender, topic, DECISIONS[topic], choice)
        # each reply at work and after the message it answers: placed back from the last one
        settled_at = _at_work(sender, start + dt.timedelta(hours=20), settled)
        answered_at = _at_work(owner, settled_at - dt.timedelta(hours=1), answered)
        yield mailer.message(owner, thread, sender, f"The {topic}", asked, _at_work(sender, answered_at - dt.timedelta(hours=1), asked))
        yield mailer.message(
            owner,
            thread,
            owner,
            f"Re: The {topic}",
            answered,
            answered_at,
            folder="sent",
            to=sender["email"],
        )
        yield mailer.message(owner, thread, sender, f"Re: The {topic}", settled, settled_at)
        # ordinary mail, some with attachments, and one from outside the organisation
        for sender in colleagues[3:]:
            subject, body, attachment = texts.colleague_mail(writer, owner, sender)
            row = mailer.message(
                owner,
                mailer.thread_id(),
                sender,
                subject,
                body,
                _at_work(sender, NOW - dt.timedelta(hours=rng.randint(1, 300)), body),
                unread=rng.random() < 0.4,
                flagged=rng.random() < 0.15,
                folder=rng.choice(("inbox", "inbox", "inbox", "archive", "projects")),
            )
            yield row
            if attachment is not None:  # the body says what is attached
                mailer.attachment += 1
                yield (
                    Attachment,
                    {
                        "id": f"A{mailer.attachment:06d}",
                        "mail_id": row[1]["id"],
                        "filename": attachment,
                        "size_kb": rng.randint(20, 4000),
                    },
                )
        outsider = {"email": f"{fake.user_name()}@{rng.choice(EXTERNAL_DOMAINS)}", "name": undoubled(fake.name)}
        subject, body = texts.outside_mail(writer, owner, outsider["name"])
        yield mailer.message(
            owner,
            mailer.thread_id(),
            outsider,
            subject,
            body,
            _at_work(owner, NOW - dt.timedelta(hours=rng.randint(1, 200)), body),  # sent in the owner's working day
            unread=True,
        )


def _at_work(person: dict[str, Any], latest: dt.datetime, text: str) -> dt.datetime:
    """When `person` sent `text`, at or before `latest`, as naive UTC: on a weekday inside their
    working hours in their own zone, to the minute, in the part of the day the text speaks of
    ("Morning Erin," before noon). The minute comes from its own seed, so the world's other draws stay."""
    pick = random.Random(f"{person['email']}|{latest.isoformat()}|{text}")
    first, last = _day_part(text)
    zone = ZoneInfo(person.get("time_zone") or "UTC")
    upto = latest.replace(tzinfo=dt.UTC).astimezone(zone)
    day = upto.date()
    while True:
        start = dt.datetime.combine(day, dt.time(first), zone)
        end = min(dt.datetime.combine(day, dt.time(last), zone), upto)
        if day.weekday() < 5 and end > start:
            moment = start + dt.timedelta(minutes=pick.randrange(int((end - start).total_seconds()) // 60))
            return moment.astimezone(dt.UTC).replace(tzinfo=None)
        day -= dt.timedelta(days=1)


_MORNING = re.compile(r"^(?:Good )?Morning\b|\bthis morning\b(?!'s)|\blunch today\b|\bby lunch\b", re.IGNORECASE | re.MULTILINE)
_AFTERNOON = re.compile(r"\bthis afternoon\b|\blater in the afternoon\b", re.IGNORECASE)


def _day_part(text: str) -> tuple[int, int]:
    """The local hours a message fits in: a morning greeting or "this morning" before noon, "this
    afternoon" after it; else the whole working day."""
    if _MORNING.search(text):
        return WORK_START, 12
    if _AFTERNOON.search(text):
        return 12, WORK_END
    return WORK_START, WORK_END


def _workday_start(rng: random.Random, person: dict[str, Any], day: dt.date, minutes: int) -> dt.datetime:
    """A start inside the person's working hours on `day`, as naive UTC."""
    return _workday_at(person, day, rng.randrange((WORK_END - WORK_START) * 2 - minutes // 30))


def _workday_at(person: dict[str, Any], day: dt.date, half_hours: int) -> dt.datetime:
    """`half_hours` half hours after the start of the person's working day on `day`, as naive UTC."""
    local = dt.datetime.combine(day, dt.time(WORK_START)) + dt.timedelta(minutes=30 * half_hours)
    return local.replace(tzinfo=ZoneInfo(person["time_zone"])).astimezone(dt.UTC).replace(tzinfo=None)


def _free_start(
    event_id: str,
    invited: list[dict[str, Any]],
    held: dict[str, list[tuple[dt.datetime, dt.datetime]]],
    drawn: dt.datetime | None,
    minutes: int,
    days: list[dt.date],
) -> dt.datetime | None:
    """A start (naive UTC) inside every invitee's working hours and over none of their events:
    the one drawn if it fits, else one of the half hours that do (drawn from the event's own seed,
    so the world's other draws stay as they were); None when none does."""

    def fits(start: dt.datetime) -> bool:
        end = start + dt.timedelta(minutes=minutes)
        for person in invited:
            begin, close = _working_hours(person, start)
            if not begin <= start < end <= close:
                return False
            if any(s < end and start < e for s, e in held.get(person["id"], ())):
                return False
        return True

    if drawn is not None and fits(drawn):
        return drawn
    organizer = invited[0]
    starts = [
        _workday_at(organizer, day, half)
        for day in days
        for half in range((WORK_END - WORK_START) * 2 - minutes // 30)
    ]
    free = [start for start in starts if fits(start)]
    return random.Random(event_id).choice(free) if free else None


def _working_hours(person: dict[str, Any], moment: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """The person's working hours (naive UTC) on the weekday of their own zone that `moment` falls on;
    an empty span on their weekend."""
    zone = ZoneInfo(person["time_zone"])
    day = moment.replace(tzinfo=dt.UTC).astimezone(zone).date()
    if day.weekday() >= 5:
        return moment, moment
    begin, close = (dt.datetime.combine(day, dt.time(hour), zone).astimezone(dt.UTC).replace(tzinfo=None) for hour in (WORK_START, WORK_END))
    return begin, close


def _events(rng: random.Random, people: list[dict[str, Any]]) -> Iterator[Row]:
    days = [
        NOW.date() + dt.timedelta(days=d)
        for d in range(-1, 10)
        if (NOW.date() + dt.timedelta(days=d)).weekday() < 5
    ]
    same_team: dict[str, list[dict[str, Any]]] = {}
    for p in people:
        same_team.setdefault(p["team"], []).append(p)
    number = 0
    held: dict[str, list[tuple[dt.datetime, dt.datetime]]] = {}  # a person's events so far, as UTC spans
    for organizer in people:
        for _ in range(rng.randint(3, 5)):
            number += 1
            event_id = f"EV{number:05d}"
            minutes = rng.choice((30, 30, 60, 60, 45, 90))
            start = _workday_start(rng, organizer, rng.choice(days), minutes)
            team = [p for p in same_team[organizer["team"]] if p["id"] != organizer["id"]]
            others = rng.sample(team, min(len(team), rng.randint(1, 3))) + rng.sample(
                people, rng.randint(0, 1)
            )
            topic = rng.choice(MEETING_TOPICS)
            drawn = [organizer, *{p["id"]: p for p in others if p["id"] != organizer["id"]}.values()]
            # the drawn time if it suits everyone, else another that does, else one that suits fewer
            # of them (the last invited dropped first)
            invited, placed = drawn, None
            while invited and (placed := _free_start(event_id, invited, held, start, minutes, days)) is None:
                invited = invited[:-1]
            # every value is drawn as before, placed or not, so the world's later draws stay as they were
            location, recurrence = rng.choice(LOCATIONS), rng.choice(("none", "none", "none", "weekly", "daily"))
            responses = {p["id"]: rng.choice(("accepted", "accepted", "tentative", "needs_action", "declined")) for p in drawn[1:]}
            if placed is None:
                continue  # the organiser's fortnight is full
            for person in invited:
                held.setdefault(person["id"], []).append((placed, placed + dt.timedelta(minutes=minutes)))
            yield (
                Event,
                {
                    "id": event_id,
                    "organizer_id": organizer["id"],
                    "title": topic.capitalize()
                    if topic.startswith(organizer["team"].lower())
                    else f"{organizer['team']} {topic}",
                    "start": placed,
                    "end": placed + dt.timedelta(minutes=minutes),
                    "location": location,
                    "recurrence": recurrence,
                },
            )
            for person in invited:
                yield (
                    Attendee,
                    {
                        "id": f"{event_id}/{person['id']}",
                        "event_id": event_id,
                        "employee_id": person["id"],
                        "response": responses.get(person["id"], "accepted"),  # the organiser's own: accepted
                    },
                )

def _chat(writer: texts.Writer, people: list[dict[str, Any]]) -> Iterator[Row]:
    rng = writer.rng
    for number, name in enumerate(CHANNEL_NAMES, start=1):
        yield Channel, {"id": f"C{number:03d}", "name": name, "topic": texts.channel_topic(writer, name)}
    for number in range(1, len(people) * 4 + 1):
        author = rng.choice(people)
        if rng.random() < 0.25:  # a direct message, to someone else
            reader = rng.choice([p for p in people if p["id"] != author["id"]])
            channel, text = None, texts.direct_message(writer, author, reader)
        else:
            reader, channel = None, rng.randint(1, len(CHANNEL_NAMES))
            text = texts.chat_message(writer, author, CHANNEL_NAMES[channel - 1])
        yield (
            ChatMessage,
            {
                "id": f"H{number:06d}",
                "author_id": author["id"],
                "channel_id": None if channel is None else f"C{channel:03d}",
                "recipient_id": None if reader is None else reader["id"],
                "text": text,
                "sent_at": _at_work(author, NOW - dt.timedelta(minutes=rng.randint(5, 60 * 24 * 7)), text),
            },
        )


TODO_VERBS = (
    "Review",
    "Send",
    "Update",
    "Draft",
    "Book",
    "Prepare",
    "Follow up on",
    "Approve",
    "File",
    "Plan",
)
TODO_OBJECTS = (
    "the expense report",
    "slides for Friday",
    "the travel request",
    "the onboarding notes",
    "the vendor contract",
    "the team survey",
    "interview feedback",
    "the release notes",
    "the board memo",
    "the Q2 forecast",
    "the offsite agenda",
    "the security training",
    "the access request",
    "the client proposal",
)


# the order the steps of one piece of work come in: a draft is due before its review, its sending last
TODO_STAGES = ("Plan", "Prepare", "Draft", "Book", "Update", "Review", "Approve", "Follow up on", "Send", "File")


def _todos(rng: random.Random, people: list[dict[str, Any]]) -> Iterator[Row]:
    number = 0
    for person in people:
        titles = {f"{rng.choice(TODO_VERBS)} {rng.choice(TODO_OBJECTS)}" for _ in range(rng.randint(3, 6))}
        rows = []
        for title in sorted(titles):
            number += 1
            due = NOW.date() + dt.timedelta(days=rng.randint(-3, 20)) if rng.random() < 0.8 else None
            status = rng.choice(("open", "open", "open", "done"))
            rows.append({"id": f"K{number:05d}", "owner_id": person["id"], "title": title, "due": due, "status": status})
        yield from ((Todo, row) for row in _in_stage_order(rows))


def _in_stage_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tasks with the due days of those about one thing ("Draft the memo", "Send the memo")
    swapped into the order their steps come in."""
    def stage(title: str) -> tuple[str, int]:
        verb = next(v for v in sorted(TODO_STAGES, key=len, reverse=True) if title.startswith(f"{v} "))
        return title.removeprefix(f"{verb} "), TODO_STAGES.index(verb)

    by_object: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_object.setdefault(stage(row["title"])[0], []).append(row)
    for same in by_object.values():
        dated = sorted((r for r in same if r["due"] is not None), key=lambda r: stage(r["title"])[1])
        for row, due in zip(dated, sorted(r["due"] for r in dated), strict=True):
            row["due"] = due
    return rows
