"""The plan made by workers in any order is the plan one process walks (planning.iter_planned)."""

from __future__ import annotations

import asyncio
import random

from toolgym.config import load_config
from toolgym.generators.finishing import FinishOrder
from toolgym.generators.planning import plan_streams, plan_tasks
from toolgym.generators.resolver import PlanResolver
from toolgym.generators.worker import TaskWorker


def _made_in_shuffled_order(config, seed: int, batch_size: int, by_world: bool = False) -> list[str]:
    """Task ids of the plan, its draws made a batch at a time in a shuffled order (`by_world`: asked for
    by two workers each preferring the worlds of one seed parity, as Ray's actors prefer theirs)."""
    resolver = PlanResolver(plan_streams(config), dedup=config.output.dedup, batch_size=batch_size, ahead=60)
    worker = TaskWorker(config)  # makes the draws (their ids), finishes none
    shuffle = random.Random(seed)
    pending, ids = [], []
    while not resolver.finished:
        turn = 0
        while batch := resolver.next_batch(prefer=(lambda s, t=turn: s.world_seed % 2 == t % 2) if by_world else None):
            pending.append(batch)
            turn += 1
        assert pending, "the plan waits for draws nobody was asked to make"
        batch = pending.pop(shuffle.randrange(len(pending)))
        resolver.add(worker.make(batch))
        ids += [outcome["task_id"] for outcome in resolver.resolved()]
    worker.close()
    return ids


def test_draws_made_in_any_order_give_the_plan_of_one_process():
    # off-topic requests repeat across worlds (the walk draws on to replace them) and within a small
    # world (a draw is made again at its next attempt): both paths are taken here
    config = load_config({
        "domains": ["retail", "telecom"], "world": {"seeds": [0, 1, 2], "size": "small"},
        "mix": {"kinds": {"no_tool/irrelevant": 150, "single": 12, "multi_turn": 9}},
    })
    reference = [task.id for task in plan_tasks(config)]
    assert _made_in_shuffled_order(config, seed=1, batch_size=7) == reference
    assert _made_in_shuffled_order(config, seed=2, batch_size=40) == reference
    assert _made_in_shuffled_order(config, seed=4, batch_size=5, by_world=True) == reference


def test_without_dedup_every_stream_gives_its_share():
    config = load_config({"domains": ["retail"], "world": {"seeds": [0, 1]}, "output": {"dedup": False},
                          "mix": {"kinds": {"no_tool/irrelevant": 60}}})
    assert _made_in_shuffled_order(config, seed=3, batch_size=8) == [t.id for t in plan_tasks(config)]


def test_finished_tasks_come_back_in_plan_order_and_written_ones_are_not_finished_again():
    config = load_config({"domains": ["retail"], "world": {"seeds": [0, 1]}, "mix": {"kinds": {"single": 6, "parallel": 4}}})
    reference = [task.id for task in plan_tasks(config)]
    written = set(reference[3:5])  # an earlier run of the job published these
    resolver = PlanResolver(plan_streams(config), dedup=config.output.dedup, batch_size=4, ahead=60)
    order = FinishOrder(resolver, written)
    worker = TaskWorker(config)
    shuffle = random.Random(5)
    to_finish, handed = [], []
    while not order.complete:
        if batch := resolver.next_batch():
            to_finish += [o["draw"] for o in order.made(worker.make(batch))]
            handed += order.finished([])
            continue
        shuffle.shuffle(to_finish)  # finished in any order
        done, to_finish = to_finish[:3], to_finish[3:]
        handed += order.finished(asyncio.run(worker.finish(done)))
    worker.close()
    assert [o["task_id"] for o in handed] == reference
    assert [o["task_id"] for o in handed if o.get("skipped")] == reference[3:5]
    assert all(o["rows"].encoded["sft"] for o in handed if not o.get("skipped"))
    assert worker.finished == len(reference) - 2  # a written task is made for its id, never rolled out


def test_a_worker_that_did_not_make_a_draw_finishes_it_with_the_same_rows():
    # a Ray actor that replaces a dead one finishes draws the dead one made: it makes them again
    config = load_config({"domains": ["retail"], "world": {"seeds": [0]}, "mix": {"kinds": {"single": 2, "multi_turn": 2}}})
    draws = [(number, 0, 0) for number in range(len(plan_streams(config)))]
    maker, stranger = TaskWorker(config), TaskWorker(config)
    made = maker.make(draws)
    by_maker = asyncio.run(maker.finish(draws))
    by_stranger = asyncio.run(stranger.finish(draws))
    assert [o["task_id"] for o in by_stranger] == [o["task_id"] for o in by_maker] == [o["task_id"] for o in made]
    assert [o["rows"].encoded for o in by_stranger] == [o["rows"].encoded for o in by_maker]
    assert (maker.made, stranger.made) == (len(draws), len(draws))
    maker.close()
    stranger.close()
