"""The calls of a chat with their results (verifiers/chat_calls.py), as the checks that judge replies read them."""

from __future__ import annotations

from toolgym.verifiers.chat_calls import as_read, chat_calls


def _call(id_: str, name: str, arguments: str) -> dict:
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


CHAT = [
    {"role": "user", "content": "Cancel #W1 and check my line."},
    {"role": "assistant", "content": "Looking.", "tool_calls": [_call("a", "get_order", '{"order_id": "#W1"}'),
                                                                _call("b", "cancel_order", '{"order_id": "#W1"}'),
                                                                _call("c", "get_line", "not json")]},
    {"role": "tool", "tool_call_id": "b", "content": '{"error": "order #W1 is delivered"}'},  # answered out of order
    {"role": "tool", "tool_call_id": "a", "content": '{"status": "delivered"}'},
    {"role": "tool", "tool_call_id": "zz", "content": "a result nobody asked for"},
    {"role": "user", "content": "Here.", "user_tool_calls": [{"name": "run_speed_test", "arguments": {}}, {"name": "toggle", "arguments": "{}"}],
     "user_tool_results": [{"passed": True}]},
    {"role": "assistant", "content": "Your order is delivered."},
]


def test_each_call_has_its_own_result_where_the_chat_holds_one():
    calls = chat_calls(CHAT)
    assert [(c.position, c.caller, c.name) for c in calls] == [
        (1, "agent", "get_order"), (1, "agent", "cancel_order"), (1, "agent", "get_line"), (5, "user", "run_speed_test"), (5, "user", "toggle")]
    get_order, cancel, line, speed, toggle = calls
    assert get_order.result == '{"status": "delivered"}' and get_order.answered_at == 3 and get_order.ok
    assert cancel.answered_at == 2 and not cancel.ok  # an error is an answer, not a success
    assert line.arguments == {} and line.result is None and not line.ok  # unparsable arguments; never answered
    assert speed.result == '{"passed": true}' and speed.ok  # a user-side result given as an object reads as its JSON
    assert toggle.result is None and not toggle.ok


def test_results_are_read_where_they_arrive_before_the_words_after_them():
    read = [(position, [c.name for c in arrived], words) for position, arrived, words in as_read(CHAT)]
    assert read == [(0, [], ""), (1, [], "Looking."), (2, ["cancel_order"], ""), (3, ["get_order"], ""), (4, [], ""),
                    (5, ["run_speed_test"], ""), (6, [], "Your order is delivered.")]
