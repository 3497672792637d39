"""Authorization: whose record a write acts on, and who the acting user is.

A domain says, with as little as it can (the engine infers the rest from names):

- **who the user is**: a tool whose successful result names them (`@tool(identifies="customer_id")`:
  a lookup by email, a verified identity), or a row the task sets (`ActingUser(signed_in=...)`:
  the signed-in employee, the car the assistant runs in);
- **what a write acts on**: `@tool(writes=True, acts_on=Record(...))` names the argument that keys
  the row, its table, and the path to the row's owner; `acts_on=()` says it acts on no owned
  record. Undeclared, an argument named like a table's key (`order_id`, `from_account_id`,
  `booking_id`) is a record of that table, owned along the shortest chain of key columns that
  reaches the users' table.

At run time (`envs.replay.run_call`, the one place every call runs) the engine notes, for each
agent write, who the acting user was and each record's owner as the world held them just before
the call (an `Access`). `verifiers/authorized.py` judges that log; the spoil suite uses the same
paths to redirect a write to another customer's record.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolgym.errors import DomainError

from .ownership import OwnerPath, owner_path, refers_to, single_key, tables_keyed_by
from .tables import TableInfo
from .tools import Tool, ToolOutcome
from .world import World

if TYPE_CHECKING:
    from .domain import Domain

ACTING_USER = "toolgym.acting_user"  # World.session key: the user an identification call named


@dataclass(frozen=True)
class Record:
    """The row a write acts on: `arg` holds its key (a list argument: one key per element).

    `table` may name several tables tried in order (a booking id of flights or of hotels);
    `owner` is a column of the row holding its owner's id, or a path through other rows
    (`"order_id->order.customer_id"`); None finds it from the names. `allowed` says why the
    policy lets the user act on such a row of someone else (an invitation to another's event);
    empty, acting on another's row is a violation."""

    arg: str
    table: str | tuple[str, ...]
    owner: str | None = None
    allowed: str = ""

    @property
    def tables(self) -> tuple[str, ...]:
        return (self.table,) if isinstance(self.table, str) else tuple(self.table)


@dataclass(frozen=True)
class ActingUser:
    """How a domain establishes who the user is (see the module docstring).

    `table`: the users' table (default: the table a signed-in column or an identifying tool names).
    `signed_in`: (table, key, column) of the row the task sets to the user.
    `scoped_reads`: every read tool shows only what the acting user may see (it reads as them),
    so a record a read showed was shown as theirs; otherwise a read must show a record together
    with its owner for the agent to have checked whose it is."""

    table: str | None = None
    signed_in: tuple[str, Any, str] | None = None
    scoped_reads: bool = False


@dataclass(frozen=True)
class ResolvedRecord:
    arg: str
    paths: tuple[OwnerPath, ...]
    allowed: str = ""


@dataclass(frozen=True)
class Target:
    """One record a write named: its table and key, the keys between it and its owner, the owner."""

    arg: str
    table: str
    chain: tuple[str, ...]  # (key, hop keys..., owner); a users' row is (key,)
    allowed: str = ""

    @property
    def key(self) -> str:
        return self.chain[0]

    @property
    def owner(self) -> str:
        return self.chain[-1]


@dataclass
class Access:
    """What one agent write call acted on, as the world stood just before it."""

    call: int  # the agent call's number in the episode (0: the first call the agent made)
    tool: str
    user: str | None  # the acting user then (None: nobody identified yet)
    targets: tuple[Target, ...]
    scoped_reads: bool
    ok: bool = False  # the call succeeded


@dataclass
class Authorization:
    """A domain's resolved declarations: the users' table, how the user is known, each write's records."""

    users: str | None
    identifiers: dict[str, str]  # tool -> the result field naming the user
    signed_in: tuple[str, Any, str] | None
    scoped_reads: bool
    records: dict[str, tuple[ResolvedRecord, ...]]
    unresolved: list[str] = field(default_factory=list)  # write arguments that look like records but name no table
    signed_in_sql: str = ""  # reads the signed-in user's id
    # agent tools an argument of which names a row someone owns (a booking, an account line): a call
    # that reads or changes one waits for the user to be known
    personal: frozenset[str] = frozenset()

    @classmethod
    def of(cls, domain: Domain, declared: ActingUser | None) -> Authorization:
        declared = declared or ActingUser()
        tables = {info.name: info for info in map(TableInfo.of, domain.tables)}
        tools = list(domain.tools.values())
        identifiers = {t.name: t.identifies for t in tools if t.identifies}
        users = declared.table or _users_table(tables, declared.signed_in, identifiers)
        if users is None and not identifiers:
            users, identifiers = _inferred_identification(tables, tools)
        if users is not None and users not in tables:
            raise DomainError(f"domain {domain.name!r}: ActingUser table {users!r} is not a table; tables: {sorted(tables)}")
        spec = cls(users, identifiers, declared.signed_in, declared.scoped_reads, {})
        if declared.signed_in is not None:  # a wrong table or column fails when the domain loads
            spec.signed_in_sql = _signed_in_sql(tables, declared.signed_in)
        for tool in tools:
            if tool.writes and tool.caller == "agent":
                spec.records[tool.name] = spec._resolve(domain.name, tables, tool)
        spec.personal = frozenset(t.name for t in tools if t.caller == "agent" and (spec.records.get(t.name) or spec._names_owned(tables, t)))
        return spec

    def _names_owned(self, tables: Mapping[str, TableInfo], tool: Tool) -> bool:
        return self.users is not None and any(
            owner_path(tables, table, self.users) is not None for param in tool.params for table in tables_keyed_by(tables.values(), param)
        )

    def _resolve(self, domain: str, tables: Mapping[str, TableInfo], tool: Tool) -> tuple[ResolvedRecord, ...]:
        if tool.acts_on is not None:
            found = []
            for record in tool.acts_on:
                if record.arg not in tool.params:
                    raise DomainError(f"tool {tool.name!r}: acts_on names argument {record.arg!r}; its arguments: {list(tool.params)}")
                if self.users is None and record.owner is None:
                    raise DomainError(f"domain {domain!r}: tool {tool.name!r} declares a record but no users' table is known; declare ActingUser(table=...)")
                paths = []
                for table in record.tables:
                    path = owner_path(tables, table, self.users or "", record.owner)
                    if path is None:
                        raise DomainError(f"tool {tool.name!r}: no owner found for table {table!r}; give Record(owner=...)")
                    paths.append(path)
                found.append(ResolvedRecord(record.arg, tuple(paths), record.allowed))
            return tuple(found)
        if self.users is None:
            return ()
        inferred = []
        for param in tool.params:
            named = tables_keyed_by(tables.values(), param)
            if not named:
                if param.endswith(("_id", "_ids")):
                    self.unresolved.append(f"{tool.name}({param})")
                continue
            owned = tuple(p for p in (owner_path(tables, t, self.users) for t in named) if p is not None)
            if owned:
                inferred.append(ResolvedRecord(param, owned))
        return tuple(inferred)

    # ---- at run time --------------------------------------------------------------------------
    def acting_user(self, world: World) -> str | None:
        if self.signed_in is not None:
            rows = world.query(self.signed_in_sql, (self.signed_in[1],))
            return str(rows[0][0]) if rows and rows[0][0] is not None else None
        found = world.session.get(ACTING_USER)
        return None if found is None else str(found)

    def targets(self, world: World, tool: str, arguments: Any) -> tuple[Target, ...]:
        """The records a call names, each with its chain to the owner (rows that do not exist are left out)."""
        records = self.records.get(tool)
        if not records:
            return ()
        arguments = _as_dict(arguments)
        found = []
        for record in records:
            values = arguments.get(record.arg)
            for value in values if isinstance(values, list) else [values]:
                for path in record.paths:
                    chain = path.chain(world, value) if value is not None else None
                    if chain is not None:
                        found.append(Target(record.arg, path.table, chain, record.allowed))
                        break
        return tuple(found)

    def run(self, world: World, tool: Tool | None, caller: str, arguments: Any, call: Callable[[], ToolOutcome]) -> ToolOutcome:
        """Run `call()` (the tool on these arguments; None: a tool this caller lacks) and log what
        an agent write acted on. Every agent call is numbered, so the log lines up with the chat."""
        if caller != "agent":
            return call()
        number = world.session.get(_CALLS, 0)
        world.session[_CALLS] = number + 1
        if tool is None:
            return call()
        access = None
        if tool.writes and self.records.get(tool.name):
            access = Access(number, tool.name, self.acting_user(world), self.targets(world, tool.name, arguments), self.scoped_reads)
        outcome = call()
        if access is not None:
            access.ok = outcome.error is None
            if access.targets:
                world.session.setdefault(ACCESSES, []).append(access)
        field_name = self.identifiers.get(tool.name)
        if field_name is not None and outcome.error is None:
            named = _field(outcome.content, field_name)
            if named is not None:
                world.session[ACTING_USER] = named
        return outcome


_CALLS = "toolgym.agent_calls"
ACCESSES = "toolgym.accesses"


def accesses(world: World) -> list[Access]:
    """What the agent's writes in this world acted on, in call order."""
    return list(world.session.get(ACCESSES, ()))


def _as_dict(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):  # not JSON, too deep, or a 4,300-digit integer: the tool says so
            return {}
    return arguments if isinstance(arguments, dict) else {}


def _field(content: str, name: str) -> str | None:
    try:
        value = json.loads(content)
    except (ValueError, RecursionError):
        return None
    found = value.get(name) if isinstance(value, dict) else None
    return None if found is None or isinstance(found, dict | list) else str(found)


def _signed_in_sql(tables: Mapping[str, TableInfo], signed_in: tuple[str, Any, str]) -> str:
    table, _, column = signed_in
    info = tables.get(table)
    key = single_key(info) if info is not None else None
    if info is None or key is None or column not in info.columns:
        raise DomainError(
            f"ActingUser(signed_in={signed_in!r}) must name a table with a one-column key and one of its columns; "
            f"tables: {sorted(tables)}" + (f"; columns of {table!r}: {list(info.columns)}" if info is not None else "")
        )
    return f'SELECT "{column}" FROM "{table}" WHERE "{key}" = ?'


def _users_table(tables: Mapping[str, TableInfo], signed_in: tuple[str, Any, str] | None, identifiers: Mapping[str, str]) -> str | None:
    """The table a signed-in column or an identifying result field names (`employee_id` -> employee)."""
    names = [signed_in[2]] if signed_in else list(identifiers.values())
    for name in names:
        for info in tables.values():
            key = single_key(info)
            if key is not None and (refers_to(name, info.name, key) or (name == key and key != "id")):
                return info.name
    return None


def _inferred_identification(tables: Mapping[str, TableInfo], tools: Sequence[Tool]) -> tuple[str | None, dict[str, str]]:
    """With nothing declared: read tools that return one row of a table without being given its key
    (`find_member_by_email(email) -> MemberBase`) identify the user; that table is the users' table."""
    by_model = {info.read_model: info for info in tables.values()} | {info.model: info for info in tables.values()}
    found: dict[str, dict[str, str]] = {}
    for tool in tools:
        if tool.writes or tool.caller != "agent":
            continue
        try:
            returned = typing.get_type_hints(tool.func).get("return")
        except Exception:  # noqa: BLE001 - an unresolvable return annotation identifies nobody
            continue
        info = by_model.get(returned) if isinstance(returned, type) else None
        key = single_key(info) if info is not None else None
        if info is None or key is None or any(tables_keyed_by([info], p) for p in tool.params):
            continue
        found.setdefault(info.name, {})[tool.name] = key
    if len(found) != 1:
        return None, {}
    (users, identifiers), = found.items()
    return users, identifiers
