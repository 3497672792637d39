"""A generator's ctx.say speaks in the register of the task's persona, drawn once per task."""

from __future__ import annotations

import random
from types import SimpleNamespace

import yaml

from toolgym.envs import GenContext
from toolgym.envs.phrasebook import Phrasebook


def _ctx(tmp_path, personas: list[str], seed: int = 0) -> GenContext:
    source = tmp_path / "utterances.yaml"
    source.write_text(
        yaml.safe_dump(
            {"persona": personas, "hello": ["Hello there, I have a question."], "hello@terse": ["Quick question."]}
        )
    )
    domain = SimpleNamespace(name="t", phrasebook=Phrasebook(source))
    return GenContext(domain, None, random.Random(seed), seed, "single", 0, "small")  # type: ignore[arg-type]


def test_say_uses_the_register_of_the_persona(tmp_path):
    assert _ctx(tmp_path, ["A busy professional who writes short, direct messages."]).say("hello") == "Quick question."
    assert _ctx(tmp_path, ["A calm person."]).say("hello") == "Hello there, I have a question."


def test_the_persona_is_drawn_once_per_task(tmp_path):
    ctx = _ctx(tmp_path, [f"Person number {n}." for n in range(50)], seed=3)
    first = ctx.persona()
    assert all(ctx.persona() == first for _ in range(5))


def test_a_phrasing_of_other_values_does_not_repeat_a_sentence_the_task_said(tmp_path):
    """'Has my order #W1 shipped yet? What's its status?' then '... #W2 ... What's its status?' in one
    chat: every draw of a task used the same variant for the same intent, whatever its values."""
    source = tmp_path / "utterances.yaml"
    source.write_text(yaml.safe_dump({
        "persona": ["A calm person."],
        "status": ["Has my order {{ order }} shipped yet? What's its status?", "Any news on order {{ order }}?",
                   "Where is my order {{ order }} at?", "I'm checking on my order {{ order }}."],
    }))
    domain = SimpleNamespace(name="t", phrasebook=Phrasebook(source))
    repeated = 0
    for seed in range(60):
        ctx = GenContext(domain, None, random.Random(seed), seed, "multi_turn", 0, "small")  # type: ignore[arg-type]
        first, second = ctx.say("status", order="#W1"), ctx.say("status", order="#W2")
        assert ctx.say("status", order="#W1") == first  # the same values give the same words
        repeated += "What's its status?" in first and "What's its status?" in second
    assert repeated == 0
