"""The travel world's tables, on the domain's own registry.

Each table is a plain field model (what tools hand back) beside the table class. Times are
stored in UTC (naive datetimes); tools show them in the airport's local time with its zone.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class TravelTable(SQLModel, registry=registry()):
    pass


class AirportBase(SQLModel):
    code: str = Field(primary_key=True)
    city: str = Field(index=True)
    country: str
    timezone: str  # IANA zone, such as 'Europe/Paris'
    currency: str


class Airport(AirportBase, TravelTable, table=True):
    __tablename__ = "airport"


class FareRuleBase(SQLModel):
    cabin: str = Field(primary_key=True)  # basic_economy | economy | business
    changeable: bool
    change_fee: float
    refundable: bool
    cancel_fee: float
    free_bags: int
    bag_fee: float


class FareRule(FareRuleBase, TravelTable, table=True):
    __tablename__ = "fare_rule"


class FlightBase(SQLModel):
    flight_id: str = Field(primary_key=True)  # number and local departure date: 'SW214-20260315'
    flight_number: str = Field(index=True)
    origin: str = Field(index=True)
    destination: str
    via: str | None = None  # the stop of a one-stop flight
    depart_date: dt.date = Field(index=True)  # local date at the origin
    depart_utc: dt.datetime
    arrive_utc: dt.datetime
    status: str = "scheduled"  # scheduled | delayed | cancelled
    delay_minutes: int = 0
    price_basic_economy: float
    price_economy: float
    price_business: float
    seats_basic_economy: int
    seats_economy: int
    seats_business: int


class Flight(FlightBase, TravelTable, table=True):
    __tablename__ = "flight"


class HotelBase(SQLModel):
    hotel_id: str = Field(primary_key=True)
    name: str
    city: str = Field(index=True)
    neighbourhood: str
    stars: int
    nightly_rate: float  # USD
    rooms_left: int
    description: str = ""  # written by the hotel: a text field tools show


class Hotel(HotelBase, TravelTable, table=True):
    __tablename__ = "hotel"


class TravellerBase(SQLModel):
    traveller_id: str = Field(primary_key=True)
    full_name: str
    email: str = Field(index=True)
    loyalty_number: str = Field(index=True)
    tier: str  # blue | silver | gold | platinum
    points: int
    passport_number: str
    passport_country: str
    passport_expiry: dt.date
    home_airport: str
    preferences: str = ""  # free text the traveller writes in the app


class Traveller(TravellerBase, TravelTable, table=True):
    __tablename__ = "traveller"


class PaymentMethodBase(SQLModel):
    method_id: str = Field(primary_key=True)
    traveller_id: str = Field(index=True)
    brand: str  # Visa | Mastercard | American Express
    last4: str
    is_default: bool


class PaymentMethod(PaymentMethodBase, TravelTable, table=True):
    __tablename__ = "payment_method"


class FlightBookingBase(SQLModel):
    booking_id: str = Field(primary_key=True)
    traveller_id: str = Field(index=True)
    flight_id: str
    cabin: str
    status: str = "confirmed"  # confirmed | cancelled
    booked_at: dt.datetime
    fare_paid: float  # USD, or its value when paid with points
    payment: str  # card | points
    method_id: str | None = None
    points_used: int = 0
    bags: int = 0
    bag_fees: float = 0.0
    seat: str | None = None
    insurance: bool = False
    insurance_price: float = 0.0
    change_fees: float = 0.0
    refund: float = 0.0


class FlightBooking(FlightBookingBase, TravelTable, table=True):
    __tablename__ = "flight_booking"


class HotelBookingBase(SQLModel):
    booking_id: str = Field(primary_key=True)
    traveller_id: str = Field(index=True)
    hotel_id: str
    check_in: dt.date
    check_out: dt.date
    nights: int
    nightly_rate: float
    total: float
    status: str = "confirmed"  # confirmed | cancelled
    booked_at: dt.datetime
    method_id: str
    refund: float = 0.0


class HotelBooking(HotelBookingBase, TravelTable, table=True):
    __tablename__ = "hotel_booking"


class RedemptionBase(SQLModel):
    redemption_id: str = Field(primary_key=True)
    traveller_id: str = Field(index=True)
    reward: str
    points: int


class Redemption(RedemptionBase, TravelTable, table=True):
    __tablename__ = "redemption"


class HandoffBase(SQLModel):
    ticket_id: str = Field(primary_key=True)
    traveller_id: str | None = None
    summary: str


class Handoff(HandoffBase, TravelTable, table=True):
    __tablename__ = "handoff"


ALL_TABLES = [Airport, FareRule, Flight, Hotel, Traveller, PaymentMethod, FlightBooking, HotelBooking, Redemption, Handoff]
