"""Every domain can give a full job's off-topic requests as distinct lessons."""

from __future__ import annotations

import math
import re

import pytest

import toolgym
from toolgym.config import load_config
from toolgym.envs.registry import found

SLOT = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def _distinct_requests(domain) -> int:
    """How many different off-topic requests the phrasebook can make: its plain pool plus every
    filling of every slotted template (a slot's wordings are `slot_<name>`)."""
    phrases = domain.phrasebook
    count = len(set(phrases.pooled("irrelevant_request")))
    for template in phrases.variants("irrelevant_request_slotted"):
        slots = set(SLOT.findall(template))
        count += math.prod(len(phrases.variants(f"slot_{name}")) for name in slots)
    return count


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
    assert _distinct_requests(domain) >= 1.5 * _irrelevant_rows_asked(domain)
