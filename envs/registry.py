"""Finding domains: built-ins by scanning `toolgym.domains`, others by entry point.

Adding a domain never edits a central file: a folder under domains/ exporting `DOMAIN`, or an
installed package declaring an entry point in the group `toolgym.domains`.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import threading
import warnings

from toolgym.errors import DomainError, UnknownNameError

from .domain import Domain

ENTRY_POINT_GROUP = "toolgym.domains"
_found: dict[str, Domain] | None = None
_broken: dict[str, str] = {}  # domain name -> why it could not be loaded (the scan skipped it)
_lock = threading.Lock()


class DomainImportWarning(UserWarning):
    """A domain package failed to import; it is skipped and every other domain still works."""


def _skip(name: str, origin: str, exc: BaseException) -> None:
    where = ""
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f" ({exc.filename}, line {exc.lineno})"
    _broken[name] = f"{origin} failed to import: {type(exc).__name__}: {exc}{where}"
    warnings.warn(f"toolgym: skipping domain {name!r}: {_broken[name]}; fix it, then run again", DomainImportWarning,
                  stacklevel=2)


def _scan() -> dict[str, Domain]:
    import toolgym.domains as package

    found: dict[str, Domain] = {}

    def add(domain: object, origin: str) -> None:
        if not isinstance(domain, Domain):
            raise DomainError(f"{origin} must provide a toolgym Domain, got {type(domain).__name__}")
        if domain.name in found:
            raise DomainError(f"two domains are named {domain.name!r} (second from {origin})")
        found[domain.name] = domain

    _broken.clear()
    for module in pkgutil.iter_modules(package.__path__):
        if module.ispkg and not module.name.startswith("_"):
            origin = f"toolgym.domains.{module.name}"
            try:  # a half-edited domain must not stop the others
                loaded = importlib.import_module(origin)
            except Exception as exc:  # noqa: BLE001 - whatever the domain's code raises
                _skip(module.name, origin, exc)
                continue
            if hasattr(loaded, "DOMAIN"):
                add(loaded.DOMAIN, origin)
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        origin = f"entry point {entry.name!r} ({entry.value})"
        try:
            domain = entry.load()
        except Exception as exc:  # noqa: BLE001 - an installed package that does not import
            _skip(entry.name, origin, exc)
            continue
        add(domain, origin)
    return found


def broken_domains() -> dict[str, str]:
    """Domains found but skipped because they failed to import: name -> why."""
    domains()
    return dict(_broken)


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
    if lowered in _broken:
        raise DomainError(f"domain {lowered!r} was skipped: {_broken[lowered]}")
    from .domain_search import not_installed_hint

    error = UnknownNameError("domain", name, list(found) + list(by_id))
    hint = not_installed_hint(lowered)
    if hint:
        error.args = (f"{error.args[0]}. {hint}",)
    raise error
