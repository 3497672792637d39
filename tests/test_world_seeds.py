"""`world.seeds`: a job's tasks spread across several worlds, and bad seed lists named."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from tests.jobs import toy_config
from toolgym.config import load_config
from toolgym.errors import ConfigError
from toolgym.generators.job import run_job
from toolgym.generators.planning import plan_tasks
from toolgym.generators.reading import iter_rows


def test_each_kind_is_spread_evenly_across_the_world_seeds():
    config = load_config({"domains": ["retail"], "world": {"seeds": [0, 1, 2]}, "mix": {"kinds": {"single": 7, "parallel": 3}}})
    tasks = plan_tasks(config)
    by_world = Counter((t.kind, t.world_seed) for t in tasks)
    assert by_world == {("single", 0): 3, ("single", 1): 2, ("single", 2): 2, ("parallel", 0): 1, ("parallel", 1): 1, ("parallel", 2): 1}


def test_one_seed_plans_as_before():
    single = plan_tasks(load_config({"domains": ["retail"], "world": {"seed": 4}, "mix": {"tasks_per_domain": 12}}))
    listed = plan_tasks(load_config({"domains": ["retail"], "world": {"seeds": [4]}, "mix": {"tasks_per_domain": 12}}))
    assert [t.id for t in single] == [t.id for t in listed]
    assert {t.world_seed for t in single} == {4}


@pytest.mark.parametrize(("seeds", "message"), [([], "give at least one seed"), ([1, 1], "must be distinct, got [1, 1]")])
def test_bad_seed_lists_are_named(seeds, message):
    with pytest.raises(ConfigError) as error:
        load_config({"world": {"seeds": seeds}})
    assert "world.seeds" in str(error.value) and message in str(error.value)


def test_a_job_writes_rows_from_every_world(toy_domain, tmp_path):
    out = tmp_path / "worlds"
    run_job(toy_config(out, world={"seeds": [0, 1], "size": "default"}), progress=False)
    worlds = Counter(row["seeds"]["world_seed"] for row in iter_rows(out, "sft"))
    assert set(worlds) == {0, 1}
    assert abs(worlds[0] - worlds[1]) <= 2


def test_seeded_clock_keeps_seed_zero_and_gives_other_seeds_their_own_working_hour():
    from toolgym.envs import seeded_clock

    base = dt.datetime(2025, 5, 20, 14, 0)
    clock = seeded_clock(base, spread_days=30, hours=(9, 17))
    assert clock(0) == base
    drawn = [clock(seed) for seed in range(1, 200)]
    assert drawn == [clock(seed) for seed in range(1, 200)]  # the same every run
    assert all(abs((t.date() - base.date()).days) <= 30 and 9 <= t.hour < 17 and t.minute % 15 == 0 for t in drawn)
    assert len({t.date() for t in drawn}) > 30
    with pytest.raises(ValueError, match=r"hours must be .* not \(18, 9\)"):
        seeded_clock(base, hours=(18, 9))


# The newest moment of each world's history, and how young and how old (days before the world's
# date) it may be: orders placed (retail), outages begun (telecom), card charges posted (banking),
# flights booked (travel), the last service (vehicle: the log starts two months back).
NEWEST = {
    "retail": ("SELECT max(placed_at) FROM \"order\"", 0, 60),
    "telecom": ("SELECT max(started_at) FROM outage", 0, 60),
    "banking": ("SELECT max(posted) FROM txn", 0, 60),
    "travel": ("SELECT max(booked_at) FROM flight_booking", 0, 60),
    "vehicle": ("SELECT max(date) FROM service_record", 60, 150),
}


@pytest.mark.parametrize("name", sorted(NEWEST))
def test_each_world_seed_has_its_own_date_and_its_history_counts_back_from_it(name):
    from toolgym import load_domain
    from toolgym.envs import World

    domain = load_domain(name)
    # world seed 13 is weeks to months before seed 0's date in every domain, seed 5 after it
    dates = {seed: domain.template(seed, "small").now for seed in (0, 5, 13)}
    assert len(set(dates.values())) == 3
    query, youngest, oldest = NEWEST[name]
    for seed, now in dates.items():
        world = World(domain.template(seed, "small"))
        (newest,) = world.query(query)[0]
        newest = str(newest).replace("T", " ")
        assert str(now - dt.timedelta(days=oldest)) < newest <= str(now - dt.timedelta(days=youngest)), (seed, now, newest)
        task = domain.generate_tasks(1, seed=1, kinds=["single"], world_seed=seed, size="small")[0]
        assert task.world_seed == seed and now.strftime("%Y") in domain.policy(seed, "small", variant=task.seed)


def test_a_lesson_another_world_gave_is_replaced_so_the_kind_reaches_its_count():
    # off-topic requests do not depend on the world: four worlds drawing 100 each meet often
    config = load_config({"domains": ["retail"], "world": {"seeds": [0, 1, 2, 3]}, "mix": {"kinds": {"no_tool/irrelevant": 400}}})
    tasks = plan_tasks(config)
    assert len(tasks) == 400 and len({t.lesson_key() for t in tasks}) == 400
    assert Counter(t.world_seed for t in tasks) == {0: 100, 1: 100, 2: 100, 3: 100}
    undeduplicated = load_config({**config.model_dump(), "output": {**config.output.model_dump(), "dedup": False}})
    repeated = plan_tasks(undeduplicated)
    assert len(repeated) == 400 and len({t.lesson_key() for t in repeated}) < 400  # the case the top-up answers
