"""Grading is linear in the reply: a 256 KB final reply of any shape is graded in under a second.

Each reply goes through `env.step` and the full verifier of its task kind (with `max_turns=1` the
step ends the episode), so every fact and claim extractor a verifier runs is covered, including
ones added later. A 32 KB reply is graded first: a quadratic path fails there in seconds rather
than running for minutes at 256 KB.
"""

from __future__ import annotations

import time

import pytest

import toolgym
from tests.hostile import REPLY_SHAPES, long_reply

KB = 1024
BUDGET = 1.0  # CPU seconds per graded reply; the quadratic identifier pattern took 14.5 s at 32 KB


@pytest.fixture(scope="module")
def graded_env():
    env = toolgym.make("retail", max_turns=1).unwrapped
    # one task that must act and one that must not: the two verifier presets read the reply differently
    tasks = [env.domain.generate_tasks(1, seed=1, kinds=[kind])[0] for kind in ("multi_step", "no_tool/invalid_value")]
    return env, tasks


def _grade(env, task, reply: str) -> tuple[float, dict]:
    env.reset(options={"task": task})
    started = time.process_time()
    _, _, terminated, truncated, info = env.step(reply)
    spent = time.process_time() - started
    assert (terminated or truncated) and "verification" in info, "the step ended the episode and graded it"
    return spent, info["verification"]


@pytest.mark.parametrize("shape", list(REPLY_SHAPES))
def test_a_256_kb_reply_of_any_shape_is_graded_in_under_a_second(graded_env, shape):
    env, tasks = graded_env
    task = tasks[list(REPLY_SHAPES).index(shape) % len(tasks)]
    for size in (32 * KB, 256 * KB):
        reply = long_reply(shape, size, opening=f"Done. Ref 1 {shape} ")  # a new text per test: no cache helps
        spent, verification = _grade(env, task, reply)
        assert spent < BUDGET, f"a {size // KB} KB reply of {shape!r} took {spent:.2f} s of CPU to grade"
        assert verification["score"] < 1.0, "a reply of noise never earns full marks"


def test_the_grounding_check_still_names_unseen_facts_in_a_long_reply(graded_env):
    env, tasks = graded_env
    _, verification = _grade(env, tasks[0], long_reply("distinct ids", 256 * KB))
    assert verification["components"]["grounded"] < 1.0
    assert any("W1" in line for line in verification["details"]["grounded"]["ungrounded"])
