"""Rows to Arrow batches and batches to a Parquet shard, published by rename.

pyarrow cannot build Json (extension) columns from Python values, so rows are converted with
the storage schema (Json as plain strings) and cast to the declared schema when written; the
declared HF features travel in the shard's schema metadata, where `datasets` reads them.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .features import RowError, features

# Arrow's default pool here (mimalloc) gives pages back to the system between batches and takes
# them again: converting a job's rows cost ~100 µs a row against ~27 with the system allocator
# (measured on the six-domain job). ARROW_DEFAULT_MEMORY_POOL, when set, still decides.
if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
    pa.set_memory_pool(pa.system_memory_pool())


def _storage_type(arrow_type: pa.DataType) -> pa.DataType:
    if isinstance(arrow_type, pa.BaseExtensionType):
        return arrow_type.storage_type
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        item = arrow_type.value_field
        maker = pa.list_ if pa.types.is_list(arrow_type) else pa.large_list
        return maker(item.with_type(_storage_type(item.type)))
    if pa.types.is_struct(arrow_type):
        return pa.struct([f.with_type(_storage_type(f.type)) for f in arrow_type])
    return arrow_type


@cache
def schemas(split: str) -> tuple[pa.Schema, pa.Schema]:
    """(storage schema to build batches with, declared schema with HF metadata to write)."""
    declared = features(split).arrow_schema
    storage = pa.schema([f.with_type(_storage_type(f.type)) for f in declared])
    return storage, declared


def to_batch(split: str, rows: list[dict[str, Any]]) -> pa.RecordBatch:
    try:
        return pa.RecordBatch.from_pylist(rows, schema=schemas(split)[0])
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as error:
        ids = [row.get("id") for row in rows]
        raise RowError(f"{split} rows {ids}: Arrow cannot store them: {error}") from None


def write_shard(path: Path, split: str, batches: list[pa.RecordBatch], compression: str) -> tuple[int, str, int]:
    """Write the batches to a temp file, fsync it, rename it to `path`; returns (rows, sha256, bytes).

    The caller fsyncs the folder and then records the shard in the manifest.
    """
    storage, declared = schemas(split)
    table = pa.Table.from_batches(batches, schema=storage).combine_chunks().cast(declared)
    temp = path.with_name(f".{path.name}.tmp")
    with open(temp, "wb") as handle:
        pq.write_table(table, handle, compression=compression)
        handle.flush()
        os.fsync(handle.fileno())
    digest, size = file_digest(temp)
    os.replace(temp, path)
    return table.num_rows, digest, size


def file_digest(path: Path) -> tuple[str, int]:
    """(sha256 hex, size in bytes) of a file, read in 1 MB blocks."""
    hasher = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            hasher.update(block)
            size += len(block)
    return hasher.hexdigest(), size
