"""The judgement pieces of banking and travel: each one's gold passes, and each one's spoil scores
below 1.0 — a guess among the candidates, a question for an id a lookup finds, an act made without
asking for the value the request left out. One task per piece, built from its own builder."""

from __future__ import annotations

import copy
import importlib
import random

import pytest

import toolgym
from toolgym.envs import World
from toolgym.envs.conversation import said_before
from toolgym.envs.generation import GenContext, finalize
from toolgym.envs.gold import gold_messages
from toolgym.envs.task import Task
from toolgym.errors import GeneratorBug
from toolgym.verifiers import verify
from toolgym.verifiers.choice_spoils import asked_for_lookup, guessed_choice

SEEDS = 80  # builders that fit one customer in a few are tried over this many draws


def _loaded(name: str):
    domain = toolgym.load_domain(name)
    world = World(domain.template())
    yield domain, world
    world.close()


@pytest.fixture(scope="module")
def banking():
    yield from _loaded("banking")


@pytest.fixture(scope="module")
def travel():
    yield from _loaded("travel")


def _task(loaded, kind: str, make) -> Task:
    """The first task `make(ctx)` builds over the seeds, proven like a generated one."""
    domain, world = loaded
    for seed in range(SEEDS):
        ctx = GenContext(domain, world, random.Random(seed), seed, kind, world.template.seed, world.template.size)
        try:
            task = make(ctx)
        except GeneratorBug:
            continue
        if task is not None:
            return finalize(domain, task)
    raise AssertionError(f"no task in {SEEDS} draws")


def _banking_task(banking, build, kind: str = "multi_step") -> Task:
    from toolgym.domains.banking.tasks.index import index_of
    from toolgym.domains.banking.tasks.parts import assemble

    def make(ctx):
        index = index_of(ctx.world)
        person = ctx.pick(index.people)
        piece = build(ctx, person, index)
        return None if piece is None else assemble(ctx, person, [piece])

    return _task(banking, kind, make)


def _travel_task(travel, build, kind: str = "multi_step") -> Task:
    from toolgym.domains.travel.tasks.index import index_of
    from toolgym.domains.travel.tasks.parts import assemble

    def make(ctx):
        piece = build(ctx, index_of(ctx.world))
        return None if piece is None else assemble(ctx, [piece])

    return _task(travel, kind, make)


def _on_a_booking(build):
    return lambda ctx, index: build(ctx, index, ctx.pick(index.confirmed("any")))


def skipped_question(task: Task, messages: list[dict]) -> list[dict] | None:
    """The gold chat without the question for a left-out value and the user's answer: the agent acts
    on a value nobody gave."""
    own = set(task.scenario.identity) | {s.choice.fact for s in task.plan if s.choice is not None}
    facts = [f for f in task.scenario.facts if f.key in task.scenario.withheld and f.key not in own]
    for fact in facts:
        for i, m in enumerate(messages):
            if i and m.get("role") == "user" and said_before(str(fact.value), m.get("content") or "") and messages[i - 1].get("role") == "assistant":
                return [copy.deepcopy(x) for j, x in enumerate(messages) if j not in (i - 1, i)]
    return None


def _spoiled_below_one(loaded, task: Task, spoil) -> None:
    domain, _ = loaded
    messages, verification = gold_messages(domain, task)
    assert verification.passed and verification.value == 1.0, verification.components
    spoiled = spoil(task, messages)
    assert spoiled is not None, f"{spoil.__name__} did not apply to {task.id}"
    score = verify(task, spoiled)
    assert score.value < 1.0 and not score.passed, (spoil.__name__, score.components)


# ---- banking ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["transfer_which", "payee_alike", "cancel_schedule_which", "dispute_which"])
def test_banking_choices_name_every_candidate_and_a_guess_fails(banking, name):
    from toolgym.domains.banking.tasks import choices

    task = _banking_task(banking, getattr(choices, name))
    choice = next(s.choice for s in task.plan if s.choice is not None)
    asked = next(m for m in gold_messages(banking[0], task)[0] if m.get("role") == "assistant" and "which" in (m.get("content") or "").lower())
    assert len(choice.options) >= 2 and all(o in asked["content"] for o in choice.question.vars["options"])
    _spoiled_below_one(banking, task, guessed_choice)


def test_banking_dispute_finds_the_charge_and_asking_for_its_id_fails(banking):
    from toolgym.domains.banking.tasks.choices import dispute_which

    task = _banking_task(banking, dispute_which)
    assert "transaction id" in [f.label for f in task.scenario.lookups]
    _spoiled_below_one(banking, task, asked_for_lookup)


@pytest.mark.parametrize("name", ["transfer_own", "pay_payee", "schedule", "card_limit", "statement", "loan_payment", "new_email", "new_payee"])
def test_banking_left_out_values_are_asked_for_and_acting_without_asking_fails(banking, monkeypatch, name):
    from toolgym.domains.banking.tasks import parts, writes

    monkeypatch.setattr(parts, "LEAVE_OUT_SHARE", 1.0)
    build = getattr(writes, name)
    task = _banking_task(banking, lambda ctx, person, index: (p if (p := build(ctx, person, index)) and p.withheld else None), kind="single")
    left = [f for f in task.scenario.facts if f.key in task.scenario.withheld and f.key not in task.scenario.identity]
    assert left and all(not said_before(str(f.value), task.scenario.requests[0]) for f in left)
    _spoiled_below_one(banking, task, skipped_question)


@pytest.mark.parametrize("name", ["limits_on_two", "statements_for_two", "transfer_to_two", "pay_two_payees", "schedule_two"])
def test_banking_parallel_writes_ask_once_for_the_value_they_share(banking, monkeypatch, name):
    parallel = importlib.import_module("toolgym.domains.banking.tasks.parallel")

    monkeypatch.setattr(parallel, "PARALLEL_ASK_SHARE", 1.0)
    task = _banking_task(banking, getattr(parallel, name), kind="parallel")
    acting = next(s for s in task.plan if s.confirm)
    assert len(acting.calls) == 2
    assert all(len({str(c.arguments.get(k)) for c in acting.calls}) == 1 for k in ("daily_limit", "month", "amount", "run_on"))
    _spoiled_below_one(banking, task, skipped_question)


# ---- travel -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["seat_by_trip", "bags_for_trip", "cancel_by_trip", "hotel_by_trip"])
def test_travel_trips_named_by_city_are_looked_up_and_a_guess_or_an_id_question_fails(travel, name):
    from toolgym.domains.travel.tasks import choices

    task = _travel_task(travel, _on_a_booking(getattr(choices, name)))
    choice = next(s.choice for s in task.plan if s.choice is not None)
    assert len(choice.options) >= 2 and task.scenario.lookups
    _spoiled_below_one(travel, task, guessed_choice)
    _spoiled_below_one(travel, task, asked_for_lookup)


def test_travel_hotel_where_one_lands_reads_the_arrival_then_books(travel):
    from toolgym.domains.travel.tasks.choices import hotel_for_trip

    task = _travel_task(travel, _on_a_booking(hotel_for_trip))
    assert [c.name for s in task.plan for c in s.calls][-4:] == ["get_booking", "get_traveller_profile", "search_hotels", "book_hotel"]
    messages, verification = gold_messages(travel[0], task)
    assert verification.passed


@pytest.mark.parametrize(
    ("module", "name", "on_booking"),
    [("writes", "select_seat", True), ("writes", "change_date", True), ("reads", "cheapest_fare", False), ("writes", "redeem", None),
     ("reads", "cheapest_hotel", False), ("parallel", "trip_quote", False), ("parallel", "hotels_two_cities", False)],
)  # fmt: skip
def test_travel_left_out_values_are_asked_for_and_acting_without_asking_fails(travel, monkeypatch, module, name, on_booking):

    from toolgym.domains.travel.tasks import parts

    parallel = importlib.import_module("toolgym.domains.travel.tasks.parallel")

    monkeypatch.setattr(parts, "LEAVE_OUT_SHARE", 1.0)
    monkeypatch.setattr(parallel, "PARALLEL_ASK_SHARE", 1.0)
    build = getattr(importlib.import_module(f"toolgym.domains.travel.tasks.{module}"), name)
    if on_booking is None:  # built on a traveller
        task = _travel_task(travel, lambda ctx, index: build(ctx, index, ctx.pick(list(index.travellers.values()))), kind="single")
    else:
        task = _travel_task(travel, _on_a_booking(build) if on_booking else build, kind="single")
    assert any(f.key in task.scenario.withheld for f in task.scenario.facts if f.key not in task.scenario.identity)
    _spoiled_below_one(travel, task, skipped_question)
