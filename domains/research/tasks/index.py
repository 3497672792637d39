"""What generators draw from, listed once per built world (generators must stay ~1 ms)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from toolgym.envs import World, world_index

from ..tables import Item, ItemBase, Member, MemberBase


@dataclass
class Index:
    members: dict[str, MemberBase]
    items: dict[str, ItemBase]
    items_of: dict[str, list[ItemBase]]

    def active(self, *, can_pause: bool = True) -> list[ItemBase]:
        """Active items; with can_pause, only those of members the policy lets pause (no balance)."""
        return [
            i for i in self.items.values() if i.status == "active" and (not can_pause or not self.owes(i.member_id))
        ]

    def paused(self) -> list[ItemBase]:
        return [i for i in self.items.values() if i.status == "paused"]

    def owes(self, member_id: str) -> bool:
        return self.members[member_id].balance > 0

    def named_by_title(self, item: ItemBase) -> bool:
        """Whether the item's title is the only one of its kind on the member's account."""
        return Counter(i.title for i in self.items_of[item.member_id])[item.title] == 1


@world_index
def index_of(world: World) -> Index:
    items = {i.id: i for i in world.select(Item)}
    items_of: dict[str, list[ItemBase]] = {}
    for item in items.values():
        items_of.setdefault(item.member_id, []).append(item)
    return Index({m.id: m for m in world.select(Member)}, items, items_of)
