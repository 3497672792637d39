"""`output.reasoning`: traces reach chat templates without a reasoning field (Qwen2.5) as <think> in content."""

from __future__ import annotations

import pytest

from tests.test_chat_templates import _render
from tests.test_writer import chat_messages
from tests.tiny_lm import trl_template
from toolgym.config import load_config
from toolgym.errors import ConfigError
from toolgym.generators.chat_format import reasoning_placed

TRACE = "I should look it up."


def _row(place: str) -> dict:
    messages = chat_messages([[("search_hotels", {"city": "Paris"})]], reasoning=True)
    return {"messages": reasoning_placed(messages, place), "tools": []}


def test_qwen25_drops_a_reasoning_field_but_renders_think_in_content():
    template = trl_template("qwen2_5")
    assert TRACE not in _render(template, _row("field"))  # why the option exists
    text = _render(template, _row("think"))
    assert f"<think>\n{TRACE}\n</think>" in text
    assert text.index("<think>") < text.index("<tool_call>")  # the trace comes before the call it leads to


def test_think_keeps_the_words_after_the_trace_and_drop_leaves_nothing():
    messages = [{"role": "assistant", "content": "Done.", "reasoning_content": TRACE}]
    assert reasoning_placed(messages, "think")[0] == {"role": "assistant", "content": f"<think>\n{TRACE}\n</think>\n\nDone."}
    assert reasoning_placed(messages, "drop")[0] == {"role": "assistant", "content": "Done."}
    assert reasoning_placed(messages, "field") == messages


def test_a_bad_place_names_the_key_and_the_choices():
    with pytest.raises(ConfigError, match=r"output\.reasoning = 'inline'.*'field', 'think' or 'drop'"):
        load_config({"domains": ["retail"], "output": {"reasoning": "inline"}})
