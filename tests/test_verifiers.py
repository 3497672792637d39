import copy

import pytest

import toolgym
from toolgym.envs.diff import Diff
from toolgym.envs.task import Forbidden
from toolgym.envs.trajectory import Trajectory
from toolgym.verifiers import CHECKS, Composite, verify
from toolgym.verifiers.matching import in_order_matches, match_calls


def _gold(toy_domain, kind):
    task = toy_domain.generate_tasks(1, seed=2, kinds=[kind], size="small")[0]
    env = toolgym.make("toy", world_size="small")
    trajectory = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
    return task, trajectory


def test_partial_credit_for_names_parameters_and_values():
    gold = [("cancel", {"order_id": "1", "reason": "x"})]
    assert match_calls(gold, gold)[0] == 1.0
    wrong_value = match_calls(gold, [("cancel", {"order_id": "1", "reason": "y"})])
    assert wrong_value[0] == pytest.approx((1 + 1 + 0.5) / 3)
    missing_param = match_calls(gold, [("cancel", {"order_id": "1"})])
    assert missing_param[1]["param_names"] == 0.5
    assert match_calls(gold, [("refund", {"order_id": "1", "reason": "x"})])[0] == 0.0
    assert match_calls(gold, [])[0] == 0.0
    assert match_calls([], [])[0] == 1.0


def test_parallel_calls_match_in_any_order_and_extras_cost():
    gold = [("get", {"id": 1}), ("get", {"id": 2})]
    assert match_calls(gold, [("get", {"id": 2}), ("get", {"id": 1.0})])[0] == 1.0
    assert match_calls(gold, [("get", {"id": 2}), ("get", {"id": 1}), ("get", {"id": 3})])[0] == pytest.approx(2 / 3)


def test_in_order_matches():
    assert in_order_matches(list("abc"), list("axbyc")) == 3
    assert in_order_matches(list("abc"), list("cba")) == 1


def test_oracle_trajectory_passes_every_check(toy_domain):
    task, trajectory = _gold(toy_domain, "single")
    for name, check in CHECKS.items():
        assert check(task, trajectory).passed, name
    assert verify(task, trajectory.messages).value == 1.0


def test_empty_missing_write_and_wrong_value_score_below_one(toy_domain):
    task, trajectory = _gold(toy_domain, "single")
    messages = trajectory.messages
    assert verify(task, messages[:2]).value < 1.0
    write_index = next(i for i, m in enumerate(messages) if m.get("tool_calls") and m["tool_calls"][0]["function"]["name"] == "close_account")
    missing = copy.deepcopy(messages)
    del missing[write_index]
    score = verify(task, missing)
    assert score.value < 1.0 and not score.passed and score.components["end_state"] == 0.0
    wrong = copy.deepcopy(messages)
    wrong[write_index]["tool_calls"][0]["function"]["arguments"]["reason"] = "other"
    assert verify(task, wrong).value < 1.0


def test_minefield_zeroes_the_score(toy_domain):
    task, trajectory = _gold(toy_domain, "single")
    trapped = task.model_copy(update={"forbidden": [Forbidden(reason="no closing", tool="close_account")]})
    score = verify(trapped, trajectory.messages)
    assert score.value == 0.0 and not score.passed
    assert score.details["minefield"]["violated"] == ["no closing"]
    by_row = task.model_copy(update={"forbidden": [Forbidden(reason="keep it", table="account")]})
    assert verify(by_row, trajectory.messages).value == 0.0


def test_required_outputs_are_checked_in_text(toy_domain):
    task, trajectory = _gold(toy_domain, "single")
    silent = [m if m.get("role") != "assistant" or m.get("tool_calls") else {**m, "content": "Done."} for m in trajectory.messages]
    score = verify(task, silent)
    assert score.components["required_outputs"] == 0.0 and not score.passed


def test_no_tool_behaviour(toy_domain):
    task, trajectory = _gold(toy_domain, "no_tool/missing_info")
    assert verify(task, trajectory.messages).passed
    acted = trajectory.messages[:2] + [
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "close_account", "arguments": {"account_id": "A001", "reason": "moving"}}}]},
        {"role": "assistant", "content": "Closed it."},
    ]
    score = verify(task, acted)
    assert not score.passed and score.value < 1.0
    irrelevant, traj = _gold(toy_domain, "no_tool/irrelevant")
    called = traj.messages[:2] + [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "find_account", "arguments": {"email": "a"}}}]}]
    assert not verify(irrelevant, called).passed


def test_format_problems_fail_format(toy_domain):
    task, trajectory = _gold(toy_domain, "single")
    bad = Trajectory(task, trajectory.messages, trajectory.state_hash, trajectory.diff, format_problems=[["broken"], []])
    assert CHECKS["format"](task, bad).value == 0.5


def test_composite_validates_names_and_weights():
    with pytest.raises(KeyError, match="did you mean 'end_state'"):
        Composite(weights={"end_sate": 1.0})
    with pytest.raises(ValueError):
        Composite(weights={"end_state": -1.0})


def test_end_state_reports_the_diff(toy_domain):
    task, trajectory = _gold(toy_domain, "single")
    other = Trajectory(task, trajectory.messages, "0" * 32, Diff([], [], []))
    result = CHECKS["end_state"](task, other)
    assert not result.passed and "diff" in result.details


def test_a_number_with_thousands_separators_is_one_fact_grounded_by_the_same_number():
    """"114,555 visitors" after a calculate result of 114555 was read as the identifiers "114" and
    "555", which nothing showed; a count said so is the number, and a different one is still caught."""
    from toolgym.envs.grounding import extract_facts, ungrounded_facts

    assert [(f.kind, f.value) for f in extract_facts("Together that makes 114,555 visitors.")] == [("quantity", "114555")]
    assert [(f.kind, f.value) for f in extract_facts("That is 1,879 days apart.")] == [("quantity", "1879")]
    assert [(f.kind, f.value) for f in extract_facts("your balance of 84,500, insured")] == [("quantity", "84500")]
    chat = [
        {"role": "user", "content": "How many came to both?"},
        {"role": "tool", "content": '{"expression": "62,462 + 52,093", "result": 114555}'},
        {"role": "assistant", "content": "Together that makes 114,555 visitors."},
    ]
    assert ungrounded_facts(chat) == []
    chat[-1] = {"role": "assistant", "content": "Together that makes 114,556 visitors."}
    assert [u.fact for u in ungrounded_facts(chat)] == ["114,556"]


def test_a_time_after_a_date_is_checked_on_its_own():
    """"the Design retro at 2025-03-20 13:00" was read as the date alone: a time nobody showed passed."""
    from toolgym.envs.grounding import extract_facts, ungrounded_facts

    assert [(f.kind, f.value) for f in extract_facts("the retro at 2025-03-20 13:00")] == [("date", "2025-03-20"), ("time", "13:00")]
    asked = {"role": "user", "content": "Please cancel the Design retro on 2025-03-20."}
    said = {"role": "assistant", "content": "I've cancelled the Design retro at 2025-03-20 13:00."}
    assert [u.fact for u in ungrounded_facts([asked, said])] == ["13:00"]
    shown = {"role": "tool", "content": '{"event_id": "EV00046", "start": "2025-03-20 13:00", "status": "cancelled"}'}
    assert ungrounded_facts([asked, shown, said]) == []


def test_an_output_without_its_year_is_stated_by_its_day_and_a_dated_one_only_with_its_year():
    """"It's due Thursday, March 27." states the output "March 27" (the task says the year goes
    without saying), as "2025-03-27" does; a dated output "2018-08-03" is not stated by "opened on
    August 3", whose year was the answer. "March 27 or March 28" names no day."""
    from toolgym.verifiers.hedges import hedged
    from toolgym.verifiers.matching import output_stated

    assert output_stated("March 27", "It's due Thursday, March 27.") and output_stated("March 27", "due 2025-03-27")
    assert not output_stated("March 27", "It's due March 28.")
    assert not output_stated("2018-08-03", "The account was opened on August 3.")
    assert output_stated("2018-08-03", "The account was opened on August 3, 2018.")
    assert hedged("March 27", "It's due March 27 or March 28.")
    assert not hedged("March 27", "It's due March 27; send it by email or post.")


def test_a_month_of_a_year_is_one_fact_in_any_format():
    """"Can I get my statement for March 2025?" then request_statement(month="2025-03"): the month
    in words was the year "2025" alone, so the argument went unseen and a reply saying "your March
    2025 statement" did not state the output "2025-03"."""
    from toolgym.envs.grounding import extract_facts, ungrounded_facts
    from toolgym.verifiers.hedges import hedged
    from toolgym.verifiers.matching import output_stated

    def facts(text):
        return [(f.kind, f.value) for f in extract_facts(text)]

    assert facts("your March 2025 statement") == facts("the 2025-03 statement") == facts("Mar. 2025") == [("month", "2025-03")]
    assert facts("on March 5, 2025") == [("date", "2025-03-05")]  # a day stays a date
    assert facts("flight SW205-20260315, 2025-13") == [("identifier", "sw205-20260315"), ("identifier", "2025-13")]
    asked = {"role": "user", "content": "Can I get my statement for March 2025?"}
    assert ungrounded_facts([asked, {"role": "assistant", "content": "The 2025-03 statement is on its way."}]) == []
    assert [u.fact for u in ungrounded_facts([asked, {"role": "assistant", "content": "The April 2025 statement is on its way."}])] == ["April 2025"]
    shown = {"role": "tool", "content": '{"request_id": "R500001", "month": "2025-03"}'}
    assert ungrounded_facts([shown, {"role": "assistant", "content": "Your March 2025 statement is on its way."}]) == []
    assert output_stated("2025-03", "Your March 2025 statement is on its way by post.")
    assert not output_stated("2025-03", "Your April 2025 statement is on its way by post.")
    assert hedged("2025-03", "Your March 2025 or April 2025 statement is on its way.")
    assert not hedged("2025-03", "Your March 2025 statement is on its way, by email or post.")
