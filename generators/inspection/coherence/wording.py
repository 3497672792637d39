"""Grammar the older detectors miss: a capital mid-sentence, words that clash where two parts meet."""

from __future__ import annotations

import re

from ..text import Row, split_sentences
from .base import _QUOTED, Knowledge, _quote, _said

# ---- grammar the older detectors miss -----------------------------------------------------------

# A word that is never a name, capitalised in the middle of a sentence: "I will Pay", "because An"
# ("May" is not one: a month and a surname).
_NEVER_CAPITAL = (
    "The|A|An|Your|My|Our|Their|His|Her|Its|This|These|Those|It|We|They|He|She|Because|And|But|Or|If|When|"
    "Is|Are|Was|Were|Be|Has|Have|Had|Do|Does|Did|Will|Would|Can|Could|Should|Shall|Must|Please|Thanks|Thank"
)
# ... and a verb capitalised right after the word that governs it ("I will Pay", "to Cancel")
_VERBS = (
    "Pay|Cancel|Book|Send|Move|Change|Set|Turn|Share|Add|Remove|Update|Transfer|Open|Close|Check|Find|Block|Freeze|"
    "Unfreeze|Schedule|Reschedule|Create|Delete|Reply|Forward|Accept|Decline|Return|Exchange|Refund|Upgrade|Switch|"
    "Lock|Unlock|Start|Stop|Enable|Disable|Request|Report|Dispute|Apply|Make|Give|Get|Put|Keep|Let|Mark|Rename"
)
_MID_CAPITAL = re.compile(
    rf"(?<=[a-z,]) (?!A to [A-Z]\b)(?:{_NEVER_CAPITAL}) (?=[a-z$0-9#])|"  # "letters A to F" is a range, not a slip
    # a capitalised word before another is a name ("send it to Mark Newton"), not a verb
    # ("Switch to Mark's driver profile": a verb takes no "'s")
    rf"\b(?:I|we|will|would|can|could|to|please|then|should|shall|must|I'll|I'd|we'll) (?:{_VERBS})\b(?! [A-Z]|')|"
    # the sentence goes on after a quoted message: 'put "q" In #general' (a word that opens no sentence)
    r"(?<=\"q\") (?:In|On|To|For|At|With|From|Into|Of|By)\b(?= [a-z#$0-9])"
)


_FULL_NAME = re.compile(r"\b([A-Z][a-z]+) [A-Z][a-z]+")


def _first_names(row: Row, know: Knowledge) -> frozenset[str]:
    """First names of the people the task's goal names ('Pay $650.00 to Mark Williams'): a user who
    says 'send it to Mark' names a payee, not a verb."""
    task = know.task(row.get("task_id")) if know.task is not None else None
    return frozenset(_FULL_NAME.findall(task.scenario.goal)) if task is not None else frozenset()


def mid_sentence_capital(row: Row, know: Knowledge) -> list[str]:
    """A common word capitalised in the middle of a sentence (a fragment said as if a sentence began)."""
    found = []
    names = _first_names(row, know)
    for role in ("assistant", "user"):
        for _, text in _said(row.get("messages") or [], role):
            for sentence in split_sentences(_QUOTED.sub('"q"', text)):
                match = next((m for m in _MID_CAPITAL.finditer(sentence) if m.group(0).split()[-1] not in names), None)
                if match:
                    found.append(f"[{role}] " + _quote(sentence, match.start()))
                    break
    return found


_CLASH = re.compile(
    r"\byou your\b|\byou's\b|\bmy your\b|\byour my\b|\bto do from you\b|\bappreciate you (?:your|the)\b|"
    r"\b(?:can't|cannot|to) (?:request|send|pay|get|check|see) (?:statement|bill|balance|refund|card|account)\b",
    re.IGNORECASE,
)
_DOUBLE_DETERMINER = re.compile(r"\b(?:[Aa]|[Tt]he) (?:a|an|the|my|your)\b")  # "the a", "a your"; not "the A/C"


def word_clash(row: Row, know: Knowledge) -> list[str]:
    """Words that clash where two parts meet: 'appreciate you your time', 'account with you's statement'."""
    found = []
    for role in ("assistant", "user"):
        for _, text in _said(row.get("messages") or [], role):
            match = _CLASH.search(text) or _DOUBLE_DETERMINER.search(text)
            if match:
                found.append(f"[{role}] " + _quote(text, match.start()))
    return found
