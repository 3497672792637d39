"""Built worlds kept on disk: a second process loads the world the first one built, never a stale one."""

from __future__ import annotations

import pytest

from toolgym.envs import world_cache
from toolgym.envs.registry import load_domain
from toolgym.envs.world import World


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "worlds"
    monkeypatch.setenv(world_cache.ENV_VAR, str(folder))
    monkeypatch.setattr(world_cache, "_configured", None)
    return folder


def counting_build(domain, seed, size):
    calls = []

    def build():
        calls.append((seed, size))
        return domain.build_template(seed, size)

    return build, calls


def test_a_cached_world_is_the_world_built_afresh(cache):
    domain = load_domain("retail")
    build, calls = counting_build(domain, 3, "small")
    first = world_cache.load_or_build(domain, 3, "small", build)
    assert calls == [(3, "small")] and len(list(cache.glob("retail-v*-seed3-small-*.world"))) == 1
    loaded = world_cache.load_or_build(domain, 3, "small", build)  # as a second process would
    assert calls == [(3, "small")]  # read, not built
    fresh = domain.build_template(3, "small")
    assert loaded.state_hash == fresh.state_hash == first.state_hash
    assert loaded.now == fresh.now and loaded.tables.keys() == fresh.tables.keys()
    a, b = World(loaded), World(fresh)
    try:
        assert a.state_hash() == b.state_hash()
        table = next(iter(fresh.tables))
        query = f'SELECT * FROM "{table}" ORDER BY 1'
        assert a.conn.execute(query).fetchall() == b.conn.execute(query).fetchall()
    finally:
        a.close()
        b.close()


def test_a_changed_key_builds_again(cache, monkeypatch):
    domain = load_domain("retail")
    build, calls = counting_build(domain, 0, "small")
    build_seed_1, calls_seed_1 = counting_build(domain, 1, "small")
    world_cache.load_or_build(domain, 0, "small", build)
    world_cache.load_or_build(domain, 1, "small", build_seed_1)  # another seed: another world
    assert calls == [(0, "small")] and calls_seed_1 == [(1, "small")]
    stale = next(cache.glob("retail-*-seed0-small-*.world"))
    monkeypatch.setitem(world_cache._fingerprints, domain.folder.resolve(), "changed-code")
    world_cache.load_or_build(domain, 0, "small", build)
    assert len(calls) == 2
    # the rebuild replaced the world the old code built; the other seed's world is kept
    assert [p.name for p in cache.glob("retail-*-seed0-small-*.world")] == [world_cache.file_name(domain, 0, "small")]
    assert not stale.exists() and len(list(cache.glob("retail-*-seed1-small-*.world"))) == 1


def test_a_killed_writers_old_temporary_file_is_deleted_and_a_fresh_one_kept(cache):
    import os
    import time

    domain = load_domain("retail")
    cache.mkdir(parents=True)
    old, fresh = cache / "retail-x.world123.tmp", cache / "retail-y.world456.tmp"
    old.write_bytes(b"half")
    fresh.write_bytes(b"being written")
    an_hour_ago = time.time() - world_cache.STALE_TEMPORARY_S - 60
    os.utime(old, (an_hour_ago, an_hour_ago))
    world_cache.load_or_build(domain, 2, "small", counting_build(domain, 2, "small")[0])
    assert not old.exists() and fresh.exists()


def test_the_fingerprint_follows_world_code_not_tasks_or_phrasings(tmp_path):
    folder = tmp_path / "shop"
    (folder / "tasks").mkdir(parents=True)
    (folder / "world.py").write_text("SIZE = 1\n")
    (folder / "catalog.yaml").write_text("a: 1\n")
    (folder / "tasks" / "single.py").write_text("x = 1\n")
    (folder / "utterances.yaml").write_text("hi: [hello]\n")

    def fingerprint() -> str:
        world_cache._fingerprints.pop(folder.resolve(), None)
        return world_cache.fingerprint(folder)

    start = fingerprint()
    (folder / "tasks" / "single.py").write_text("x = 2\n")
    (folder / "utterances.yaml").write_text("hi: [hey]\n")
    assert fingerprint() == start
    (folder / "catalog.yaml").write_text("a: 2\n")
    assert fingerprint() != start
    (folder / "catalog.yaml").write_text("a: 1\n")
    (folder / "world.py").write_text("SIZE = 2\n")
    assert fingerprint() != start


def test_a_damaged_file_is_built_again_and_the_cache_can_be_off(cache, monkeypatch):
    domain = load_domain("retail")
    build, calls = counting_build(domain, 0, "small")
    world_cache.load_or_build(domain, 0, "small", build)
    (stored,) = cache.glob("*.world")
    stored.write_bytes(stored.read_bytes()[:-100])  # a writer killed half-way (never renamed in practice)
    again = world_cache.load_or_build(domain, 0, "small", build)
    assert len(calls) == 2 and again.state_hash == domain.build_template(0, "small").state_hash
    assert world_cache.load_or_build(domain, 0, "small", build).state_hash == again.state_hash and len(calls) == 2
    monkeypatch.setenv(world_cache.ENV_VAR, "off")
    assert world_cache.cache_dir() is None
    world_cache.load_or_build(domain, 0, "small", build)
    assert len(calls) == 3
    world_cache.configure(str(cache / "from-config"))  # a job's caches.world_dir wins over the environment
    try:
        assert world_cache.cache_dir() == cache / "from-config"
    finally:
        world_cache.configure(None)


def test_a_domain_whose_worlds_are_built_outside_its_folder_is_never_cached(cache, toy_domain, tmp_path):
    from toolgym.envs.domain import Domain

    assert world_cache.fingerprinted(toy_domain)  # build_world and tables live in tests/toy
    (tmp_path / "policy.md.j2").write_text("Policy.")
    elsewhere = Domain(
        name="elsewhere", version=0, description="d", scope="s", folder=tmp_path, tables=toy_domain.tables,
        build_world=lambda seed, size: toy_domain.build_world(seed, size), tools=list(toy_domain.tools.values()),
        generators={}, now=toy_domain.now,
    )
    assert not world_cache.fingerprinted(elsewhere)
    build, calls = counting_build(elsewhere, 0, "small")
    world_cache.load_or_build(elsewhere, 0, "small", build)
    world_cache.load_or_build(elsewhere, 0, "small", build)
    assert len(calls) == 2 and not list(cache.glob("*.world"))
