"""A frustrated customer says so in their first message: the gold's first reply, in that register,
apologises for the trouble ("I'm sorry for the trouble. How warm should it be?"), and it answered
"Hey. Could you switch on seat heating for the driver seat?" when the opening's frustrated words
could all be drawn empty."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

import toolgym
from toolgym.envs.gold import gold_messages
from toolgym.envs.phrasing import register_of

# where each domain's first message voices a frustrated customer's mood (the car's opening differs as it stands or moves)
OPENING = {"retail": ("opener@frustrated", None), "banking": ("opening@frustrated", "context"),
           "telecom": ("opening@frustrated", "context"), "travel": ("opening@frustrated", "context"),
           "vehicle": ("opening@frustrated opening_moving@frustrated", "context"), "workplace": ("opening@frustrated", "context")}


@pytest.mark.parametrize("domain_name", sorted(OPENING))
def test_a_frustrated_customer_voices_it_in_the_first_message(domain_name):
    domain = toolgym.load_domain(domain_name)
    intent, part = OPENING[domain_name]
    package = importlib.import_module(f"toolgym.domains.{domain_name}")
    book = yaml.safe_load((Path(package.__file__).parent / "utterances.yaml").read_text())
    voiced = [v for name in intent.split() for v in (book[name][part] if part else book[name])]
    assert voiced and "" not in voiced  # no draw leaves the mood unsaid
    frustrated = 0
    for task in domain.generate_tasks(40, seed=19, kinds=["single", "multi_turn"]):
        if register_of(task.scenario.persona) != "frustrated":
            continue
        first = next(m["content"] for m in gold_messages(domain, task)[0] if m["role"] == "user")
        assert any(v in first for v in voiced), first
        frustrated += 1
    assert frustrated >= 2, frustrated
