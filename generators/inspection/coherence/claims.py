"""What the assistant says it does: checking without a call, handing off to people the domain lacks."""

from __future__ import annotations

import re

from ..text import Row
from .base import REFUSING_KINDS, Knowledge, _content, _quote, _said

# ---- what the assistant says it does -------------------------------------------------------------

_CHECKING = re.compile(
    r"\b(?:let me (?:check|look|see|pull|find|verify|take a look)|i'm (?:checking|looking (?:it )?up|pulling up)|"
    r"one moment while i|(?:just )?checking (?:that |it )?now|i'll (?:just )?(?:check|look)(?: that| it| into it)? "
    r"(?:now|right away|quickly))\b",
    re.IGNORECASE,
)


def check_without_call(row: Row, know: Knowledge) -> list[str]:
    """'Let me check' in a turn that makes no call."""
    found = []
    for message in row.get("messages") or ():
        if message.get("role") != "assistant" or message.get("tool_calls"):
            continue
        text = _content(message)
        match = _CHECKING.search(text)
        if match:
            found.append(_quote(text, match.start()))
    return found


_HANDOFF = re.compile(
    r"\b(?:human agent|live agent|a (?:real )?person(?!['’])|a colleague|a specialist|transfer you|hand (?:you|this) (?:over|off)|"
    r"support team|customer service|call (?:us|our)|a representative|service desk|IT desk|helpdesk|help desk|the dealer)\b",
    re.IGNORECASE,
)


# A clause that says the agent can't do something: a hand-off named there is the declined action
# ("I can't pass you to a colleague who handles lost bags"), not an offer of one.
_DECLINING = re.compile(r"\b(?:can't|cannot|can not|unable|not able|no tool)\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;!?:]\s+")


def handoff_without_one(row: Row, know: Knowledge) -> list[str] | None:
    """A refusal that offers to send the user to people where the domain's policy sends no refusal
    there (`Domain.refusal_handoff`); a hand-off named as the thing declined is not an offer."""
    if know.handoff is None:
        return None
    if row.get("kind") not in REFUSING_KINDS or know.handoff(str(row.get("domain"))):
        return []
    found = []
    for _, text in _said(row.get("messages") or [], "assistant"):
        ends = [m.end() for m in _CLAUSE_END.finditer(text)] + [len(text)]
        for start, end in zip([0, *ends], ends, strict=False):
            clause = text[start:end]
            match = _HANDOFF.search(clause)
            if match and not _DECLINING.search(clause):
                found.append(_quote(text, start + match.start()))
                break
    return found
