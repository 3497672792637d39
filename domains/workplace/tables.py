"""The workplace tables, on the domain's own registry.

Times are stored as naive UTC datetimes; tools show them in the signed-in person's time zone.
Each table is a plain field model (what the World hands back) beside its table class.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class WorkplaceTable(SQLModel, registry=registry()):
    pass


class EmployeeBase(SQLModel):
    id: str = Field(primary_key=True)  # E0042
    name: str = Field(index=True)
    email: str = Field(index=True)
    team: str
    title: str
    manager_id: str | None = None
    office: str
    time_zone: str  # an IANA name: working hours are 9:00-17:00 there


class Employee(EmployeeBase, WorkplaceTable, table=True):
    __tablename__ = "employee"


class SessionBase(SQLModel):
    """Who is signed in: the one row (id 1) a task's setup points at its employee."""

    id: int = Field(primary_key=True)
    employee_id: str


class Session(SessionBase, WorkplaceTable, table=True):
    __tablename__ = "session"


class MailBase(SQLModel):
    """One message in one person's mailbox (a sent message is a copy in the sender's 'sent')."""

    id: str = Field(primary_key=True)  # M000042
    owner_id: str = Field(index=True)
    folder: str = "inbox"  # inbox | archive | sent | projects | spam
    thread_id: str = Field(index=True)
    sender: str  # an email address
    sender_name: str
    to: str  # the To header: addresses joined by ", "
    subject: str
    body: str
    sent_at: dt.datetime
    unread: bool = False
    flagged: bool = False


class Mail(MailBase, WorkplaceTable, table=True):
    __tablename__ = "mail"


class AttachmentBase(SQLModel):
    id: str = Field(primary_key=True)
    mail_id: str = Field(index=True)
    filename: str
    size_kb: int


class Attachment(AttachmentBase, WorkplaceTable, table=True):
    __tablename__ = "attachment"


class EventBase(SQLModel):
    id: str = Field(primary_key=True)  # EV00042
    organizer_id: str = Field(index=True)
    title: str
    start: dt.datetime  # UTC
    end: dt.datetime  # UTC
    location: str = ""
    recurrence: str = "none"  # none | daily | weekly (each occurrence is its own row)
    status: str = "confirmed"  # confirmed | cancelled


class Event(EventBase, WorkplaceTable, table=True):
    __tablename__ = "event"


class AttendeeBase(SQLModel):
    id: str = Field(primary_key=True)  # "<event id>/<employee id>"
    event_id: str = Field(index=True)
    employee_id: str = Field(index=True)
    response: str = "needs_action"  # accepted | tentative | declined | needs_action


class Attendee(AttendeeBase, WorkplaceTable, table=True):
    __tablename__ = "attendee"


class DocumentBase(SQLModel):
    id: str = Field(primary_key=True)  # F00042
    owner_id: str = Field(index=True)
    title: str
    folder: str
    content: str
    updated_at: dt.datetime


class Document(DocumentBase, WorkplaceTable, table=True):
    __tablename__ = "document"


class PermissionBase(SQLModel):
    id: str = Field(primary_key=True)  # "<file id>/<grantee>"
    file_id: str = Field(index=True)
    grantee: str = Field(index=True)  # an email address, or "anyone" for a public link
    level: str  # view | comment | edit


class Permission(PermissionBase, WorkplaceTable, table=True):
    __tablename__ = "permission"


class ChannelBase(SQLModel):
    id: str = Field(primary_key=True)  # C042
    name: str = Field(index=True)  # without the '#'
    topic: str


class Channel(ChannelBase, WorkplaceTable, table=True):
    __tablename__ = "channel"


class ChatMessageBase(SQLModel):
    """A message in a channel (channel_id set) or a direct message (recipient_id set)."""

    id: str = Field(primary_key=True)  # H000042
    author_id: str = Field(index=True)
    channel_id: str | None = Field(default=None, index=True)
    recipient_id: str | None = Field(default=None, index=True)
    text: str
    sent_at: dt.datetime


class ChatMessage(ChatMessageBase, WorkplaceTable, table=True):
    __tablename__ = "chat_message"


class TodoBase(SQLModel):
    id: str = Field(primary_key=True)  # K0042
    owner_id: str = Field(index=True)
    title: str
    due: dt.date | None = None
    status: str = "open"  # open | done


class Todo(TodoBase, WorkplaceTable, table=True):
    __tablename__ = "todo"


ALL_TABLES = [
    Employee,
    Session,
    Mail,
    Attachment,
    Event,
    Attendee,
    Document,
    Permission,
    Channel,
    ChatMessage,
    Todo,
]
