"""`toolgym inspect` end to end on a small generated dataset, and the card's language figures."""

from __future__ import annotations

import base64
import re
import warnings

import pytest

from tests.jobs import toy_config
from toolgym.cli import main
from toolgym.generators import card
from toolgym.generators.inspection import figures
from toolgym.generators.inspection.collect import Corpus
from toolgym.generators.inspection.figures import inspect_dir, short_of_asked
from toolgym.generators.job import run_job


@pytest.fixture(scope="module")
def toy_dataset(tmp_path_factory, toy_domain):
    out = tmp_path_factory.mktemp("inspect") / "toy"
    run_job(toy_config(out), progress=False)
    return out


def test_inspect_prints_the_figures_and_writes_one_html_file(toy_dataset, tmp_path, capsys):
    html = tmp_path / "report.html"
    assert main(["inspect", str(toy_dataset), "--html", str(html)]) == 0
    printed = capsys.readouterr().out
    for heading in (
        "Rows, turns and calls",
        "Tools used against tools offered",
        "assistant sentences",
        "Grammar findings",
    ):
        assert heading in printed
    # the toy's missing_info generator gives one distinct task of the five asked for
    assert "short of the asked count: toy/no_tool/missing_info: 1 of 5 tasks asked for" in printed
    assert "grounding:" in printed

    page = html.read_text()
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 5
    assert all(base64.b64decode(image).startswith(b"\x89PNG") for image in images)
    assert "toy/single" in page and "<script" not in page  # one file, nothing to fetch


def test_inspect_figures_agree_with_the_written_rows(toy_dataset):
    inspection = inspect_dir(toy_dataset)
    assert inspection.split_rows == {"sft": 24, "no_tool": 12}
    assert sum(s.rows for s in inspection.shapes.values()) == 36
    assert inspection.shapes[("toy", "single")].calls_per_row >= 1
    assert inspection.shapes[("toy", "no_tool/irrelevant")].calls == 0
    used, never = inspection.tools["toy"]
    assert used and set(used).isdisjoint(never)
    assert 0 < inspection.sentences.top_share <= 1
    assert [(s.domain, s.kind, s.asked, s.written) for s in inspection.short_kinds or []] == [
        ("toy", "no_tool/missing_info", 5, 1)
    ]


def test_card_carries_the_language_figures_and_the_short_kind(toy_dataset):
    card = (toy_dataset / "README.md").read_text()
    assert "## Language" in card
    assert re.search(r"top-20 assistant sentences: \d+\.\d% of \d+ assistant sentences", card)
    assert "| toy/single | 12 |" in card
    assert "## Kinds short of the asked count" in card
    assert "| toy/no_tool/missing_info | 5 | 1 |" in card


def test_card_figures_counted_while_writing_are_those_of_the_written_rows(tmp_path, toy_domain, monkeypatch):
    """The writer counts the card's figures row by row; they equal a reading of the shards, and a
    resumed directory (rows from an earlier session) has its shards read back so the card covers all."""
    cards, read_back = [], []
    render, read = card.render, figures.card_figures
    monkeypatch.setattr(card, "render", lambda *args: cards.append(args[-1]) or render(*args))
    monkeypatch.setattr(figures, "card_figures", lambda out_dir: read_back.append(out_dir) or read(out_dir))
    out = tmp_path / "toy"
    run_job(toy_config(out, mix={"tasks_per_domain": 20, "no_tool_share": 0.4}), progress=False)
    assert read_back == []  # a fresh directory: counted while writing
    assert cards[-1] == read(out)
    assert cards[-1]["assistant_sentences"] > 0 and cards[-1]["openings"]
    first = cards[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the second session asks for more tasks: a changed config
        run_job(toy_config(out), progress=False)
    assert read_back == [out]
    assert cards[-1] == read(out)
    assert cards[-1]["assistant_sentences"] > first["assistant_sentences"]


def test_short_kinds_unknown_without_a_recorded_config(tmp_path):
    assert short_of_asked(Corpus(tmp_path)) is None


def test_inspect_of_a_directory_without_shards_names_it(tmp_path, capsys):
    assert main(["inspect", str(tmp_path), "--no-html"]) == 2
    assert f"{tmp_path} holds no dataset shards" in capsys.readouterr().err
    assert main(["inspect", str(tmp_path / "missing"), "--no-html"]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_grounding_rate_uses_the_engine_check_when_present(toy_dataset, monkeypatch):
    """With a grounding check installed, rows it finds unseen facts in are counted out per kind."""
    import sys
    import types

    def ungrounded_facts(messages):  # stands in for toolgym.envs.grounding: flags every no_tool chat
        said = " ".join(m.get("content") or "" for m in messages if m.get("role") == "assistant")
        return ["an unseen fact"] if not any(m.get("tool_calls") for m in messages) and said else []

    monkeypatch.setitem(
        sys.modules, "toolgym.envs.grounding", types.SimpleNamespace(ungrounded_facts=ungrounded_facts)
    )
    inspection = inspect_dir(toy_dataset)
    assert inspection.grounding is not None
    assert inspection.grounding[("toy", "single")] == (12, 12)
    assert inspection.grounding[("toy", "no_tool/irrelevant")] == (0, 6)
    assert inspection.ungrounded_examples and "an unseen fact" in inspection.ungrounded_examples[0]


def test_inspect_tables_never_cut_names(toy_dataset, capsys):
    import io

    from rich.console import Console

    from toolgym.generators.inspection.report import print_report

    inspection = inspect_dir(toy_dataset)
    long_name = ("clinic_appointments", "no_tool/policy_refusal")
    inspection.shapes[long_name] = next(iter(inspection.shapes.values()))
    narrow = Console(file=io.StringIO(), width=80)  # a terminal of 80 columns: names stay whole
    print_report(inspection, narrow)
    assert "clinic_appointments/no_tool/policy_refusal" in narrow.file.getvalue()
    assert "…" not in narrow.file.getvalue()
    print_report(inspection)  # not a terminal (a file, a pipe): whole lines, nothing squeezed
    printed = capsys.readouterr().out
    assert "clinic_appointments/no_tool/policy_refusal" in printed and "…" not in printed
    row = next(line for line in printed.splitlines() if "clinic_appointments/no_tool/policy_refusal" in line)
    assert row.count("│") >= 9, row  # the whole row on one line: every column of the shape table
