"""Documents: search, read, create, and share with a permission level."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from toolgym.envs import Record, World, tool
from toolgym.errors import ToolError

from ..tables import Document, DocumentBase, Employee, Permission
from .common import local_text, me

Level = Literal["view", "comment", "edit"]
SEARCH_LIMIT = 8


class Grant(BaseModel):
    grantee: str
    level: str


class FileSummary(BaseModel):
    file_id: str
    title: str
    folder: str
    owner: str  # the owner's email
    updated_at: str


class FileView(FileSummary):
    content: str
    shared_with: list[Grant]


def _grants(world: World, file_id: str) -> list[Grant]:
    return [
        Grant(grantee=p.grantee, level=p.level)
        for p in world.select(Permission, {"file_id": file_id}, order_by="id")
    ]


def _summary(world: World, doc: DocumentBase, time_zone: str) -> FileSummary:
    owner = world.require(Employee, doc.owner_id, "employee")
    return FileSummary(
        file_id=doc.id,
        title=doc.title,
        folder=doc.folder,
        owner=owner.email,
        updated_at=local_text(doc.updated_at, time_zone),
    )


def _readable(world: World, file_id: str) -> DocumentBase:
    who = me(world)
    doc = world.get(Document, file_id.strip())
    if doc is not None and (
        doc.owner_id == who.id or world.get(Permission, f"{doc.id}/{who.email}") is not None
    ):
        return doc
    raise ToolError(f"no file {file_id!r} that you can open; search_files gives file ids such as 'F00042'")


@tool
def search_files(world: World, query: str) -> list[FileSummary]:
    """Search the files you own or that are shared with you, by words of their title or text (up to 8, newest first).

    Args:
        query: Words to look for, such as 'Q2 budget'.
    """
    who = me(world)
    text = query.strip().lower()
    if len(text) < 2:
        raise ToolError(f"query {query!r} is too short; give a word or two of the file's title")
    rows = world.query(  # the person's own and shared files first (both indexed), then the words
        "SELECT d.id FROM document d WHERE d.id IN (SELECT id FROM document WHERE owner_id = ? UNION "
        "SELECT file_id FROM permission WHERE grantee = ?) AND (lower(d.title) LIKE ? OR lower(d.content) LIKE ?) "
        f"ORDER BY (lower(d.title) LIKE ?) DESC, d.updated_at DESC LIMIT {SEARCH_LIMIT}",
        (who.id, who.email, f"%{text}%", f"%{text}%", f"%{text}%"),
    )
    return [_summary(world, world.require(Document, r[0]), who.time_zone) for r in rows]


@tool
def read_file(world: World, file_id: str) -> FileView:
    """Read a file you can open: its full text and who it is shared with.

    Args:
        file_id: The file id from search_files, such as 'F00042'.
    """
    doc = _readable(world, file_id)
    summary = _summary(world, doc, me(world).time_zone)
    return FileView(**summary.model_dump(), content=doc.content, shared_with=_grants(world, doc.id))


@tool(writes=True, area="documents")
def create_file(
    world: World,
    title: str,
    content: str,
    folder: Literal["Shared", "Planning", "Reports", "Drafts", "Projects"],
) -> FileSummary:
    """Create a new file that you own.

    Args:
        title: The file's title.
        content: The file's text.
        folder: The folder to put it in.
    """
    who = me(world)
    if not title.strip():
        raise ToolError("the title is empty; give the file a title")
    number = world.new_id("document", table="document")
    doc = world.insert(
        Document,
        {
            "id": f"F{number:05d}",
            "owner_id": who.id,
            "title": title.strip(),
            "folder": folder,
            "content": content,
            "updated_at": world.now,
        },
    )
    return _summary(world, doc, who.time_zone)


class Sharing(FileSummary):
    shared_with: list[Grant]


@tool(writes=True, acts_on=Record("file_id", "document"), area="documents")
def share_file(world: World, file_id: str, email: str, level: Level) -> Sharing:
    """Share a file you own with someone (they get a link to it by email), or change their permission level. 'anyone' as the email makes a public link.

    Args:
        file_id: The file id, such as 'F00042'.
        email: The person's email address, or 'anyone' for a public link.
        level: 'view' (read-only), 'comment' or 'edit'.
    """
    who = me(world)
    doc = _readable(world, file_id)
    if doc.owner_id != who.id:
        owner = world.require(Employee, doc.owner_id, "employee")
        raise ToolError(f"you do not own file {doc.id}; only its owner ({owner.email}) can share it")
    grantee = email.strip().lower()
    if grantee != "anyone" and ("@" not in grantee or " " in grantee):
        raise ToolError(
            f"{email!r} is not an email address; give one like 'dana.ruiz@brightwell.example', or 'anyone'"
        )
    if grantee == who.email:
        raise ToolError("you own this file already; share it with someone else")
    key = f"{doc.id}/{grantee}"
    current = world.get(Permission, key)
    if current is not None and current.level == level:
        raise ToolError(f"{grantee} can already {level} file {doc.id}")
    if current is None:
        world.insert(Permission, {"id": key, "file_id": doc.id, "grantee": grantee, "level": level})
    else:
        world.update(Permission, key, level=level)
    return Sharing(**_summary(world, doc, who.time_zone).model_dump(), shared_with=_grants(world, doc.id))


FILE_TOOLS = [search_files, read_file, create_file, share_file]
