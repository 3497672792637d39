"""The optional LLM judge, against the project's reference server on 127.0.0.1."""

from __future__ import annotations

import re

from toolgym.envs.diff import Diff
from toolgym.envs.task import NoToolSpec, Scenario, Task, Utterance
from toolgym.envs.trajectory import Trajectory
from toolgym.generators.serve_policy import start
from toolgym.verifiers import CHECKS
from toolgym.verifiers.judge import LLMJudge, register_judge
from toolgym.verifiers.replies import covers


def _refusal_task() -> Task:
    return Task(
        domain="retail", domain_version=0, world_seed=0, world_size="small", kind="no_tool/policy_refusal", seed=1,
        scenario=Scenario(persona="p", goal="g", requests=["Cancel my delivered order #W1000001."]), tools=[],
        replies=[Utterance(intent="refuse_policy", vars={"rule": "delivered orders cannot be cancelled"})],
        no_tool=NoToolSpec(reason="policy"),
    )  # fmt: skip


def _reply(task: Task, text: str) -> Trajectory:
    messages = [{"role": "user", "content": task.scenario.requests[0]}, {"role": "assistant", "content": text}]
    return Trajectory(task=task, messages=messages, state_hash="", diff=Diff([], [], []), terminated=True)


def keyword_judge(request, headers=None):
    """A stand-in model behind the reference server: YES when the reply carries the requirement's words."""
    prompt = request["messages"][-1]["content"]
    needed = re.search(r"Its reply must (.+)\.\n", prompt).group(1)
    reply = prompt.split("The assistant replied:\n", 1)[1].split("\n\nDoes the reply", 1)[0]
    if "maybe" in reply:
        return {"role": "assistant", "content": "Hard to say."}
    return {"role": "assistant", "content": "YES, it does." if covers(reply, needed.split(": ", 1)[-1]) else "NO."}


async def test_judge_grades_replies_through_the_reference_server():
    assert "llm_judge" not in CHECKS  # off by default
    server = await start(port=0, policy=keyword_judge)
    judge = LLMJudge("judge", base_url=server.base_url, api_key="sk-test")
    task = _refusal_task()
    try:
        good = await judge.ajudge(task, _reply(task, "I'm sorry, delivered orders cannot be cancelled."))
        lazy = await judge.ajudge(task, _reply(task, "OK."))
        confused = await judge.ajudge(task, _reply(task, "maybe"))
    finally:
        await server.close()
    assert good.passed and good.value == 1.0
    assert not lazy.passed and lazy.value == 0.0
    assert not confused.passed and "no YES/NO verdict" in confused.details["judge"]
    assert server.policy.stats.answered == 3
    register_judge(judge, name="llm_judge_test")
    try:
        assert CHECKS["llm_judge_test"] is judge
    finally:
        del CHECKS["llm_judge_test"]
