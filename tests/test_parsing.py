from toolgym.envs.parsing import parse_action, parse_hermes, parse_json


def test_hermes_reads_think_and_several_calls():
    parsed = parse_hermes(
        '<think>need two lookups</think>Let me check.\n'
        '<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>\n'
        '<tool_call>{"name": "b", "arguments": {"y": "z"}}</tool_call>'
    )
    m = parsed.message
    assert parsed.well_formed
    assert m["reasoning_content"] == "need two lookups"
    assert m["content"] == "Let me check."
    assert [c["function"] for c in m["tool_calls"]] == [
        {"name": "a", "arguments": {"x": 1}},
        {"name": "b", "arguments": {"y": "z"}},
    ]


def test_hermes_broken_json_stays_text_and_is_reported():
    parsed = parse_hermes('<tool_call>{"name": "a", "arguments": {"x": </tool_call>')
    assert "tool_calls" not in parsed.message
    assert "<tool_call>" in parsed.message["content"]
    assert any("not valid JSON" in p for p in parsed.problems)


def test_hermes_unclosed_block_and_missing_name():
    parsed = parse_hermes('<tool_call>{"name": "a", "arguments": {}}')
    assert parsed.message["tool_calls"][0]["function"]["name"] == "a"
    assert any("not closed" in p for p in parsed.problems)
    parsed = parse_hermes('<tool_call>{"arguments": {}}</tool_call>')
    assert not parsed.well_formed and "tool_calls" not in parsed.message


def test_plain_text_is_a_reply():
    parsed = parse_hermes("Hello, how can I help?")
    assert parsed.well_formed
    assert parsed.message == {"role": "assistant", "content": "Hello, how can I help?"}


def test_json_parser():
    parsed = parse_json('[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": "{\\"k\\": 2}"}]')
    calls = parsed.message["tool_calls"]
    assert [c["function"]["arguments"] for c in calls] == [{"x": 1}, {"k": 2}]
    assert any("JSON string" in p for p in parsed.problems)
    assert parse_json("just words").message["content"] == "just words"


def test_dict_actions_decode_string_arguments():
    parsed = parse_action(
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}}]}
    )
    assert parsed.message["tool_calls"][0] == {"id": "c1", "type": "function", "function": {"name": "a", "arguments": {"x": 1}}}
    bad = parse_action({"role": "assistant", "tool_calls": [{"function": {"name": "a", "arguments": "{oops"}}]})
    assert bad.message["tool_calls"][0]["function"]["arguments"] == "{oops"
    assert not bad.well_formed


def test_non_message_actions_do_not_raise():
    assert not parse_action(42).well_formed
    assert not parse_action({"role": "user", "content": "x"}).well_formed
