"""A user's requests as one person says them in one chat: no sentence twice, one thanks per turn.

Generators build each request from parts drawn on their own (a lead-in, the ask, an aside), so two
requests of a chat can draw the same aside ("It's for a report." twice), and a lead-in that thanks
("Great, thank you.") can meet an aside that thanks too. `tidy_requests` drops the second saying:
only sentences a phrasebook writes whole (no slot, no digit), and only where the request keeps
something it asks.
A message quoted for sending ('post "Thanks all!"') is the user's cargo, never tidied.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
# Around a greeting, words that leave it a greeting: an interjection before ("Oh, hi!", "Hey,
# hello!") and whom it greets after ("Good evening, assistant.", "Hello, travel desk.", "Hey car.").
# For the patterns that tell a greeting from a request (the reasoning traces, the coherence check).
GREETING_LEAD = r"(?:(?:oh|hey|okay|ok),? )?"
GREETING_ADDRESSEE = r"(?:,? (?:there|again|dear|assistant|car|(?:[\w']+ )?(?:support|desk|team)))*"
# The full stop of a title before a name ("Mr. Matthew Edwards", "Dr. Ann Lee", "St. Louis") ends no
# sentence: a pattern that splits sentences puts this right after its end mark.
NOT_AFTER_TITLE = r"(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)"
_SENTENCE_END = re.compile(rf"(?<=[.!?]){NOT_AFTER_TITLE}\s+(?=\S)")
THANKS = re.compile(r"\b(?:thank you|thanks|thank u|thx|cheers for|grateful|i appreciate)\b", re.IGNORECASE)
# A sentence that does nothing but thank ("Thanks.", "Thank you, dear.", "Much appreciated.").
_ONLY_THANKS = re.compile(
    r"^(?:(?:great|brilliant|perfect|lovely|right|okay|ok|got it|oh),?\s+)?"
    r"(?:thanks|thank you|many thanks|thanks a lot|thanks a bunch|thanks so much|thank you so much|much appreciated|"
    r"appreciate it|cheers)(?: in advance| very much| again)?(?:,\s*\w+)?\s*[.!]*$",
    re.IGNORECASE,
)
_FACT = re.compile(r"\d")


@functools.lru_cache(maxsize=8192)  # a chat's sentences are compared with each other many times
def sentence_key(sentence: str) -> str:
    """A sentence as compared for repeats: lower case, words only."""
    return " ".join(re.sub(r"[^\w\s']", " ", sentence.lower()).split())


def sentences(text: str) -> list[str]:
    """The sentences of a request; a quoted message stays whole inside its sentence."""
    quotes: list[str] = []

    def hide(match: re.Match[str]) -> str:
        quotes.append(match.group(0))
        return f"\x00{len(quotes) - 1}\x00"

    masked = _QUOTED.sub(hide, text)
    restore = re.compile(r"\x00(\d+)\x00")
    return [restore.sub(lambda m: quotes[int(m.group(1))], s) for s in _SENTENCE_END.split(masked.strip()) if s]


def thanked_last(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the user's latest words in a chat thank ("Thank you very much.", not "Great."): what a
    closing line answers ("You're welcome", or "Good to hear")."""
    last = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), None)
    return isinstance(last, str) and thanks(last)


def thanks(text: str) -> bool:
    """Whether a message thanks, in any of its sentences outside a quoted message ('Cheers.' too)."""
    return any(THANKS.search(_unquoted(s)) or _ONLY_THANKS.match(s.strip()) for s in sentences(text))


def _unquoted(sentence: str) -> str:
    return _QUOTED.sub('"q"', sentence)


def _one_thanks(sentences: list[str]) -> list[str]:
    """The sentences with one thanks left: a thanks that says more ('I'd be grateful if ...') is kept
    over a bare 'Thanks.', and of bare ones the first."""
    thanking = [i for i, s in enumerate(sentences) if THANKS.search(_unquoted(s))]
    if len(thanking) < 2:
        return sentences
    bare = [i for i in thanking if _ONLY_THANKS.match(s := sentences[i].strip()) and not _QUOTED.search(s)]
    kept = next((i for i in thanking if i not in bare), bare[0] if bare else None)
    dropped = {i for i in bare if i != kept}
    return [s for i, s in enumerate(sentences) if i not in dropped]


def tidy_request(request: str, said: AbstractSet[str], fillers: AbstractSet[str]) -> str:
    """`request` with one thanks, and without the sentences in `said` (normalised, see `sentence_key`)
    that are `fillers`: sentences a phrasebook writes whole, with no slot (an aside, a lead-in), so no
    part of what is asked. A sentence rendered from a slot may be the request itself ("What is its
    fee?" asked of two products) and stays, unless it is a statement with no fact in it, said again
    while another sentence of the request still asks ("How long have I had the savings account? I
    need the opening date." after the same of the checking account)."""
    parts = _one_thanks(sentences(request))
    kept = _unrepeated(parts, said, lambda s: sentence_key(s) not in fillers or _FACT.search(s) or _QUOTED.search(s))
    if all(_ONLY_THANKS.match(s) for s in kept):  # nothing but thanks left: say it as it was
        return " ".join(parts)
    shorter = _unrepeated(parts, said, lambda s: s.rstrip().endswith("?") or _FACT.search(s) or _QUOTED.search(s))
    if any(sentence_key(s) not in fillers and not _ONLY_THANKS.match(s) for s in shorter):  # something is still asked
        return " ".join(shorter)
    return " ".join(kept)


def _unrepeated(parts: list[str], said: AbstractSet[str], keep: Callable[[str], object]) -> list[str]:
    """The sentences not said before (in `said` or earlier in `parts`), and those `keep` holds to."""
    heard = set(said)
    fresh = []
    for sentence in parts:
        key = sentence_key(sentence)
        if key not in heard or keep(sentence):
            fresh.append(sentence)
        heard.add(key)
    return fresh


def _from_lead(request: str, leads: AbstractSet[str], fillers: AbstractSet[str]) -> str:
    """A request that takes back the one before it, opening on its lead-in ("Sorry, I changed my
    mind."): the fillers a generator put before it ("Great, thank you. Another question.") go, since
    they say the opposite (thanks for a change the user just turned down, a new question). A lead-in
    may follow a filler or run into the request after a colon ("Also: Instead, here's what I want: ...")."""
    parts = sentences(request)
    for index, sentence in enumerate(parts):
        chunks = sentence.split(": ")
        at = next((j for j in range(len(chunks)) if sentence_key(chunks[j]) in leads), None)
        if at is None or not all(sentence_key(c) in fillers for c in chunks[:at]):
            continue
        head = [*parts[:index], *chunks[:at]]
        rest = [": ".join(chunks[at:]), *parts[index + 1 :]]
        if head and all(sentence_key(s) in fillers and not _FACT.search(s) for s in head):
            return " ".join(rest)
        return request
    return request


def tidy_requests(
    requests: list[str], fillers: AbstractSet[str], revising: AbstractSet[int] = frozenset(), leads: AbstractSet[str] = frozenset()
) -> list[str]:
    """Each request tidied against the ones before it (see `tidy_request`); a request whose index is
    in `revising` opens on its revision lead-in (`leads`, normalised) with nothing before it."""
    said: set[str] = set()
    tidied = []
    for index, request in enumerate(requests):
        if index in revising:
            request = _from_lead(request, leads, fillers)
        text = tidy_request(request, said, fillers)
        tidied.append(text)
        said |= {sentence_key(s) for s in sentences(text)}
    return tidied


def fixed_sentences(variants: list[str]) -> set[str]:
    """The sentences of the variants written whole (no Jinja in them), normalised: the fillers."""
    return {sentence_key(s) for v in variants if "{" not in v for s in sentences(v)}


def spoken_sentences(texts: list[str]) -> set[str]:
    """The normalised sentences of some user turns, each split on its own (a turn ending in a quoted
    message ends a sentence): what a simulated user has said or will say, so a reply picks other words."""
    return {key for text in texts for s in sentences(text) if (key := sentence_key(s))}
