"""How a banking task is put together: identity first, then one piece per request.

`assemble` hands the pieces to the engine's `assemble` with what is banking's own: the caller
proves who they are with `verify_identity` (phone, date of birth, and the last four of their id
number or their security answer), and the conversation opens in the persona's register.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from toolgym.envs import Fact, GenContext, Identity, Piece, Step, Task, ToolCall, lookup_identity, pieces
from toolgym.envs import assemble as engine_assemble
from toolgym.envs.phrasing import said_day

from .index import Acct, CardInfo, Person, index_of

SECURITY_SHARE = 0.35  # callers who give their security answer rather than the last four of their id
LEAVE_OUT_SHARE = 0.5  # requests that leave out a value only the caller knows (an amount, a date): the agent asks


def agent(*calls: ToolCall, confirm: str | None = None, needs: tuple[str, ...] = ()) -> Step:
    return Step(calls=list(calls), confirm=confirm, needs=list(needs))


def leaves_out(ctx: GenContext) -> bool:
    """Whether this request leaves out the value the write needs, for the agent to ask."""
    return ctx.rng.random() < LEAVE_OUT_SHARE


def identity_facts(person: Person, by_answer: bool, dob: str) -> list[Fact]:
    """What the caller proves who they are with; `dob` is their birth date as they type it."""
    facts = [
        Fact(key="phone", value=person.phone, label="registered phone number", keywords=["phone"]),
        Fact(key="dob", value=dob, label="date of birth", keywords=["birth"]),
    ]
    if by_answer:
        facts.append(Fact(key="security_answer", value=person.security_answer, label="security answer", keywords=["security"]))
    else:
        facts.append(Fact(key="id_last4", value=person.id_last4, label="id number's last four", keywords=["id number", "last four"]))
    return facts


def by_identity(ctx: GenContext, customer_id: str) -> Identity:
    """The caller gives their phone, birth date and id digits (or security answer); the agent verifies."""
    person = index_of(ctx.world).by_id[customer_id]
    by_answer = ctx.rng.random() < SECURITY_SHARE
    dob = ctx.typed_day(person.dob)
    facts = identity_facts(person, by_answer, dob)
    arguments: dict[str, Any] = {"phone_number": person.phone, "date_of_birth": person.dob}
    if by_answer:
        arguments["security_answer"] = person.security_answer
        fragment = ctx.say("give_identity_answer", phone=person.phone, dob=dob, answer=person.security_answer)
    else:
        arguments["id_last4"] = person.id_last4
        fragment = ctx.say("give_identity", phone=person.phone, dob=dob, last4=person.id_last4)
    return lookup_identity(facts, "verify_identity", arguments, fragment=fragment, goal=f"You are {person.name}.")


def phrase(ctx: GenContext, intent: str, **values: Any) -> str:
    """An utterance said inside another sentence: its first letter back in lower case
    (a rendered utterance starts with a capital, 'My Visa' or 'Freeze the card')."""
    text = ctx.say(intent, **values)
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def on_day(ctx: GenContext, day: dt.date | str) -> str:
    """A day as the agent writes it: 'June 20', or 'October 21, 2023' in another year (the calls
    keep the tools' '2025-06-20')."""
    return said_day(day, ctx.world.now.date())


def account_said(ctx: GenContext, person: Person, account: Acct) -> str:
    """How the customer names an account: by its kind when it is their only one, else by its last four."""
    if person.unique_kind(account) and ctx.rng.random() < 0.7:
        return phrase(ctx, "name_account_kind", kind=account.words)
    return phrase(ctx, "name_account_last4", kind=account.words, last4=account.last4)


def dispute_consent(ctx: GenContext, account: Acct, merchant: str, amount: float, date: str, reason: str) -> str:
    """What the agent will do when it opens a dispute: the charge, the account it is on by its last
    four, and the reason the call records."""
    return phrase(ctx, f"action_dispute_{reason}", merchant=merchant, amount=amount, date=date, kind=account.words, last4=account.last4)


def account_state(account: Acct) -> list[str]:
    """What a reply about an account's balance must say besides the figure: that the account is
    frozen, when it is (the `state` part of the balance replies says it)."""
    return [] if account.status == "active" else [account.status]


def card_said(ctx: GenContext, card: CardInfo) -> str:
    return phrase(ctx, "name_card", brand=card.brand, last4=card.last4)


# ids a customer never knows: the agent finds them by what the customer says (a card's last four)
FOUND_IDS = {"card_id": ("card id", ["card id"]), "account_id": ("account id", ["account id"]),
             "schedule_id": ("schedule id", ["schedule id"]), "loan_id": ("loan id", ["loan id"])}  # fmt: skip


def assemble(ctx: GenContext, person: Person | None, parts: list[Piece], *, withhold: bool | None = None, **options: Any) -> Task:
    """The task of `parts`, the caller `person` verified first where a piece is about them."""
    ctx.persona()  # drawn first: the greeting and every request speak in its register
    leads = [ctx.say("opening"), *(ctx.say("next_request") for _ in parts[1:])]
    parts = [replace(p, request=f"{lead} {p.request}".strip()) for lead, p in zip(leads, parts, strict=True)]
    return engine_assemble(
        ctx,
        pieces.without_repeated_reads(ctx, parts),
        identify=by_identity,
        withhold_identity=ctx.rng.random() < 0.35 if withhold is None else withhold,
        lead=False,  # the caller greets first, then asks, then says who they are
        found_ids=FOUND_IDS,
        goal_joiner=" Then ",
        closing="",
        **options,
    )
