"""The manifest of a dataset directory, and the file operations that keep it true after a crash.

`manifest.jsonl` is the only record of what is published: one JSON line per flush naming the
shards it published (with the row ids each holds and its sha256) and the task ids it finished,
sealed by a checksum over them. Shards are renamed into place before their line is appended and
fsynced, so after a kill at any point a shard either is named by a complete line or is an orphan
that resume deletes; a torn last line counts as never written. A line that no longer matches its
shards (edited, a shard replaced, a row id in two flushes) is found by `disagreements`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from toolgym.errors import ToolgymError

MANIFEST = "manifest.jsonl"
LOCK = ".toolgym.lock"
SHARD_NAME = re.compile(r"^part-(\d{5,})\.parquet$")
TEMP_NAME = re.compile(r"^\.part-\d{5,}\.parquet\.tmp$")


class ManifestError(ToolgymError):
    """The dataset directory is inconsistent in a way resume cannot repair on its own."""


@dataclass
class ManifestState:
    records: list[dict[str, Any]] = field(default_factory=list)
    torn: bool = False  # the last line was incomplete and has been dropped
    needs_rewrite: bool = False  # torn, or the last line lacks its newline: fix before appending


def read(path: Path) -> ManifestState:
    """Parse the manifest; an incomplete last line is dropped, a bad line before it is an error."""
    state = ManifestState()
    if not path.exists():
        return state
    data = path.read_bytes()
    state.needs_rewrite = bool(data) and not data.endswith(b"\n")
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or "type" not in record:
                raise ValueError("not a manifest record")
        except ValueError:
            if number == len(lines):
                state.torn = state.needs_rewrite = True  # killed while appending: that flush never happened
                break
            raise ManifestError(
                f"{path}: line {number} of {len(lines)} is not a manifest record; lines after it exist, "
                "so this is not an interrupted write. Restore the file or start a new output directory."
            ) from None
        state.records.append(record)
    return state


def check_flush(path: Path, record: dict[str, Any]) -> None:
    """A flush record has the shape this writer gives it; a damaged one is named, never a KeyError."""
    shards, tasks = record.get("shards"), record.get("tasks")
    problem = None
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        problem = "its 'tasks' is not a list of task ids"
    elif not isinstance(shards, list) or not all(
        isinstance(s, dict) and isinstance(s.get("path"), str) and s.get("split") == s["path"].split("/")[0]
        and SHARD_NAME.match(s["path"].split("/", 1)[-1]) and s["path"].count("/") == 1 for s in shards
    ):
        problem = "its 'shards' is not a list of {split, path: <split>/part-NNNNN.parquet, rows}"
    elif not isinstance(record.get("failures", []), list):
        problem = "its 'failures' is not a list"
    if problem:
        raise ManifestError(
            f"{path}: flush record seq={record.get('seq')!r} is damaged: {problem}. Restore the file from a "
            "backup or start a new output directory; nothing was deleted"
        )


def checksum(record: dict[str, Any]) -> str:
    """The seal of a flush record: sha256 over its tasks, failed tasks and shards (path, rows, sha256, row ids)."""
    sealed = {
        "tasks": record.get("tasks"),
        "failed": [f.get("task_id") for f in record.get("failures", ()) if isinstance(f, dict)],
        "shards": [[s.get("path"), s.get("rows"), s.get("sha256"), s.get("ids")] for s in record.get("shards", ())],
    }
    return hashlib.sha256(json.dumps(sealed, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


def shard_ids(out_dir: Path, shard: dict[str, Any]) -> list[str]:
    """The row ids a shard holds: as recorded, or (a record written before ids were recorded) read from the file."""
    ids = shard.get("ids")
    if isinstance(ids, list):
        return ids
    import pyarrow.parquet as pq

    return [str(i) for i in pq.read_table(out_dir / shard["path"], columns=["id"]).column("id").to_pylist()]


def disagreements(out_dir: Path, flushes: list[dict[str, Any]]) -> dict[Any, str]:
    """seq -> why, for every flush whose record no longer matches its shards.

    A record disagrees when its checksum does not match its content (the line was edited), a shard's
    bytes differ from the sha256 recorded, the row ids recorded are not as many as its rows, or a
    row id it holds is also held by another flush (both are named: resuming either would duplicate).
    """
    found: dict[Any, str] = {}
    owner: dict[tuple[str, str], Any] = {}  # (split, row id) -> seq of the flush that first holds it
    for record in flushes:
        seq = record.get("seq")
        sealed = record.get("checksum")
        if sealed is not None and sealed != checksum(record):
            found[seq] = (f"flush seq={seq} in {MANIFEST} does not match its checksum: its task list, failures or "
                          "shard list was edited after it was written")
            continue
        damaged = damaged_shards(out_dir, record)
        if damaged:
            found[seq] = f"shard {damaged[0]} does not match the checksum recorded when it was published"
            continue
        for shard in record["shards"]:
            ids = shard_ids(out_dir, shard)
            if shard.get("rows") is not None and len(ids) != shard["rows"]:
                found[seq] = f"flush seq={seq} records {len(ids)} row ids for the {shard['rows']} rows of {shard['path']}"
                break
            for row_id in ids:
                key = (shard["split"], row_id)
                if key in owner:
                    first = owner[key]
                    why = f"{shard['split']} row id {row_id!r} is in flush seq={first} and again in flush seq={seq}"
                    found.setdefault(first, why)
                    found[seq] = why
                else:
                    owner[key] = seq
    return found


def intent_paths(record: dict[str, Any]) -> list[str]:
    """Shard names an interrupted flush planned (temp names included): the files resume may delete."""
    paths = [p for p in record.get("shards", ()) if isinstance(p, str) and p.count("/") == 1]
    return paths + [f"{p.split('/')[0]}/.{p.split('/')[1]}.tmp" for p in paths]


def damaged_shards(out_dir: Path, record: dict[str, Any]) -> list[str]:
    """The shards of a flush whose size or sha256 differs from what was recorded (older records: unchecked)."""
    from .shards import file_digest

    bad = []
    for shard in record["shards"]:
        if "sha256" not in shard:
            continue
        path = out_dir / shard["path"]
        if path.stat().st_size != shard.get("bytes") or file_digest(path)[0] != shard["sha256"]:
            bad.append(shard["path"])
    return bad


def rewrite(path: Path, records: list[dict[str, Any]]) -> None:
    """Replace the manifest with these records (drops a torn tail), atomically."""
    write_atomic(path, "".join(dumps(r) + "\n" for r in records).encode())


def append(path: Path, record: dict[str, Any]) -> None:
    """Append one record and make it durable: the commit point of a flush."""
    new = not path.exists()
    with open(path, "ab") as handle:
        handle.write((dumps(record) + "\n").encode())
        handle.flush()
        os.fsync(handle.fileno())
    if new:
        fsync_dir(path.parent)


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)


def write_atomic(path: Path, data: bytes) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    with open(temp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make renames and new names in a directory durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def shard_files(split_dir: Path) -> Iterator[Path]:
    """Every file in a split folder that this writer could have made (shards and temp files)."""
    if split_dir.is_dir():
        for path in split_dir.iterdir():
            if SHARD_NAME.match(path.name) or TEMP_NAME.match(path.name):
                yield path


def lock(out_dir: Path) -> IO[str]:
    """Hold the directory for this writer; the OS drops the lock if the process dies."""
    handle = open(out_dir / LOCK, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise ManifestError(
            f"{out_dir} is being written by {holder}; wait for it to finish or choose another output directory"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    return handle


def unlock(handle: IO[str] | None) -> None:
    if handle is not None and not handle.closed:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()
