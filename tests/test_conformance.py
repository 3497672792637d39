"""The conformance suite: every discovered domain must pass all of it.

The checks live in toolgym.conformance, which `toolgym check NAME` runs too.
"""

from __future__ import annotations

import pytest

from toolgym import conformance

from .conftest import builtin_domains, heavy_domains

DOMAINS = heavy_domains()  # a sample beyond six domains: the suite's cost stays flat
# every spoil on 1,000 tasks a domain (`toolgym check`: 20 a kind); 5,000 random actions (`toolgym check`: 10,000),
# beside the 100,000 hostile ones of tests/test_hostile_actions.py, which also fail any action that escapes `step`
OPTIONS = conformance.Options(tasks_per_kind=200, spoil_tasks_per_kind=100, random_steps=5_000)
# The domains the sample leaves out still pass every check on every commit, on a few tasks.
LIGHT_DOMAINS = [name for name in builtin_domains() if name not in DOMAINS]
LIGHT_OPTIONS = conformance.Options(tasks_per_kind=10, spoil_tasks_per_kind=10, random_steps=1_000)
pytestmark = pytest.mark.skipif(not DOMAINS, reason="no built-in domain is installed yet")


# A domain's checks run on one xdist worker: they draw and play the same tasks, which
# toolgym.conformance remembers within a process (gold's chats serve grounding and language).
@pytest.mark.parametrize("check", list(conformance.CHECKS))
@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xdist_group(f"conformance-{name}")) for name in DOMAINS])
def test_conformance(name, check):
    findings = conformance.run(name, OPTIONS, only=[check])
    failures = [f"{f.kind or name}: {failure}" for f in findings for failure in f.failures]
    assert not failures, "\n".join(failures[:20])
    assert not [f.skipped for f in findings if f.skipped]
    assert sum(f.checked for f in findings) > 0, f"{check} checked nothing"


@pytest.mark.parametrize("name", LIGHT_DOMAINS)
def test_conformance_on_a_few_tasks_where_the_sample_leaves_a_domain_out(name):
    findings = conformance.run(name, LIGHT_OPTIONS)
    failures = [f"{f.check} {f.kind or name}: {failure}" for f in findings for failure in f.failures]
    assert not failures, "\n".join(failures[:20])
    assert not [f.skipped for f in findings if f.skipped]
