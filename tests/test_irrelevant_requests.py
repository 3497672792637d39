"""Every domain can give a full job's off-topic requests as distinct lessons."""

from __future__ import annotations

import math

import pytest

import toolgym
from toolgym.config import load_config
from toolgym.envs.generation import slotted_fillings
from toolgym.envs.registry import found
from toolgym.generators.planning import plan_streams


def _irrelevant_rows_asked(domain) -> int:
    """The off-topic tasks configs/full.yaml asks of one domain: its no-tool share split over its no-tool kinds."""
    mix = load_config("configs/full.yaml").mix
    no_tool_kinds = [kind for kind in domain.kinds if kind.startswith("no_tool/")]
    return math.ceil(mix.tasks_per_domain * mix.no_tool_share / len(no_tool_kinds))


@pytest.mark.parametrize("name", sorted(found()))
def test_off_topic_requests_outnumber_what_a_full_job_asks(name):
    """Research's pool (writing, booking and advice only) could make 472 requests, so configs/full.yaml
    ran 330 of its 800 off-topic tasks short. Draws repeat, so the pool must hold well over the count."""
    domain = toolgym.load_domain(name)
    distinct = len(set(domain.phrasebook.pooled("irrelevant_request"))) + sum(slotted_fillings(domain.phrasebook))
    assert distinct >= 1.5 * _irrelevant_rows_asked(domain)


def test_a_full_jobs_worlds_draw_their_off_topic_share_without_running_dry():
    """configs/full.yaml's four worlds each draw research's 200 off-topic tasks, lessons another world
    gave dropped, within the draws a stream may make: with every template drawn alike, the small ones
    ran dry and the job planned 704 of 800."""
    config = load_config("configs/full.yaml", overrides=["domains=[research]"])
    streams = [s for s in plan_streams(config) if s.kind == "no_tool/irrelevant"]
    domain = toolgym.load_domain("research")
    seen: set[str] = set()
    for stream in streams:
        given = 0
        for task in domain.iter_tasks(stream.cap, seed=stream.seed, kinds=[stream.kind], world_seed=stream.world_seed,
                                      size=stream.size):
            if task.lesson_key() not in seen:
                seen.add(task.lesson_key())
                given += 1
                if given == stream.share:
                    break
    assert len(seen) == sum(s.share for s in streams) == 800
