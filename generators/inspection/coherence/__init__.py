"""Detectors for utterances that do not fit their turn (issue #22's classes).

Each detector reads one chat row (its messages, in order, with tool calls and reasoning) and
returns what it found there, as short quotes; a row counts once per class. Some need to know more
than the row says: which tools write, whether the domain has a hand-off, the task the row was
played from. They get it from a `Knowledge`; a class whose knowledge is missing is reported as
not measured rather than as zero.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..text import Row
from .base import REFUSING_KINDS, Knowledge, Message
from .claims import check_without_call, handoff_without_one
from .closings import (
    done_after_read_only,
    doubled_lead,
    doubled_thanks,
    greeting_out_of_place,
    talk_after_goodbye,
)
from .refusals import asked_what_user_lacks, invalid_without_offer
from .traces import empty_slot, greeting_as_evidence, trace_facts, trace_without_fact
from .user import _DELIGHT, customer_age, delight_after_refusal, register_mismatch, repeated_user_sentence
from .wording import mid_sentence_capital, word_clash

__all__ = [
    "DETECTORS",
    "REFUSING_KINDS",
    "_DELIGHT",
    "CoherenceTally",
    "Detector",
    "Knowledge",
    "Message",
    "asked_what_user_lacks",
    "check_without_call",
    "coherence_findings",
    "customer_age",
    "delight_after_refusal",
    "done_after_read_only",
    "doubled_lead",
    "doubled_thanks",
    "empty_slot",
    "greeting_as_evidence",
    "greeting_out_of_place",
    "handoff_without_one",
    "invalid_without_offer",
    "mid_sentence_capital",
    "register_mismatch",
    "repeated_user_sentence",
    "talk_after_goodbye",
    "trace_facts",
    "trace_without_fact",
    "word_clash",
]


@dataclass(frozen=True)
class Detector:
    name: str
    find: Callable[[Row, Knowledge], list[str] | None]
    what: str


DETECTORS: tuple[Detector, ...] = (
    Detector("empty_slot", empty_slot, "a template slot rendered empty or None"),
    Detector("greeting_as_evidence", greeting_as_evidence, "a reasoning trace cites a greeting, filler or aside as evidence"),
    Detector("trace_without_fact", trace_without_fact, "a reasoning trace names no fact seen earlier in the chat"),
    Detector("talk_after_goodbye", talk_after_goodbye, "a turn keeps talking after its goodbye"),
    Detector("done_after_read_only", done_after_read_only, "the closing line says something was done in a chat that changed nothing"),
    Detector("mid_sentence_capital", mid_sentence_capital, "a common word capitalised mid-sentence"),
    Detector("word_clash", word_clash, "words that clash where two parts meet ('appreciate you your time')"),
    Detector("doubled_thanks", doubled_thanks, "two thanking sentences in one turn"),
    Detector("doubled_lead", doubled_lead, "a turn that announces its answer twice, or opens saying twice that it is done"),
    Detector("greeting_out_of_place", greeting_out_of_place, "a user greeting anywhere but the start of the first turn; the agent's thanks for getting in touch after its first words"),
    Detector("check_without_call", check_without_call, "'let me check' in a turn that calls nothing"),
    Detector("delight_after_refusal", delight_after_refusal, "a user delighted by a refusal or an invalid-value notice"),
    Detector("repeated_user_sentence", repeated_user_sentence, "the same user sentence twice in one chat"),
    Detector("register_mismatch", register_mismatch, "a voice that does not fit the customer (age, persona)"),
    Detector("handoff_without_one", handoff_without_one, "a refusal offering people the policy sends no refusal to"),
    Detector("asked_what_user_lacks", asked_what_user_lacks, "asked for a fact the user just said they do not have"),
    Detector("invalid_without_offer", invalid_without_offer, "an invalid value answered without the valid value the task has"),
)


@dataclass
class CoherenceTally:
    rows: int = 0  # rows with at least one finding
    measured: bool = True  # False: the corpus lacks what the detector needs
    examples: list[str] = field(default_factory=list)


def coherence_findings(rows: Iterable[Row], know: Knowledge | None = None, examples: int = 3) -> dict[str, CoherenceTally]:
    """Per class: how many rows have it, and a few quotes."""
    know = know or Knowledge()
    found = {d.name: CoherenceTally() for d in DETECTORS}
    for row in rows:
        for detector in DETECTORS:
            tally = found[detector.name]
            hits = detector.find(row, know)
            if hits is None:
                tally.measured = False
                continue
            if hits:
                tally.rows += 1
                if len(tally.examples) < examples:
                    tally.examples.append(f"[{row.get('domain')}/{row.get('kind')}] {hits[0]}")
    return found
