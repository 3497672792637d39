import pytest

import toolgym
from toolgym.envs import registry


@pytest.fixture(scope="session")
def toy_domain():
    """The tests' tiny domain, registered for the session (it is not a built-in)."""
    from tests.toy import DOMAIN

    registry.domains().setdefault(DOMAIN.name, DOMAIN)
    return DOMAIN


def builtin_domains() -> list[str]:
    return [name for name in toolgym.list_domains() if name != "toy"]
