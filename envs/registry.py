"""Finding domains: built-ins by scanning `toolgym.domains`, others by entry point.

Adding a domain never edits a central file: a folder under domains/ exporting `DOMAIN`, or an
installed package declaring an entry point in the group `toolgym.domains`.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import threading

from toolgym.errors import DomainError, UnknownNameError

from .domain import Domain

ENTRY_POINT_GROUP = "toolgym.domains"
_found: dict[str, Domain] | None = None
_lock = threading.Lock()


def _scan() -> dict[str, Domain]:
    import toolgym.domains as package

    found: dict[str, Domain] = {}

    def add(domain: object, origin: str) -> None:
        if not isinstance(domain, Domain):
            raise DomainError(f"{origin} must provide a toolgym Domain, got {type(domain).__name__}")
        if domain.name in found:
            raise DomainError(f"two domains are named {domain.name!r} (second from {origin})")
        found[domain.name] = domain

    for module in pkgutil.iter_modules(package.__path__):
        if module.ispkg and not module.name.startswith("_"):
            loaded = importlib.import_module(f"{package.__name__}.{module.name}")
            if hasattr(loaded, "DOMAIN"):
                add(loaded.DOMAIN, f"toolgym.domains.{module.name}")
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        add(entry.load(), f"entry point {entry.name!r} ({entry.value})")
    return found


def domains() -> dict[str, Domain]:
    global _found
    if _found is None:
        with _lock:
            if _found is None:
                _found = _scan()
    return _found


def list_domains() -> list[str]:
    return sorted(domains())


def load_domain(name: str) -> Domain:
    """A domain by name ('retail') or env id ('toolgym/Retail-v0')."""
    found = domains()
    if name in found:
        return found[name]
    by_id = {d.env_id: d for d in found.values()}
    if name in by_id:
        return by_id[name]
    lowered = name.lower().removeprefix("toolgym/").split("-v")[0]
    if lowered in found:
        return found[lowered]
    raise UnknownNameError("domain", name, list(found) + list(by_id))
