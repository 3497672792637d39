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
