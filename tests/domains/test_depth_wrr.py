"""Judgement structures of workplace, research and retail: each gold passes, and the spoil that skips
the judgement scores below 1.0 (a guess among candidates, a value the user never gave, an id asked
for that a lookup finds). A few tasks a structure: the first of each in a short draw."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

import toolgym
from toolgym.envs.conversation import said_before
from toolgym.envs.gold import gold_messages
from toolgym.envs.task import Task
from toolgym.verifiers import verify
from toolgym.verifiers.choice_spoils import asked_for_lookup, guessed_choice

from ..spoil_checks import gold_passes_and_spoil_fails

DRAW = 60


def _first(name: str, kind: str, has: Callable[[Task], bool], seed: int = 7) -> Task:
    for task in toolgym.load_domain(name).iter_tasks(DRAW, seed=seed, kinds=[kind]):
        if has(task):
            return task
    raise AssertionError(f"{name} {kind}: none of {DRAW} tasks has the structure")


def _asked(task: Task) -> set[str]:
    """The withheld facts other than identity and choices: values only the user can give."""
    return {k for k in task.scenario.withheld if k not in task.scenario.identity and not k.startswith("which_")}


GUESS = "something the agent made up"


def _without_answer(task: Task, messages: list[dict]) -> list[dict] | None:
    """The gold chat with the question for an asked value and the user's answer taken out: the agent
    goes on with a guess (a free text or a date it made up), or with an option the user never named."""
    for key in sorted(_asked(task), key=lambda k: not k.startswith(("cancel", "calc"))):
        fact = task.scenario.fact(key)
        at = next((i for i, m in enumerate(messages) if m.get("role") == "user" and fact and said_before(fact.value, m.get("content") or "")), None)
        if fact is None or not at or messages[at - 1].get("role") != "assistant" or messages[at - 1].get("tool_calls"):
            continue
        spoiled = [copy.deepcopy(m) for i, m in enumerate(messages) if i not in (at - 1, at)]
        said = fact.value.strip('"')  # words to send are given in quotes
        for message in spoiled[at - 1 :]:
            if message.get("role") == "assistant" and message.get("content"):
                message["content"] = message["content"].replace(said, GUESS)
            for call in message.get("tool_calls") or ():
                arguments = call["function"]["arguments"]
                for name, value in arguments.items():
                    if isinstance(value, str) and said in value:
                        arguments[name] = value.replace(said, GUESS)
        return spoiled
    return None


@pytest.mark.parametrize(
    ("name", "kind", "key"),
    [("workplace", "single", ""), ("workplace", "parallel", ""), ("workplace", "multi_step", ""), ("research", "single", ""),
     ("research", "parallel", ""), ("retail", "multi_step", "cancel_reason"), ("retail", "single", "calc_")],
)  # fmt: skip
def test_a_value_only_the_user_knows_is_asked_for_and_going_on_without_it_fails(name, kind, key):
    task = _first(name, kind, lambda t: any(k.startswith(key) for k in _asked(t)))
    gold_passes_and_spoil_fails(name, task, _without_answer, fails=False)
    fact = task.scenario.fact(sorted(_asked(task))[0])
    assert fact is not None and fact.value not in task.scenario.requests[0]  # the request leaves it out


@pytest.mark.parametrize(("name", "kind"), [("workplace", "multi_step"), ("research", "single"), ("research", "multi_turn")])
def test_choices_name_every_candidate_and_a_guess_fails(name, kind):
    task = _first(name, kind, lambda t: any(s.choice for s in t.plan))
    messages = gold_passes_and_spoil_fails(name, task, guessed_choice)
    choice = next(s.choice for s in task.plan if s.choice)
    question = next(m["content"] for m in messages if m.get("role") == "assistant" and m.get("content") and "?" in m["content"])
    assert all(option in question for option in choice.options)


def test_research_corrections_follow_the_candidate_meant_after_the_pick():
    task = _first("research", "multi_turn", lambda t: bool(t.scenario.revisions))
    assert task.scenario.revisions[0].kind == "correct" and task.scenario.revisions[0].segment == 1
    messages, verification = gold_messages(toolgym.load_domain("research"), task)
    assert verification.value == 1.0
    opened = [c["function"]["arguments"]["url"] for m in messages for c in m.get("tool_calls") or () if c["function"]["name"] == "open_page"]
    assert len(set(opened)) >= 2  # the picked candidate's page, then the one meant
    # answering the first question again (the old candidate's fact) does not pass
    last = max(i for i, m in enumerate(messages) if m.get("role") == "assistant")
    spoiled = copy.deepcopy(messages)
    first_answer = next(m["content"] for m in messages if m.get("role") == "assistant" and m.get("content") and "http" in m["content"])
    spoiled[last]["content"] = first_answer
    assert verify(task, spoiled).value < 1.0


def test_research_multi_hop_pages_are_found_by_links_and_asking_for_a_url_fails():
    task = _first("research", "multi_step", lambda t: bool(t.scenario.lookups))
    gold_passes_and_spoil_fails("research", task, asked_for_lookup)


def test_research_injected_order_sits_in_the_first_part_of_an_opened_page():
    from toolgym.domains.research.web import parts

    task = _first("research", "injection", lambda t: True)
    edit = next(e for e in task.setup if e.table == "page")
    order_url = task.forbidden[0].arguments["url"]
    assert order_url in parts(edit.set["body"])[0]
    gold_passes_and_spoil_fails("research", task, _opens_bait)


def _opens_bait(task: Task, messages: list[dict]) -> list[dict]:
    url = task.forbidden[0].arguments["url"]
    final = max(i for i, m in enumerate(messages) if m.get("role") == "assistant")
    call = {"id": "bait", "type": "function", "function": {"name": "open_page", "arguments": {"url": url}}}
    extra = [{"role": "assistant", "content": None, "tool_calls": [call]}, {"role": "tool", "tool_call_id": "bait", "content": "{}"}]
    return [*copy.deepcopy(messages[:final]), *extra, *copy.deepcopy(messages[final:])]


def test_workplace_parallel_glances_read_two_apps_in_one_step():
    task = _first("workplace", "parallel", lambda t: len(t.plan) == 1 and len({c.name for c in t.plan[0].calls}) == 2)
    assert not any(toolgym.load_domain("workplace").tool(c.name).writes for c in task.plan[0].calls)
    messages, verification = gold_messages(toolgym.load_domain("workplace"), task)
    assert verification.value == 1.0
    assert sum(1 for m in messages if m.get("tool_calls")) == 1  # both reads made together


def test_retail_new_option_is_asked_after_the_options_are_read():
    task = _first("retail", "multi_step", lambda t: "which_option" in t.scenario.withheld, seed=2)
    asked_at = next(i for i, s in enumerate(task.plan) if "which_option" in s.needs)
    assert any(c.name == "get_product_details" for s in task.plan[:asked_at] for c in s.calls)
    gold_passes_and_spoil_fails("retail", task, guessed_choice)
