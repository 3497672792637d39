"""Reading a written dataset back exactly: Json values parsed with the standard `json` module.

`datasets.load_dataset(out_dir)` works too, but its Json decoder may change the last digit of
some floats and its struct columns add null keys to messages; these helpers do neither.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from datasets import Features, Json, Value

from .chat_format import user_channel_chat
from .features import check_split, decode_row, features


def shard_paths(out_dir: str | Path, split: str) -> list[Path]:
    check_split(split)
    return sorted((Path(out_dir) / split).glob("part-*.parquet"))


def iter_rows(out_dir: str | Path, split: str, batch_size: int = 512) -> Iterator[dict[str, Any]]:
    """Every row of a split, decoded, streamed shard by shard in publishing order."""
    for path in shard_paths(out_dir, split):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_size):
            for row in batch.to_pylist():
                yield decode_row(row, split)


class ExactJson(Json):
    """`Json` decoded with the standard `json` module: floats exact (datasets' own decoder is not).

    Kept only in memory: a dataset saved with it reads back with the plain `Json` feature.
    """

    def decode_example(self, example_data, token_per_repo_id=None):
        return None if example_data is None else json.loads(example_data)


def _exact_features(split: str) -> Features:
    """Plain values as declared; every nested column one JSON value, so rows keep their own keys."""
    declared = features(split)
    return Features({name: f if isinstance(f, Value) else ExactJson() for name, f in declared.items()})


def load_split(out_dir: str | Path, split: str, batch_size: int = 2048, *, user_channel: bool = False):
    """One split as a `datasets.Dataset` that trainers take as it is (TRL's SFTTrainer and GRPOTrainer).

    Rows come out as written (arguments as dicts, floats exact, messages without the null keys a
    struct column would add), except that an assistant message that only calls tools has empty
    text for content rather than null, which some chat templates cannot render. Nested columns
    (messages, tools, the task...) are held as JSON and decoded with the standard `json` module on access, so `ds.map` sees the exact values too.

    `user_channel=True` (chat splits): user turns after the opening become results of a
    `send_message_to_user` call, the format the TRL environments train in (see
    `chat_format.user_channel_chat`); the default is the plain chat.
    """
    import pyarrow as pa
    from datasets import Dataset, concatenate_datasets
    from datasets.info import DatasetInfo
    from datasets.table import InMemoryTable

    if not shard_paths(out_dir, split):
        raise FileNotFoundError(f"{Path(out_dir) / split} has no shards; splits are written only when they have rows")
    exact = _exact_features(split)
    encoders = {n: (None if isinstance(f, Value) else _json_text) for n, f in exact.items()}
    parts: list[Any] = []
    batch: list[dict[str, Any]] = []

    schema = exact.arrow_schema

    def flush() -> None:  # Arrow arrays made directly: datasets' own encoder would parse every JSON text again
        columns = {n: [r[n] if e is None else e(r[n]) for r in batch] for n, e in encoders.items()}
        table = pa.table({n: pa.array(v, type=schema.field(n).type) for n, v in columns.items()})
        parts.append(Dataset(InMemoryTable(table), info=DatasetInfo(features=exact)))
        batch.clear()

    for row in iter_rows(out_dir, split, batch_size=batch_size):
        if user_channel and "messages" in row:
            row["messages"], row["tools"] = user_channel_chat(row["messages"], row["tools"])
        for column in ("messages", "prompt"):
            if column in row:
                row[column] = [_for_templates(m) for m in row[column]]
        batch.append(row)
        if len(batch) >= batch_size:
            flush()
    if batch:
        flush()
    return parts[0] if len(parts) == 1 else concatenate_datasets(parts)


def _for_templates(message: dict[str, Any]) -> dict[str, Any]:
    """An assistant message that only calls tools gets empty text for its null content, as chat templates expect."""
    if message.get("role") == "assistant" and message.get("content") is None:
        return {**message, "content": ""}
    return message


def _json_text(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)
