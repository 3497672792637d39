"""The row schema of every split, declared once: HF `Features`, row checks, and decoding on read.

Free-form values (tool-call arguments, tool schemas, verification details, teacher info, the
Task, verifier specs) are stored with the `datasets.Json()` feature: each value is JSON text in
Parquet, so rows never share an inferred struct and `{"city": ...}` beside `{"hotel_id": 3}`
never becomes `{"city": ..., "hotel_id": null}`.

Reading back:
- `datasets.load_dataset(out_dir)` decodes Json values into objects. Its decoder (pandas' ujson)
  is not float-exact: `0.7` can come back as `0.7000000000000001`.
- `decode_row(row, split)` decodes a raw row (Json values as JSON text, as pyarrow or
  `raw_features(split)` give them) with the standard `json` module: floats exact. It also drops
  the nulls that struct columns add for absent keys, so messages come back in their own shape.
- `clean_row(row, split)` does only the null dropping, for rows `datasets` already decoded.
`toolgym.generators.reading` wraps these into loaders; `toolgym.generators.encoding` checks rows
against these specs on the way in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolgym.errors import ToolgymError
from toolgym.version import SCHEMA_VERSION, __version__

if TYPE_CHECKING:
    from datasets import Features


class RowError(ToolgymError, ValueError):
    """A row does not fit its split's schema; the message names the column and the allowed values.

    Raised where the bad value is and re-raised by each enclosing level with its step prepended
    to `path`, so the final message says `messages[3].tool_calls[0].function: ...`.
    """

    def __init__(self, reason: str, path: str = ""):
        self.reason, self.path = reason, path
        super().__init__(f"{path.lstrip('.')}: {reason}" if path else reason)

    def within(self, step: str) -> RowError:
        return RowError(self.reason, step + self.path)


# ---- the spec: one tree per split, from which features, checks and decoders are derived --------
@dataclass(frozen=True)
class Scalar:
    dtype: str  # "string", "int64", "float64", "bool"
    choices: tuple[str, ...] | None = None  # the allowed values, for strings that name a kind


@dataclass(frozen=True)
class JsonValue:
    """Any JSON value, stored as JSON text."""


@dataclass(frozen=True)
class ListOf:
    item: Any


@dataclass(frozen=True)
class Struct:
    fields: dict[str, Any]
    must_have: frozenset[str] = frozenset()  # keys that must be present (their value may be null)
    non_null: frozenset[str] = frozenset()  # keys that must be present and not null
    keep_null: frozenset[str] | None = field(default=None)  # on read: None keeps every key; else drop nulls but these


STR, INT, FLOAT, BOOL, JSON = Scalar("string"), Scalar("int64"), Scalar("float64"), Scalar("bool"), JsonValue()

TOOL_CALL = Struct(
    # name may be null: a rejected chat keeps a malformed call as the model made it
    {"id": STR, "type": STR, "function": Struct({"name": STR, "arguments": JSON})},
    non_null=frozenset({"function"}),
    keep_null=frozenset({"function"}),
)
USER_TOOL_CALL = Struct({"name": STR, "arguments": JSON}, non_null=frozenset({"name"}))
ROLES = ("system", "user", "assistant", "tool")
MESSAGE = Struct(
    {
        "role": Scalar("string", ROLES),
        "content": STR,
        "reasoning_content": STR,
        "tool_calls": ListOf(TOOL_CALL),
        "tool_call_id": STR,
        "name": STR,
        "user_tool_calls": ListOf(USER_TOOL_CALL),  # calls the user makes on their own device
        "user_tool_results": ListOf(STR),
    },
    non_null=frozenset({"role"}),
    keep_null=frozenset({"role", "content"}),  # OpenAI messages always carry content, maybe null
)
MESSAGES = ListOf(MESSAGE)
TOOLS = ListOf(JSON)  # OpenAI function schemas
SEEDS = Struct({"task_seed": INT, "world_seed": INT, "sample": INT}, non_null=frozenset({"task_seed", "world_seed", "sample"}))
VERIFICATION = Struct(
    {"passed": BOOL, "score": FLOAT, "components": JSON, "details": JSON},
    non_null=frozenset({"passed", "score"}),
    keep_null=frozenset(),
)
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "reasoning_tokens", "requests")
USAGE = Struct({k: INT for k in USAGE_KEYS}, keep_null=frozenset())
ITEM_TYPES = ("episode", "next_action")
VERSIONS = {"toolgym_version": (__version__,), "schema_version": (SCHEMA_VERSION,)}

# The exact columns of each split, in order; a row with a missing or extra column is refused.
CHAT_COLUMNS: dict[str, Any] = {
    "id": STR,
    "domain": STR,
    "domain_version": INT,
    "kind": STR,
    "messages": MESSAGES,
    "tools": TOOLS,
    "user_tools": TOOLS,  # tools the user holds (a phone's settings); their calls sit in user messages
    "task_id": STR,
    "seeds": SEEDS,
    "teacher": JSON,
    "user_simulator": JSON,
    "verification": VERIFICATION,
    "usage": USAGE,  # token counts, or null (offline teachers)
    "augment": JSON,  # the row's tool transform (envs.augment.ToolTransform.to_dict()), or null: real tools
    "difficulty": INT,  # the task's level 1-5 (envs/difficulty.py); null for a task given without one
    "difficulty_score": FLOAT,  # the finer score behind it: sort by it for a curriculum
    "toolgym_version": Scalar("string", VERSIONS["toolgym_version"]),
    "schema_version": Scalar("string", VERSIONS["schema_version"]),
}
RL_COLUMNS: dict[str, Any] = {
    "id": STR,
    "env_id": STR,
    "environment": STR,  # toolgym.integrations.trl.environment_classes() key: domain, less withheld tools
    "domain": STR,
    "kind": STR,
    "task": JSON,  # Task.model_dump(mode="json"): reset(options={"task": Task(**row["task"])})
    "prompt": MESSAGES,
    "tools": TOOLS,
    "verifier": JSON,
    "reward_preset": STR,
    "item_type": Scalar("string", ITEM_TYPES),
    "target": MESSAGE,  # next_action items: the gold assistant message; episodes: null
    "augment": JSON,  # the tool transform to reset with (reset(options={"augment": ...})), or null: real tools
    "difficulty": INT,
    "difficulty_score": FLOAT,
    "toolgym_version": CHAT_COLUMNS["toolgym_version"],
    "schema_version": CHAT_COLUMNS["schema_version"],
}
_NULLABLE = {"usage", "target", "augment", "difficulty", "difficulty_score"}


def _row_struct(columns: dict[str, Any]) -> Struct:
    names = frozenset(columns)
    return Struct(columns, must_have=names, non_null=names - _NULLABLE, keep_null=None)


CHAT_SPLITS = ("sft", "no_tool", "rejected")
SPLITS = (*CHAT_SPLITS, "rl_tasks")
ROW_SPECS: dict[str, Struct] = {s: _row_struct(CHAT_COLUMNS) for s in CHAT_SPLITS} | {
    "rl_tasks": _row_struct(RL_COLUMNS)
}
COLUMNS: dict[str, tuple[str, ...]] = {s: tuple(spec.fields) for s, spec in ROW_SPECS.items()}


def check_split(split: str) -> Struct:
    spec = ROW_SPECS.get(split)
    if spec is None:
        raise RowError(f"unknown split {split!r}; allowed: {', '.join(SPLITS)}")
    return spec


# ---- HF features --------------------------------------------------------------------------------
def _feature(node: Any, decode_json: bool) -> Any:
    # `datasets` (with pandas, ~0.7 s) is imported only where features are built: a Ray worker
    # checks and encodes rows without it
    from datasets import Json, List, Value

    if isinstance(node, Scalar):
        return Value(node.dtype)
    if isinstance(node, JsonValue):
        return Json(decode=decode_json)
    if isinstance(node, ListOf):
        return List(_feature(node.item, decode_json))
    return {name: _feature(child, decode_json) for name, child in node.fields.items()}


def features(split: str) -> Features:
    """The declared features of a split, as stored in each shard's schema."""
    from datasets import Features

    return Features(_feature(check_split(split), True))


def raw_features(split: str) -> Features:
    """The same with Json values left as JSON text, for exact decoding with `decode_row`."""
    from datasets import Features

    return Features(_feature(check_split(split), False))


# ---- decoding on read -----------------------------------------------------------------------------
def _decode(node: Any, value: Any, parse_json: bool) -> Any:
    if value is None or isinstance(node, Scalar):
        return value
    if isinstance(node, JsonValue):
        return json.loads(value) if parse_json else value
    if isinstance(node, ListOf):
        return [_decode(node.item, item, parse_json) for item in value]
    out = {}
    for key, item in value.items():
        child = node.fields.get(key)
        decoded = _decode(child, item, parse_json) if child is not None else item
        if decoded is None and node.keep_null is not None and key not in node.keep_null:
            continue  # a key the original did not have: struct columns fill absent keys with null
        out[key] = decoded
    return out


def decode_row(row: dict[str, Any], split: str) -> dict[str, Any]:
    """A raw stored row (Json values as JSON text) back to the row as written, floats exact."""
    return _decode(check_split(split), row, True)


def clean_row(row: dict[str, Any], split: str) -> dict[str, Any]:
    """A row `datasets` already decoded, with the nulls of absent struct keys dropped."""
    return _decode(check_split(split), row, False)
