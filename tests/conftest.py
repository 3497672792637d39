import pytest

import toolgym
from toolgym.envs import registry


@pytest.fixture(scope="session")
def toy_domain():
    """The tests' tiny domain, registered for the session (it is not a built-in)."""
    from tests.toy import DOMAIN

    registry.add(DOMAIN)
    return DOMAIN


def rescan_domains(monkeypatch) -> None:
    """Find domains again, as a new process would; the registry's state is restored after the test."""
    monkeypatch.setattr(registry, "_found", None)
    monkeypatch.setattr(registry, "_broken", {})
    monkeypatch.setattr(registry, "_warned", set())


def builtin_domains() -> list[str]:
    return [name for name in toolgym.list_domains() if name != "toy"]


def small_world_index(name: str):
    """A built-in domain's task index (`tasks/index.py: index_of`) over its small world 0."""
    import importlib

    from toolgym.envs import World

    index_of = importlib.import_module(f"toolgym.domains.{name}.tasks.index").index_of
    domain = toolgym.load_domain(name)
    world = World(domain.template(0, "small"))
    try:
        return index_of(world)
    finally:
        world.close()


def pytest_collection_modifyitems(items):
    """Under pytest-xdist (`-n auto --dist loadgroup`), every Ray test runs on one worker, one at a time:
    two local Ray clusters on a small machine would starve each other."""
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(pytest.mark.xdist_group("ray"))
