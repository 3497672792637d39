"""Reading a written dataset for inspection: rows kept slim (no policy text).

Shards are read with pyarrow, only the columns the figures need and without decoding the Json
values (three times faster than `iter_rows`); tool schemas stay JSON text until a name is
wanted. The grounding check needs the whole chat, so it runs while each row streams by; what
the other figures need is kept in memory (a 40k-row corpus stays well under a few hundred MB).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ..reading import shard_paths
from .augmentation import slim_augment
from .text import Row, schema_name

_COLUMNS = ("domain", "kind", "task_id", "messages", "tools", "user_tools", "augment")
_KEPT_MESSAGE_KEYS = ("role", "content", "reasoning_content", "tool_calls", "user_tool_calls", "user_tool_results")


def _grounding_check() -> Callable[[list[dict[str, Any]]], list[Any]] | None:
    """`toolgym.envs.grounding.ungrounded_facts` where this build has it."""
    try:
        from toolgym.envs.grounding import ungrounded_facts  # type: ignore[import-not-found]
    except ImportError:
        return None
    return ungrounded_facts  # type: ignore[no-any-return]


def iter_raw_rows(out_dir: str | Path, split: str, columns: Iterable[str]) -> Iterator[Row]:
    """Rows of a chat split with only `columns`, Json values left as JSON text (a column that shards
    of an older schema lack is left out of their rows)."""
    for path in shard_paths(out_dir, split):
        shard = pq.ParquetFile(path)
        present = set(shard.schema_arrow.names)
        for batch in shard.iter_batches(columns=[c for c in columns if c in present], batch_size=1024):
            yield from batch.to_pylist()


def slim(row: Row) -> Row:
    """A chat row with what the language figures read: no system prompt. Tool results stay, as
    text: a reasoning trace is checked against what the chat showed before it."""
    messages = [
        {k: m[k] for k in _KEPT_MESSAGE_KEYS if m.get(k) is not None}
        for m in row.get("messages") or ()
        if m.get("role") in ("user", "assistant", "tool")
    ]
    tools = [{"name": schema_name(t)} for t in row.get("tools") or ()]
    user_tools = [{"name": schema_name(t)} for t in row.get("user_tools") or ()]
    return {
        "domain": row.get("domain"),
        "kind": row.get("kind"),
        "task_id": row.get("task_id"),
        "messages": messages,
        "tools": tools,
        "user_tools": user_tools,
        "augment": slim_augment(row.get("augment")),
    }


@dataclass
class Corpus:
    out_dir: Path
    rows: list[Row] = field(default_factory=list)  # slim rows of the training splits
    split_rows: Counter[str] = field(default_factory=Counter)
    grounding_available: bool = False
    grounded_rows: Counter[tuple[str, str]] = field(default_factory=Counter)  # rows with no unseen fact
    ungrounded_examples: list[str] = field(default_factory=list)
    tasks: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # task ids written, any chat split
    config: dict[str, Any] = field(default_factory=dict)
    job: dict[str, Any] = field(default_factory=dict)  # the job's own statistics, when recorded
    task_json: dict[str, str] = field(default_factory=dict)  # task id -> its JSON, from the rl_tasks split
    _tasks: dict[str, Any] = field(default_factory=dict, repr=False)

    def task(self, task_id: Any) -> Any:
        """The Task a row was played from, by its id (None when the corpus does not hold it)."""
        if task_id not in self.task_json:
            return None
        found = self._tasks.get(task_id)
        if found is None:
            from toolgym.envs.task import Task

            found = self._tasks[task_id] = Task.model_validate_json(self.task_json[task_id])
        return found


def read_corpus(out_dir: str | Path, splits: Iterable[str] = ("sft", "no_tool")) -> Corpus:
    """The training rows of a dataset directory, slimmed, with the grounding tally."""
    root = Path(out_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a directory; give the output directory of `toolgym generate`")
    corpus = Corpus(root)
    check = _grounding_check()
    corpus.grounding_available = check is not None
    for split in splits:
        if not shard_paths(root, split):
            continue
        for row in iter_raw_rows(root, split, _COLUMNS):
            corpus.split_rows[split] += 1
            if check is not None:
                unseen = check(row["messages"])
                if not unseen:
                    corpus.grounded_rows[(row["domain"], row["kind"])] += 1
                elif len(corpus.ungrounded_examples) < 5:
                    corpus.ungrounded_examples.append(f"[{row['domain']}/{row['kind']}] {unseen[0]}")
            corpus.rows.append(slim(row))
            corpus.tasks.setdefault((row["domain"], row["kind"]), set()).add(row["task_id"])
    if shard_paths(root, "rejected"):  # a task whose rollouts all failed is still a task of its kind
        for row in iter_raw_rows(root, "rejected", ("domain", "kind", "task_id")):
            corpus.tasks.setdefault((row["domain"], row["kind"]), set()).add(row["task_id"])
    if not corpus.rows and not any(shard_paths(root, s) for s in ("sft", "no_tool", "rejected", "rl_tasks")):
        raise FileNotFoundError(f"{root} holds no dataset shards (sft/, no_tool/ ...): is it a toolgym output directory?")
    if shard_paths(root, "rl_tasks"):  # the tasks themselves, for the checks that need them
        for row in iter_raw_rows(root, "rl_tasks", ("item_type", "task")):
            if row["item_type"] == "episode":
                text = row["task"] if isinstance(row["task"], str) else json.dumps(row["task"])
                corpus.task_json[json.loads(text)["id"]] = text
    corpus.config, corpus.job = _job_record(root)
    return corpus


def _job_record(root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The config and the last job statistics recorded in the manifest."""
    config: dict[str, Any] = {}
    job: dict[str, Any] = {}
    manifest = root / "manifest.jsonl"
    if not manifest.exists():
        return config, job
    for line in manifest.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line after a kill
        if isinstance(record.get("config"), dict):
            config = record["config"]
        if isinstance(record.get("job"), dict):
            job = record["job"]
    return config, job
