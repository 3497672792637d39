"""What a tool lets the agent claim, declared on `@tool(claims=...)` or derived from the tool itself.

A successful call of a write tool lets the agent say it did the tool's acts ("cancelled",
"refunded") to the records the tool acts on ("order"); a call of any tool lets it say it
checked. With nothing declared, the engine derives the acts from the tool's name (its first word:
`cancel_order` -> cancel; a light verb with an act noun: `make_payment` -> pay) and from its
description and parameter descriptions (the verbs that open a sentence or join one with "and"/
"or", and the acts stated done: "The full amount is refunded" -> refund; not those under a
condition or negation: "declined until unfrozen" adds no unfreeze). Its record nouns come from
its name, parameter names and description. So every domain, a scaffolded one included, gets the
claims check with nothing declared.

Declare `claims=("cancel", "refund")` (or "cancel refund") to replace the derived acts, or
`claims=Claims(actions=..., subjects=..., checks=...)` for all of it; `claims=()` lets a write's
success back no claim of an act.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from toolgym.errors import DomainError

from .claim_reading import Vocabulary, read_claims, vocabulary_of
from .claim_words import ACTION_NOUNS, LIGHT_VERBS, known_verbs, present_forms, singular

if TYPE_CHECKING:
    from .domain import Domain


@dataclass(frozen=True)
class Claims:
    """What a successful call lets the agent claim: acts (base verbs), the records acted on, and checks."""

    actions: frozenset[str] = frozenset()
    subjects: frozenset[str] | None = None  # None: derived from the tool (name, parameters, description)
    checks: bool = True  # a call lets the agent say it looked something up

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", frozenset(self.actions))
        if self.subjects is not None:
            object.__setattr__(self, "subjects", frozenset(self.subjects))


ClaimsSpec = Claims | str | Iterable[str] | None

_VERB = re.compile(r"^[a-z]+(?:_[a-z]+)?$")
_WORD = re.compile(r"[a-z]+")
# Verbs that carry their act in a noun: `make_payment` pays, `open_dispute` disputes.
_LIGHT_VERBS = {"make", "open", "add", "request", "file", "submit", "issue", "place", "create", "start", "do", "process",
                "set", "give", "apply", "put", "log", "raise"}
_STOP_WORDS = {"a", "an", "the", "of", "to", "for", "from", "in", "on", "at", "by", "with", "and", "or", "is", "are", "be",
               "it", "its", "this", "that", "one", "as", "id", "ids", "your", "you", "their", "his", "her", "any", "all",
               "not", "no", "such", "if", "only", "can", "must", "may", "each", "per", "when", "until", "new", "old"}
_SENTENCE_SPLIT = re.compile(r"[.;:()]\s*")
_MONEY_ACTS = {"refund", "pay", "charge", "transfer", "repay", "reimburse"}
_MONEY_NOUNS = {"payment", "refund", "money", "amount", "charge", "fee", "fund"}


def declare_claims(spec: ClaimsSpec, *, name: str, description: str, param_descriptions: dict[str, str], writes: bool) -> Claims:
    """The claims a tool allows: the declared ones, completed with what the tool itself shows."""
    if spec is None:
        actions = _default_actions(name, description, param_descriptions) if writes else frozenset()
        return Claims(actions, _subjects(name, description, param_descriptions, actions))
    if isinstance(spec, Claims):
        actions = _checked_verbs(name, spec.actions)
        subjects = spec.subjects if spec.subjects is not None else _subjects(name, description, param_descriptions, actions)
        return Claims(actions, subjects, spec.checks)
    if isinstance(spec, str):
        spec = spec.split()
    try:
        verbs = list(spec)
    except TypeError:
        raise DomainError(
            f"tool {name!r}: claims= takes verbs ('cancel refund' or ('cancel', 'refund')) or a Claims(...), got {spec!r}"
        ) from None
    actions = _checked_verbs(name, verbs)
    return Claims(actions, _subjects(name, description, param_descriptions, actions))


def _checked_verbs(tool: str, verbs: Iterable[Any]) -> frozenset[str]:
    known = known_verbs()
    checked = set()
    for verb in verbs:
        if not isinstance(verb, str) or not _VERB.match(verb):
            raise DomainError(
                f"tool {tool!r}: claim verb {verb!r} is not a verb in its base form (lowercase, two words joined by '_', "
                "such as 'cancel' or 'top_up')"
            )
        if verb not in known:
            close = difflib.get_close_matches(verb, known, n=1, cutoff=0.85)
            if close:
                raise DomainError(
                    f"tool {tool!r}: unknown claim verb {verb!r}; did you mean {close[0]!r}? "
                    "(a verb of your own is read with regular -ed forms)"
                )
        checked.add(verb)
    return frozenset(checked)


def _default_actions(name: str, description: str, param_descriptions: dict[str, str]) -> frozenset[str]:
    parts = name.lower().split("_")
    actions = {parts[0]}
    known = known_verbs()
    if parts[0] not in known and parts[0].startswith("re") and parts[0][2:] in known:
        actions.add(parts[0][2:])  # `reseat_sim` lets the agent say the SIM is seated
    if parts[0] in _LIGHT_VERBS:
        actions.update(ACTION_NOUNS[singular(p)] for p in parts[1:] if singular(p) in ACTION_NOUNS)
    for text in (description, *param_descriptions.values()):
        actions |= _described_verbs(text) - LIGHT_VERBS
    return frozenset(actions)


@lru_cache(maxsize=1024)
def _described_verbs(text: str) -> frozenset[str]:
    """Verbs a description gives as the tool's acts: sentence openers, verbs joined by and/or, acts stated done."""
    bases = _base_forms()
    found: set[str] = set()
    for sentence in _SENTENCE_SPLIT.split(text.lower()):
        words = _WORD.findall(sentence)
        for position, word in enumerate(words):
            opener = position == 0 or (words[position - 1] in ("and", "or") and position >= 2)
            purpose = position in (1, 2) and words[position - 1] == "to"  # a parameter's "True to add insurance"
            if (opener or purpose) and word in bases:
                found.update(bases[word])
    for claim in read_claims(text, _description_vocabulary()):
        if claim.kind == "action":
            found.update(claim.verbs)
    return frozenset(found)


@lru_cache(maxsize=1)
def _base_forms() -> dict[str, frozenset[str]]:
    forms: dict[str, set[str]] = {}
    for verb in known_verbs() - LIGHT_VERBS:
        if "_" not in verb:
            for form in present_forms(verb):
                forms.setdefault(form, set()).add(verb)
    return {form: frozenset(v) for form, v in forms.items()}


@lru_cache(maxsize=1)
def _description_vocabulary() -> Vocabulary:
    return vocabulary_of(known_verbs() - LIGHT_VERBS, descriptions=True)


def _subjects(name: str, description: str, param_descriptions: dict[str, str], actions: frozenset[str]) -> frozenset[str]:
    """The records a tool acts on: its name's nouns, its first id parameter's, and its description's first sentence.

    Later parameters and sentences name the instruments ("where the difference is refunded: ... a
    gift card"), not what is acted on: an exchange of items does not replace a card. A tool that
    moves money acts on payments and amounts too.
    """
    words = set(name.lower().split("_"))
    ids = [p for p in param_descriptions if p == "id" or p.endswith(("_id", "_ids"))]
    if ids:
        words.update(ids[0].lower().split("_"))
    words.update(_WORD.findall(_SENTENCE_SPLIT.split(description.lower(), maxsplit=1)[0]))
    if actions & _MONEY_ACTS:
        words.update(_MONEY_NOUNS)
    return frozenset(singular(w) for w in words if w not in _STOP_WORDS and len(w) > 2)


def _name_nouns(name: str, params: Iterable[str]) -> set[str]:
    words = set(name.lower().split("_")[1:])
    for param in params:
        words.update(param.lower().split("_"))
    return {singular(w) for w in words if w not in _STOP_WORDS and len(w) > 2}


@lru_cache(maxsize=64)
def claim_vocabulary(domain: Domain) -> Vocabulary:
    """What the claims of a domain's chats are read with: every known verb and every verb its tools declare."""
    verbs = set(known_verbs() - LIGHT_VERBS)
    nouns: set[str] = set()
    for tool in domain.tools.values():
        verbs |= tool.claims.actions
        nouns |= _name_nouns(tool.name, tool.params)
    # A record noun that no tool here acts on ("your plan" in a car) names nothing this domain changed.
    return vocabulary_of(verbs, nouns)
