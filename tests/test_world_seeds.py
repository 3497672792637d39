"""`world.seeds`: a job's tasks spread across several worlds, and bad seed lists named."""

from __future__ import annotations

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
