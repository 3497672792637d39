"""Mail: search, read messages and threads, send, reply, forward, move and flag."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from toolgym.envs import Record, World, tool
from toolgym.errors import ToolError

from ..tables import Attachment, Mail, MailBase
from .common import local_text, me

Folder = Literal["inbox", "archive", "sent", "projects", "spam"]
SEARCH_LIMIT = 10
_MESSAGE = Record("message_id", "mail")  # a message of the signed-in person's own mailbox


class MessageSummary(BaseModel):
    message_id: str
    thread_id: str
    folder: str
    sender: str
    sender_name: str
    subject: str
    sent_at: str  # the signed-in person's local time
    unread: bool
    flagged: bool


class Message(MessageSummary):
    to: str
    body: str
    attachments: list[str]


def _summary(row: MailBase, time_zone: str) -> MessageSummary:
    return MessageSummary(
        message_id=row.id,
        thread_id=row.thread_id,
        folder=row.folder,
        sender=row.sender,
        sender_name=row.sender_name,
        subject=row.subject,
        sent_at=local_text(row.sent_at, time_zone),
        unread=row.unread,
        flagged=row.flagged,
    )


def _message(world: World, row: MailBase, time_zone: str) -> Message:
    files = [a.filename for a in world.select(Attachment, {"mail_id": row.id}, order_by="id")]
    return Message(**_summary(row, time_zone).model_dump(), to=row.to, body=row.body, attachments=files)


def _own_message(world: World, message_id: str) -> MailBase:
    row = world.get(Mail, message_id.strip())
    if row is None or row.owner_id != me(world).id:
        raise ToolError(
            f"no message {message_id!r} in your mailbox; search_email gives message ids such as 'M000042'"
        )
    return row


@tool
def search_email(
    world: World,
    sender: str = "",
    text: str = "",
    folder: Folder | None = None,
    unread_only: bool = False,
) -> list[MessageSummary]:
    """Search your mailbox, newest first (up to 10 messages). Every filter given must match.

    Args:
        sender: Part of the sender's name or address, such as 'Dana Ruiz' or 'dana.ruiz@'; empty for anyone.
        text: Words that must appear in the subject or the body; empty for any.
        folder: Only this folder; omit to search every folder.
        unread_only: True to list only unread messages.
    """
    who = me(world)
    sql = ["SELECT id FROM mail WHERE owner_id = ?"]
    params: list[object] = [who.id]
    if sender.strip():
        sql.append("AND (lower(sender_name) LIKE ? OR sender LIKE ?)")
        params += [f"%{sender.strip().lower()}%"] * 2
    if text.strip():
        sql.append("AND (lower(subject) LIKE ? OR lower(body) LIKE ?)")
        params += [f"%{text.strip().lower()}%"] * 2
    if folder:
        sql.append("AND folder = ?")
        params.append(folder)
    if unread_only:
        sql.append("AND unread = 1")
    sql.append(f"ORDER BY sent_at DESC, id DESC LIMIT {SEARCH_LIMIT}")
    rows = [world.require(Mail, r[0]) for r in world.query(" ".join(sql), params)]
    return [_summary(r, who.time_zone) for r in rows]


@tool
def read_message(world: World, message_id: str) -> Message:
    """Read one message of your mailbox in full: sender, recipients, body and attachment names.

    Args:
        message_id: The message id from search_email, such as 'M000042'.
    """
    return _message(world, _own_message(world, message_id), me(world).time_zone)


@tool
def read_thread(world: World, thread_id: str) -> list[Message]:
    """Read every message of a thread in your mailbox, oldest first.

    Args:
        thread_id: The thread id from search_email, such as 'T00042'.
    """
    who = me(world)
    rows = world.select(Mail, {"thread_id": thread_id.strip(), "owner_id": who.id}, order_by="sent_at")
    if not rows:
        raise ToolError(
            f"no thread {thread_id!r} in your mailbox; search_email gives thread ids such as 'T00042'"
        )
    return [_message(world, r, who.time_zone) for r in rows]


def _deliver(world: World, subject: str, body: str, to: list[str], thread_id: str | None = None) -> Message:
    """Files a sent copy in the signed-in person's 'sent' folder (the copy is what the tool returns)."""
    who = me(world)
    if not to:
        raise ToolError("no recipient given; pass at least one email address in 'to'")
    bad = [a for a in to if "@" not in a or " " in a.strip()]
    if bad:
        raise ToolError(
            f"{bad[0]!r} is not an email address; give addresses like 'dana.ruiz@brightwell.example'"
        )
    if not body.strip():
        raise ToolError("the message body is empty; say what the message should say")
    number = world.new_id("mail", table="mail")
    row = world.insert(
        Mail,
        {
            "id": f"M{number:06d}",
            "owner_id": who.id,
            "folder": "sent",
            "thread_id": thread_id or f"T{world.new_id('thread', start=90000):05d}",
            "sender": who.email,
            "sender_name": who.name,
            "to": ", ".join(a.strip().lower() for a in to),
            "subject": subject.strip(),
            "body": body.strip(),
            "sent_at": world.now,
        },
    )
    return _message(world, row, who.time_zone)


@tool(writes=True)
def send_email(world: World, to: list[str], subject: str, body: str) -> Message:
    """Send a new email from your address.

    Args:
        to: The recipients' email addresses.
        subject: The subject line.
        body: The message text.
    """
    if not subject.strip():
        raise ToolError("the subject is empty; give the email a subject line")
    return _deliver(world, subject, body, to)


@tool(writes=True, acts_on=_MESSAGE, area="email")
def reply_to_message(world: World, message_id: str, body: str) -> Message:
    """Reply to the sender of a message in your mailbox, in the same thread.

    Args:
        message_id: The message id to answer, such as 'M000042'.
        body: The reply text.
    """
    original = _own_message(world, message_id)
    if original.sender == me(world).email:
        raise ToolError(f"message {message_id} was sent by you; reply to a message someone else sent")
    subject = original.subject if original.subject.startswith("Re:") else f"Re: {original.subject}"
    return _deliver(world, subject, body, [original.sender], original.thread_id)


@tool(writes=True, acts_on=_MESSAGE, area="email")
def forward_message(world: World, message_id: str, to: list[str], note: str = "") -> Message:
    """Forward a message of your mailbox (with its attachments) to other people.

    Args:
        message_id: The message id to forward, such as 'M000042'.
        to: The email addresses to forward it to.
        note: An optional line written above the forwarded message.
    """
    original = _own_message(world, message_id)
    body = f"{note.strip()}\n\n---------- Forwarded message ----------\nFrom: {original.sender_name} <{original.sender}>\n{original.body}"
    return _deliver(world, f"Fwd: {original.subject}", body.strip(), to)


@tool(writes=True, acts_on=_MESSAGE, area="email")
def move_message(world: World, message_id: str, folder: Folder) -> MessageSummary:
    """Move a message of your mailbox to another folder.

    Args:
        message_id: The message id, such as 'M000042'.
        folder: The folder to move it to.
    """
    row = _own_message(world, message_id)
    if row.folder == folder:
        raise ToolError(f"message {message_id} is already in {folder}; pick another folder")
    return _summary(world.update(Mail, row.id, folder=folder), me(world).time_zone)


@tool(writes=True, acts_on=_MESSAGE, area="email")
def mark_message(
    world: World, message_id: str, mark: Literal["read", "unread", "flagged", "unflagged"]
) -> MessageSummary:
    """Mark a message of your mailbox as read or unread, or set or clear its flag.

    Args:
        message_id: The message id, such as 'M000042'.
        mark: What to set: 'read', 'unread', 'flagged' or 'unflagged'.
    """
    row = _own_message(world, message_id)
    changes = {
        "read": {"unread": False},
        "unread": {"unread": True},
        "flagged": {"flagged": True},
        "unflagged": {"flagged": False},
    }[mark]
    if all(getattr(row, k) == v for k, v in changes.items()):
        raise ToolError(f"message {message_id} is already {mark}; nothing to change")
    return _summary(world.update(Mail, row.id, **changes), me(world).time_zone)


MAIL_TOOLS = [
    search_email,
    read_message,
    read_thread,
    send_email,
    reply_to_message,
    forward_message,
    move_message,
    mark_message,
]
