"""LLMUser acting on the user's device: offered the user-side tools, its calls run as caller="user".

The user model is a loopback stand-in of this test's own (stdlib HTTP on 127.0.0.1): it un-flips
the chat it is sent, decides as the ScriptedUser would, and answers in the user's role with a
tool call when a device step is due, then with text once it has seen the call's result.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from toolgym.envs.env import ToolEnv
from toolgym.envs.registry import load_domain
from toolgym.generators import OracleTeacher, ScriptedUser, rollout
from toolgym.generators.llm_user import LLMUser


def unflip(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The user model's chat (after system and cue) back in the env's roles; device turns folded in."""
    messages: list[dict[str, Any]] = []
    for turn in chat:
        if turn["role"] == "user":
            messages.append({"role": "assistant", "content": turn["content"]})
        elif turn["role"] == "tool":
            messages[-1].setdefault("user_tool_results", []).append(turn["content"])
        elif turn.get("tool_calls"):
            calls = [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])} for c in turn["tool_calls"]]
            messages.append({"role": "user", "content": None, "user_tool_calls": calls})
        elif messages and messages[-1]["role"] == "user" and messages[-1]["content"] is None:
            messages[-1]["content"] = turn["content"]  # what it said after acting: the same user turn
        else:
            messages.append({"role": "user", "content": turn["content"]})
    return messages


class DeviceUserModel:
    """Answers chat completions as the customer, with device tool calls when a step is due."""

    def __init__(self, tasks: dict[str, Any]):
        self.tasks = tasks
        self.requests: list[dict[str, Any]] = []

    def answer(self, request: dict[str, Any], task_id: str) -> dict[str, Any]:
        self.requests.append(request)
        task = self.tasks[task_id]
        chat = request["messages"][2:]  # after the system prompt and the opening cue
        if chat and chat[-1]["role"] == "tool":  # it has acted and seen the results: say what it saw
            results = [t["content"] for t in chat[chat.index(next(t for t in reversed(chat) if t.get("tool_calls"))) + 1 :]]
            return {"role": "assistant", "content": "Done on my phone. It shows: " + " ".join(results)}
        reply = ScriptedUser().reply_sync(unflip(chat), task)
        if reply.get("user_tool_calls"):
            calls = [
                {"id": f"call_{i}", "type": "function",
                 "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                for i, c in enumerate(reply["user_tool_calls"])
            ]
            return {"role": "assistant", "content": "Let me try that.", "tool_calls": calls}
        return {"role": "assistant", "content": reply["content"]}


@pytest.fixture
def user_model():
    tasks: dict[str, Any] = {}
    model = DeviceUserModel(tasks)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            message = model.answer(body, self.headers["X-Toolgym-Task-Id"])
            answer = {"id": "x", "object": "chat.completion", "model": body.get("model"),
                      "choices": [{"index": 0, "message": message,
                                   "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                      "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    model.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield model
    server.shutdown()
    server.server_close()


def phone_tasks(count: int) -> list[Any]:
    domain = load_domain("telecom")
    found = [t for t in domain.generate_tasks(60, seed=5, kinds=["multi_step"]) if any(s.caller == "user" for s in t.plan)]
    assert found, "telecom multi_step tasks should include phone steps"
    return found[:count]


async def test_llm_user_makes_the_device_steps_and_the_episode_verifies(user_model):
    domain = load_domain("telecom")
    tasks = phone_tasks(3)
    user_model.tasks.update({t.id: t for t in tasks})
    user = LLMUser("user-model", base_url=user_model.base_url)
    for task in tasks:
        got = await rollout(ToolEnv(domain), OracleTeacher(), user, task)
        acted = [m for m in got.messages if m["role"] == "user" and m.get("user_tool_calls")]
        gold = [[c.name for c in s.calls] for s in task.plan if s.caller == "user"]
        assert [[c["name"] for c in m["user_tool_calls"]] for m in acted] == gold
        assert all(len(m["user_tool_results"]) == len(m["user_tool_calls"]) for m in acted)
        assert all(m["content"].startswith("Done on my phone. It shows:") for m in acted)
        assert got.verification.passed, got.verification.components

    offered = {t["function"]["name"] for t in user_model.requests[0]["tools"]}
    assert offered == {t.name for t in domain.user_tools}
    assert "Your device" in user_model.requests[0]["messages"][0]["content"]
    after_call = next(r for r in user_model.requests if r["messages"][-1]["role"] == "tool")
    call_turn = next(m for m in reversed(after_call["messages"]) if m.get("tool_calls"))
    assert call_turn["role"] == "assistant" and call_turn["tool_calls"][0]["function"]["name"] in offered


async def test_device_tools_can_be_switched_off(user_model):
    task = phone_tasks(1)[0]
    user_model.tasks[task.id] = task
    user = LLMUser("user-model", base_url=user_model.base_url, device_tools=False, max_turns=4)
    got = await rollout(ToolEnv(load_domain("telecom")), OracleTeacher(), user, task)
    assert "tools" not in user_model.requests[0]
    assert not any(m.get("user_tool_calls") for m in got.messages)
    assert "Your device" not in user_model.requests[0]["messages"][0]["content"]


def test_job_config_switches_device_tools():
    from toolgym.config import UserConfig

    assert LLMUser.from_config(UserConfig(type="llm", base_url="http://127.0.0.1:9/v1")).device_tools is True
    off = LLMUser.from_config(UserConfig(type="llm", base_url="http://127.0.0.1:9/v1", device_tools=False))
    assert off.device_tools is False and off.describe()["device_tools"] is False
