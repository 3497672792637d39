"""What the generators draw from, listed once per built world (a generator must stay ~1 ms).

Everything is grouped by the person who would be signed in, since a task plays one employee.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from dataclasses import dataclass, field

from toolgym.envs import World, world_index

from ..catalogue import DECISIONS, NOW
from ..tables import (
    Attendee,
    Channel,
    ChannelBase,
    ChatMessage,
    ChatMessageBase,
    Document,
    DocumentBase,
    Employee,
    EmployeeBase,
    Event,
    EventBase,
    Mail,
    MailBase,
    Permission,
    Todo,
    TodoBase,
)
from ..tools.common import local_text

TOMORROW = NOW.date() + dt.timedelta(days=1)
_FACT_LINE = re.compile(r"^(Owner|Deadline|Budget|Status): (.+)$", re.M)
_QUOTED = re.compile(r'"([^"]+)"')


@dataclass
class Mention:
    """A colleague's latest mail to the person, naming one of the person's own files."""

    mail: MailBase
    sender: EmployeeBase
    file: DocumentBase


@dataclass
class Decision:
    thread_id: str
    topic: str
    choice: str
    last: MailBase  # the message that settles it
    sender: EmployeeBase


@dataclass
class Meeting:
    event: EventBase
    day: str  # the person's local date
    start: str  # the person's local start time
    others: list[EmployeeBase]  # attendees other than the person
    response: str  # the person's own answer to it


@dataclass
class Desk:
    """One employee's world, as they would see it signed in."""

    person: EmployeeBase
    mentions: list[Mention] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    readable: list[DocumentBase] = field(default_factory=list)
    owned: list[DocumentBase] = field(default_factory=list)
    organised: list[Meeting] = field(default_factory=list)  # future, confirmed, titles unique that day
    invited: list[Meeting] = field(default_factory=list)  # future events someone else organises
    open_todos: list[TodoBase] = field(default_factory=list)
    latest_from: dict[str, MailBase] = field(
        default_factory=dict
    )  # sender email -> latest mail (colleagues only)


@dataclass
class Index:
    people: dict[str, EmployeeBase]
    desks: dict[str, Desk]
    facts: dict[
        str, dict[str, str]
    ]  # file id -> {'Owner': ..., 'Deadline': ..., 'Budget': ..., 'Status': ...}
    grants: dict[str, set[str]]  # file id -> emails it is shared with
    channels: list[ChannelBase]
    by_team: dict[str, list[EmployeeBase]]
    chat: dict[str, list[ChatMessageBase]]  # channel id -> its messages, newest first

    def desk_list(self) -> list[Desk]:
        return list(self.desks.values())


@world_index
def index_of(world: World) -> Index:
    people = {p.id: p for p in world.select(Employee, order_by="id")}
    by_email = {p.email: p for p in people.values()}
    desks = {p.id: Desk(p) for p in people.values()}
    docs = {d.id: d for d in world.select(Document, order_by="id")}
    grants: dict[str, set[str]] = defaultdict(set)
    for grant in world.select(Permission, order_by="id"):
        grants[grant.file_id].add(grant.grantee)
        if grant.grantee in by_email:
            desks[by_email[grant.grantee].id].readable.append(docs[grant.file_id])
    facts = {d.id: dict(_FACT_LINE.findall(d.content)) for d in docs.values()}
    by_title = {d.title: d for d in docs.values()}
    for doc in docs.values():
        desks[doc.owner_id].owned.append(doc)
        desks[doc.owner_id].readable.append(doc)
    _mailboxes(world, people, by_email, by_title, desks)
    _calendars(world, people, desks)
    for todo in world.select(Todo, {"status": "open"}, order_by="id"):
        desks[todo.owner_id].open_todos.append(todo)
    by_team: dict[str, list[EmployeeBase]] = defaultdict(list)
    for p in people.values():
        by_team[p.team].append(p)
    chat: dict[str, list[ChatMessageBase]] = defaultdict(list)
    for message in sorted(world.select(ChatMessage), key=lambda m: (m.sent_at, m.id), reverse=True):
        if message.channel_id:
            chat[message.channel_id].append(message)
    return Index(
        people, desks, facts, dict(grants), world.select(Channel, order_by="name"), dict(by_team), dict(chat)
    )


def _mailboxes(world: World, people, by_email, by_title, desks: dict[str, Desk]) -> None:
    threads: dict[str, list[MailBase]] = defaultdict(list)
    for mail in world.select(Mail, order_by="sent_at"):
        threads[mail.thread_id].append(mail)
        if mail.sender in by_email and mail.sender != people[mail.owner_id].email:
            desks[mail.owner_id].latest_from[mail.sender] = mail  # ordered by time: the last one wins
    for desk in desks.values():
        for mail in desk.latest_from.values():
            sender = by_email[mail.sender]
            quoted = _QUOTED.search(mail.body)
            named = by_title.get(quoted.group(1)) if quoted else None
            if named is not None and named.owner_id == desk.person.id and _unique_sender(desk, sender):
                desk.mentions.append(Mention(mail, sender, named))
    topics = {f"The {t}": t for t in DECISIONS}
    for messages in threads.values():
        first, last = messages[0], messages[-1]
        if first.subject in topics and len(messages) >= 3:
            topic = topics[first.subject]
            choice = next(c for c in DECISIONS[topic] if c in last.body)
            desks[first.owner_id].decisions.append(
                Decision(first.thread_id, topic, choice, last, by_email[last.sender])
            )


def _unique_sender(desk: Desk, sender: EmployeeBase) -> bool:
    """Whether a search by the sender's full name finds only their mail in this mailbox."""
    name = sender.name.lower()
    return sum(1 for m in desk.latest_from.values() if name in m.sender_name.lower()) == 1


def _calendars(world: World, people: dict[str, EmployeeBase], desks: dict[str, Desk]) -> None:
    guests: dict[str, list[str]] = defaultdict(list)
    answers: dict[tuple[str, str], str] = {}
    for a in world.select(Attendee, order_by="id"):
        guests[a.event_id].append(a.employee_id)
        answers[(a.event_id, a.employee_id)] = a.response
    events = [e for e in world.select(Event, {"status": "confirmed"}, order_by="id") if e.start > NOW]
    for event in events:
        for person_id in guests[event.id]:
            person = people[person_id]
            start = local_text(event.start, person.time_zone)
            others = [people[g] for g in guests[event.id] if g != person_id]
            meeting = Meeting(event, start[:10], start, others, answers[(event.id, person_id)])
            desk = desks[person_id]
            (desk.organised if event.organizer_id == person_id else desk.invited).append(meeting)
    for desk in desks.values():
        for attr in ("organised", "invited"):
            meetings = getattr(desk, attr)
            count: dict[tuple[str, str], int] = defaultdict(int)
            for m in desk.organised + desk.invited:
                count[(m.day, m.event.title)] += 1
            setattr(desk, attr, [m for m in meetings if count[(m.day, m.event.title)] == 1])
