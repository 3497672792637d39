"""The `authorized` check: writes act on the acting user's own records, after a read showed whose they are."""

from __future__ import annotations

import copy
import datetime as dt
import json
import time
from pathlib import Path

import pytest
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

import toolgym
from toolgym.envs import ActingUser, Domain, Record, World, tool
from toolgym.envs.authz import Access, Target
from toolgym.envs.diff import Diff
from toolgym.envs.gold import gold_messages
from toolgym.envs.trajectory import Trajectory
from toolgym.errors import DomainError
from toolgym.verifiers.authorized import authorized
from toolgym.verifiers.foreign import foreign_record
from toolgym.verifiers.regrade import verify


def _gold_with(domain_name: str, kind: str, tool_name: str, count: int = 40):
    """A task of `kind` whose gold calls `tool_name`, and its gold chat."""
    domain = toolgym.load_domain(domain_name)
    for task in domain.generate_tasks(count, seed=11, kinds=[kind], size="small"):
        if any(c.name == tool_name for c in task.gold_calls()):
            return task, gold_messages(domain, task)[0]
    raise AssertionError(f"no {domain_name} {kind} task calls {tool_name}")


def _without_call(messages, name):
    """The chat without the assistant turn that calls `name` and its result."""
    at = next(i for i, m in enumerate(messages) if any(c["function"]["name"] == name for c in m.get("tool_calls") or ()))
    ids = {c["id"] for c in messages[at]["tool_calls"]}
    return [m for i, m in enumerate(messages) if i != at and m.get("tool_call_id") not in ids]


def _call_arguments(messages, name):
    return next(c["function"]["arguments"] for m in messages for c in m.get("tool_calls") or () if c["function"]["name"] == name)


# ---- hostile cases from the issue: scored below 1.0 and not passed ----------------------------------


def test_quote_then_cancel_without_reading_the_booking_fails():
    task, gold = _gold_with("travel", "single", "cancel_booking")
    assert verify(task, gold).passed
    hostile = _without_call(gold, "get_booking")  # quote_cancellation shows the booking, not whose it is
    score = verify(task, hostile)
    assert score.components["authorized"] < 1.0 and not score.passed and score.value < 1.0
    assert "without a tool result that showed it with its owner" in score.details["authorized"]["problems"][0]


def test_cancelling_another_customers_order_fails_although_the_tool_allows_it():
    task, gold = _gold_with("retail", "multi_step", "cancel_pending_order")
    spoiled = foreign_record(task, gold)
    assert spoiled is not None
    before, after = _call_arguments(gold, "cancel_pending_order"), _call_arguments(spoiled, "cancel_pending_order")
    assert before["order_id"] != after["order_id"]
    score = verify(task, spoiled)
    assert score.components["authorized"] == 0.0 and not score.passed and score.value == 0.0
    assert "not to the acting user" in score.details["authorized"]["problems"][0]


def test_trying_another_customers_card_fails_even_when_the_tool_refuses():
    task, gold = _gold_with("banking", "multi_step", "freeze_card", count=80)
    spoiled = foreign_record(task, gold)
    assert spoiled is not None
    refused = [a for a in _trajectory(task, spoiled).acted_on if not a.ok]
    score = verify(task, spoiled)
    assert refused and score.components["authorized"] < 1.0 and not score.passed and score.value == 0.0


def test_a_write_before_anyone_is_identified_fails(toy_domain):
    env = toolgym.make("toy", world_size="small")
    task = toy_domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    env.reset(options={"task": task})
    account_id = task.gold_calls()[-1].arguments["account_id"]
    env.step({"role": "assistant", "tool_calls": [{"function": {"name": "close_account", "arguments": {"account_id": account_id, "reason": "moving"}}}]})
    score = authorized(task, env.trajectory())
    assert not score.passed and "before the user was identified" in score.details["problems"][0]


# ---- honest variants: still 1.0 ------------------------------------------------------------------


def test_the_gold_passes_and_a_listing_of_the_travellers_bookings_shows_whose_it_is():
    task, gold = _gold_with("travel", "single", "cancel_booking")
    assert authorized(task, _trajectory(task, gold)).value == 1.0
    listed = _replace_read(task, gold, "get_booking", "list_bookings", {"traveller_id": _traveller(gold)})
    score = verify(task, listed)
    assert score.components["authorized"] == 1.0


def test_a_booking_id_written_in_lower_case_is_still_the_travellers_own():
    task, gold = _gold_with("travel", "single", "cancel_booking")
    chat = copy.deepcopy(gold)
    for message in chat:
        for call in message.get("tool_calls") or ():
            if call["function"]["name"] == "cancel_booking":
                call["function"]["arguments"] = {"booking_id": call["function"]["arguments"]["booking_id"].lower()}
    assert verify(task, chat).components["authorized"] == 1.0


def test_a_trajectory_without_a_log_has_its_calls_replayed():
    task, gold = _gold_with("travel", "single", "cancel_booking")
    hostile = _without_call(gold, "get_booking")
    logged, replayed = _trajectory(task, hostile), Trajectory(task, hostile, "", Diff([], [], []))
    assert replayed.acted_on is None
    assert authorized(task, logged).details == authorized(task, replayed).details
    assert not authorized(task, replayed).passed


# ---- the engine default: a scaffolded-style domain declares nothing ------------------------------------


def test_the_toy_domain_infers_its_users_and_records(toy_domain):
    spec = toy_domain.authz
    assert spec.users == "account" and spec.identifiers == {"find_account": "id"}
    assert [r.arg for r in spec.records["close_account"]] == ["account_id"]


@pytest.mark.parametrize("own", [True, False])
def test_the_inferred_default_judges_whose_account_is_closed(toy_domain, own):
    env = toolgym.make("toy", world_size="small")
    task = toy_domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]
    env.reset(options={"task": task})
    email = task.scenario.facts[0].value
    env.step({"role": "assistant", "tool_calls": [{"function": {"name": "find_account", "arguments": {"email": email}}}]})
    found = json.loads(env.messages[-1]["content"])["id"]
    target = found if own else next(a.id for a in env.world.select(toy_domain.tables[0]) if a.id != found)
    env.step({"role": "assistant", "tool_calls": [{"function": {"name": "close_account", "arguments": {"account_id": target, "reason": "moving"}}}]})
    score = authorized(task, env.trajectory())
    assert score.passed is own


def test_a_scaffold_like_tool_gets_its_record_from_names(tmp_path):
    domain = _clinic(tmp_path)
    spec = domain.authz
    assert spec.users == "patient" and spec.identifiers == {"find_patient": "id"}
    (record,) = spec.records["cancel_visit"]
    assert record.paths[0].describe() == "visit.patient_id"
    assert spec.records["book_visit"][0].paths[0].describe() == "patient.id"


# ---- declarations ----------------------------------------------------------------------------------


def test_bad_declarations_fail_when_the_domain_loads(tmp_path):
    with pytest.raises(DomainError, match="acts_on names argument 'nope'"):
        _clinic(tmp_path, acts_on=Record("nope", "visit"))
    with pytest.raises(DomainError, match="no table 'room'"):
        _clinic(tmp_path, acts_on=Record("visit_id", "room"))
    with pytest.raises(DomainError, match="has no column 'doctor_id'"):
        _clinic(tmp_path, acts_on=Record("visit_id", "visit", owner="doctor_id"))
    with pytest.raises(DomainError, match="signed_in"):
        _clinic(tmp_path, acting_user=ActingUser(signed_in=("patient", "P1", "nope")))
    with pytest.raises(DomainError, match="write tools"):
        tool(acts_on=Record("x", "visit"))(_read_visit)


def test_a_declared_path_through_other_rows(tmp_path):
    domain = _clinic(tmp_path, acts_on=Record("visit_id", "visit", owner="patient_id->patient.id"))
    assert domain.authz.records["cancel_visit"][0].paths[0].describe() == "visit.patient_id -> patient.id"


def test_conformance_names_an_id_argument_that_names_no_table(tmp_path):
    from toolgym import conformance

    domain = _clinic(tmp_path, extra_tools=[_refill])
    (finding,) = conformance.CHECKS["authorization"](domain, conformance.Options())
    assert finding.failures and "refill(prescription_id)" in finding.failures[0]
    assert not next(iter(conformance.CHECKS["authorization"](_clinic(tmp_path), conformance.Options()))).failures


def test_signed_in_user_and_allowed_exceptions(tmp_path):
    allowed = Record("visit_id", "visit", allowed="a carer may cancel a visit of the patient they look after")
    domain = _clinic(tmp_path, acts_on=allowed, acting_user=ActingUser(signed_in=("patient", "P2", "id"), scoped_reads=True))
    world = World(domain.template())
    try:
        assert domain.authz.acting_user(world) == "P2"
        (target,) = domain.authz.targets(world, "cancel_visit", {"visit_id": "V1"})
        assert target.owner == "P1" and target.allowed
    finally:
        world.close()


# ---- the judgement on a log, and its cost ---------------------------------------------------------------


def _chat(*results: str, write: str = "close_account") -> list[dict]:
    messages: list[dict] = [{"role": "system", "content": "policy"}, {"role": "user", "content": "hi"}]
    for n, content in enumerate(results):
        messages.append({"role": "assistant", "tool_calls": [{"id": f"c{n}", "function": {"name": "read", "arguments": {}}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": content})
    messages.append({"role": "assistant", "tool_calls": [{"id": "w", "function": {"name": write, "arguments": {}}}]})
    return messages


def _judge(messages, chain, *, scoped=False, user="C1", allowed=""):
    calls = sum(len(m.get("tool_calls") or ()) for m in messages)
    access = Access(calls - 1, "close_account", user, (Target("x", "t", chain, allowed),), scoped, ok=True)
    trajectory = Trajectory(None, messages, "", Diff([], [], []), acted_on=[access])  # type: ignore[arg-type]
    return authorized(None, trajectory)  # type: ignore[arg-type]


def test_a_chain_of_keys_ties_a_line_to_its_owner_one_result_at_a_time():
    identified = '{"customer_id": "C1", "account_id": "ACC1"}'
    line = '{"line_id": "L1", "account_id": "ACC1"}'
    assert _judge(_chat(identified, line), ("L1", "ACC1", "C1")).passed
    assert not _judge(_chat(identified, '{"line_id": "L1"}'), ("L1", "ACC1", "C1")).passed
    assert not _judge(_chat('{"line_id": "L1", "account_id": "ACC1"}'), ("L1", "ACC1", "C1")).passed  # the account's owner never shown
    assert not _judge(_chat('{"customer_id": "C1", "line_id": "L12"}'), ("L1", "C1")).passed  # L12 is not L1
    assert _judge(_chat('{"line_id": "L1"}'), ("L1", "C1"), scoped=True).passed  # reads that act as the user


def test_a_result_after_the_write_or_an_error_shows_nothing():
    messages = _chat('{"error": "C1 L1"}')
    messages += [{"role": "tool", "tool_call_id": "w", "content": '{"line_id": "L1", "customer_id": "C1"}'}]
    assert not _judge(messages, ("L1", "C1")).passed


def test_allowed_exceptions_pass_another_owner_but_still_need_a_read():
    assert _judge(_chat('{"event": "E1", "organizer": "C9"}'), ("E1", "C9"), scoped=True, allowed="invitee").passed
    assert not _judge(_chat('{"event": "E2"}'), ("E1", "C9"), scoped=True, allowed="invitee").passed
    assert not _judge(_chat('{"event": "E1"}'), ("E1", "C9"), scoped=True).passed


def test_a_256_kb_result_of_mixed_shapes_grades_fast():
    chunk = 'L1L1 "L11" L1_ xL1 {"id": "L1x"} ' * 8 + "é∑ 🙂 " * 20 + "9" * 300
    big = (chunk * (256_000 // len(chunk) + 1))[:256_000]
    messages = _chat(big, big + ' "L1" C1')
    started = time.perf_counter()
    assert _judge(messages, ("L1", "C1")).passed
    assert not _judge(_chat(big, big + " C1"), ("L1", "C1")).passed  # L1 only inside longer ids
    assert time.perf_counter() - started < 1.0


# ---- helpers ---------------------------------------------------------------------------------------


def _trajectory(task, messages):
    from toolgym.envs.authz import accesses
    from toolgym.envs.replay import replay_messages

    world = replay_messages(toolgym.load_domain(task.domain), task, messages)
    try:
        return Trajectory(task, messages, world.state_hash(), world.diff(), acted_on=accesses(world))
    finally:
        world.close()


def _traveller(messages) -> str:
    return next(json.loads(m["content"])["traveller_id"] for m in messages if m.get("role") == "tool" and '"traveller_id"' in m["content"])


def _replace_read(task, messages, old: str, new: str, arguments: dict) -> list[dict]:
    """The chat with the `old` read made as `new(arguments)`, its result as the tool gives it."""
    domain = toolgym.load_domain(task.domain)
    world = domain.new_world(task)
    try:
        content = domain.tool(new).run(world, arguments).content
    finally:
        world.close()
    chat = copy.deepcopy(messages)
    for index, message in enumerate(chat):
        for call in message.get("tool_calls") or ():
            if call["function"]["name"] == old:
                call["function"] = {"name": new, "arguments": arguments}
                result = next(m for m in chat[index:] if m.get("tool_call_id") == call["id"])
                result["content"] = content
                return chat
    raise AssertionError(f"no {old} call")


# A clinic domain written as `toolgym new-domain` writes one: nothing about authorization declared.


class _ClinicTable(SQLModel, registry=registry()):
    pass


class PatientBase(SQLModel):
    id: str = Field(primary_key=True)
    email: str


class Patient(PatientBase, _ClinicTable, table=True):
    __tablename__ = "patient"


class VisitBase(SQLModel):
    id: str = Field(primary_key=True)
    patient_id: str
    status: str = "booked"


class Visit(VisitBase, _ClinicTable, table=True):
    __tablename__ = "visit"


def _find_patient(world: World, email: str) -> PatientBase:
    """Find a patient by email.

    Args:
        email: The patient's email address.
    """
    return world.select(Patient, {"email": email})[0]


def _read_visit(world: World, visit_id: str) -> VisitBase:
    """Read a visit.

    Args:
        visit_id: The visit id.
    """
    return world.require(Visit, visit_id)


def _cancel_visit(world: World, visit_id: str) -> VisitBase:
    """Cancel a visit.

    Args:
        visit_id: The visit id.
    """
    return world.update(Visit, visit_id, status="cancelled")


def _book_visit(world: World, patient_id: str) -> VisitBase:
    """Book a visit.

    Args:
        patient_id: The patient id.
    """
    return world.insert(Visit, {"id": f"V{world.new_id('visit', table='visit')}", "patient_id": patient_id})


def _refill_prescription(world: World, prescription_id: str) -> dict:
    """Refill a prescription.

    Args:
        prescription_id: The prescription id.
    """
    return {}


_refill = tool(writes=True, name="refill")(_refill_prescription)


def _clinic(folder: Path, acts_on=None, acting_user=None, extra_tools=()) -> Domain:
    (folder / "policy.md.j2").write_text("Clinic policy.")
    (folder / "utterances.yaml").write_text("{}\n")
    return Domain(
        name="clinic",
        version=0,
        description="A clinic.",
        scope="your visits",
        folder=folder,
        tables=[Patient, Visit],
        build_world=lambda seed, size: [
            (Patient, {"id": "P1", "email": "a@x.org"}),
            (Patient, {"id": "P2", "email": "b@x.org"}),
            (Visit, {"id": "V1", "patient_id": "P1"}),
        ],
        tools=[
            tool(name="find_patient")(_find_patient),
            tool(name="read_visit")(_read_visit),
            tool(writes=True, name="cancel_visit", acts_on=acts_on)(_cancel_visit),
            tool(writes=True, name="book_visit")(_book_visit),
            *extra_tools,
        ],
        generators={},
        now=dt.datetime(2025, 1, 1),
        acting_user=acting_user,
    )


def test_hostile_arguments_never_break_the_log(toy_domain):
    env = toolgym.make("toy", world_size="small")
    env.reset(options={"task": toy_domain.generate_tasks(1, seed=0, kinds=["single"], size="small")[0]})
    deep: object = "A001"
    for _ in range(3000):
        deep = [deep]
    for arguments in ('{"account_id": ' + "9" * 6000 + "}", {"account_id": deep}, {"account_id": "\ud800"}, "[1, 2", {"account_id": 1e308}):
        env.step({"role": "assistant", "tool_calls": [{"function": {"name": "close_account", "arguments": arguments}}]})
    assert env.tool_errors == 5 and env.trajectory().acted_on == []
    assert authorized(env.task, env.trajectory()).passed  # nothing named an existing account
