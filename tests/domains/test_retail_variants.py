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


def _rows(domain, seed: int, sql: str) -> list[tuple]:
    world = World(domain.template(seed, "default"))
    try:
        return world.query(sql)
    finally:
        world.close()


@pytest.mark.parametrize("seed", [0, 4, 11])
def test_a_variant_one_rung_up_its_products_ladder_costs_more(domain, seed):
    """A silver 10-inch Tablet of 256GB cost $604.79 and one of 64GB $632.54; a titanium double-burner
    Camping Stove $46.35 and a steel single-burner one $60.96: exchanging up refunded money. A variant
    at or above another on every laddered option (capacity, burners, material) and above on one
    costs more, and every price stays in its line's range."""
    lines = {line["name"]: line for line in catalog()}
    rows = _rows(domain, seed, "SELECT p.name, v.color, v.size, v.material, v.capacity, v.style, v.price "
                               "FROM variant v JOIN product p ON p.id = v.product_id")  # fmt: skip
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


def test_a_swap_never_trades_two_items_into_each_others_options(domain):
    """'Change the Camping Stove from titanium, double burner to steel, double burner and the Camping
    Stove from steel, double burner to titanium, double burner': the order's options stay the same,
    and its one allowed change is spent. No item change (first asked, or asked instead of a declined
    one) leaves the order's options as they were."""
    import random

    from toolgym.domains.retail.tasks import writes
    from toolgym.domains.retail.tasks.base import shop as shop_of
    from toolgym.envs.generation import GenContext

    world = World(domain.template(0, "default"))
    try:
        ctx = GenContext(domain, world, random.Random(0), 0, "multi_turn", 0, "default")
        s = shop_of(ctx)
        twins = [(o, a, b) for o in s.modifiable for a in s.items[o.id] for b in s.items[o.id]
                 if a.id < b.id and a.product_id == b.product_id and a.variant_id != b.variant_id
                 and b.variant_id in {v.id for v in s.alternatives(a)} and a.variant_id in {v.id for v in s.alternatives(b)}]
        assert twins
        variant = {v.id: v for vs in s.variants_of.values() for v in vs}
        made = 0
        for order, a, b in twins:
            assert writes._settled_swap(ctx, s, order, [a, b], [variant[b.variant_id], variant[a.variant_id]]) is None
            others = [v for v in s.alternatives(a) if v.id != b.variant_id][:1] + [v for v in s.alternatives(b) if v.id != a.variant_id][:1]
            first = writes._settled_swap(ctx, s, order, [a, b], others)
            if first is None:
                continue
            for seed in range(60):  # the change of mind: each item to another option than the first chose
                ctx.rng.seed(seed)
                again = writes._swap(ctx, s, None, None, like=first)
                if again is not None:
                    made += 1
                    assert sorted(v.id for v in again.variants) != sorted(i.variant_id for i in again.items), again.changes
        assert made > 100, made
    finally:
        world.close()


@pytest.mark.parametrize("seed", [4, 11])
def test_variants_of_a_product_without_a_ladder_cost_about_the_same(domain, seed):
    """The Fountain Pen cost $29.66 in blue, medium nib and $122.69 in black, medium nib: every variant
    was priced anywhere in the line's range. A colour or a nib shifts a base price by a few percent."""
    lines = {line["name"]: line for line in catalog()}
    rows = _rows(domain, seed, "SELECT p.name, MIN(v.price), MAX(v.price) FROM variant v "
                               "JOIN product p ON p.id = v.product_id GROUP BY p.id")  # fmt: skip
    unladdered = [(name, low, high) for name, low, high in rows if not lines[name].get("ladder")]
    assert len(unladdered) > 20
    assert [row for row in unladdered if row[2] > 1.4 * row[1]] == []


def test_a_customer_asking_a_variant_s_price_names_the_option(domain):
    """'Is the Gaming Mouse, product P1023, available in the option I'd like?', and 'white, wired' only
    once asked: the customer knew the option and held it back. A price asked for an option says it."""
    tasks = domain.generate_tasks(300, seed=3, kinds=["single", "multi_turn"], size="small")
    asked = [t for t in tasks if any(f.key == "wanted_option" for f in t.scenario.facts)]
    assert len(asked) > 5
    for task in asked:
        option = next(f.value for f in task.scenario.facts if f.key == "wanted_option")
        assert "wanted_option" not in task.scenario.withheld, task.scenario.requests
        assert any(option in request for request in task.scenario.requests), task.scenario.requests
