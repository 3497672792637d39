"""Which domains the heavy suites run on (tests/conftest.py: heavy_domains)."""

from __future__ import annotations

import pytest

from tests.conftest import FUZZ_SAMPLE, HEAVY_SAMPLE, builtin_domains, heavy_domains


def test_the_sample_is_drawn_by_the_seed_and_can_be_named(monkeypatch):
    names = builtin_domains()
    monkeypatch.delenv("TOOLGYM_HEAVY_DOMAINS", raising=False)
    monkeypatch.setenv("TOOLGYM_TEST_SEED", "a")
    drawn = heavy_domains()
    assert len(drawn) == min(HEAVY_SAMPLE, len(names)) and set(drawn) <= set(names)
    assert heavy_domains() == drawn  # the same seed, the same sample
    fuzzed = heavy_domains(FUZZ_SAMPLE)
    assert len(fuzzed) == min(FUZZ_SAMPLE, len(names)) and set(fuzzed) <= set(drawn)  # the fuzz's are heavy ones
    if len(names) > HEAVY_SAMPLE:
        samples = set()
        for seed in range(40):
            monkeypatch.setenv("TOOLGYM_TEST_SEED", str(seed))
            samples.update(heavy_domains())
        assert samples == set(names)  # over seeds (commits), every domain is drawn
    monkeypatch.setenv("TOOLGYM_HEAVY_DOMAINS", "all")
    assert heavy_domains() == names
    monkeypatch.setenv("TOOLGYM_HEAVY_DOMAINS", "retail, research")
    assert heavy_domains() == ["retail", "research"]
    monkeypatch.setenv("TOOLGYM_HEAVY_DOMAINS", "retial")
    with pytest.raises(pytest.UsageError, match="retial"):
        heavy_domains()
