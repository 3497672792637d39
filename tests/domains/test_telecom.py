"""The telecom domain: two sides in control, faults that break the phone, fixes that mend it."""

from __future__ import annotations

import copy
import datetime as dt
import json
import random
from typing import get_args

import pytest

import toolgym
from tests.conftest import small_world_index
from toolgym.envs import GenContext, World
from toolgym.envs.generation import finalize
from toolgym.envs.replay import replay_plan, run_call
from toolgym.errors import ToolError
from toolgym.verifiers import verify

TELECOM = "telecom"


@pytest.fixture(scope="module")
def domain():
    return toolgym.load_domain(TELECOM)


@pytest.fixture(scope="module")
def index():
    return small_world_index(TELECOM)


def _context(domain, seed: int = 0, kind: str = "multi_step") -> GenContext:
    world = World(domain.template(0, "small"))
    return GenContext(domain, world, random.Random(seed), seed, kind, 0, "small")


def _session_world(domain, customer_id: str, **phone) -> World:
    """A small world with a call open for `customer_id`, the phone set as given."""
    world = World(domain.template(0, "small"))
    world.insert(world.info("call_session").model, {"call_id": 1, "customer_id": customer_id})
    if phone:
        world.update(world.info("phone").model, customer_id, **phone)
    world.mark_baseline()
    return world


def _speed_test(domain, world: World) -> dict:
    outcome = run_call(domain, world, (), "run_speed_test", {}, caller="user")
    assert outcome.error is None, outcome.error
    return json.loads(outcome.content)


def _fault_task(domain, sub, faults: list[str], seed: int = 0):
    from toolgym.domains.telecom.tasks.parts import assemble
    from toolgym.domains.telecom.tasks.troubleshoot import troubleshoot

    ctx = _context(domain, seed)
    try:
        return finalize(domain, assemble(ctx, sub, [troubleshoot(ctx, sub, faults)]))
    finally:
        ctx.world.close()


# ---- world ---------------------------------------------------------------------------------------


def test_world_build_is_deterministic_and_seeded(domain):
    from toolgym.domains.telecom.world import build_world

    first = [r.model_dump() for r in build_world(5, "small")]
    second = [r.model_dump() for r in build_world(5, "small")]
    other = [r.model_dump() for r in build_world(6, "small")]
    assert first == second
    assert first != other


def test_sizes_and_a_healthy_built_world(domain):
    small = World(domain.template(0, "small"))
    default = World(domain.template(0, "default"))
    try:
        assert small.count(small.info("customer").model) == 24
        assert default.count(default.info("customer").model) == 600
        for world in (small, default):
            assert world.count(world.info("phone").model) == world.count(world.info("customer").model)
        # Every phone of the small world works at home unless its region has an active outage.
        outage_regions = {r for (r,) in small.query("SELECT region FROM outage WHERE status = 'active'")}
        for customer_id, region in small.query("SELECT customer_id, location_region FROM phone"):
            world = _session_world(domain, customer_id)
            result = _speed_test(domain, world)
            assert (result["result"] == "passed") == (region not in outage_regions), (customer_id, result)
            world.close()
    finally:
        small.close()
        default.close()


def test_literal_values_match_the_catalogue():
    from toolgym.domains.telecom.catalogue import PLANS, REFILLS, REGIONS
    from toolgym.domains.telecom.tools.account import PlanId
    from toolgym.domains.telecom.tools.lookup import Region

    assert set(get_args(PlanId)) == {p.plan_id for p in PLANS}
    assert set(get_args(Region)) == set(REGIONS)
    refill = toolgym.load_domain(TELECOM).tool("add_data_refill").schema["function"]["parameters"]["properties"]
    assert refill["gigabytes"]["enum"] == [r.gigabytes for r in REFILLS]


# ---- the two sides -------------------------------------------------------------------------------


def test_tool_counts_and_sides(domain):
    agent, user = domain.agent_tools, domain.user_tools
    assert len(agent) >= 12 and sum(t.writes for t in agent) >= 5
    assert len(user) >= 10
    names = {t.name for t in user}
    assert {"check_status_bar", "toggle_airplane_mode", "run_speed_test", "reset_apn_settings", "reseat_sim"} <= names


def test_user_tools_change_only_the_phone_of_the_caller(domain, index):
    sub = next(s for s in index.healthy if s.supports_wifi_calling and s.supports_5g)
    # Each tool runs on a phone set so that the call is allowed and changes something.
    calls = [
        ("toggle_airplane_mode", {"state": "on"}, {}),
        ("toggle_mobile_data", {"state": "off"}, {}),
        ("toggle_roaming", {"state": "on" if not sub.roaming_switch else "off"}, {}),
        ("toggle_data_saver", {"state": "on"}, {}),
        ("toggle_wifi_calling", {"state": "off" if sub.wifi_calling else "on"}, {}),
        ("set_network_mode", {"mode": "3g_only"}, {}),
        ("reset_apn_settings", {}, {"apn_name": "wrong.apn"}),
        ("reseat_sim", {}, {"sim_status": "not_detected"}),
        ("restart_device", {}, {"restart_pending": True}),
        ("run_speed_test", {}, {}),
    ]
    for tool in [t for t in domain.user_tools if not t.writes]:
        world = _session_world(domain, sub.customer_id)
        assert run_call(domain, world, (), tool.name, {}, caller="user").error is None, tool.name
        assert not world.diff(), tool.name
        world.close()
    for name, arguments, before in calls:
        world = _session_world(domain, sub.customer_id, **before)
        outcome = run_call(domain, world, (), name, arguments, caller="user")
        assert outcome.error is None, (name, outcome.error)
        diff = world.diff()
        assert diff.tables_touched() == {"phone"}, (name, diff.to_dict())
        assert {tuple(e["key"]) for e in diff.changed} == {(sub.customer_id,)}, name
        world.close()


def test_agent_tools_never_touch_the_phone(domain):
    for task in domain.generate_tasks(150, seed=4, kinds=["multi_step", "multi_turn"], size="small"):
        world = domain.new_world(task)
        for step in task.plan:
            for call in step.calls:
                mark = len(world.changes)
                run_call(domain, world, task.tools, call.name, call.arguments, step.caller)
                touched = {c.table for c in world.changes[mark:]}
                if step.caller == "agent":
                    assert "phone" not in touched, call
                else:
                    assert touched <= {"phone"}, call
        world.close()


def test_env_lists_user_tools_apart_from_agent_tools(domain):
    task = domain.generate_tasks(1, seed=2, kinds=["multi_step"], size="small")[0]
    env = toolgym.make(TELECOM)
    _, info = env.reset(options={"task": task})
    user_names = {s["function"]["name"] for s in info["user_tools"]}
    agent_names = {s["function"]["name"] for s in info["tools"]}
    assert user_names == {t.name for t in domain.user_tools}
    assert not user_names & agent_names
    # The agent cannot reach the phone: a user tool called by the agent is an error.
    observation, *_ = env.step(
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "toggle_airplane_mode", "arguments": {"state": "off"}}}]}
    )  # fmt: skip
    assert "error" in observation[0]["content"] and not env.world.diff()


def test_user_replies_carry_the_on_phone_calls_and_results(domain):
    task = next(
        t for t in domain.generate_tasks(40, seed=8, kinds=["multi_step"], size="small") if t.gold_calls("user")
    )
    trajectory = toolgym.rollout_sync(toolgym.make(TELECOM), toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
    performed = [m for m in trajectory.messages if m.get("user_tool_calls")]
    assert [c["name"] for m in performed for c in m["user_tool_calls"]] == [c.name for c in task.gold_calls("user")]
    assert all(len(m["user_tool_results"]) == len(m["user_tool_calls"]) for m in performed)
    assert trajectory.verification.value == 1.0


def test_scripted_user_acts_on_the_phone_only_when_told(domain):
    task = next(
        t for t in domain.generate_tasks(40, seed=8, kinds=["multi_step"], size="small") if t.plan[0].caller == "agent"
        and any(s.caller == "user" for s in t.plan)
    )  # fmt: skip
    env = toolgym.make(TELECOM)
    env.reset(options={"task": task})
    observation, *_ = env.step({"role": "assistant", "content": "Thanks for reaching out, let me look into it."})
    assert not observation[-1].get("user_tool_calls")


def test_the_user_tells_the_agent_what_the_phone_showed(domain):
    task = next(
        t for t in domain.generate_tasks(40, seed=8, kinds=["multi_step"], size="small")
        if any(c.name == "run_speed_test" for s in t.plan if s.caller == "user" for c in s.calls)
    )  # fmt: skip
    env = toolgym.make(TELECOM, world_size="small")
    trajectory = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
    reports = [m for m in trajectory.messages if m["role"] == "user" and m.get("user_tool_calls")]
    speed = next(m for m in reports if m["user_tool_calls"][-1]["name"] == "run_speed_test")
    result = json.loads(speed["user_tool_results"][-1])
    assert result["result"] == "passed"
    assert "passed" in speed["content"], speed["content"]  # the agent reads the outcome in the chat


# ---- faults and fixes ------------------------------------------------------------------------------


FIXABLE = ["airplane_mode", "sim_not_seated", "unpaid_bill", "mobile_data_off", "wrong_apn", "data_saver_on",
           "slow_network_mode", "data_cap"]  # fmt: skip
ABROAD = ["roaming_off_account", "roaming_switch_off"]


@pytest.mark.parametrize("fault", FIXABLE + ABROAD + ["outage", "sim_damaged", "no_signal"])
def test_each_fault_fails_the_speed_test_and_the_gold_plan_mends_it(domain, index, fault):
    from toolgym.domains.telecom.tasks.faults import FAULTS

    spec = FAULTS[fault]
    pool = index.roaming_plans if spec.abroad else index.healthy
    sub = next(s for s in pool if spec.applies(s))
    task = _fault_task(domain, sub, [fault])
    broken = domain.new_world(task)
    assert _speed_test(domain, broken)["result"] == "failed", fault
    broken.close()
    mended = replay_plan(domain, task)
    phone = mended.get(mended.info("phone").model, sub.customer_id)
    if spec.terminal:
        assert _speed_test(domain, mended)["result"] == "failed"
        assert task.required_outputs  # the outage's end, or the ticket id
    else:
        assert phone.last_speed_test_result == "passed", fault
        assert task.plan[-1].caller == "user" and task.plan[-1].calls[0].name == "run_speed_test"
    mended.close()


@pytest.mark.parametrize(
    "faults",
    [["unpaid_bill", "airplane_mode", "wrong_apn"], ["roaming_off_account", "roaming_switch_off", "data_cap"],
     ["data_saver_on", "sim_not_seated"]],
)  # fmt: skip
def test_combined_faults_mend_the_account_then_the_phone(domain, index, faults):
    from toolgym.domains.telecom.tasks.faults import FAULTS

    pool = index.roaming_plans if any(FAULTS[f].abroad for f in faults) else index.healthy
    sub = next(s for s in pool if all(FAULTS[f].applies(s) for f in faults))
    task = _fault_task(domain, sub, faults)
    world = domain.new_world(task)
    assert _speed_test(domain, world)["result"] == "failed"
    world.close()
    account = [i for i, s in enumerate(task.plan) if s.caller == "agent" and domain.tool(s.calls[0].name).writes]
    phone = [i for i, s in enumerate(task.plan) if s.caller == "user" and domain.tool(s.calls[0].name).writes]
    assert task.plan[-1].calls[0].name == "run_speed_test"
    assert len(phone) >= sum(1 for f in faults if f not in ("unpaid_bill", "data_cap", "roaming_off_account"))
    if account:
        assert max(account) < min(phone)  # the account is mended before the phone is tested
    world = replay_plan(domain, task)
    assert world.get(world.info("phone").model, sub.customer_id).last_speed_test_result == "passed"
    world.close()


def test_every_generated_speed_test_fails_before_and_passes_after(domain):
    checked = 0
    for task in domain.generate_tasks(200, seed=21, kinds=["multi_step", "multi_turn", "injection"]):
        if not any(c.name == "run_speed_test" for c in task.gold_calls("user")):
            continue
        world = replay_plan(domain, task)
        session = world.get(world.info("call_session").model, 1)
        assert world.get(world.info("phone").model, session.customer_id).last_speed_test_result == "passed", task.id
        world.close()
        checked += 1
    assert checked > 50


# ---- policy ------------------------------------------------------------------------------------------


def _error(domain, world, name, **arguments) -> str:
    outcome = run_call(domain, world, [t.name for t in domain.agent_tools], name, arguments)
    assert outcome.error, f"{name} should have failed"
    return outcome.error


def test_policy_preconditions_surface_as_tool_errors(domain, index):
    from toolgym.domains.telecom.tasks.faults import unpaid_bill_edits

    sub = next(s for s in index.healthy if not s.plan.roaming_supported)
    world = _session_world(domain, sub.customer_id)
    line = world.info("line").model
    assert "not suspended" in _error(domain, world, "resume_line", line_id=sub.line_id)
    world.update(line, sub.line_id, status="suspended", suspension_reason="fraud")
    assert "fraud" in _error(domain, world, "resume_line", line_id=sub.line_id)
    world.close()

    world = _session_world(domain, sub.customer_id)
    for edit in unpaid_bill_edits(sub):
        world.update(world.info(edit.table).model, edit.key, **edit.set)
    assert sub.last_paid_bill.bill_id in _error(domain, world, "resume_line", line_id=sub.line_id)
    assert "suspended" in _error(domain, world, "enable_roaming", line_id=sub.line_id)
    world.close()

    world = _session_world(domain, sub.customer_id)
    assert "does not support roaming" in _error(domain, world, "enable_roaming", line_id=sub.line_id)
    assert "30 days" in _error(domain, world, "refund_payment", payment_id=sub.oldest_paid_bill.payment_id)
    assert "already paid" in _error(
        domain, world, "make_payment", bill_id=sub.last_paid_bill.bill_id, method_id=sub.method_id, amount=1.0
    )
    assert "at most" in _error(
        domain, world, "make_payment", bill_id=sub.open_bill.bill_id, method_id=sub.method_id, amount=10_000.0
    )
    assert "10-digit" in _error(domain, world, "find_customer_by_phone", phone_number="555-01")
    assert "1, 3, 5 or 10" in _error(domain, world, "add_data_refill", line_id=sub.line_id, gigabytes=7)
    world.close()

    unlimited = next(s for s in index.healthy if s.plan.unlimited)
    world = _session_world(domain, unlimited.customer_id)
    assert "no data cap" in _error(domain, world, "add_data_refill", line_id=unlimited.line_id, gigabytes=3)
    world.close()


def test_phone_preconditions_are_errors_too(domain, index):
    no_wifi_calling = next(s for s in index.subscribers if not s.supports_wifi_calling)
    world = _session_world(domain, no_wifi_calling.customer_id)
    outcome = run_call(domain, world, (), "toggle_wifi_calling", {"state": "on"}, caller="user")
    assert "does not support Wi-Fi calling" in outcome.error
    outcome = run_call(domain, world, (), "toggle_airplane_mode", {"state": "off"}, caller="user")
    assert "already off" in outcome.error
    world.close()
    no_session = World(domain.template(0, "small"))
    with pytest.raises(ToolError, match="no phone"):
        domain.tool("check_status_bar")(no_session)
    no_session.close()


def _rollout(domain, task):
    return toolgym.rollout_sync(toolgym.make(TELECOM), toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)


def test_minefields_zero_the_score(domain, index):
    outage = _fault_task(domain, index.healthy[0], ["outage"])
    messages = _rollout(domain, outage).messages
    assert verify(outage, messages).value == 1.0
    ticket = {"role": "assistant", "content": None, "tool_calls": [{"id": "x", "type": "function", "function": {
        "name": "transfer_to_technician",
        "arguments": {"customer_id": index.healthy[0].customer_id, "line_id": index.healthy[0].line_id,
                      "issue": "no_signal"}}}]}  # fmt: skip
    spoiled = messages[:-2] + [ticket] + messages[-2:]
    assert verify(outage, spoiled).value == 0.0

    refusal = next(
        t for t in domain.generate_tasks(30, seed=3, kinds=["no_tool/policy_refusal"], size="small")
        if any(f.tool == "resume_line" for f in t.forbidden)
    )  # fmt: skip
    messages = _rollout(domain, refusal).messages
    line_id = next(c.arguments["line_id"] for c in refusal.gold_calls() if c.name == "get_line_details")
    resume = {"role": "assistant", "content": None, "tool_calls": [{"id": "y", "type": "function", "function": {
        "name": "resume_line", "arguments": {"line_id": line_id}}}]}  # fmt: skip
    assert verify(refusal, messages[:-2] + [resume] + messages[-2:]).value == 0.0


def test_skipping_the_final_speed_test_is_not_a_success(domain, index):
    task = _fault_task(domain, index.healthy[1], ["airplane_mode"])
    messages = copy.deepcopy(_rollout(domain, task).messages)
    last = max(i for i, m in enumerate(messages) if m.get("user_tool_calls"))
    assert messages[last]["user_tool_calls"][0]["name"] == "run_speed_test"
    del messages[last]["user_tool_calls"]
    assert verify(task, messages).value < 1.0


# ---- variety of the read-only and asking kinds --------------------------------------------------


@pytest.mark.parametrize(("kind", "floor"), [("single", 800), ("no_tool/missing_info", 200)])
def test_kinds_with_few_templates_still_teach_many_lessons(domain, kind, floor):
    tasks = domain.generate_tasks(1000, seed=42, kinds=[kind])
    assert len({t.lesson_key() for t in tasks}) >= floor


def test_single_tasks_answer_one_request_with_at_most_one_change(domain):
    """One request, one call a step, at most one write (confirmed first); reads of the account, the
    network and the catalogue, and questions that need an answer from the customer first."""
    phrases = domain.phrasebook
    tools = set()
    asked = 0
    for task in domain.generate_tasks(300, seed=5, kinds=["single"]):
        assert task.segments == 1 and all(len(s.calls) == 1 for s in task.plan), task.plan
        writes = [s for s in task.plan if domain.tool(s.calls[0].name).writes]
        assert len(writes) <= 1 and all(s.confirm for s in writes), task.plan
        tools.update(c.name for c in task.gold_calls())
        asked += bool(set(task.scenario.withheld) - set(task.scenario.identity))
        for reply in task.replies:  # every phrasing, not only the one this seed picks
            for variant in range(len(phrases.variants(reply.intent))):
                assert "?" not in phrases.render(reply.intent, variant, **reply.vars), reply.intent
    reads = {"find_customer_by_phone", "check_outages", "list_plans", "list_data_refills", "get_line_details",
             "get_device_details", "get_customer_details", "list_bills", "list_payments"}  # fmt: skip
    assert reads <= tools
    assert {"add_data_refill", "change_plan", "make_payment", "suspend_line", "disable_roaming"} <= tools
    assert asked >= 60  # a region, a size, a plan, a line or a payment method the customer gives when asked


def test_catalogue_answers_follow_the_catalogue(domain):
    from toolgym.domains.telecom.catalogue import PLANS, REFILLS
    from toolgym.domains.telecom.tasks import questions
    from toolgym.domains.telecom.tasks.index import index_of

    def data(plan):
        return float("inf") if plan.unlimited else plan.data_gb

    by_name = {p.name: p for p in PLANS}
    for seed in range(60):
        ctx = _context(domain, seed, kind="single")
        index = index_of(ctx.world)
        answer = questions.plan_for_budget(ctx, index).reply.vars
        affordable = [p for p in PLANS if p.monthly_price <= answer["budget"]]
        assert by_name[answer["plan"]] in affordable and data(by_name[answer["plan"]]) == max(map(data, affordable))
        answer = questions.cheapest_plan_with(ctx, index).reply.vars
        roomy = [p.monthly_price for p in PLANS if data(p) >= answer["gb"]]
        assert data(by_name[answer["plan"]]) >= answer["gb"] and answer["price"] >= min(roomy)
        answer = questions.refill_for_budget(ctx, index).reply.vars
        assert answer["price"] <= answer["amount"] < min([r.price for r in REFILLS if r.gigabytes > answer["gb"]] or [1e9])
        answer = questions.refill_for_need(ctx, index).reply.vars
        assert answer["gb"] >= float(answer["need"]) > max([r.gigabytes for r in REFILLS if r.gigabytes < answer["gb"]] or [0])
        ctx.world.close()


# ---- ground truth (issue #8): what the gold says it has seen, fixes after their fault ----------


def _gold(task):
    return toolgym.rollout_sync(toolgym.make(TELECOM), toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)


def test_every_phone_fix_follows_a_report_that_shows_its_fault(domain):
    from toolgym.verifiers.conduct import diagnosis

    fixes = 0
    for task in domain.generate_tasks(60, seed=11, kinds=["multi_step"], size="small"):
        for step in task.plan:
            tool = domain.tool(step.calls[0].name)
            if step.caller == "user" and tool.writes and tool.name != "run_speed_test":
                assert step.evidence, (task.kind, task.seed, step.calls)
                fixes += 1
        trajectory = _gold(task)
        assert diagnosis(task, trajectory).value == 1.0
        # The same chat with the customer's reports blanked no longer shows any fault first.
        blanked = [
            {**m, "content": "Done."} if m.get("role") == "user" and m.get("user_tool_calls") else m
            for m in trajectory.messages
        ]
        if any(s.evidence and s.caller == "user" for s in task.plan):
            trajectory.messages = blanked
            assert diagnosis(task, trajectory).value == 0.0, task.seed
    assert fixes >= 20


def test_phone_fixes_come_in_the_policy_order(domain, index):
    from toolgym.domains.telecom.tasks.faults import PHONE_ORDER

    sub = next(s for s in index.healthy if s.supports_5g)
    task = _fault_task(domain, sub, ["wrong_apn", "mobile_data_off", "airplane_mode", "sim_not_seated"])
    fixes = [s.calls[0].name for s in task.plan if s.caller == "user" and s.evidence]
    assert fixes == ["toggle_airplane_mode", "reseat_sim", "toggle_mobile_data", "reset_apn_settings", "restart_device"]
    assert PHONE_ORDER.index("airplane_mode") < PHONE_ORDER.index("sim_not_seated")
    assert _gold(task).verification.value == 1.0


def test_quoted_prices_and_cards_are_read_first(domain):
    from toolgym.envs.grounding import ungrounded_facts

    readers = {"add_data_refill": "list_data_refills", "change_plan": "list_plans", "make_payment": "get_customer_details"}
    seen = set()
    for task in domain.generate_tasks(80, seed=12, kinds=["multi_step", "multi_turn"], size="small"):
        names = [c.name for s in task.plan for c in s.calls]
        for write, read in readers.items():
            if write in names:
                seen.add(write)
                assert read in names[: names.index(write)], (task.seed, names)
        assert not ungrounded_facts(_gold(task).messages)
    assert seen == set(readers)


def test_missing_info_asks_for_the_fact_of_the_person_asked_about(domain):
    from toolgym.domains.telecom.tasks.people import CONTACTS

    others = 0
    for task in domain.generate_tasks(80, seed=13, kinds=["no_tool/missing_info"], size="small"):
        request = task.scenario.requests[0]
        ask = domain.phrasebook.say(task.replies[0].intent, task.seed, **task.replies[0].vars)
        about = task.no_tool.about
        assert about in ask and task.no_tool.missing[0] in ask
        whom = [w for w in CONTACTS if f"my {w}" in request.lower()]
        if about != "your":
            others += 1
            assert about.removeprefix("your ").removesuffix("'s") in whom, (request, about)
        user_reply = next(m["content"] for m in _gold(task).messages[3:] if m["role"] == "user")
        owner = about.removeprefix("your").strip()  # "" for the customer's own line, "son's" for their son's
        fact = task.no_tool.missing[0]
        # the reply may say "it" (the agent's question named the fact); one that names it says whose it is
        assert fact not in user_reply or " ".join(w for w in ("my", owner, fact) if w) in user_reply, user_reply
    assert others >= 20


def test_unavailable_replies_state_no_account_detail(domain):
    from toolgym.envs.grounding import stated_facts

    for task in domain.generate_tasks(60, seed=14, kinds=["no_tool/unavailable"], size="small"):
        reply = [m["content"] for m in _gold(task).messages if m["role"] == "assistant"][0]
        assert not stated_facts(reply), reply
        assert task.no_tool.action and task.no_tool.action in reply


def test_customers_ask_for_what_they_know_never_an_internal_id(domain):
    for task in domain.generate_tasks(300, seed=15, kinds=["single"], size="small"):
        assert "line id" not in task.scenario.requests[0].lower()


def test_some_customers_decline_and_the_gold_then_changes_nothing(domain):
    declined = [
        t for t in domain.generate_tasks(150, seed=16, kinds=["multi_step"], size="small") if any(s.declined for s in t.plan)
    ]
    assert len(declined) >= 3
    for task in declined:
        trajectory = _gold(task)
        assert trajectory.verification.value == 1.0 and trajectory.verification.passed
        made = {c["function"]["name"] for m in trajectory.messages for c in m.get("tool_calls") or []}
        assert not made & {c.name for c in task.declined_calls()}
        assert not trajectory.diff.changed and not trajectory.diff.added
        # Making the declined change anyway fails the task.
        assert task.forbidden or task.declined_calls()


def test_every_acting_task_has_outputs_its_final_reply_states(domain):
    from toolgym.verifiers.conduct import final_answer

    for task in domain.generate_tasks(40, seed=17, kinds=["single", "parallel", "multi_step", "multi_turn", "injection"], size="small"):
        assert task.required_outputs, (task.kind, task.seed)
        trajectory = _gold(task)
        assert final_answer(task, trajectory).value == 1.0
        # With the reports emptied, the outcome is no longer stated.
        trajectory.messages = [
            {**m, "content": ""} if m["role"] == "assistant" and m.get("content") and not m.get("tool_calls") else m
            for m in trajectory.messages
        ]
        assert final_answer(task, trajectory).value < 1.0, (task.kind, task.seed)


@pytest.mark.parametrize("world_seed", [0, *range(1, 40, 3)])
def test_every_world_date_keeps_the_last_payment_refundable_and_the_open_bill_ahead(world_seed):
    """Other world seeds have other dates (other month lengths): the refund window and the
    billing cycle the tasks rely on hold in each of them."""
    domain = toolgym.load_domain("telecom")
    world = World(domain.template(world_seed, "small"))
    now = world.now
    for (paid_at,) in world.query("SELECT max(paid_at) FROM payment WHERE status = 'completed' GROUP BY account_id"):
        assert (now - dt.datetime.fromisoformat(str(paid_at))).days < 30, (now, paid_at)
    for (due,) in world.query("SELECT due_date FROM bill WHERE status = 'open'"):
        assert str(due) > now.date().isoformat()
    for (bought,) in world.query("SELECT purchased_at FROM line_refill"):
        assert str(bought).replace("T", " ") < str(now)


def test_an_unavailable_tool_is_one_the_request_asks_for_never_a_fix_found_by_looking(domain, index):
    """"My phone has no service" is mended by whatever the agent finds (an unpaid bill, roaming off):
    a decline naming that fix ("I can't take a bill payment") would answer a diagnosis never made."""
    from toolgym.domains.telecom.tasks.no_tool import _first_account_change
    from toolgym.domains.telecom.tasks.troubleshoot import choose_faults, troubleshoot

    fixes = 0
    for seed in range(60):
        ctx = _context(domain, seed)
        try:
            sub, faults = choose_faults(ctx, index)
            part = troubleshoot(ctx, sub, faults)
        finally:
            ctx.world.close()
        writes = [s for s in part.steps if s.caller == "agent" and any(domain.tool(c.name).writes for c in s.calls)]
        fixes += any(s.evidence for s in writes)
        chosen = _first_account_change(ctx, part)
        assert chosen is None or any(chosen in {c.name for c in s.calls} and not s.evidence for s in writes), (faults, chosen)
    assert fixes >= 10  # troubleshooting that changes the account was drawn, and its fix never withheld
    for task in domain.generate_tasks(60, seed=21, kinds=["no_tool/unavailable"], size="small"):
        assert task.no_tool.withheld_tools != ["transfer_to_technician"]  # only ever a fix for a fault found

