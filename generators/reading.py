"""Reading a written dataset back exactly: Json values parsed with the standard `json` module.

`datasets.load_dataset(out_dir)` works too, but its Json decoder may change the last digit of
some floats; these helpers do not, and give messages back without the null keys of the struct.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from .features import check_split, decode_row, raw_features


def shard_paths(out_dir: str | Path, split: str) -> list[Path]:
    check_split(split)
    return sorted((Path(out_dir) / split).glob("part-*.parquet"))


def iter_rows(out_dir: str | Path, split: str, batch_size: int = 512) -> Iterator[dict[str, Any]]:
    """Every row of a split, decoded, streamed shard by shard in publishing order."""
    for path in shard_paths(out_dir, split):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_size):
            for row in batch.to_pylist():
                yield decode_row(row, split)


def decode_batch(split: str):
    """A `Dataset.set_transform` function that decodes rows loaded with `raw_features(split)`."""

    def transform(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
        names = list(batch)
        count = len(batch[names[0]]) if names else 0
        rows = [decode_row({n: batch[n][i] for n in names}, split) for i in range(count)]
        return {n: [row[n] for row in rows] for n in names}

    return transform


def load_split(out_dir: str | Path, split: str, **load_kwargs: Any):
    """A `datasets.Dataset` of one split whose rows decode exactly when accessed.

    Rows come out as written (arguments as dicts, floats exact, no invented null keys); build
    training text from them with `ds.map` only after rendering (a map that returns the decoded
    rows themselves would let Arrow infer merged structs again).
    """
    from datasets import load_dataset

    files = [str(p) for p in shard_paths(out_dir, split)]
    if not files:
        raise FileNotFoundError(f"{Path(out_dir) / split} has no shards; splits are written only when they have rows")
    dataset = load_dataset("parquet", data_files={split: files}, split=split, features=raw_features(split), **load_kwargs)
    dataset.set_transform(decode_batch(split))
    return dataset
