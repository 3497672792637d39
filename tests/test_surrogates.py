"""Lone surrogates: text is cleaned after JSON decoding as well as before.

JSON spells a lone surrogate in plain ASCII (`"\\ud800"`), so a tool call whose text is clean can
decode to a string that no file can hold. Whatever the path (Hermes text, an OpenAI dict with
arguments as JSON text or as an object, the json parser, a user simulator's reply), no lone
surrogate reaches a world, a score or a file: the agent gets a format problem, never a failed task.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolgym
from tests.jobs import toy_config
from tests.test_generate import _rows
from toolgym.envs.parsing import parse_action
from toolgym.generators import roles
from toolgym.generators.job import run_job
from toolgym.generators.oracle import OracleTeacher
from toolgym.generators.user import ScriptedUser

ESCAPE = "\\ud800"  # six ASCII characters of JSON text, a lone surrogate once decoded


def _storable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _call(arguments: Any, call_id: Any = "c1", name: Any = "get_order") -> dict[str, Any]:
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]}


ACTIONS = {
    "hermes block": ('<tool_call>{"name": "get_order", "arguments": {"order_id": "W1' + ESCAPE + '"}}</tool_call>', "hermes"),
    "hermes arguments as a JSON string": (
        '<tool_call>{"name": "get_order", "arguments": "{\\"order_id\\": \\"W1' + ESCAPE * 2 + '\\"}"}</tool_call>', "hermes"),
    "hermes name": ('<tool_call>{"name": "get' + ESCAPE + '", "arguments": {}}</tool_call>', "hermes"),
    "json parser": ('{"name": "get_order", "arguments": {"order_id": ["W1' + ESCAPE + '"]}}', "json"),
    "dict, arguments as JSON text": (_call('{"order_id": "W1' + ESCAPE + '", "' + ESCAPE + 'key": 1}'), "hermes"),
    "dict, arguments as an object": (_call({"order_id": {"deep": ["W1\ud800"]}}), "hermes"),
    "dict, surrogate id and name": (_call({}, call_id="c\udfff", name=["\ud800"]), "hermes"),
}


@pytest.mark.parametrize("label", list(ACTIONS))
def test_a_decoded_lone_surrogate_is_replaced_and_named(label):
    action, parser = ACTIONS[label]
    parsed = parse_action(action, parser)
    assert _storable(parsed.message), parsed.message
    assert any("lone surrogates" in problem for problem in parsed.problems), parsed.problems


def test_clean_arguments_are_left_alone():
    parsed = parse_action(_call('{"order_id": "W1 \\ud83d\\ude00 é"}'))  # a paired escape is an emoji, not a problem
    assert parsed.problems == []
    assert parsed.message["tool_calls"][0]["function"]["arguments"] == {"order_id": "W1 \U0001f600 é"}


class _SurrogateUser(ScriptedUser):
    """A user simulator whose model decoded a lone surrogate into its text and its device call."""

    def reply_sync(self, messages, task):
        reply = dict(super().reply_sync(messages, task))
        if reply.get("content"):
            reply["content"] += " \ud800"
        return reply


def test_a_user_simulators_lone_surrogate_never_reaches_the_chat(toy_domain):
    env = toolgym.make("toy", user=_SurrogateUser()).unwrapped
    task = toy_domain.generate_tasks(1, seed=0)[0]
    observation, _ = env.reset(options={"task": task})
    env._absorb(message := {"role": "user", "content": None},
                {"content": "x\udc00", "user_tool_calls": [{"name": "n\ud800", "arguments": {"k\ud800": "v\udfff"}}]})
    assert _storable(observation) and _storable(message)
    assert message["content"] == "x?" and message["user_tool_calls"][0]["arguments"] == {"k?": "v?"}
    observation, *_ = env.step("Could you tell me more?")
    assert observation[-1]["content"].endswith(" ?")  # the model's surrogate, replaced; the chat goes on
    assert _storable(env.messages)


class _SurrogateTeacher(OracleTeacher):
    """The oracle as a served model would send it: arguments as JSON text with a lone surrogate escape."""

    def act_sync(self, messages, tools, task=None):
        message = super().act_sync(messages, tools, task)
        for call in message.get("tool_calls") or ():
            arguments = {k: f"{v}\ud800" if isinstance(v, str) else v for k, v in call["function"]["arguments"].items()}
            call["function"]["arguments"] = json.dumps(arguments)  # ensure_ascii: the surrogate is spelled \ud800
        return message


def _surrogate_teacher(monkeypatch):
    monkeypatch.setattr(roles, "make_teacher", lambda config: _SurrogateTeacher())


def test_a_teacher_that_emits_a_lone_surrogate_gets_format_problems_not_failed_tasks(toy_domain, tmp_path, monkeypatch):
    _surrogate_teacher(monkeypatch)
    out = tmp_path / "out"
    result = run_job(toy_config(out), progress=False)
    assert result["ok"] and result["failed_tasks"] == 0, result
    assert result["stats"]["task_failures"] == 0
    rejected = _rows(out, "rejected")
    formatted = [r for r in rejected if r["verification"]["components"].get("format", 1.0) < 1.0]
    assert formatted, "the chats whose calls held a lone surrogate were written, with a format problem"
    assert all(_storable(r) for split in ("sft", "no_tool", "rl_tasks", "rejected") for r in _rows(out, split))


def test_a_rewriters_lone_surrogate_is_replaced():
    from toolgym.generators.rewrite import read_texts

    assert read_texts('{"texts": ["Your order W1' + ESCAPE + ' is on its way."]}', 1) == ["Your order W1? is on its way."]
