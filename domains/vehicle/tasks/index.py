"""What generators draw from: every car of a built world with all its rows, read once per world."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolgym.envs import World, world_index

from ..tables import (
    ClimateZone,
    ClimateZoneBase,
    Door,
    DoorBase,
    DriverProfile,
    DriverProfileBase,
    Place,
    PlaceBase,
    ServiceRecord,
    ServiceRecordBase,
    Tyre,
    TyreBase,
    Vehicle,
    VehicleBase,
)


@dataclass(frozen=True)
class Car:
    """One car as it was built, with its doors, zones, tyres, nearby places, profiles and service log."""

    v: VehicleBase
    doors: tuple[DoorBase, ...]
    zones: dict[str, ClimateZoneBase]
    tyres: tuple[TyreBase, ...]
    places: dict[str, tuple[PlaceBase, ...]]  # by category, nearest first
    profiles: tuple[DriverProfileBase, ...]
    service: tuple[ServiceRecordBase, ...]  # newest first
    units: str  # of the loaded profile: metric | imperial

    @property
    def id(self) -> str:
        return self.v.id

    @property
    def moving(self) -> bool:
        return self.v.speed_kmh > 0

    @property
    def parked(self) -> bool:
        return self.v.gear == "P" and self.v.speed_kmh == 0

    @property
    def electric(self) -> bool:
        return self.v.powertrain == "electric"

    @property
    def imperial(self) -> bool:
        return self.units == "imperial"

    def unlocked(self) -> list[str]:
        return [d.position for d in self.doors if not d.locked]

    def named_places(self, category: str) -> list[PlaceBase]:
        """Places of the category whose name no other place of this car shares (a driver can name them)."""
        found = self.places.get(category, ())
        names = [p.name for p in found]
        return [p for p in found if names.count(p.name) == 1]


@dataclass
class Index:
    cars: list[Car]
    _where: dict[str, list[Car]] = field(default_factory=dict)

    def where(self, name: str, fits) -> list[Car]:  # type: ignore[no-untyped-def]
        """The cars that fit, listed once per world under `name`."""
        found = self._where.get(name)
        if found is None:
            found = self._where[name] = [c for c in self.cars if fits(c)]
        return found


def _grouped(rows: list, key: str = "vehicle_id") -> dict[str, list]:  # type: ignore[type-arg]
    out: dict[str, list] = {}  # type: ignore[type-arg]
    for row in rows:
        out.setdefault(getattr(row, key), []).append(row)
    return out


@world_index
def index_of(world: World) -> Index:
    doors = _grouped(world.select(Door, order_by="id"))
    zones = _grouped(world.select(ClimateZone, order_by="id"))
    tyres = _grouped(world.select(Tyre, order_by="id"))
    places = _grouped(world.select(Place, order_by=["distance_km", "id"]))
    profiles = _grouped(world.select(DriverProfile, order_by="id"))
    service = _grouped(world.select(ServiceRecord))
    cars = []
    for v in world.select(Vehicle, order_by="id"):
        by_category: dict[str, list[PlaceBase]] = {}
        for place in places.get(v.id, []):
            by_category.setdefault(place.category, []).append(place)
        own = profiles.get(v.id, [])
        loaded = next((p for p in own if p.id == v.profile_id), None)
        cars.append(
            Car(
                v=v,
                doors=tuple(doors.get(v.id, [])),
                zones={z.zone: z for z in zones.get(v.id, [])},
                tyres=tuple(tyres.get(v.id, [])),
                places={k: tuple(p) for k, p in by_category.items()},
                profiles=tuple(own),
                service=tuple(sorted(service.get(v.id, []), key=lambda r: r.date, reverse=True)),
                units=loaded.units if loaded else "metric",
            )
        )
    return Index(cars)
