"""Retail's variants: prices that follow an option that is clearly an upgrade, and changes of mind
that change something."""

from __future__ import annotations

import pytest

import toolgym
from toolgym.domains.retail.world import catalog
from toolgym.envs import World


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain("retail")


@pytest.mark.parametrize("seed", [0, 4, 11])
def test_a_variant_one_rung_up_its_products_ladder_costs_more(domain, seed):
    """A silver 10-inch Tablet of 256GB cost $604.79 and one of 64GB $632.54; a titanium double-burner
    Camping Stove $46.35 and a steel single-burner one $60.96: exchanging up refunded money. A variant
    at or above another on every laddered option (capacity, burners, material) and above on one
    costs more, and every price stays in its line's range."""
    lines = {line["name"]: line for line in catalog()}
    world = World(domain.template(seed, "default"))
    try:
        rows = world.query("SELECT p.name, v.color, v.size, v.material, v.capacity, v.style, v.price "
                           "FROM variant v JOIN product p ON p.id = v.product_id")  # fmt: skip
    finally:
        world.close()
    by_name: dict[str, list[tuple[dict[str, str], float]]] = {}
    for name, *options, price in rows:
        chosen = dict(zip(("color", "size", "material", "capacity", "style"), options, strict=True))
        low, high = lines[name]["price"]
        assert low <= price <= high, (name, price)
        by_name.setdefault(name, []).append(({k: v for k, v in chosen.items() if v is not None}, price))
    compared = 0
    for name, variants in by_name.items():
        line = lines[name]
        rungs = {o: line["options"][o] for o in line.get("ladder", [])}
        for options, price in variants:
            for other, other_price in variants:
                steps = [rungs[o].index(other[o]) - rungs[o].index(options[o]) for o in rungs]
                if all(s >= 0 for s in steps) and any(s > 0 for s in steps):
                    compared += 1
                    assert other_price > price, (name, options, price, other, other_price)
    assert compared > 200, compared
    assert {"10-inch Tablet", "Camping Stove"} <= {n for n in by_name if lines[n].get("ladder")}
