"""The research tools. The signature and the docstring are the schema the model sees.

Reads go through world.get/require/select; writes through world.insert/update/delete, in tools
marked @tool(writes=True). A failed precondition raises ToolError: the model reads it as
{"error": ...} and the call's writes are rolled back.
"""

from __future__ import annotations

from toolgym.envs import World, tool
from toolgym.errors import ToolError

from .tables import Item, ItemBase, Member, MemberBase


@tool
def find_member_by_email(world: World, email: str) -> MemberBase:
    """Find a member by their email address.

    Args:
        email: The member's email address, such as 'jane.doe1@example.com'.
    """
    found = world.select(Member, {"email": email.strip().lower()})
    if not found:
        raise ToolError(f"no member has the email {email!r}; check the spelling")
    return found[0]


@tool
def get_member_details(world: World, member_id: str) -> MemberBase:
    """Get a member's details, including any unpaid balance.

    Args:
        member_id: The member id, such as 'M0042'.
    """
    return world.require(Member, member_id, "member")


@tool
def list_items(world: World, member_id: str) -> list[ItemBase]:
    """List a member's items with their status.

    Args:
        member_id: The member id, such as 'M0042'.
    """
    world.require(Member, member_id, "member")
    return world.select(Item, {"member_id": member_id})


@tool
def get_item(world: World, item_id: str) -> ItemBase:
    """Get one item: its title, status and note.

    Args:
        item_id: The item id, such as 'I00042'.
    """
    return world.require(Item, item_id, "item")


@tool(writes=True)
def pause_item(world: World, item_id: str) -> ItemBase:
    """Pause an active item.

    Args:
        item_id: The item id, such as 'I00042'.
    """
    item = world.require(Item, item_id, "item")
    if item.status != "active":
        raise ToolError(f"item {item_id} is {item.status}; only active items can be paused")
    return world.update(Item, item_id, status="paused")


@tool(writes=True)
def resume_item(world: World, item_id: str) -> ItemBase:
    """Resume a paused item.

    Args:
        item_id: The item id, such as 'I00042'.
    """
    item = world.require(Item, item_id, "item")
    if item.status != "paused":
        raise ToolError(f"item {item_id} is {item.status}; only paused items can be resumed")
    return world.update(Item, item_id, status="active")


TOOLS = [find_member_by_email, get_member_details, list_items, get_item, pause_item, resume_item]
