"""Every domain's generators use the judgement structures of envs/structures.py, and each one's
spoil (a guess among candidates, a call of a request taken back, a question for an id a lookup
finds) scores below 1.0 there too. A few tasks a domain: the first of each structure in a short draw."""

from __future__ import annotations

import pytest

import toolgym
from toolgym.envs.task import Task
from toolgym.verifiers.choice_spoils import abandoned_request, asked_for_lookup, guessed_choice

from .spoil_checks import gold_passes_and_spoil_fails

DOMAINS = ("retail", "telecom", "banking", "travel", "workplace", "vehicle")
DRAW = 40  # tasks of a kind drawn to find one of each structure (about a third of multi_turn revise)


def _first(name: str, kind: str, has) -> Task:
    domain = toolgym.load_domain(name)
    for task in domain.iter_tasks(DRAW, seed=11, kinds=[kind]):
        if has(task):
            return task
    raise AssertionError(f"{name} {kind}: none of {DRAW} tasks has the structure")


@pytest.mark.parametrize("name", DOMAINS)
def test_multi_turn_revisions_are_followed_and_the_abandoned_request_fails(name):
    task = _first(name, "multi_turn", lambda t: bool(t.scenario.revisions))
    revision = task.scenario.revisions[0]
    assert revision.abandoned and revision.segment >= 1
    assert not set(map(repr, task.gold_calls())) & set(map(repr, revision.abandoned))  # the gold never makes them
    gold_passes_and_spoil_fails(name, task, abandoned_request)


@pytest.mark.parametrize("name", ["retail", "banking", "workplace", "vehicle"])
def test_choices_name_the_candidates_and_a_guess_fails(name):
    task = _first(name, "multi_step", lambda t: any(s.choice for s in t.plan))
    assert task.difficulty is not None and task.difficulty.candidates >= 1
    gold_passes_and_spoil_fails(name, task, guessed_choice)


@pytest.mark.parametrize("name", ["retail", "banking", "travel", "vehicle"])
def test_lookups_are_made_and_asking_for_the_id_scores_below_one(name):
    task = _first(name, "multi_step", lambda t: bool(t.scenario.lookups))
    gold_passes_and_spoil_fails(name, task, asked_for_lookup)
