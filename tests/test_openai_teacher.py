"""OpenAITeacher and LLMUser over real HTTP on 127.0.0.1, against the reference policy server."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolgym.envs.env import ToolEnv
from toolgym.generators import OracleTeacher, ScriptedUser, rollout
from toolgym.generators.http_client import EndpointDown, TeacherError, close_endpoints, endpoint_stats
from toolgym.generators.llm_user import LLMUser
from toolgym.generators.openai_teacher import OpenAITeacher
from toolgym.generators.serve_policy import Faults, start
from toolgym.generators.usage import usage_scope

SECRET = "sk-test-DO-NOT-LOG-4242"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
async def closed_endpoints():
    """Each test's clients are closed on its own loop (aiohttp sessions warn when left open)."""
    yield
    await close_endpoints()


@pytest.fixture
def tasks(toy_domain):
    return toy_domain.generate_tasks(10, seed=3)


def teacher_for(server, **kwargs) -> OpenAITeacher:
    kwargs.setdefault("send_task", True)
    return OpenAITeacher("toolgym-oracle", base_url=server.base_url, api_key=SECRET, **kwargs)


async def offline(domain, task, reasoning=False):
    return await rollout(ToolEnv(domain), OracleTeacher(reasoning=reasoning), ScriptedUser(), task)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("mode", ["native", "text"])
@pytest.mark.parametrize("reasoning", [False, True])
async def test_rollouts_over_http_match_the_offline_oracle(toy_domain, tasks, mode, reasoning):
    server = await start(port=0, reasoning=reasoning)
    teacher = teacher_for(server, mode=mode)
    try:
        for task in tasks:
            expected = await offline(toy_domain, task, reasoning)
            with usage_scope() as usage:
                got = await rollout(ToolEnv(toy_domain), teacher, ScriptedUser(), task)
            assert got.messages == expected.messages, task.kind
            assert got.verification.passed and got.verification.value == expected.verification.value
            assistant_turns = sum(m["role"] == "assistant" for m in got.messages)
            assert usage["teacher"].calls == assistant_turns
            assert usage["teacher"].prompt_tokens > 0 and usage["teacher"].retries == 0
    finally:
        await server.close()
    assert teacher.usage.calls == server.policy.stats.answered
    assert any("reasoning_content" in m for m in got.messages) == reasoning


async def test_reasoning_can_be_dropped(toy_domain, tasks):
    server = await start(port=0, reasoning=True)
    try:
        for mode in ("native", "text"):
            teacher = teacher_for(server, mode=mode, keep_reasoning=False)
            got = await rollout(ToolEnv(toy_domain), teacher, ScriptedUser(), tasks[0])
            assert got.messages == (await offline(toy_domain, tasks[0])).messages
    finally:
        await server.close()


async def test_built_from_a_job_config_with_usage_per_task(toy_domain, tasks):
    from toolgym.config import TeacherConfig, UserConfig
    from toolgym.generators.features import USAGE_KEYS

    server = await start(port=0)
    config = TeacherConfig(name="qwen", type="openai", base_url=server.base_url, model="toolgym-oracle",
                           api_key=SECRET, sampling={"temperature": 0.2, "stop": ["</s>"]}, send_task=True,
                           mode="text", concurrency=8, timeout=5)
    teacher = OpenAITeacher.from_config(config)
    user = LLMUser.from_config(UserConfig(type="llm", base_url=server.base_url, model="u", max_turns=3))
    assert teacher.sampling == {"temperature": 0.2} and teacher.extra == {"stop": ["</s>"]}
    assert (teacher.mode, teacher.name, teacher.settings.concurrency, user.max_turns) == ("text", "qwen", 8, 3)
    try:
        got = await rollout(ToolEnv(toy_domain), teacher, ScriptedUser(), tasks[0])
    finally:
        await server.close()
    row = teacher.pop_usage(tasks[0].id)
    assert set(row) == set(USAGE_KEYS)
    assert row["requests"] == sum(m["role"] == "assistant" for m in got.messages)
    assert row["total_tokens"] == row["prompt_tokens"] + row["completion_tokens"] > 0
    assert teacher.pop_usage(tasks[0].id) is None
    assert SECRET not in json.dumps(teacher.describe())


async def test_task_id_alone_needs_a_server_that_knows_the_task(toy_domain, tasks):
    server = await start(port=0)
    try:
        with pytest.raises(TeacherError, match="send_task=True"):
            await rollout(ToolEnv(toy_domain), teacher_for(server, send_task=False), ScriptedUser(), tasks[0])
    finally:
        await server.close()
    known = await start(port=0, tasks=tasks)  # --tasks FILE: the id alone is enough, as a header or metadata
    try:
        for via in ("header", "metadata"):
            teacher = teacher_for(known, send_task=False, task_id_via=via)
            got = await rollout(ToolEnv(toy_domain), teacher, ScriptedUser(), tasks[0])
            assert got.verification.passed
    finally:
        await known.close()


async def test_faults_end_every_episode_as_a_result_or_a_recorded_error(toy_domain):
    tasks = toy_domain.generate_tasks(40, seed=11)
    faults = Faults(error_rate=0.10, timeout_rate=0.05, malformed_rate=0.05, hang_s=20, seed=5)
    server = await start(port=0, faults=faults)
    teacher = teacher_for(server, timeout=0.4, max_retries=6, backoff=0.01, backoff_max=0.05, concurrency=32)

    async def episode(task):
        try:
            with usage_scope() as usage:
                trajectory = await rollout(ToolEnv(toy_domain), teacher, ScriptedUser(), task)
            return ("result", trajectory, usage)
        except TeacherError as exc:
            return ("error", str(exc), None)

    try:
        outcomes = await asyncio.gather(*(episode(t) for t in tasks))
        counted = endpoint_stats()[server.base_url]
        await close_endpoints()
    finally:
        await server.close()
    assert len(outcomes) == len(tasks)
    assert counted["retries"] == teacher.usage.retries and counted["by_error"]
    results = [o for o in outcomes if o[0] == "result"]
    assert all(r[1].verification is not None for r in results)
    assert all(o[1] for o in outcomes if o[0] == "error")  # each failure carries its reason
    stats = server.policy.stats
    assert stats.errors > 0 and stats.hung > 0 and stats.malformed > 0
    assert teacher.usage.retries >= stats.errors + stats.hung - 2  # the last attempts of failed episodes
    assert sum(r[2]["teacher"].retries for r in results) > 0
    assert any(any(p for p in r[1].format_problems) for r in results)  # malformed calls reached the env
    assert len(results) >= len(tasks) * 0.8


async def test_text_mode_hands_malformed_text_to_the_env(toy_domain, tasks):
    server = await start(port=0, faults=Faults(malformed_rate=1.0))
    try:
        task = next(t for t in tasks if t.kind == "single")
        got = await rollout(ToolEnv(toy_domain), teacher_for(server, mode="text"), ScriptedUser(), task)
    finally:
        await server.close()
    problems = [p for p in got.format_problems if p]
    assert problems and "not valid JSON" in problems[0][0]
    assert not got.verification.passed


async def test_server_down_stops_within_seconds_naming_the_endpoint(toy_domain, tasks):
    port = free_port()
    teacher = OpenAITeacher("m", base_url=f"http://127.0.0.1:{port}/v1", api_key=SECRET)
    started = time.monotonic()
    with pytest.raises(EndpointDown) as caught:  # one episode alone: backoff, then the circuit opens
        await rollout(ToolEnv(toy_domain), teacher, ScriptedUser(), tasks[0])
    assert time.monotonic() - started < 5
    assert f"127.0.0.1:{port}" in str(caught.value) and "down" in str(caught.value)
    started = time.monotonic()
    many = OpenAITeacher("m", base_url=f"http://127.0.0.1:{free_port()}/v1", api_key=SECRET)
    outcomes = await asyncio.gather(*(rollout(ToolEnv(toy_domain), many, ScriptedUser(), t) for t in tasks),
                                    return_exceptions=True)
    assert all(isinstance(o, EndpointDown) for o in outcomes)
    assert time.monotonic() - started < 3


async def test_a_rejected_key_or_a_dead_gateway_stops_the_job(tasks):
    for status, words in ((401, "rejects requests: HTTP 401.*check api_key"), (502, "is down: HTTP 502")):
        server = await start(port=0, policy=lambda body, headers: {}, faults=Faults(status=status))
        teacher = OpenAITeacher("m", base_url=server.base_url, api_key=SECRET, backoff=0.01)
        try:
            with pytest.raises(EndpointDown, match=words):
                await teacher.act([{"role": "user", "content": "hi"}], [], tasks[0])
        finally:
            await server.close()


async def test_api_key_never_in_describe_or_logs(toy_domain, tasks, caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server = await start(port=0, faults=Faults(error_rate=0.3, seed=1))
    teacher = OpenAITeacher("toolgym-oracle", base_url=server.base_url.replace("http://", "http://me:pw@"),
                            send_task=True, backoff=0.01, max_retries=8)
    user = LLMUser("toolgym-oracle", base_url=server.base_url)
    try:
        await rollout(ToolEnv(toy_domain), teacher, ScriptedUser(), tasks[0])
    finally:
        await server.close()
    with pytest.raises(EndpointDown):
        await OpenAITeacher("m", base_url=f"http://127.0.0.1:{free_port()}/v1", breaker_failures=1).act(
            [{"role": "user", "content": "hi"}], [], tasks[0])
    shown = json.dumps([teacher.describe(), user.describe()]) + repr(teacher) + repr(user)
    assert SECRET not in shown and "pw" not in shown
    assert SECRET not in caplog.text
    assert teacher.usage.retries > 0


def scripted_stub(tasks):
    """A stand-in for a user model: un-flips the chat and answers as the ScriptedUser would."""
    by_id = {t.id: t for t in tasks}
    seen = []

    def respond(request, headers):
        seen.append(request)
        task = by_id[headers["x-toolgym-task-id"]]
        chat = [{"role": "assistant" if m["role"] == "user" else "user", "content": m["content"]}
                for m in request["messages"][2:]]
        return {"role": "assistant", "content": ScriptedUser().reply_sync(chat, task)["content"]}

    return respond, seen


async def test_llm_user_plays_the_scenario_role_flipped(toy_domain, tasks):
    respond, seen = scripted_stub(tasks)
    server = await start(port=0, policy=respond)
    user = LLMUser("user-model", base_url=server.base_url, api_key=SECRET, temperature=0.7)
    try:
        for task in tasks[:5]:
            expected = await offline(toy_domain, task)
            with usage_scope() as usage:
                got = await rollout(ToolEnv(toy_domain), OracleTeacher(), user, task)
            assert got.messages == expected.messages, task.kind
            assert got.verification.passed
            assert usage["user"].calls == sum(m["role"] == "user" for m in got.messages)
    finally:
        await server.close()
    request = seen[-1]
    system, *chat = request["messages"]
    assert system["role"] == "system" and "###STOP###" in system["content"]
    assert tasks[4].scenario.persona in system["content"]
    assert [m["role"] for m in chat[:2]] == ["user", "assistant"]  # the cue, then the user's opening
    assert all(a["role"] != b["role"] for a, b in zip(chat, chat[1:], strict=False))
    assert not any(m["role"] == "tool" or "tool_calls" in m for m in chat)
    assert request["temperature"] == 0.7 and "tools" not in request and "metadata" not in request


async def test_llm_user_turn_limit_and_scripted_opening(toy_domain, tasks):
    respond, seen = scripted_stub(tasks)
    server = await start(port=0, policy=respond)
    task = next(t for t in tasks if t.kind == "multi_turn")
    try:
        user = LLMUser("m", base_url=server.base_url, opening="scenario", max_turns=2)
        got = await rollout(ToolEnv(toy_domain), OracleTeacher(), user, task)
    finally:
        await server.close()
    users = [m for m in got.messages if m["role"] == "user"]
    assert users[0]["content"] == task.scenario.requests[0]
    assert len(users) == 3 and users[-1]["content"] == task.scenario.closing
    assert len(seen) == 1  # the opening and the closing cost no call


def test_serve_policy_command_starts_fast():
    command = [sys.executable, "-m", "toolgym.generators.serve_policy", "--port", "0", "--import", "tests.toy"]
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert "serving policy 'oracle' on http://127.0.0.1:" in line
        assert time.monotonic() - started < 10
        import urllib.request

        url = line.strip().rsplit(" ", 1)[-1] + "/models"
        listed = json.loads(urllib.request.urlopen(url, timeout=5).read())
        assert listed["data"][0]["id"] == "toolgym-oracle"
    finally:
        process.terminate()
        process.wait(timeout=5)
