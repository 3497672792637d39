"""A yes counts only for what the user was told: a confirm step's `disclose` values (a consequence
the policy asks the agent to warn of) must be in the question the user said yes to."""

from __future__ import annotations

import json

import pytest

from tests.conftest import played_with_reasoning
from toolgym.domains.telecom.catalogue import PLAN_BY_ID
from toolgym.envs import load_domain
from toolgym.envs.gold import gold_messages
from toolgym.verifiers import verify


@pytest.fixture(scope="module")
def plan_changes():
    """Telecom tasks that change a plan, with and without data the new plan cannot hold."""
    telecom = load_domain("telecom")
    tasks = telecom.generate_tasks(160, seed=5, kinds=["multi_step", "multi_turn"], world_seed=0, size="default")
    changes = [(t, s) for t in tasks for s in t.plan if any(c.name == "change_plan" for c in s.calls) and not s.declined]
    return telecom, changes


def test_a_plan_with_less_data_than_the_line_used_is_confirmed_with_a_warning(plan_changes):
    """'I'll change line 512-891-7468 to Basic 5 ($25.00 a month). Shall I go ahead?' with 13.17 GB
    used this cycle: the yes cut the customer's mobile data off without a word of it."""
    telecom, changes = plan_changes
    warned = [(t, s) for t, s in changes if s.disclose]
    assert warned and len(warned) < len(changes), "both kinds of plan change should be among these tasks"
    for task, step in changes:
        line = next(c.arguments["line_id"] for c in step.calls)
        plan = next(c.arguments["plan_id"] for c in step.calls)
        messages, verification = gold_messages(telecom, task)
        assert verification.passed, verification.details
        details = next(m["content"] for m in messages if m["role"] == "tool" and f'"line_id":"{line}"' in m["content"]
                       and "data_used_gb" in m["content"])  # fmt: skip
        shown, new = json.loads(details), PLAN_BY_ID[plan]
        cut_off = not new.unlimited and shown["data_used_gb"] >= new.data_gb + shown["refill_gb"]
        assert step.confirm is not None and bool(step.disclose) == cut_off, (shown, plan, step.disclose)
        if step.disclose:
            (used,) = step.disclose
            assert used in step.confirm and "refill" in step.confirm, step.confirm
            assert used == f"{shown['data_used_gb']:g} GB"  # the usage the line's details showed
        else:
            assert "already used" not in step.confirm and "used this cycle" not in step.confirm, (plan, step.confirm)


def test_a_yes_to_a_question_without_the_warning_is_no_consent(plan_changes):
    telecom, changes = plan_changes
    task, step = next((t, s) for t, s in changes if s.disclose)
    messages, verification = gold_messages(telecom, task)
    assert verification.passed
    made = next(i for i, m in enumerate(messages) if any(c["function"]["name"] == "change_plan" for c in m.get("tool_calls") or []))
    # the question the user said yes to: the last before the call (an earlier one may have been turned down)
    asked = max(i for i, m in enumerate(messages[:made]) if m["role"] == "assistant" and step.disclose[0] in (m.get("content") or ""))
    number = next(c.arguments["line_id"] for c in step.calls)
    plain = {**messages[asked], "content": f"I'll change the plan of line {number} as you asked. Shall I go ahead?"}
    silent = [*messages[:asked], plain, *messages[asked + 1 :]]
    result = verify(task, silent)
    assert not result.passed
    assert any("did not state" in p for p in result.details["consent"]["problems"]), result.details["consent"]


def test_the_trace_of_a_warning_question_says_why_it_warns(plan_changes):
    telecom, changes = plan_changes
    warned = [t for t, s in changes if s.disclose][:3]
    for task, trajectory in played_with_reasoning(telecom, warned):
        (used,) = next(s.disclose for s in task.plan if s.disclose)
        asked = next(m for m in trajectory.messages if m["role"] == "assistant" and used in (m.get("content") or ""))
        assert used in (asked.get("reasoning_content") or ""), asked


def test_a_question_names_a_time_argument_in_words():
    """"Shall I move the Data 1:1 to Thursday, March 13 at 09:00?" names reschedule_event(start=
    "2025-03-13 09:00"): a day and a time said as people say them. Another day or time does not."""
    from toolgym.envs.task import Step, ToolCall
    from toolgym.verifiers.conduct import _names_action

    step = Step(calls=[ToolCall(name="reschedule_event", arguments={"event_id": "EV1", "start": "2025-03-13 09:00"})])
    assert _names_action("Shall I move the Data 1:1 to Thursday, March 13 at 09:00?", step)
    assert _names_action("Shall I move it to 2025-03-13 09:00?", step)
    assert not _names_action("Shall I move the Data 1:1 to Friday, March 14 at 09:00?", step)
    assert not _names_action("Shall I move the Data 1:1 to Thursday, March 13 at 10:00?", step)
