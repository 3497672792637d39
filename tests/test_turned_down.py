"""The reply to a change the user turned down says what stays as it is, not only 'Sure, I won't do
it.': it names a record or figure the chat showed before the question (the bill still open, the card
still active, the booking still confirmed), or the thing the question was about (the doors, the
engine)."""

from __future__ import annotations

import re

import pytest

from toolgym.envs.gold import gold_messages
from toolgym.envs.registry import load_domain

# the domains whose changes of mind say what stays (retail's say it in its own revisions)
DOMAINS = ["telecom", "banking", "travel", "vehicle", "workplace"]
# a word that names something: a figure or id (a digit or '@' in it), or a capitalised name inside a sentence
_NAMING = re.compile(r"(?<![.!?:] )(?<!^)\b[A-Z][A-Za-z]+\b|[\w$.@-]*[\d@][\w.@-]*")


# words of the engine's "I'll leave it there." / "I won't go ahead with that." that a question may hold too
_PLAIN = {"that", "with", "then", "they", "were", "left", "this", "from", "your", "will", "there", "have"}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower())) - _PLAIN


def _named(text: str) -> set[str]:
    return {w.strip(".,;:") for w in _NAMING.findall(text)} - {"I", "I'm", "I've", ""}


@pytest.mark.parametrize("name", DOMAINS)
def test_the_reply_to_a_no_names_what_stays_as_the_chat_showed_it(name):
    domain = load_domain(name)
    checked = 0
    for task in domain.generate_tasks(150, seed=8, kinds=["multi_turn"], size="small"):
        taken_back = next((s for s in task.plan if s.declined and s.segment == 0), None)
        if not task.scenario.revisions or taken_back is None:
            continue
        messages = gold_messages(domain, task)[0]
        at = next(i for i, m in enumerate(messages) if m["role"] == "user" and m["content"] == task.scenario.requests[1])
        reply = messages[at - 1]["content"]
        before = " ".join(m["content"] or "" for m in messages[: at - 2])  # the chat before the user's no
        handoff = any(c.name == "transfer_to_human" for c in taken_back.calls)
        about = _words(taken_back.confirm or "") & _words(reply)
        # a hand-off turned down leaves no record to name: the user stays with the agent
        assert {w for w in _named(reply) if w in before} or about or (handoff and "with me" in reply), (task.id, reply)
        checked += 1
    assert checked >= 5, checked
