"""Finding domains: built-ins by scanning `toolgym.domains`, others by entry point.

Adding a domain never edits a central file: a folder under domains/, or an installed package
declaring an entry point in the group `toolgym.domains`.

Finding is cheap and building is lazy. A domain package names itself in its `__init__.py`
(`NAME`, `VERSION`) and builds its `Domain` in its `domain` module (`DOMAIN`), which is imported
only when the domain is first used; so listing domains and registering their Gymnasium ids
import no tables, tools or generators. A package that exports `DOMAIN` itself (the older
layout), or an entry point naming a `Domain` object, is built when it is found.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import re
import threading
import warnings
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from toolgym.errors import DomainError, ToolgymError, UnknownNameError

if TYPE_CHECKING:
    from .domain import Domain

ENTRY_POINT_GROUP = "toolgym.domains"


def env_id_for(name: str, version: int) -> str:
    """The Gymnasium id of a domain: `toolgym/<Name>-v<version>`."""
    return f"toolgym/{name.replace('_', ' ').title().replace(' ', '')}-v{version}"


@dataclass
class _Found:
    """A domain found but maybe not built: its name and version, and where its Domain comes from."""

    name: str
    version: int
    origin: str
    module: str | None = None  # the package whose `domain` module builds it (lazy)
    built: Domain | None = None

    @property
    def env_id(self) -> str:
        return env_id_for(self.name, self.version)


_found: dict[str, _Found] | None = None
_loaded: dict[str, Domain] = {}  # built domains by name, and domains added with add()
_broken: dict[str, str] = {}  # domain name -> why it could not be imported or built (it is skipped)
_warned: set[str] = set()  # broken domains already reported by a warning
_lock = threading.RLock()


class DomainImportWarning(UserWarning):
    """A domain package failed to import or build; it is skipped and every other domain still works."""


def _why(origin: str, exc: BaseException) -> str:
    if isinstance(exc, DomainError):  # the package's own declaration is wrong: the message says how
        return f"{origin}: {exc}"
    where = f" ({exc.filename}, line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.filename else ""
    return f"{origin} failed to import: {type(exc).__name__}: {exc}{where}"


def _mark_broken(name: str, origin: str, exc: BaseException) -> str:
    _broken[name] = _why(origin, exc)
    return _broken[name]


def _warn(name: str) -> None:
    """Say once per scan that a broken domain is skipped, naming it and the error."""
    if name not in _warned:
        _warned.add(name)
        warnings.warn(f"toolgym: skipping domain {name!r}: {_broken[name]}; fix it, then run again",
                      DomainImportWarning, stacklevel=3)


def _describe(loaded: Any, origin: str) -> _Found:
    """What a package or entry point offers: a lazy package (NAME, VERSION) or a built Domain."""
    if isinstance(loaded, ModuleType):
        name, version = getattr(loaded, "NAME", None), getattr(loaded, "VERSION", None)
        if isinstance(name, str) and isinstance(version, int):
            return _Found(name, version, origin, module=loaded.__name__)
        loaded = getattr(loaded, "DOMAIN", None)
        if loaded is None:
            raise DomainError(f"{origin} must set NAME and VERSION (and build DOMAIN in its domain.py), or export DOMAIN")
    from .domain import Domain  # a built domain was handed over: the engine is loaded anyway

    if not isinstance(loaded, Domain):
        raise DomainError(f"{origin} must provide a toolgym Domain, got {type(loaded).__name__}")
    return _Found(loaded.name, loaded.version, origin, built=loaded)


def _scan() -> dict[str, _Found]:
    """Every domain package's declaration, read without building it. A package that fails to import
    is skipped with a warning naming it (a half-edited domain must not stop the others)."""
    import toolgym.domains as package

    found: dict[str, _Found] = {}

    def add(entry: _Found) -> None:
        if entry.name in found:
            raise DomainError(f"two domains are named {entry.name!r} (second from {entry.origin})")
        found[entry.name] = entry

    _broken.clear()
    _warned.clear()
    for module in pkgutil.iter_modules(package.__path__):
        if module.ispkg and not module.name.startswith("_"):
            origin = f"toolgym.domains.{module.name}"
            try:
                loaded = importlib.import_module(origin)
            except Exception as exc:  # noqa: BLE001 - whatever the domain's code raises
                _mark_broken(module.name, origin, exc)
                _warn(module.name)
                continue
            if hasattr(loaded, "NAME") or hasattr(loaded, "DOMAIN"):
                add(_describe(loaded, origin))
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        origin = f"entry point {point.name!r} ({point.value})"
        try:
            offered = point.load()
        except Exception as exc:  # noqa: BLE001 - an installed package that does not import
            _mark_broken(point.name, origin, exc)
            _warn(point.name)
            continue
        add(_describe(offered, origin))
    return found


def found() -> dict[str, _Found]:
    """Every domain found (name, version, env id), none of them built for it."""
    global _found
    if _found is None:
        with _lock:
            if _found is None:
                _found = _scan()
    return _found


def _build(entry: _Found) -> Domain:
    """The entry's Domain, built now if it was not yet; it must be the name and version the package declared."""
    if entry.built is None:
        assert entry.module is not None
        domain = importlib.import_module(f"{entry.module}.domain").DOMAIN
        if (domain.name, domain.version) != (entry.name, entry.version):
            raise DomainError(
                f"it declares {entry.name!r} version {entry.version}, but its domain.py builds "
                f"{domain.name!r} version {domain.version}: build DOMAIN with name=NAME, version=VERSION"
            )
        entry.built = domain
    return entry.built


def add(domain: Domain) -> Domain:
    """Make a Domain built outside discovery known by name (a test's domain, `serve-policy --import`)."""
    with _lock:
        return _loaded.setdefault(domain.name, domain)


def env_ids() -> dict[str, str]:
    """Every known domain's Gymnasium id by name, found or added, none built for it."""
    ids = {entry.name: entry.env_id for entry in found().values()}
    ids.update({domain.name: domain.env_id for domain in _loaded.values()})
    return ids


def list_domains() -> list[str]:
    """Every domain found or added, without building any; one that failed to build is left out."""
    return sorted({*found(), *_loaded} - _broken.keys())


def load_domain(name: str) -> Domain:
    """A domain by name ('retail') or env id ('toolgym/Retail-v1'), built on first use.

    A domain whose package fails to import or build raises a DomainError that names it and says why."""
    domain = _loaded.get(name)
    if domain is not None:
        return domain
    entries = found()
    entry = entries.get(name)
    if entry is None:
        by_id = {e.env_id: e for e in entries.values()} | {d.env_id: d for d in _loaded.values()}
        match = by_id.get(name)
        lowered = name.lower().removeprefix("toolgym/").split("-v")[0]
        if match is None:
            match = _loaded.get(lowered) or entries.get(lowered)
            asked = re.search(r"-v(\d+)$", name)
            if match is not None and asked and not match.env_id.endswith(f"-v{asked.group(1)}"):
                # a pinned id names a world, tools and rewards; another version's would train on other data
                raise UnknownNameError(f"version of domain {match.name!r}", name, [match.env_id])
        if match is None:
            raise _unknown(name, lowered, [*list_domains(), *by_id])
        if not isinstance(match, _Found):
            return match
        entry = match
    with _lock:
        domain = _loaded.get(entry.name)
        if domain is None:
            if entry.name in _broken:
                raise DomainError(f"domain {entry.name!r} cannot be loaded: {_broken[entry.name]}")
            try:
                domain = _build(entry)
            except Exception as exc:  # noqa: BLE001 - whatever the domain's code raises
                why = _mark_broken(entry.name, entry.origin, exc)
                raise DomainError(f"domain {entry.name!r} cannot be loaded: {why}; fix it, then run again") from exc
            _loaded[entry.name] = domain
    return domain


def _unknown(name: str, lowered: str, known: list[str]) -> ToolgymError:
    """The error for a name no domain has: skipped as broken, declared by a package not installed, or a slip."""
    if lowered in _broken:
        return DomainError(f"domain {lowered!r} cannot be loaded: {_broken[lowered]}")
    from .domain_search import not_installed_hint

    error = UnknownNameError("domain", name, known)
    hint = not_installed_hint(lowered)
    if hint:
        error.args = (f"{error.args[0]}. {hint}",)
    return error


def domains() -> dict[str, Domain]:
    """Every domain, built: the live mapping of built domains (adding to it makes a domain known).

    A domain that fails to build is skipped with a warning naming it; every other one is built."""
    for name in found():
        try:
            load_domain(name)
        except DomainError:
            if name not in _broken:
                raise
            _warn(name)
    return _loaded


def broken_domains() -> dict[str, str]:
    """Domains skipped because they failed to import or build: name -> why (every domain is built to know)."""
    domains()
    return dict(_broken)
