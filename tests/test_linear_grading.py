"""Grading is linear in the reply, for final replies of every hostile shape.

Each reply goes through `env.step` and the full verifier of its task kind (with `max_turns=1` the
step ends the episode), so every fact and claim extractor a verifier runs is covered, including
ones added later. The test compares the CPU spent on a 256 KB reply with that on a 32 KB reply of
the same shape in the same run: eight times the text costs about eight times the work when
grading is linear and sixty-four times when it is quadratic, on a quiet machine or a loaded one.
The absolute figure (under a second per 256 KB reply on a quiet 2-core machine) is printed by
`benchmarks/hostile.py`; here a generous ceiling only stops a run-away path early.
"""

from __future__ import annotations

import time

import pytest

import toolgym
from tests.hostile import REPLY_SHAPES, long_reply

KB = 1024
GROWTH_LIMIT = 20  # 256 KB against 32 KB: linear is at most 8, the quadratic identifier pattern was 64
CEILING = 10.0  # CPU seconds for one 256 KB reply, whatever the load: a run-away path fails here, not after minutes


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


def _least_cpu(env, task, shape: str, size: int) -> float:
    """The least CPU of two gradings, each of a new text (no cache helps), so one noisy moment does not count."""
    spent = []
    for attempt in range(2):
        reply = long_reply(shape, size, opening=f"Done. Ref 1 {shape} {size} {attempt} ")
        cpu, verification = _grade(env, task, reply)
        assert cpu < CEILING, f"a {size // KB} KB reply of {shape!r} took {cpu:.2f} s of CPU to grade"
        assert verification["score"] < 1.0, "a reply of noise never earns full marks"
        spent.append(cpu)
    return min(spent)


@pytest.mark.parametrize("shape", list(REPLY_SHAPES))
def test_grading_a_reply_of_any_shape_grows_linearly_with_its_length(graded_env, shape):
    env, tasks = graded_env
    task = tasks[list(REPLY_SHAPES).index(shape) % len(tasks)]
    small = _least_cpu(env, task, shape, 32 * KB)
    large = _least_cpu(env, task, shape, 256 * KB)
    growth = large / max(small, 1e-3)
    assert growth < GROWTH_LIMIT, (
        f"a 256 KB reply of {shape!r} took {large:.2f} s of CPU, {growth:.1f} times the 32 KB one ({small:.2f} s): "
        "grading is not linear in the reply"
    )


def test_the_grounding_check_still_names_unseen_facts_in_a_long_reply(graded_env):
    env, tasks = graded_env
    _, verification = _grade(env, tasks[0], long_reply("distinct ids", 256 * KB))
    assert verification["components"]["grounded"] < 1.0
    assert any("W1" in line for line in verification["details"]["grounded"]["ungrounded"])
