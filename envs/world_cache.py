"""Built worlds kept on disk, so a world is built once per machine rather than once per process.

Building a world runs Faker over thousands of rows (~0.3-1 s a world); a job's process, each of its
Ray workers, a second job and a test would each pay it again. The first process to build a world
writes its SQLite image here; the others load it (a few ms). A file is named by everything the
built rows depend on: the domain's name and version, the world seed and size, and a fingerprint
of the code and data that build worlds (the domain's folder without its tasks, phrasings and
policy; the engine's world modules; the versions of Faker, SQLAlchemy and SQLite). Edit any of
them and the name changes, so a stale world is never loaded: it is built again. Files are written
to a temporary name and renamed, so concurrent writers never leave a half-written world, and a
file whose checksum does not match is ignored and rebuilt. Writing a world deletes the files it
replaces (the same domain, seed and size built by older code), so the cache holds one file per
world however often the code changes.

Where: the job's `caches.world_dir` (a folder, or `off`), else `TOOLGYM_WORLD_CACHE` (the same), else
`$XDG_CACHE_HOME/toolgym/worlds` (`~/.cache/toolgym/worlds`).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .domain import Domain
    from .world import WorldTemplate

ENV_VAR = "TOOLGYM_WORLD_CACHE"
OFF = {"off", "none", "0", "false", ""}
FORMAT = b"toolgym-world 1\n"
# Engine modules whose code decides what a built world holds (its schema, how rows are stored, the clock,
# the names drawn).
ENGINE_FILES = ("world.py", "tables.py", "full_text.py", "clock.py", "fakes.py")
# Parts of a domain folder that never change a built world: leaving them out keeps an edit of a
# task generator or a phrasing from throwing away every cached world of the domain.
SKIPPED_DIRS = {"tasks", "__pycache__"}
SKIPPED_FILES = ("utterances.yaml", "policy.md.j2", "README.md", "augment.yaml")
DATA_SUFFIXES = {".py", ".yaml", ".yml", ".json", ".csv", ".txt", ".tsv"}
STALE_TEMPORARY_S = 3600  # a temporary file this old is a killed writer's, not one being written

_configured: str | None = None  # the job's caches.world_dir, if it set one
_fingerprints: dict[Path, str] = {}


def configure(world_dir: str | None) -> None:
    """The folder a job's config names (`caches.world_dir`; None: the environment's or the default)."""
    global _configured
    _configured = world_dir


def cache_dir() -> Path | None:
    """Where built worlds are kept, or None when the cache is off."""
    chosen = _configured if _configured is not None else os.environ.get(ENV_VAR)
    if chosen is not None:
        return None if chosen.strip().lower() in OFF else Path(chosen).expanduser()
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "toolgym" / "worlds"


def fingerprint(folder: Path) -> str:
    """A hash of the code and data that build a domain's worlds (see the module docstring)."""
    folder = folder.resolve()
    found = _fingerprints.get(folder)
    if found is None:
        digest = hashlib.sha256()
        engine = Path(__file__).parent
        files = [engine / name for name in ENGINE_FILES] + sorted(_domain_files(folder))
        for path in files:
            digest.update(str(path.relative_to(path.parent.parent)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
        for package in ("faker", "sqlalchemy", "sqlmodel"):
            digest.update(f"{package}={_version(package)}\0".encode())
        digest.update(f"sqlite={sqlite3.sqlite_version} python={sys.version_info[:2]}".encode())
        found = _fingerprints[folder] = digest.hexdigest()[:20]
    return found


def fingerprinted(domain: Domain) -> bool:
    """Whether the domain's folder holds what builds its worlds (its build_world and tables), so its
    fingerprint follows them. A domain put together elsewhere (in a test, a notebook: its world
    function defined outside its folder) is built afresh in every process instead."""
    folder = domain.folder.resolve()
    for made in (domain.build_world, *domain.tables):
        try:
            source = inspect.getsourcefile(made)  # type: ignore[arg-type]
        except TypeError:
            return False
        if source is None or not Path(source).resolve().is_relative_to(folder):
            return False
    return True


def _domain_files(folder: Path) -> list[Path]:
    return [
        path for path in folder.rglob("*")
        if path.is_file() and path.suffix in DATA_SUFFIXES
        and not SKIPPED_DIRS.intersection(path.relative_to(folder).parts[:-1])
        and not path.name.endswith(SKIPPED_FILES)
    ]


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def file_name(domain: Domain, seed: int, size: str) -> str:
    return f"{domain.name}-v{domain.version}-seed{seed}-{size}-{fingerprint(domain.folder)}.world"


def load_or_build(domain: Domain, seed: int, size: str, build: Callable[[], WorldTemplate]) -> WorldTemplate:
    """The world for (seed, size): read from the cache if a process built it before, else built and stored."""
    from .world import WorldTemplate

    folder = cache_dir()
    if folder is None or not fingerprinted(domain):
        return build()
    path = folder / file_name(domain, seed, size)
    stored = _read(path)
    if stored is not None:
        image, state_hash = stored
        return WorldTemplate.from_image(domain=domain.name, seed=seed, size=size, now=domain.clock(seed),
                                        tables=domain.tables, image=image, state_hash=state_hash,
                                        full_text=domain.full_text)
    template = build()
    if _write(path, template.image, template.state_hash):
        _prune(path, f"{domain.name}-v*-seed{seed}-{size}-*.world")
    return template


def _prune(kept: Path, pattern: str) -> None:
    """Delete what a freshly written world replaces: the same world built by older code (another
    version or fingerprint: never loaded again) and temporary files writers killed mid-write left
    over an hour ago. A file another process is reading stays readable until it closes it."""
    now = time.time()
    stale = [p for p in kept.parent.glob(pattern) if p != kept]
    stale += [p for p in kept.parent.glob("*.tmp") if _older_than(p, now - STALE_TEMPORARY_S)]
    for path in stale:
        try:
            path.unlink(missing_ok=True)
        except OSError:  # another user's file, or a read-only cache: left alone
            pass


def _older_than(path: Path, moment: float) -> bool:
    try:
        return path.stat().st_mtime < moment
    except OSError:
        return False


def _read(path: Path) -> tuple[bytes, int] | None:
    """(image, state hash) from a cache file, or None if there is none or it is not whole."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(FORMAT):
        return None
    head_end = data.find(b"\n", len(FORMAT))
    try:
        head = json.loads(data[len(FORMAT):head_end])
        image = data[head_end + 1:]
        if hashlib.blake2b(image, digest_size=16).hexdigest() != head["checksum"]:
            return None
        return image, int(head["state_hash"], 16)
    except (ValueError, KeyError, TypeError):
        return None


def _write(path: Path, image: bytes, state_hash: int) -> bool:
    """Store a built world (True when stored); a cache that cannot be written (read-only, full) is
    skipped, not an error."""
    head = {"state_hash": f"{state_hash:x}", "checksum": hashlib.blake2b(image, digest_size=16).hexdigest()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(FORMAT + json.dumps(head).encode() + b"\n" + image)
            os.replace(temporary, path)  # atomic: readers see the old file, none, or the whole new one
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True
