"""The states a kind of record takes in a domain's world: what `current_states` reads a reply for
beside the states the chat's own results showed.

Read from the chat alone, "order #W1 is pending or processed, or delivered, or cancelled" said only
"pending" of an order the chat had shown pending: the other words were no state any result had
shown, so a reply hedging over every status passed. A world's tables hold the states their
records are in; a record of a result is matched to the table whose key it carries and whose
columns it shares most ("booking_id" with "flight_id": a flight booking, not a hotel one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from toolgym.envs.registry import load_domain


@dataclass(frozen=True)
class _Table:
    key: str  # its one key column
    columns: frozenset[str]
    states: dict[str, frozenset[str]]  # status column -> the values the built world holds


@lru_cache(maxsize=32)
def _tables(domain: str, seed: int | None, size: str | None) -> tuple[_Table, ...]:
    """The one-key tables of a built world with a status column, and the states each holds."""
    template = load_domain(domain).template(seed, size)
    found = []
    conn = template.connection()
    try:
        for table, info in template.tables.items():
            columns = frozenset(row[1] for row in conn.execute(f'PRAGMA table_info("{table}")'))
            status = [c for c in columns if c == "status" or c.endswith("_status")]
            if len(info.key) != 1 or not status:
                continue
            states = {c: frozenset(v for (v,) in conn.execute(f'SELECT DISTINCT "{c}" FROM "{table}"') if isinstance(v, str) and v)
                      for c in status}
            found.append(_Table(info.key[0], columns, states))
    finally:
        template.release(conn, wrote=False)
    return tuple(found)


@lru_cache(maxsize=32)
def world_states(domain: str, seed: int | None = None, size: str | None = None) -> Callable[[frozenset[str], str], frozenset[str]]:
    """A function of (a result record's keys, one of its status keys) to the states that field takes
    in the domain's world (none where no one table matches the record); one per world, so the
    tables a shape matches are found once, not once per graded chat."""
    try:
        tables = _tables(domain, seed, size)
    except Exception:  # noqa: BLE001 - an unknown domain or world: the chat's own states only
        tables = ()

    @lru_cache(maxsize=256)
    def states(shape: frozenset[str], status: str) -> frozenset[str]:
        fits = [(len(t.columns & shape), t) for t in tables if t.key in shape and status in t.states]
        if not fits:
            return frozenset()
        best = max(overlap for overlap, _ in fits)
        chosen = [t for overlap, t in fits if overlap == best]
        return chosen[0].states[status] if len(chosen) == 1 else frozenset()

    return states
