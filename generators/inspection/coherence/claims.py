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


def handoff_without_one(row: Row, know: Knowledge) -> list[str] | None:
    """A refusal that sends the user to people the domain does not have (`Domain(handoff=...)`
    declares who takes over what the agent cannot do; an acting chat's own hand-off tool is an act)."""
    if know.handoff is None:
        return None
    if row.get("kind") not in REFUSING_KINDS or know.handoff(str(row.get("domain"))):
        return []
    found = []
    for _, text in _said(row.get("messages") or [], "assistant"):
        match = _HANDOFF.search(text)
        if match:
            found.append(_quote(text, match.start()))
    return found
