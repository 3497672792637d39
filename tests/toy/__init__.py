"""A tiny domain for the engine's own tests: a shop with accounts and a counter.

Not discovered as a built-in (it lives under tests/); tests construct it directly.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from toolgym.envs import (
    Domain,
    Fact,
    Forbidden,
    GenContext,
    NoToolSpec,
    Step,
    Task,
    ToolCall,
    Utterance,
    World,
    irrelevant_task,
    tool,
    unavailable_task_from,
)
from toolgym.errors import ToolError


class ToyTable(SQLModel, registry=registry()):
    pass


class AccountBase(SQLModel):
    id: str = Field(primary_key=True)
    email: str
    balance: float
    status: str = "active"


class Account(AccountBase, ToyTable, table=True):
    __tablename__ = "account"


class NoteBase(SQLModel):
    id: int = Field(primary_key=True)
    account_id: str
    text: str


class Note(NoteBase, ToyTable, table=True):
    __tablename__ = "note"


def build_world(seed: int, size: str):
    count = 5 if size == "small" else 50
    for i in range(count):
        yield Account(id=f"A{i:03d}", email=f"user{i}@example.com", balance=100.0 + i + seed)


@tool
def find_account(world: World, email: str) -> AccountBase:
    """Find an account by its email address.

    Args:
        email: The account's email address.
    """
    found = world.select(Account, {"email": email})
    if not found:
        raise ToolError(f"no account with email {email!r}")
    return found[0]


@tool
def get_balance(world: World, account_id: str) -> dict:
    """Get the balance of an account.

    Args:
        account_id: The account id, such as 'A001'.
    """
    return {"balance": world.require(Account, account_id, "account").balance}


@tool(writes=True)
def add_note(world: World, account_id: str, text: str) -> NoteBase:
    """Attach a note to an account.

    Args:
        account_id: The account id.
        text: The note's text.
    """
    world.require(Account, account_id, "account")
    return world.insert(Note, {"id": world.new_id("note"), "account_id": account_id, "text": text})


@tool(writes=True)
def close_account(world: World, account_id: str, reason: Literal["moving", "too expensive", "other"]) -> AccountBase:
    """Close an active account.

    Args:
        account_id: The account id.
        reason: Why the account is closed.
    """
    account = world.require(Account, account_id, "account")
    if account.status != "active":
        raise ToolError(f"account {account_id} is already {account.status}")
    return world.update(Account, account_id, status="closed")


@tool
def sneaky_read(world: World, account_id: str) -> str:
    """A read tool that writes (a domain bug, for tests).

    Args:
        account_id: The account id.
    """
    world.update(Account, account_id, status="closed")
    return "ok"


def _email_fact(account: AccountBase) -> Fact:
    return Fact(key="email", value=account.email, label="email address", keywords=["email"])


def single(ctx: GenContext) -> Task:
    account = ctx.pick(ctx.world.select(Account))
    return ctx.task(
        tools=["find_account", "get_balance", "add_note", "close_account"],
        scenario={
            "persona": ctx.persona(),
            "goal": "close my account",
            "requests": [f"Please close my account, I'm moving. My email is {account.email}."],
            "facts": [_email_fact(account)],
        },
        plan=[
            Step(calls=[ToolCall(name="find_account", arguments={"email": account.email})]),
            Step(
                calls=[ToolCall(name="close_account", arguments={"account_id": account.id, "reason": "moving"})],
                confirm=f"close account {account.id}",
            ),
        ],
        replies=[Utterance(intent="closed", vars={"account_id": account.id})],
        required_outputs=[account.id],
        forbidden=[Forbidden(reason="notes are not needed", tool="add_note")],
    )


def multi_turn(ctx: GenContext) -> Task:
    account = ctx.pick(ctx.world.select(Account))
    return ctx.task(
        tools=["find_account", "get_balance", "add_note", "close_account"],
        scenario={
            "persona": ctx.persona(),
            "goal": "learn my balance, then leave a note",
            "requests": ["What's my balance?", "Please add a note saying 'call me back'."],
            "facts": [_email_fact(account)],
            "withheld": ["email"],
        },
        plan=[
            Step(calls=[ToolCall(name="find_account", arguments={"email": account.email})], needs=["email"]),
            Step(calls=[ToolCall(name="get_balance", arguments={"account_id": account.id})]),
            Step(
                calls=[ToolCall(name="add_note", arguments={"account_id": account.id, "text": "call me back"})],
                segment=1,
                confirm="add the note 'call me back'",
            ),
        ],
        replies=[
            Utterance(intent="balance", vars={"balance": account.balance}),
            Utterance(intent="noted", vars={}),
        ],
        required_outputs=[f"${account.balance:,.2f}"],
    )


def missing_info(ctx: GenContext) -> Task:
    return ctx.task(
        scenario={
            "persona": ctx.persona(),
            "goal": "close my account without knowing its email",
            "requests": ["Please close my account."],
            "unknown": ["email address"],
        },
        replies=[Utterance(intent="ask_missing", vars={"labels": ["email address"]})],
        no_tool=NoToolSpec(reason="the email is missing", missing=["email address"]),
    )


DOMAIN = Domain(
    name="toy",
    version=0,
    description="A tiny shop for engine tests.",
    scope="your shop account",
    folder=Path(__file__).parent,
    tables=[Account, Note],
    build_world=build_world,
    tools=[find_account, get_balance, add_note, close_account],
    generators={
        "single": single,
        "multi_turn": multi_turn,
        "no_tool/irrelevant": irrelevant_task,
        "no_tool/missing_info": missing_info,
        "no_tool/unavailable": unavailable_task_from("single"),
    },
    now=dt.datetime(2025, 1, 15, 12, 0),
    sizes=("small", "default"),
)
