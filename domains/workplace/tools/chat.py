"""Chat channels and direct messages, and the personal task list."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel

from toolgym.envs import Record, World, tool
from toolgym.errors import ToolError

from ..tables import Channel, ChannelBase, ChatMessage, Employee, Todo, TodoBase
from .common import colleague_by_email, local_text, me, parse_day

SEARCH_LIMIT = 10


class ChatLine(BaseModel):
    message_id: str
    where: str  # '#channel' or 'direct message'
    author: str  # the author's email
    author_name: str  # as a chat shows who wrote: a person, not only an address
    text: str
    sent_at: str


def _line(world: World, row: ChatMessage, time_zone: str, where: str) -> ChatLine:
    author = world.require(Employee, row.author_id, "employee")
    return ChatLine(
        message_id=row.id,
        where=where,
        author=author.email,
        author_name=author.name,
        text=row.text,
        sent_at=local_text(row.sent_at, time_zone),
    )


def _channel(world: World, name: str) -> ChannelBase:
    found = world.select(Channel, {"name": name.strip().lstrip("#").lower()})
    if not found:
        names = ", ".join(f"#{c.name}" for c in world.select(Channel, order_by="name"))
        raise ToolError(f"no channel {name!r}; the channels are {names}")
    return found[0]


@tool
def list_channels(world: World) -> list[ChannelBase]:
    """List the organisation's chat channels and their topics."""
    return world.select(Channel, order_by="name")


@tool
def search_messages(world: World, text: str, channel: str = "") -> list[ChatLine]:
    """Search chat messages in channels and your direct messages, newest first (up to 10).

    Args:
        text: Words the message must contain.
        channel: Only this channel, such as '#design'; empty for every channel and your direct messages.
    """
    who = me(world)
    words = f"%{text.strip().lower()}%"
    if channel.strip():
        found = _channel(world, channel)
        rows = world.query(
            f"SELECT id, channel_id FROM chat_message WHERE channel_id = ? AND lower(text) LIKE ? ORDER BY sent_at DESC LIMIT {SEARCH_LIMIT}",
            (found.id, words),
        )
    else:
        rows = world.query(
            "SELECT id, channel_id FROM chat_message WHERE lower(text) LIKE ? AND (channel_id IS NOT NULL OR author_id = ? "
            f"OR recipient_id = ?) ORDER BY sent_at DESC LIMIT {SEARCH_LIMIT}",
            (words, who.id, who.id),
        )
    names = {c.id: f"#{c.name}" for c in world.select(Channel)}
    return [
        _line(world, world.require(ChatMessage, r[0]), who.time_zone, names.get(r[1], "direct message"))
        for r in rows
    ]


def _post(world: World, text: str, channel_id: str | None, recipient_id: str | None, where: str) -> ChatLine:
    if not text.strip():
        raise ToolError("the message is empty; say what to post")
    who = me(world)
    number = world.new_id("chat_message", table="chat_message")
    row = world.insert(
        ChatMessage,
        {
            "id": f"H{number:06d}",
            "author_id": who.id,
            "channel_id": channel_id,
            "recipient_id": recipient_id,
            "text": text.strip(),
            "sent_at": world.now,
        },
    )
    return _line(world, row, who.time_zone, where)


@tool(writes=True, area="chat messages")
def post_to_channel(world: World, channel: str, text: str) -> ChatLine:
    """Post a message to a chat channel.

    Args:
        channel: The channel's name, such as '#design'.
        text: The message to post.
    """
    found = _channel(world, channel)
    return _post(world, text, found.id, None, f"#{found.name}")


@tool(writes=True, area="chat messages")
def send_direct_message(world: World, email: str, text: str) -> ChatLine:
    """Send a direct chat message to a colleague.

    Args:
        email: The colleague's email address.
        text: The message.
    """
    colleague = colleague_by_email(world, email)
    if colleague.id == me(world).id:
        raise ToolError("that is your own address; send the message to a colleague")
    return _post(world, text, None, colleague.id, "direct message")


class TodoView(BaseModel):
    task_id: str
    title: str
    due: str | None
    status: str


def _todo(row: TodoBase) -> TodoView:
    return TodoView(
        task_id=row.id, title=row.title, due=row.due.isoformat() if row.due else None, status=row.status
    )


@tool
def list_tasks(world: World, status: Literal["open", "done", "all"] = "open") -> list[TodoView]:
    """List the tasks on your task list, by due date.

    Args:
        status: 'open', 'done' or 'all'.
    """
    where = {"owner_id": me(world).id} | ({} if status == "all" else {"status": status})
    rows = world.select(Todo, where, order_by="id")
    return [_todo(r) for r in sorted(rows, key=lambda r: (r.due is None, r.due or dt.date.max, r.id))]


@tool(writes=True)
def create_task(world: World, title: str, due: str = "") -> TodoView:
    """Add a task to your task list.

    Args:
        title: What has to be done.
        due: The due date as YYYY-MM-DD; empty for none.
    """
    if not title.strip():
        raise ToolError("the title is empty; say what the task is")
    day = parse_day(due) if due.strip() else None
    number = world.new_id("todo", table="todo")
    row = world.insert(
        Todo, {"id": f"K{number:05d}", "owner_id": me(world).id, "title": title.strip(), "due": day}
    )
    return _todo(row)


@tool(writes=True, acts_on=Record("task_id", "todo"))
def complete_task(world: World, task_id: str) -> TodoView:
    """Mark a task of your task list as done.

    Args:
        task_id: The task id from list_tasks, such as 'K00042'.
    """
    row = world.get(Todo, task_id.strip())
    if row is None or row.owner_id != me(world).id:
        raise ToolError(f"no task {task_id!r} on your list; list_tasks gives task ids such as 'K00042'")
    if row.status == "done":
        raise ToolError(f"task {task_id} is already done")
    return _todo(world.update(Todo, row.id, status="done"))


CHAT_TOOLS = [list_channels, search_messages, post_to_channel, send_direct_message]
TASK_TOOLS = [list_tasks, create_task, complete_task]
