"""Telecom's and vehicle's requests that need a question: a value only the user can give (a refill
size, a plan, a region, a cabin setting) and a pick among records (lines, payment methods, places,
driver profiles). Each is built by its own builder, proven like a generated task, and its gold chat
spoiled the way a careless policy would act: a guess, an act without asking, a question for an id
a read finds. Every spoil scores below 1.0."""

from __future__ import annotations

import copy
import random
import zlib
from collections.abc import Callable
from typing import Any

import pytest

import toolgym
from toolgym.envs import World
from toolgym.envs.conversation import said_before
from toolgym.envs.generation import GenContext, finalize
from toolgym.envs.gold import gold_messages
from toolgym.envs.task import Task
from toolgym.verifiers import verify
from toolgym.verifiers.choice_spoils import asked_for_lookup, guessed_choice

Chat = list[dict[str, Any]]


@pytest.fixture(scope="module", params=["telecom", "vehicle"])
def place(request):
    domain = toolgym.load_domain(request.param)
    world = World(domain.template())
    yield domain, world
    world.close()


def _proven(place, kind: str, make: Callable[[GenContext], Task | None], name: str, tries: int = 80) -> Task:
    """The first task `make` gives over seeds, proven like a generated one (its gold scores 1.0)."""
    domain, world = place
    for attempt in range(tries):
        seed = zlib.crc32(f"depth:{name}:{attempt}".encode())
        ctx = GenContext(domain, world, random.Random(seed), seed, kind, domain.world_seed, domain.default_size)
        task = make(ctx)
        if task is not None:
            return finalize(domain, task)
    raise AssertionError(f"{name} built nothing in {tries} seeds")


def _telecom(builder_name: str, module: str = "asking") -> Callable[[GenContext], Task | None]:
    """A task of one telecom builder on a customer it fits (the subscriber index drawn in turn)."""
    import importlib

    from toolgym.domains.telecom.tasks.index import index_of
    from toolgym.domains.telecom.tasks.parts import assemble

    build = getattr(importlib.import_module(f"toolgym.domains.telecom.tasks.{module}"), builder_name)

    def make(ctx: GenContext) -> Task | None:
        index = index_of(ctx.world)
        if builder_name == "outage_unplaced":
            return assemble(ctx, None, [build(ctx, index)])
        sub = ctx.pick(index.healthy)
        piece = build(ctx, sub)
        return None if piece is None else assemble(ctx, sub, [piece])

    return make


def _vehicle(builder: Callable[..., Any], **options: Any) -> Callable[[GenContext], Task | None]:
    from toolgym.domains.vehicle.tasks.index import index_of
    from toolgym.domains.vehicle.tasks.parts import on_car

    def make(ctx: GenContext) -> Task | None:
        car = ctx.pick(index_of(ctx.world).cars)
        piece = builder(ctx, car, **options)
        return None if piece is None else on_car(ctx, car, [piece])

    return make


def _gold(place, task: Task) -> Chat:
    messages, verification = gold_messages(place[0], task)
    assert verification.passed and verification.value == 1.0, verification.components
    return messages


def acted_without_asking(task: Task, messages: Chat) -> Chat | None:
    """The gold chat without the question for a withheld value and the user's answer: the agent acts
    on a value nobody gave."""
    values = [f.value for f in task.scenario.facts if f.key in task.scenario.withheld and f.key not in task.scenario.identity]
    for i, message in enumerate(messages):
        if i and message["role"] == "user" and any(said_before(str(v), message.get("content") or "") for v in values):
            if messages[i - 1]["role"] == "assistant" and not messages[i - 1].get("tool_calls"):
                return [copy.deepcopy(m) for j, m in enumerate(messages) if j not in (i - 1, i)]
    return None


def _spoiled_below_one(task: Task, spoiled: Chat | None) -> None:
    assert spoiled is not None
    score = verify(task, spoiled)
    assert score.value < 1.0 and not score.passed, score.components


TELECOM_QUESTIONS = ["outage_unplaced"]
TELECOM_CHOICES = ["refill_unsized", "plan_unnamed", "line_usage_which", "refill_which_line", "pay_with_which"]


def _vehicle_asked():
    from toolgym.domains.vehicle.tasks import comfort, drive

    return [comfort.set_temperature, comfort.seat_heating, comfort.window, comfort.media, drive.cruise, drive.charge_limit]


def _vehicle_choices():
    from toolgym.domains.vehicle.tasks import choices

    return [choices.navigate_which, choices.trip_range_which, choices.load_profile_which]


def test_a_value_left_out_is_asked_for_and_acting_without_it_fails(place):
    domain = place[0]
    if domain.name == "telecom":
        makes = [(n, _telecom(n)) for n in TELECOM_QUESTIONS]
    else:
        makes = [(b.__name__, _vehicle(b, ask=True)) for b in _vehicle_asked()]
    for name, make in makes:
        task = _proven(place, "single", make, name)
        withheld = [f for f in task.scenario.facts if f.key in task.scenario.withheld and f.key not in task.scenario.identity]
        assert withheld, name
        assert not any(said_before(str(f.value), task.scenario.requests[0]) for f in withheld), name  # the request leaves it out
        messages = _gold(place, task)
        _spoiled_below_one(task, acted_without_asking(task, messages))


def test_a_pick_among_records_names_each_and_a_guess_fails(place):
    domain = place[0]
    if domain.name == "telecom":
        makes = [(n, _telecom(n)) for n in TELECOM_CHOICES]
    else:
        makes = [(b.__name__, _vehicle(b)) for b in _vehicle_choices()]
    for name, make in makes:
        task = _proven(place, "multi_step", make, name)
        step = next(s for s in task.plan if s.choice is not None)
        messages = _gold(place, task)
        question = next(m["content"] for m in messages if m["role"] == "assistant" and f"which {step.choice.label}" in (m.get("content") or "").lower())
        assert all(option in question for option in step.choice.options), (name, question)
        _spoiled_below_one(task, guessed_choice(task, messages))
        if task.scenario.lookups:  # the id the read finds (a line, a place) is never the user's to give
            _spoiled_below_one(task, asked_for_lookup(task, messages))


def test_a_problem_reported_without_the_place_waits_for_it_before_the_outage_check():
    from toolgym.domains.telecom.tasks.index import index_of
    from toolgym.domains.telecom.tasks.parts import assemble
    from toolgym.domains.telecom.tasks.troubleshoot import LOCATION_FACT, troubleshoot

    domain = toolgym.load_domain("telecom")
    world = World(domain.template())
    try:
        def make(ctx: GenContext) -> Task | None:
            sub = ctx.pick(index_of(ctx.world).healthy)
            piece = troubleshoot(ctx, sub, ["mobile_data_off"])
            return assemble(ctx, sub, [piece]) if LOCATION_FACT in piece.withheld else None

        task = _proven((domain, world), "multi_step", make, "unplaced")
        messages = _gold((domain, world), task)
        region = task.scenario.fact(LOCATION_FACT)
        assert region is not None and not said_before(str(region.value), task.scenario.requests[0])
        _spoiled_below_one(task, acted_without_asking(task, messages))
    finally:
        world.close()


def test_a_fix_said_in_a_list_of_fixes_has_no_and_of_its_own():
    """'I took your payment of $59.40 for bill B100263 and resumed your line and you switched data
    saver off': the fixes of a troubleshooting chat are joined with "and", so none carries one."""
    book = toolgym.load_domain("telecom").phrasebook
    values = {"label": "5G preferred", "gb": 3, "price": 10.0, "amount": 59.4, "bill_id": "B100263"}
    listed = ["done_airplane", "done_mobile_data", "done_data_saver", "done_apn", "done_sim", "done_network_mode",
              "done_refill", "done_paid_resumed", "done_roaming_account", "done_roaming_switch"]
    said = {book.say(intent, seed, **values) for intent in listed for seed in range(12)}
    assert len(said) > len(listed) and not [s for s in said if " and " in f" {s} "], said
