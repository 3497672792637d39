"""Travel: what tool results show and gold replies say (ownership in reads, totals agreed to,
answers that answer, look-alike bookings)."""

from __future__ import annotations

import json

import pytest

import toolgym
from tests.conftest import small_world_index
from toolgym.envs import World
from toolgym.envs.replay import run_call

TRAVEL = "travel"


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain(TRAVEL)


@pytest.fixture(scope="module")
def index():
    return small_world_index(TRAVEL)


def _call(domain, world: World, name: str, **arguments):
    outcome = run_call(domain, world, [t.name for t in domain.agent_tools], name, arguments)
    return outcome.error, (json.loads(outcome.content) if outcome.error is None else None)


def test_an_invoice_shows_whose_booking_it_is(domain, index):
    """The policy acts only on the identified traveller's own bookings, but get_invoice showed another
    traveller's charges and card with nothing to tell whose booking it was."""
    flight = next(b for b in index.confirmed("any"))
    stay = next(iter(index.stays))
    world = World(domain.template(0, "small"))
    try:
        for booking_id, owner in ((flight.booking_id, flight.traveller_id), (stay.booking_id, stay.traveller_id)):
            error, invoice = _call(domain, world, "get_invoice", booking_id=booking_id)
            assert error is None and invoice["traveller_id"] == owner, invoice
    finally:
        world.close()
    assert "whose booking" in domain.tool("get_invoice").description
