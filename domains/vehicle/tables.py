"""The vehicle tables, on the domain's own registry.

A world is a fleet: every vehicle has its full state (engine, gear, speed, brakes, lights,
energy, cruise, navigation, media) in `vehicle`, and one row per door, climate zone, tyre,
nearby place, driver profile and service visit. An episode happens in one car: the `cabin_session`
row (inserted by the task's setup) names it. Each table is a plain field model (what the World
hands back) beside the table class.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class VehicleTable(SQLModel, registry=registry()):
    pass


class VehicleBase(SQLModel):
    id: str = Field(primary_key=True)
    make: str
    model: str
    year: int
    powertrain: str  # fuel | electric
    odometer_km: int
    engine_on: bool = False
    gear: str = "P"  # P | R | N | D
    speed_kmh: int = 0
    parking_brake: bool = True
    brake_pressed: bool = False
    trunk_open: bool = False
    headlights: str = "auto"  # off | on | auto
    fog_lights: bool = False
    hazard_lights: bool = False
    fan_level: int = 2
    ac_on: bool = False
    defrost_front: bool = False
    defrost_rear: bool = False
    fuel_level_pct: int = 0  # fuel cars only
    tank_litres: int = 0
    battery_pct: int = 0  # electric cars only
    battery_kwh: int = 0
    range_km: int = 0
    at_charger: bool = False
    charging: bool = False
    charge_limit_pct: int = 80
    cruise_on: bool = False
    cruise_speed_kmh: int = 0
    nav_place_id: str = ""  # "" when no route is set
    media_source: str = "off"  # off | radio | bluetooth | usb | podcast | video
    media_title: str = ""
    volume: int = 12
    profile_id: str = ""
    seat_position: int = 5
    mirror_position: int = 5


class Vehicle(VehicleBase, VehicleTable, table=True):
    __tablename__ = "vehicle"


class DoorBase(SQLModel):
    id: str = Field(primary_key=True)  # "<vehicle>-<position>"
    vehicle_id: str = Field(index=True)
    position: str  # front_left | front_right | rear_left | rear_right
    locked: bool = True
    window_open_pct: int = 0


class Door(DoorBase, VehicleTable, table=True):
    __tablename__ = "door"


class ClimateZoneBase(SQLModel):
    id: str = Field(primary_key=True)  # "<vehicle>-<zone>"
    vehicle_id: str = Field(index=True)
    zone: str  # driver | passenger | rear_left | rear_right
    temperature_c: float = 21.0
    seat_heat: int = 0  # 0 (off) to 3


class ClimateZone(ClimateZoneBase, VehicleTable, table=True):
    __tablename__ = "climate_zone"


class TyreBase(SQLModel):
    id: str = Field(primary_key=True)  # "<vehicle>-<wheel>"
    vehicle_id: str = Field(index=True)
    wheel: str  # front_left | front_right | rear_left | rear_right
    pressure_psi: float
    recommended_psi: float


class Tyre(TyreBase, VehicleTable, table=True):
    __tablename__ = "tyre"


class PlaceBase(SQLModel):
    id: str = Field(primary_key=True)
    vehicle_id: str = Field(index=True)  # the car the place is near (distances are from it)
    name: str
    category: str  # airport | office | hotel | restaurant | mall | charger | tyre_shop | fuel_station
    address: str
    distance_km: float
    drive_min: int
    note: str = ""  # what the place lists about itself: text, never instructions


class Place(PlaceBase, VehicleTable, table=True):
    __tablename__ = "place"


class DriverProfileBase(SQLModel):
    id: str = Field(primary_key=True)
    vehicle_id: str = Field(index=True)
    name: str
    units: str  # metric (°C, km) | imperial (°F, miles)
    seat_position: int
    mirror_position: int


class DriverProfile(DriverProfileBase, VehicleTable, table=True):
    __tablename__ = "driver_profile"


class ServiceRecordBase(SQLModel):
    id: str = Field(primary_key=True)
    vehicle_id: str = Field(index=True)
    date: str
    odometer_km: int
    work: str
    note: str = ""  # the workshop's remark


class ServiceRecord(ServiceRecordBase, VehicleTable, table=True):
    __tablename__ = "service_record"


class CabinSessionBase(SQLModel):
    id: int = Field(primary_key=True)  # always SESSION_ID: one car per episode
    vehicle_id: str


class CabinSession(CabinSessionBase, VehicleTable, table=True):
    __tablename__ = "cabin_session"


ALL_TABLES = [Vehicle, Door, ClimateZone, Tyre, Place, DriverProfile, ServiceRecord, CabinSession]
SESSION_ID = 1
