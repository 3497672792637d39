"""What generators draw from, listed once per built world: the entities, their facts, and the pages."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolgym.envs import World, world_index

from ..tables import Attribute, AttributeBase, Entity, EntityBase, Page, PageBase

RELATIONS = ("headquarters", "ceo", "flagship", "birthplace", "employer", "leads", "maker", "designer", "held_in", "organiser")
NUMBERS = ("employees", "population", "elevation", "weight", "price", "attendance", "founded")
DATES = ("born", "launched", "date")
ARTICLED = ("product", "event")  # said with "the": "the Korvane Kettle"


@dataclass
class Index:
    entities: dict[str, EntityBase]
    facts: dict[str, dict[str, AttributeBase]]  # entity id -> attribute -> its current value
    stale: dict[str, AttributeBase]  # entity id -> an older page's contradicted staff count
    pages: dict[str, PageBase]
    by_kind: dict[str, list[EntityBase]] = field(default_factory=dict)

    def ref(self, entity: EntityBase) -> str:
        """How a sentence names the entity."""
        return f"the {entity.name}" if entity.kind in ARTICLED else entity.name

    def target(self, attribute: AttributeBase) -> EntityBase:
        return self.entities[attribute.value]

    def shown(self, attribute: AttributeBase) -> str:
        """The value as a reply says it: a related entity by name, anything else as the page has it."""
        return self.ref(self.target(attribute)) if attribute.name in RELATIONS else attribute.value


@world_index
def index_of(world: World) -> Index:
    entities = {e.id: e for e in world.select(Entity, order_by="id")}
    facts: dict[str, dict[str, AttributeBase]] = {}
    stale: dict[str, AttributeBase] = {}
    for attribute in world.select(Attribute, order_by="id"):
        if attribute.current:
            facts.setdefault(attribute.entity_id, {})[attribute.name] = attribute
        else:
            stale[attribute.entity_id] = attribute
    pages = {p.url: p for p in world.select(Page, order_by="url")}
    index = Index(entities, facts, stale, pages)
    for entity in entities.values():
        index.by_kind.setdefault(entity.kind, []).append(entity)
    return index
