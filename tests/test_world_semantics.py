"""World semantics a domain author relies on: defaults, NULL filters, fresh ids, readable constraint errors."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from toolgym.envs.world import World, WorldTemplate
from toolgym.errors import DomainError


class SemanticsTable(SQLModel, registry=registry()):
    pass


class TicketBase(SQLModel):
    id: int = Field(primary_key=True)
    subject: str
    status: str = "open"
    tags: str = Field(default_factory=lambda: "none")
    closed_by: str | None = None


class Ticket(TicketBase, SemanticsTable, table=True):
    __tablename__ = "ticket"


class InvoiceBase(SQLModel):
    id: str = Field(primary_key=True)
    amount: float


class Invoice(InvoiceBase, SemanticsTable, table=True):
    __tablename__ = "invoice"


def _rows():
    yield Ticket(id=7, subject="printer", closed_by="ana")
    yield Ticket(id=3, subject="login")
    yield Invoice(id="INV0042", amount=10.0)
    yield Invoice(id="INV0009", amount=5.0)


@pytest.fixture
def world():
    template = WorldTemplate.build(
        domain="semantics", seed=0, size="small", now=dt.datetime(2025, 1, 1), tables=[Ticket, Invoice], rows=_rows()
    )
    w = World(template)
    yield w
    w.close()


def test_insert_applies_the_models_defaults(world):
    row = world.insert(Ticket, {"id": 100, "subject": "screen"})
    assert (row.status, row.tags, row.closed_by) == ("open", "none", None)
    assert world.get(Ticket, 100).status == "open"


def test_missing_required_column_names_the_column(world):
    with pytest.raises(DomainError, match=r"column 'subject' is missing \(NULL\)"):
        world.insert(Ticket, {"id": 101})


def test_duplicate_key_names_the_value_and_points_to_new_id(world):
    with pytest.raises(DomainError, match=r"\{'id': 7\} already exists.*world.new_id"):
        world.insert(Ticket, {"id": 7, "subject": "again"})


def test_build_world_constraint_failure_names_the_row():
    rows = [Ticket(id=1, subject="a"), (Ticket, {"id": 1, "subject": "b"})]
    with pytest.raises(DomainError, match=r"build_world: insert into 'ticket': \{'id': 1\} already exists"):
        WorldTemplate.build(domain="d", seed=0, size="s", now=dt.datetime(2025, 1, 1), tables=[Ticket], rows=rows)


def test_none_in_a_filter_means_is_null(world):
    assert [t.id for t in world.select(Ticket, {"closed_by": None})] == [3]
    assert [t.id for t in world.select(Ticket, {"closed_by": "ana"})] == [7]
    assert world.count(Ticket, {"closed_by": None}) == 1
    assert world.count(Ticket, {"closed_by": None, "status": "open"}) == 1


def test_new_ids_start_past_the_built_rows(world):
    with world.tool_scope("t", writes=True):
        assert world.new_id("ticket") == 8  # integer key: past 7
        assert world.new_id("ticket") == 9
        assert world.new_id("invoice") == 43  # text key: past the digits of INV0042
        assert world.new_id("refund", table="invoice") == 43
        assert world.new_id("ticket_again", start=50, table="ticket") == 50  # start is a lower bound
        assert world.new_id("free") == 1  # a counter of no table starts at `start`
        with pytest.raises(DomainError, match="no such table"):
            world.new_id("x", table="nope")
