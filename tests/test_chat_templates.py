"""Written rows render with the chat templates trainers use: every tool-capable template TRL ships, and
toolgym's own Hermes-format template. No template is read from outside the installed packages or this repository.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from tests.test_writer import CONFIG, TOOLS, chat_row
from tests.tiny_lm import tiny_tokenizer
from toolgym.generators.chat_format import TEMPLATES
from toolgym.generators.reading import load_split
from toolgym.generators.writer import DatasetWriter

HERMES = TEMPLATES / "hermes_tool_chat.jinja"
# What some templates cannot write, whatever the data: one call per assistant turn, or arguments only as JSON text
ONE_CALL_PER_TURN = {"llama3_1", "llama3_2", "gptoss", "gptoss_training"}
TEXT_ARGUMENTS_ONLY = {"deepseekv3"}
NO_TOOL_LIST = {"deepseekv3_training"}  # renders the calls but not the tool definitions


def _trl_templates() -> list[Path]:
    import trl

    return sorted((Path(trl.__file__).parent / "chat_templates").glob("*.jinja"))


@cache
def _tokenizer():
    return tiny_tokenizer(["a small corpus for a tokenizer that only renders templates"], vocab_size=300)


def _tool_capable(path: Path) -> bool:
    """As TRL itself decides before it trains with tools."""
    from trl.chat_template_utils import supports_tool_calling

    tokenizer = _tokenizer()
    tokenizer.chat_template = path.read_text()
    return supports_tool_calling(tokenizer)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("rows")
    rows = [
        chat_row("r", 0, [[("search_hotels", {"city": "Paris"}), ("get_hotel", {"hotel_id": 3})]], kind="parallel"),
        chat_row("r", 1, [[("get_hotel", {"hotel_id": 7, "price": 0.7, "tags": []})], [("search_hotels", {"city": "Zürich"})]]),
    ]
    with DatasetWriter(out, config=CONFIG) as writer:
        writer.add("r", {"sft": rows})
    return out, rows


def _render(template: str, row: dict) -> str:
    tokenizer = _tokenizer()
    return tokenizer.apply_chat_template(row["messages"], tools=row["tools"], chat_template=template, tokenize=False)


def _check(text: str, row: dict, tool_list: bool = True) -> None:
    calls = [c["function"] for m in row["messages"] for c in m.get("tool_calls") or ()]
    for call in calls:
        assert call["name"] in text
        for value in call["arguments"].values():
            assert json.dumps(value, ensure_ascii=False) in text or str(value) in text, (call, text[-800:])
    assert not tool_list or all(t["function"]["name"] in text for t in TOOLS)
    assert "Hôtel Lumière" in text and "None" not in text
    if "<tool_call>\n{" in text:  # Hermes JSON blocks: arguments are objects, never double-encoded or null-filled
        blocks = [_json(b) for b in re.findall(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", text, re.DOTALL)]
        blocks = [b for b in blocks if b is not None]  # the preamble's example is not JSON
        assert [(b["name"], b["arguments"]) for b in blocks] == [(c["name"], c["arguments"]) for c in calls]


def _json(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def test_trl_ships_tool_capable_templates_including_qwen():
    capable = {p.stem for p in _trl_templates() if _tool_capable(p)}
    assert {"qwen2_5", "qwen3", "qwen2_5_training", "qwen3_training"} <= capable


@pytest.mark.parametrize("path", [*_trl_templates(), HERMES], ids=lambda p: p.stem)
def test_load_split_rows_render_with_every_tool_capable_template(written, path):
    if path != HERMES and not _tool_capable(path):
        return  # TRL itself refuses to train tools with this template
    out, rows = written
    for row in load_split(out, "sft"):
        if path.stem in TEXT_ARGUMENTS_ONLY:  # arguments as dicts (what Qwen needs) are refused here
            with pytest.raises(TypeError, match="concatenate str"):
                _render(path.read_text(), row)
            continue
        if path.stem in ONE_CALL_PER_TURN and row["kind"] == "parallel":
            continue
        _check(_render(path.read_text(), row), row, tool_list=path.stem not in NO_TOOL_LIST)


@pytest.mark.parametrize("name", ["qwen2_5", "qwen3", "hermes"])
def test_rows_from_datasets_load_dataset_render_as_they_come(written, tmp_path, name):
    from datasets import load_dataset

    out, _ = written
    path = HERMES if name == "hermes" else next(p for p in _trl_templates() if p.stem == name)
    for row in load_dataset(str(out), split="sft", cache_dir=str(tmp_path)):  # struct columns: null keys included
        _check(_render(path.read_text(), row), row)
