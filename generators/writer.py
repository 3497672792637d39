"""DatasetWriter: rows in, resumable Parquet dataset out.

    writer = DatasetWriter(out_dir, config=config_dict, shard_rows=2000, resume=True)
    done = writer.finished_task_ids()          # skip these
    writer.add(task_id, {"sft": [...], "rl_tasks": [...]}, failure=None)
    summary = writer.close(job_stats)          # last flush, failures.jsonl, README.md

Layout of `out_dir`:
    <split>/part-NNNNN.parquet   shards (sft, no_tool, rejected, rl_tasks), declared HF features
    manifest.jsonl               one line per flush: shards published, tasks finished, failures, counts
    failures.jsonl               tasks that raised, with the reason (rebuilt from the manifest)
    README.md                    dataset card; `datasets.load_dataset(out_dir)` reads its header

A flush publishes every buffered split together and then commits one manifest line, so a task
is finished exactly when all of its rows are published. Kill the process anywhere and reopen:
orphan shards are deleted and `finished_task_ids()` names exactly the tasks whose rows are in.
One writer per directory (a lock file enforces it), used from one thread; reading back:
`toolgym.generators.reading` (exact) or `datasets.load_dataset(out_dir)`.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict

import pyarrow as pa

from toolgym.errors import ConfigError, ToolgymError
from toolgym.version import SCHEMA_VERSION, __version__

from . import card, manifest
from .encoding import encode_row
from .features import SPLITS, RowError, check_split
from .inspection.headline import CARD_SPLITS, HeadlineTally
from .manifest import MANIFEST, ManifestError
from .shards import to_batch, write_shard
from .stats import RunStats

FAILURES = "failures.jsonl"
CARD = "README.md"
BATCH_ROWS = 256  # rows are converted to Arrow in batches: compact in memory, cheap per row
FAILURE_KEYS = ("task_id", "domain", "kind", "error")


class _Shard(TypedDict):
    """A shard as a flush record lists it."""

    split: str
    path: str
    rows: int
    sha256: str  # of the file's bytes: resume detects a damaged shard
    bytes: int
    ids: list[str]  # the row ids it holds, in order: resume knows every published id without reading shards


class DatasetWriter:
    _oldest: float | None  # when the oldest unflushed task was added; set by _clear_buffers

    def __init__(
        self,
        out_dir: str | Path,
        *,
        config: dict[str, Any],
        shard_rows: int = 2000,
        resume: bool = True,
        shard_bytes: int = 128 << 20,
        flush_seconds: float = 300.0,
        compression: str = "zstd",
        max_attempts: int = 1,
        repair: bool = False,
    ):
        """Open (or resume) a dataset directory.

        shard_rows: flush when a split has this many rows buffered; shard_bytes: or when the
        buffered Arrow data reaches this size; flush_seconds: or when the oldest unflushed task
        is this old, so a kill loses little teacher work. resume=False refuses a directory that
        already holds a run rather than deleting it.
        """
        for name, value in (("shard_rows", shard_rows), ("shard_bytes", shard_bytes), ("flush_seconds", flush_seconds)):
            if not value > 0:
                raise ConfigError(f"DatasetWriter {name} must be positive, got {value!r}")
        self.out_dir = Path(out_dir)
        self._writing = self.out_dir
        self.shard_rows, self.shard_bytes, self.flush_seconds = shard_rows, shard_bytes, flush_seconds
        self.compression = compression
        if max_attempts < 1:
            raise ConfigError(f"DatasetWriter max_attempts must be at least 1, got {max_attempts!r}")
        self.max_attempts, self.repair = max_attempts, repair
        self.config = card.redact(config)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        if not (self.out_dir / MANIFEST).exists():  # before the lock file: refuse a foreign directory untouched
            self._check_unclaimed(self._shards_on_disk())
        self._lock = manifest.lock(self.out_dir)
        self._state = "open"
        self._summary: dict[str, Any] | None = None
        self._clear_buffers()
        try:
            self._open(resume)
        except BaseException:
            manifest.unlock(self._lock)
            raise

    # ---- opening and resuming --------------------------------------------------------------------
    def _open(self, resume: bool) -> None:
        path = self.out_dir / MANIFEST
        state = manifest.read(path)
        on_disk = self._shards_on_disk()
        if not state.records:
            self._check_unclaimed(on_disk)
        dropped = {r.get("seq") for r in state.records if r.get("type") == "drop"}
        flushes = [r for r in state.records if r.get("type") == "flush" and r.get("seq") not in dropped]
        for record in flushes:
            manifest.check_flush(path, record)
        if not resume and (state.records or on_disk):
            raise ConfigError(
                f"{self.out_dir} already holds a dataset ({len(flushes)} flushes in {MANIFEST}); "
                "resume it (resume=True) or remove the directory to start over"
            )
        older = {r.get("schema_version") for r in state.records if r.get("type") == "start"} - {SCHEMA_VERSION}
        if older:
            raise ConfigError(
                f"{self.out_dir} holds rows of schema version {sorted(map(str, older))[0]}, but this toolgym writes "
                f"version {SCHEMA_VERSION}; one dataset cannot mix them: choose a new output directory"
            )
        if state.needs_rewrite:
            manifest.rewrite(path, state.records)
        published = {s["path"] for r in flushes for s in r["shards"]}
        missing = sorted(published - on_disk.keys())
        if missing:
            raise ManifestError(
                f"{self.out_dir}: {len(missing)} published shard(s) are gone, e.g. {missing[0]}; "
                "restore them or start a new output directory"
            )
        disagree = manifest.disagreements(self.out_dir, flushes)
        if disagree and not self.repair:
            raise ManifestError(
                f"{self.out_dir}: {next(iter(disagree.values()))} ({len(disagree)} flush(es) no longer match their "
                "shards); restore the manifest and shards from a backup, or resume with repair "
                "(toolgym generate ... --repair) to drop those flushes' shards and run their tasks again"
            )
        corrupt = [r for r in flushes if r.get("seq") in disagree]
        for record in corrupt:  # repair: forget the flush (its tasks run again), then delete its shards
            manifest.append(path, {"type": "drop", "seq": record["seq"], "time": _now(),
                                   "shards": [s["path"] for s in record["shards"]], "reason": disagree[record["seq"]]})
            for shard in record["shards"]:
                on_disk.pop(shard["path"], None)
                (self.out_dir / shard["path"]).unlink(missing_ok=True)
            flushes.remove(record)
        self.repaired = [r["seq"] for r in corrupt]
        published = {s["path"] for r in flushes for s in r["shards"]}
        self.stats = RunStats()
        self._finished: set[str] = set()
        self._failed: dict[str, dict[str, Any]] = {}  # task id -> its last failure, while it may be retried
        self._attempts: dict[str, int] = {}
        self._published_ids: dict[str, set[str]] = {}  # split -> row ids in its shards: none is ever written twice
        self._shards: dict[str, int] = {}
        self._next_index: dict[str, int] = {}
        for record in flushes:
            self._replay_flush(record)
        intended = {p for r in state.records if r.get("type") == "intent" for p in manifest.intent_paths(r)}
        unpublished = sorted(p for p in on_disk if p not in published)
        foreign = [p for p in unpublished if p not in intended]
        if foreign:
            raise ManifestError(
                f"{self.out_dir}: {len(foreign)} file(s) look like shards but {MANIFEST} never planned them, "
                f"e.g. {foreign[0]}; they are not this job's, so nothing was deleted: move them out of the "
                "directory, or choose another output directory"
            )
        for rel in unpublished:
            self._next_index_from(rel)  # never reuse a name an interrupted flush planned
        self.orphans_removed = unpublished
        for rel in self.orphans_removed:  # planned and written by this writer, never committed: a kill mid-flush
            on_disk[rel].unlink()
        for split in {rel.split("/")[0] for rel in self.orphans_removed}:
            manifest.fsync_dir(self.out_dir / split)
        self.resumed_tasks = len(self._finished)
        # the card's figures, counted as rows are added; a directory that already holds chat rows
        # has its shards read back at close instead, so the card covers every row in it
        self._headline = None if any(self._shards.get(split) for split in CARD_SPLITS) else HeadlineTally()
        self.torn_manifest = state.torn
        self.config_changes = self._config_changes(state.records)
        seqs = [r["seq"] for r in state.records if r.get("type") in ("flush", "intent") and isinstance(r.get("seq"), int)]
        self._seq = max(seqs, default=-1) + 1
        manifest.append(path, {"type": "start", "time": _now(), "toolgym_version": __version__,
                               "schema_version": SCHEMA_VERSION, "resumed_tasks": self.resumed_tasks,
                               "orphans_removed": self.orphans_removed, "config": self.config})  # fmt: skip
        if flushes:
            self._write_failures()

    def _shards_on_disk(self) -> dict[str, Path]:
        return {p.relative_to(self.out_dir).as_posix(): p for s in SPLITS for p in manifest.shard_files(self.out_dir / s)}

    def _check_unclaimed(self, on_disk: dict[str, Path]) -> None:
        """A directory with no manifest must hold nothing this writer could overwrite or delete."""
        if on_disk:
            example = sorted(on_disk)[0]
            raise ManifestError(
                f"{self.out_dir} holds {len(on_disk)} shard file(s) (e.g. {example}) but no {MANIFEST}: the record of "
                "what was published is lost, or this is another dataset. Nothing was deleted. Restore the "
                f"manifest, or move the shards away, or choose another output directory (--out)"
            )
        others = sorted(p.name for p in self.out_dir.iterdir() if p.name not in (manifest.LOCK, MANIFEST))
        if others:
            raise ManifestError(
                f"{self.out_dir} is not empty ({', '.join(others[:5])}{', ...' if len(others) > 5 else ''}) and is "
                f"not a toolgym dataset (no {MANIFEST}); choose a new or empty output directory (--out)"
            )

    def _replay_flush(self, record: dict[str, Any]) -> None:
        """Count one committed flush: finished tasks, failed ones that may be retried, its shards."""
        failed_here = {f["task_id"]: f for f in record.get("failures", ()) if isinstance(f, dict) and "task_id" in f}
        for task_id in record["tasks"]:
            failure = failed_here.get(task_id)
            if failure is not None and failure.get("retryable"):
                attempts = self._attempts[task_id] = self._attempts.get(task_id, 0) + 1
                if attempts < self.max_attempts:
                    self._failed[task_id] = failure
                    continue
            self._failed.pop(task_id, None)
            self._finished.add(task_id)
        self.stats.merge(record.get("stats", {}))
        for shard in record["shards"]:
            self._count_shard(shard["split"], shard["path"])
            self._published_ids.setdefault(shard["split"], set()).update(manifest.shard_ids(self.out_dir, shard))

    def _next_index_from(self, rel: str) -> None:
        split, name = rel.split("/", 1)
        index = int(name.lstrip(".").split("part-", 1)[1].split(".")[0])
        self._next_index[split] = max(self._next_index.get(split, 0), index + 1)

    def _count_shard(self, split: str, rel: str) -> None:
        self._shards[split] = self._shards.get(split, 0) + 1
        self._next_index_from(rel)

    def _config_changes(self, records: list[dict[str, Any]]) -> list[str]:
        starts = [r for r in records if r.get("type") == "start"]
        if not starts:
            return []
        changed = _diff_keys(starts[-1].get("config"), self.config)
        if changed:
            warnings.warn(
                f"resuming {self.out_dir} with a different config (changed: {', '.join(changed[:10])}); "
                "rows written before and after the change will be mixed",
                stacklevel=3,
            )
        return changed

    # ---- the API ---------------------------------------------------------------------------------
    def finished_task_ids(self) -> set[str]:
        """Tasks whose rows (maybe none) are published: skip them when resuming.

        A task that failed with no rows is not among them until it has failed `max_attempts` times.
        """
        return set(self._finished)

    def failed_tasks(self) -> dict[str, dict[str, Any]]:
        """The last failure of every task whose latest attempt failed (retried or given up)."""
        return self._current_failures(self._committed_flushes())

    def add(self, task_id: str, rows: dict[str, list[dict[str, Any]]] | PreparedRows, failure: dict[str, Any] | None = None,
            counts: dict[str, Any] | None = None) -> None:
        """Buffer one finished task: its rows per split (or prepared: see prepare_rows) and, if it raised,
        its failure record.

        counts: other per-task numbers for the card (such as {"rewrite": {...}}), summed over the run.

        Everything is checked before anything is buffered, so a bad row leaves the writer as it was.
        """
        self._check_open()
        if not isinstance(task_id, str) or not task_id:
            raise RowError(f"task_id must be a non-empty string, got {task_id!r}")
        if task_id in self._finished or task_id in self._pending_set:
            raise RowError(f"task {task_id!r} was already added; skip the ids in finished_task_ids()")
        prepared = rows if isinstance(rows, PreparedRows) else prepare_rows(task_id, rows)
        encoded = prepared.encoded
        for split, split_encoded in encoded.items():
            self._check_new_ids(task_id, split, split_encoded)
        if failure is not None:
            failure = {**_check_failure(task_id, failure), "retryable": not encoded}
        # all checked: buffer
        for split, split_encoded in encoded.items():
            if self._headline is not None and split in CARD_SPLITS:
                self._headline.add_all(split_encoded)
            self._pending_ids.setdefault(split, {}).update(dict.fromkeys(row["id"] for row in split_encoded))
            waiting = self._unconverted.setdefault(split, [])
            waiting.extend(split_encoded)
            self._buffered_rows[split] = self._buffered_rows.get(split, 0) + len(split_encoded)
            if len(waiting) >= BATCH_ROWS:
                self._convert(split)
        self._delta.merge(prepared.stats)
        previous = self._failed.get(task_id)
        if previous is not None:  # a retry: its earlier failure no longer counts
            self._delta.retract_failure(previous)
        self._delta.add_task(failure)
        if counts:
            self._delta.merge(counts)
        self._pending.append(task_id)
        self._pending_set.add(task_id)
        if failure is not None:
            self._failures.append(failure)
        if self._oldest is None:
            self._oldest = time.monotonic()
        if (
            max(self._buffered_rows.values(), default=0) >= self.shard_rows
            or self._buffered_bytes >= self.shard_bytes
            or time.monotonic() - self._oldest >= self.flush_seconds
        ):
            self.flush()

    @property
    def healthy(self) -> bool:
        """False after a flush failed part-way: close() cannot finish, abort() releases the directory."""
        return self._state != "broken"

    def flush(self) -> None:
        """Publish the buffered rows as one shard per split, then commit them in the manifest.

        An OSError (disk full, read-only) names the file it was writing; the tasks of this flush
        stay unfinished, so a rerun redoes them and loses nothing.
        """
        self._check_open()
        if not self._pending:
            return
        self._state = "broken"  # until the manifest line is durable; a reopen cleans up
        try:
            self._publish()
        except OSError as exc:
            if exc.filename is None and exc.errno is not None:  # a write that failed (ENOSPC) says not where
                exc.filename = str(self._writing)
            raise
        self._clear_buffers()
        pa.default_memory_pool().release_unused()  # hand the shard's buffers back to the OS: memory stays flat

    def _publish(self) -> None:
        for split in SPLITS:
            self._convert(split)
        planned = {split: f"{split}/part-{self._next_index.get(split, 0):05d}.parquet"
                   for split in SPLITS if self._buffers.get(split)}  # fmt: skip
        self._writing = self.out_dir / MANIFEST
        if planned:  # names this writer may leave behind if killed: resume deletes only these
            manifest.append(self.out_dir / MANIFEST, {"type": "intent", "seq": self._seq, "shards": list(planned.values())})
        shards: list[_Shard] = []
        for split, rel in planned.items():
            (self.out_dir / split).mkdir(exist_ok=True)
            self._writing = self.out_dir / rel
            count, digest, size = write_shard(self.out_dir / rel, split, self._buffers[split], self.compression)
            self._next_index[split] = self._next_index.get(split, 0) + 1
            shards.append({"split": split, "path": rel, "rows": count, "sha256": digest, "bytes": size,
                           "ids": list(self._pending_ids[split])})
        for shard in shards:
            manifest.fsync_dir(self.out_dir / shard["split"])
        record = {"type": "flush", "seq": self._seq, "time": _now(), "shards": shards, "tasks": self._pending,
                  "failures": self._failures, "stats": self._delta.data}  # fmt: skip
        record["checksum"] = manifest.checksum(record)
        self._writing = self.out_dir / MANIFEST
        manifest.append(self.out_dir / MANIFEST, record)
        # committed
        self._state = "open"
        self._seq += 1
        self._replay_flush(record)

    def close(self, stats: dict[str, Any] | None = None) -> dict[str, Any]:
        """Flush, write failures.jsonl and the dataset card, release the directory; returns counts."""
        if self._state == "closed" and self._summary is not None:
            return self._summary
        self.flush()
        self._write_failures()
        if self._headline is not None:
            figures = self._headline.figures()
        else:
            from .inspection.figures import card_figures  # reads every shard back

            figures = card_figures(self.out_dir)
        text = card.render(self.out_dir.resolve().name, self.config, self.stats.data, self._shards, stats, figures)
        manifest.write_atomic(self.out_dir / CARD, text.encode())
        self._summary = {
            "out_dir": str(self.out_dir),
            "rows": self.stats.rows(),
            "shards": dict(sorted(self._shards.items())),
            "tasks": self.stats.data.get("tasks", 0),
            "failures": self.stats.data.get("failures", 0),
            "resumed_tasks": self.resumed_tasks,
            "orphans_removed": len(self.orphans_removed),
        }
        self._state = "closed"
        manifest.unlock(self._lock)
        return self._summary

    def abort(self) -> None:
        """Drop unflushed tasks (a rerun redoes them) and release the directory."""
        self._clear_buffers()
        self._state = "closed"
        manifest.unlock(self._lock)

    def __enter__(self) -> DatasetWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._state == "open":
            self.close()
        else:
            self.abort()

    # ---- internals -------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._state == "closed":
            raise ToolgymError(f"the writer for {self.out_dir} is closed")
        if self._state == "broken":
            raise ToolgymError(
                f"a flush to {self.out_dir} failed part-way; open a new DatasetWriter (resume) to clean up and go on"
            )

    def _check_new_ids(self, task_id: str, split: str, rows: list[dict[str, Any]]) -> None:
        """No row id is written twice: not one already published, nor one waiting in this flush."""
        published = self._published_ids.get(split, ())
        waiting = self._pending_ids.get(split, {})
        for row in rows:
            if row["id"] in published or row["id"] in waiting:
                where = "is already published" if row["id"] in published else "is already waiting to be written"
                raise RowError(f"{split} row id {row['id']!r} of task {task_id!r} {where} in {self.out_dir}; "
                               "a dataset never holds a row id twice")

    def _convert(self, split: str) -> None:
        waiting = self._unconverted.pop(split, None)
        if waiting:
            batch = to_batch(split, waiting)
            self._buffers.setdefault(split, []).append(batch)
            self._buffered_bytes += batch.nbytes

    def _clear_buffers(self) -> None:
        self._unconverted: dict[str, list[dict[str, Any]]] = {}  # encoded rows not yet in a batch
        self._buffers: dict[str, list[pa.RecordBatch]] = {}
        self._buffered_rows: dict[str, int] = {}
        self._buffered_bytes = 0
        self._pending: list[str] = []
        self._pending_set: set[str] = set()
        self._pending_ids: dict[str, dict[str, None]] = {}  # split -> ids of the buffered rows, in order
        self._failures: list[dict[str, Any]] = []
        self._delta = RunStats()
        self._oldest = None

    def _committed_flushes(self) -> list[dict[str, Any]]:
        records = manifest.read(self.out_dir / MANIFEST).records
        dropped = {r.get("seq") for r in records if r.get("type") == "drop"}
        return [r for r in records if r.get("type") == "flush" and r.get("seq") not in dropped]

    @staticmethod
    def _current_failures(flushes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """task id -> its failure, for tasks whose latest attempt failed."""
        current: dict[str, dict[str, Any]] = {}
        for record in flushes:
            failed = {f.get("task_id"): f for f in record.get("failures", ())}
            for task_id in record["tasks"]:
                if task_id in failed:
                    current[task_id] = failed[task_id]
                else:
                    current.pop(task_id, None)
        return current

    def _write_failures(self) -> None:
        """failures.jsonl, rebuilt from the manifest: each task's latest failure, never a retried success."""
        failures = self._current_failures(self._committed_flushes())
        lines = [manifest.dumps({k: v for k, v in f.items() if k != "retryable"}) + "\n" for f in failures.values()]
        if lines or (self.out_dir / FAILURES).exists():
            manifest.write_atomic(self.out_dir / FAILURES, "".join(lines).encode())


@dataclass(frozen=True)
class PreparedRows:
    """A task's rows checked and in their stored form, with the counts they add to the card.

    Made where the task was finished (prepare_rows), so that with Ray the workers encode and the
    job's own process, which shares the machine with them, only buffers and writes."""

    encoded: dict[str, list[dict[str, Any]]]
    stats: dict[str, Any]

    def sizes(self) -> dict[str, int]:
        return {split: len(rows) for split, rows in self.encoded.items()}


def prepare_rows(task_id: str, rows: dict[str, list[dict[str, Any]]]) -> PreparedRows:
    """One task's rows (per split) checked, encoded and counted; a RowError names the first bad one.
    Whether an id was written already is the writer's to check (DatasetWriter.add)."""
    if not isinstance(rows, dict):
        raise RowError(f"rows for task {task_id!r} must map split names to lists of rows, got {type(rows).__name__}")
    encoded: dict[str, list[dict[str, Any]]] = {}
    for split, split_rows in rows.items():
        check_split(split)
        if not isinstance(split_rows, list):
            raise RowError(f"rows[{split!r}] for task {task_id!r} must be a list, got {type(split_rows).__name__}")
        if split_rows:
            encoded[split] = [encode_row(split, row) for row in split_rows]
            _check_ownership(task_id, split, split_rows)
    counts = RunStats()
    for split in encoded:
        for row in rows[split]:
            counts.add_row(split, row)
    return PreparedRows(encoded, counts.data)


def _check_ownership(task_id: str, split: str, rows: list[dict[str, Any]]) -> None:
    """Every row belongs to the task it is added with (resume counts rows by task), ids distinct."""
    seen: set[str] = set()
    for row in rows:
        if split == "rl_tasks":
            task = row["task"]
            owner = task.get("id") if isinstance(task, dict) else getattr(task, "id", None)
        else:
            owner = row["task_id"]
        if owner != task_id:
            raise RowError(f"{split} row {row['id']!r} belongs to task {owner!r}, but it was added with task {task_id!r}")
        if row["id"] in seen:
            raise RowError(f"{split} row id {row['id']!r} appears twice in task {task_id!r}; row ids must be distinct")
        seen.add(row["id"])


def _check_failure(task_id: str, failure: Any) -> dict[str, Any]:
    if not isinstance(failure, dict):
        raise RowError(f"failure for task {task_id!r} must be a dict with keys {', '.join(FAILURE_KEYS)}, got {failure!r}")
    missing = [k for k in FAILURE_KEYS if k not in failure]
    if missing:
        raise RowError(f"failure for task {task_id!r} lacks {', '.join(missing)}; give {', '.join(FAILURE_KEYS)}")
    if failure["task_id"] != task_id:
        raise RowError(f"failure names task {failure['task_id']!r} but was added with task {task_id!r}")
    return {**card.redact(failure), "error": str(failure["error"])}


def _diff_keys(old: Any, new: Any, prefix: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            out += _diff_keys(old.get(key), new.get(key), f"{prefix}{key}.")
        return out
    return [] if old == new else [prefix.rstrip(".") or "(config)"]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
