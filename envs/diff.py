"""Row changes and the diff a verifier and a reader see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tables import TableInfo


@dataclass(frozen=True)
class Change:
    """One logged write: the row before and after (None for an insert / a delete)."""

    table: str
    key: tuple[Any, ...]
    before: tuple[Any, ...] | None
    after: tuple[Any, ...] | None


@dataclass
class Diff:
    """Net changes since the baseline: rows added, removed and changed, by table."""

    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]
    changed: list[dict[str, Any]]

    @classmethod
    def from_changes(cls, log: list[Change], tables: dict[str, TableInfo]) -> Diff:
        first_before: dict[tuple, tuple | None] = {}
        last_after: dict[tuple, tuple | None] = {}
        for change in log:
            ident = (change.table, change.key)
            first_before.setdefault(ident, change.before)
            last_after[ident] = change.after
        added, removed, changed = [], [], []
        for ident, before in first_before.items():
            after = last_after[ident]
            if before == after:
                continue
            table, key = ident
            info = tables[table]
            entry: dict[str, Any] = {"table": table, "key": list(key)}
            if before is None:
                added.append({**entry, "row": info.as_dict(after)})  # type: ignore[arg-type]
            elif after is None:
                removed.append({**entry, "row": info.as_dict(before)})
            else:
                fields = {
                    col: {"before": b, "after": a}
                    for col, b, a in zip(info.columns, before, after, strict=True)
                    if a != b
                }
                changed.append({**entry, "fields": fields})
        return cls(added, removed, changed)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def tables_touched(self) -> set[str]:
        return {entry["table"] for entry in (*self.added, *self.removed, *self.changed)}

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        return {"added": self.added, "removed": self.removed, "changed": self.changed}
