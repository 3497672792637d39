"""Which of the user's sentences a reasoning trace quotes as the request ('The user asked "..."'):
the latest that asks for something, never a greeting, an aside or the line that identifies the user,
and, given what the step is about, the sentence that speaks of it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from toolgym.envs.phrasebook import Phrasebook
from toolgym.envs.task import Task
from toolgym.envs.user_turns import GREETING_ADDRESSEE, GREETING_LEAD, NOT_AFTER_TITLE, sentence_key

# A sentence that carries no request: a greeting, thanks, an acknowledgement, the identity line.
_FILLER = re.compile(
    rf"^{GREETING_LEAD}(?:(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening|day)|morning|evening|greetings|dear [\w ]+|assistant)"
    rf"{GREETING_ADDRESSEE}|"
    r"thanks?(?: you)?(?: so much| a lot)?|ok(?:ay)?|sure|yes|no|right|great|perfect|cool|alright|all right|"
    r"one (?:more )?thing|quick question|quick one|before i forget|excuse me|sorry|please|pardon|one second|hello hello|of course|no worries|no problem|sure thing|got it|"
    r"understood|fine|sounds good|will do|noted|thank you very much|many thanks|brilliant|lovely|wonderful)\b[^a-z0-9]*$|^for verification\b|^(?:my|the) (?:full name|name|email(?: address)?|phone(?: number)?) is\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(rf"(?<=[.!?]){NOT_AFTER_TITLE}\s+")
_QUOTE_MOST = 90  # characters of a user's sentence a trace quotes
# Words a quote cut short must not end on ("... fares from Mexico City to", "... Susan Wilson called")
_DANGLING = re.compile(
    r"(?:[\s,]+(?:to|from|for|and|or|but|with|of|in|on|at|by|the|a|an|my|your|our|this|that|which|who|"
    r"called|named|titled|ending|about|into|than|as|is|are|was|be|so|if|when|please))+$",
    re.IGNORECASE,
)
_REFERENT_MOST = 150  # a short request and the sentence naming what it asks about, quoted together
_QUOTE_LEAST = 8  # shorter sentences ("Ok.", "Do it.") carry no request worth quoting


_ASKS = re.compile(
    r"\?|\b(?:please|can you|could you|would you|i'd like|i would like|i want|i need|help me|make sure|"
    r"set|turn|cancel|book|add|change|send|pay|move|check|find|open|close|share|block|freeze)\b",
    re.IGNORECASE,
)


# A sentence that sets a condition with its alternative ("Use my points if I have enough, otherwise my
# card.") says how a request is to be done, not what it is: the request is the sentence it qualifies.
_RIDER = re.compile(r"\b(?:otherwise|or else|else|if not)\b|\bif\b[^.?!]*\bfall short\b", re.IGNORECASE)
_RIDER_EXCEPT = re.compile(r"\b(?:any|some|no|every)(?:one|body|thing|where) else\b|\bwhat else\b", re.IGNORECASE)


# A sentence that only points to a page ("I have https://... open.") gives where to look, not what
# is asked: "open" there is no request.
_POINTS_TO_A_PAGE = re.compile(r"^[^?]*://[^?]*$")
# A lead-in that only says which pages to go by ("According to https://...: How high is ...?"): the
# request is what follows it, and a quote that spends its length on the address says nothing of it.
_PAGE_LEAD = re.compile(r"^[^?]*://[^\s?]+:\s+(?=\S)")  # the colon right after an address


@dataclass(frozen=True)
class RequestCues:
    """What tells a task's request apart in the chat: the `requests` the user sends, the values that
    only identify the user (`identity`) and the phrasebook's `asides` (sentences that frame a turn:
    openings, asides, the lead-in of a next request; see `Phrasebook.asides`)."""

    requests: Sequence[str] = ()
    identity: Sequence[str] = ()
    asides: AbstractSet[str] = frozenset()
    links: Sequence[str] = ()  # what joins a request on or leads into it ("After that:"): not its own words
    sequence_links: Sequence[str] = ()  # the links of requests done in turn: where a message splits into parts
    also_links: Sequence[str] = ()  # the links of a second question asked with the first ("Also:")

    @classmethod
    def of(cls, task: Task, phrases: Phrasebook) -> RequestCues:
        keys = set(task.scenario.identity)
        identity = [str(f.value) for f in task.scenario.facts if f.key in keys and str(f.value)]
        return cls(task.scenario.requests, identity, phrases.asides, phrases.lead_links, phrases.sequence_links,
                   phrases.also_links)

    def part_of(self, content: str, part: int | None) -> str:
        """The `part`-th of the things a message asks in turn (`Step.part`), split where a sequence
        link joins the next on; the whole message when it has no such part."""
        if part is None or not self.sequence_links:
            return content
        parts = _splitter(tuple(self.sequence_links)).split(content)
        return parts[part] if len(parts) > 1 and part < len(parts) else content

    def half_of(self, content: str, half: int) -> str:
        """The first (0) or second (1) of two questions a message asks together, split where a link
        joins the second on ("... cost me? Second question: Can you ..."); the whole message when no
        link does."""
        if not self.also_links:
            return content
        halves = _splitter(tuple(self.also_links)).split(content, maxsplit=1)
        return halves[half] if len(halves) == 2 else content

    def unlinked(self, sentence: str) -> str:
        """The sentence without a link that joins it on ("And when you've done that: Cool down the rear"),
        in any case: a persona that types in lower case writes "and lastly: I'd like ..."."""
        for link in self.links:
            if sentence[: len(link)].lower() == link.lower() and len(sentence) > len(link) + 1:
                return sentence[len(link):].lstrip()
        return sentence

    def rank(self, sentence: str) -> tuple[bool, bool, bool, bool]:
        """Lower is likelier the request: not an identity line, no aside that frames the turn
        ("Please go slowly with me." asks, but not for the task), no rider that only says how
        ("..., otherwise my card."), asking. A request may be written whole ("Turn my line back on,
        please.") or put together: both are its own words."""
        return (
            any(value in sentence for value in self.identity),
            sentence_key(sentence) in self.asides,
            _is_rider(sentence),
            not _ASKS.search(sentence) or _POINTS_TO_A_PAGE.search(sentence) is not None,
        )


def _is_rider(sentence: str) -> bool:
    return _RIDER.search(_RIDER_EXCEPT.sub("", sentence)) is not None


@functools.cache
def _splitter(links: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\s+(?:" + "|".join(map(re.escape, links)) + r")\s+", re.IGNORECASE)


def user_request(messages: list[dict[str, Any]], cues: RequestCues | None = None, about: str = "", part: int | None = None,
                 half: int | None = None) -> str:
    """The user's latest sentence that asks for something, quoted ('"I'd like to cancel order #W1."'):
    a question or a request before a remark ("Long day."), never a greeting or a thanks; empty when
    the user has said nothing of substance.

    Given a task's `cues`, only its requests are read (not a reply that gives facts or says yes), and
    the request's own words come before an aside ("Please don't send me to another department.")
    or an identity line ("To find my account, my number is 512-393-3628."). Given what the step is
    `about` (its tool and what it does), of a message's requests the one that speaks of it is quoted:
    an ask for the region quotes "Is there an outage in my area?", not the payment asked before it.
    Given the `part` of a message that asks several things in turn (`Step.part`), only that part is read;
    given the `half` of a message that asks two questions together, only that half."""
    cues = cues or RequestCues()
    asked = [m for m in messages if m.get("role") == "user" and m.get("content") in cues.requests]
    for message in reversed(asked or messages):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, str):
            continue
        if asked:
            content = cues.part_of(content, part)
            if half is not None:
                content = cues.half_of(content, half)
        sentences = [_without_page_lead(_unwrapped(cues.unlinked(s.strip()))) for s in _SENTENCE_END.split(content.replace("###STOP###", "").strip())]
        substantive = [s for s in sentences if len(s) >= _QUOTE_LEAST and not _FILLER.search(s)]
        if not substantive:
            continue
        topic = _stems(about)
        # a sentence that speaks of the step comes before one that only asks ("The temperature behind
        # me needs changing." is the request an ask for the temperature serves, not "Window down, please.")
        ranks = {s: _ranked(cues.rank(s), len(topic & _stems(s)) if topic else 0) for s in substantive}
        best = min(ranks.values())
        tied = [s for s in substantive if ranks[s] == best]
        # the first that asks; when nothing asks ("Nothing works on my phone. I'm in Chicago."), the longest says most
        chosen = max(tied, key=len) if best[-1] else tied[0]
        sentence = _with_referent(chosen, substantive, cues, content)
        if (sentence == chosen and (after := _next_of(chosen, substantive)) and cues.rank(after) == _ASKS_ITSELF
                and _PLAINLY_ASKS.search(after)):
            # the sentence a short request after it points back to ("I've tried to open the account in
            # the app. What's in it?"): the two together say what is asked (a remark after it, "I really
            # appreciate it." or "I can't find it, but it's at home.", asks nothing)
            together = _with_referent(after, substantive, cues, content)
            both = f"{chosen} {after}"
            if (together == after and after.endswith("?") and not _PLAINLY_ASKS.search(chosen)
                    and len(both) <= _REFERENT_MOST and both in content):
                # a remark that only holds a request's verb ("We're about to move.") and the question
                # after it ("Can the address on my account be changed?") say what is asked together
                # (an order after it, "The window down, please.", is a request of its own)
                together = both
            sentence = together if together != after else sentence
        return f'"{quotable(sentence, _REFERENT_MOST if sentence != chosen else _QUOTE_MOST)}"'

    return ""


# A short request whose object is a pronoun ("Can I still add it?", "I want to dispute it."): it
# names what it asks about in the sentence before.
_NEEDS_REFERENT = re.compile(r"\b(?:it|them|this one|that one)\b(?!'s| is\b| was\b)", re.IGNORECASE)  # not "It's too hot"
_SHORT_REQUEST = 10  # words
_BARE_REQUEST = 5  # words of a request that may name nothing of its own ("Please open a dispute.")
_SPECIFIC = re.compile(r"\d|\b[A-Z][a-z]")  # a figure or a name: what a bare request leaves to the sentence before


def quotable(text: str, most: int = _QUOTE_MOST) -> str:
    """`text` as a trace quotes it: at most `most` characters, cut between words and marked " …" (a
    quote cut short never reads as all that was said), and its own double quotes made single (a
    quoted title inside the quote: '"Post "Q2 plan"."' misreads)."""
    if len(text) > most:
        cut = text[:most]
        if cut.count('"') % 2:  # the cut falls inside a quoted title: it stops before the title
            cut = cut[: cut.rindex('"')]
        text = _DANGLING.sub("", cut.rsplit(" ", 1)[0].rstrip(",;:")).rstrip(",;: ") + " …"
    return text.replace('"', "'")


def _with_referent(sentence: str, substantive: list[str], cues: RequestCues, content: str) -> str:
    """The sentence, after the one before it when it speaks of what that one names ('"I forgot the
    insurance on FB100288. Can I still add it?"', not '"Can I still add it?"'), as long as both fit
    in a quote of `_REFERENT_MOST` characters ("I want to dispute it." alone says nothing of the Uber
    charge), the one before is the request's own words (not an aside or the identity line) and
    the two stand side by side in the message `content` (no link or filler between them)."""
    index = substantive.index(sentence)
    if index == 0 or len(sentence.split()) > _SHORT_REQUEST:
        return sentence
    before = substantive[index - 1]
    # a pronoun points back ("Can I still add it?"); so does a bare request that names nothing
    # ("Please open a dispute.") after a remark that names what it is about (the charge, its amount)
    bare = len(sentence.split()) <= _BARE_REQUEST and not _SPECIFIC.search(sentence[1:])
    if not (_NEEDS_REFERENT.search(sentence) or (bare and _SPECIFIC.search(before[1:]) and not _PLAINLY_ASKS.search(before))):
        return sentence
    identity, aside, _, _ = cues.rank(before)
    joined = f"{before} {sentence}"
    if identity or aside or len(joined) > _REFERENT_MOST or joined not in content:
        return sentence
    return joined


_ASKS_ITSELF = (False, False, False, False)  # RequestCues.rank of a sentence that asks, in the request's own words
# A sentence that asks outright: a question, a plea or a wish ("Please check it.", "I want to dispute
# it."), an order ("Block it and replace it."); a request's verb inside a remark ("I can't find it")
# asks nothing.
_PLAINLY_ASKS = re.compile(
    r"\?\s*$|\b(?:please|can you|could you|would you|i'd like|i would like|i want|i need|help me)\b|"
    r"^(?:set|turn|cancel|book|add|change|send|pay|move|check|find|open|close|share|block|freeze|report|replace)\b",
    re.IGNORECASE,
)


def _next_of(sentence: str, substantive: list[str]) -> str:
    """The sentence after `sentence` among a message's substantive ones ('' for the last)."""
    index = substantive.index(sentence)
    return substantive[index + 1] if index + 1 < len(substantive) else ""


def _without_page_lead(sentence: str) -> str:
    """The sentence after a lead-in that only names the pages to go by, when what follows is a
    request long enough to quote."""
    rest = _PAGE_LEAD.sub("", sentence, count=1)
    return rest if len(rest) >= _QUOTE_LEAST else sentence


def _unwrapped(sentence: str) -> str:
    """A sentence without the quotation marks around it whole ('"Cancel it."'); a title it quotes
    ('"Prepare the access request" is done.') keeps its marks."""
    sentence = sentence.strip()
    if len(sentence) > 1 and sentence[0] == sentence[-1] == '"' and sentence.count('"') == 2:
        return sentence[1:-1]
    return sentence


def _ranked(rank: tuple[bool, bool, bool, bool], topical: int) -> tuple[bool, bool, bool, int, bool]:
    """A sentence's rank with how much it speaks of the step put before whether it asks."""
    return rank[0], rank[1], rank[2], -topical, rank[3]


_WORD = re.compile(r"[a-z]{4,}")
# Words any step or request may say: they tell no topic apart.
_COMMON = frozenset("with from that this your have what when there their about into will would could make"
                    " find look check take give tell need want like know user customer account".split())


def _stems(text: str) -> frozenset[str]:
    """The words a text speaks of, four letters or more, with one ending dropped where four letters
    stay: 'serviced' and 'service' are 'servic', 'outages' and 'outage' are 'outag'."""
    return frozenset(_stem(w) for w in _WORD.findall(text.lower()) if w not in _COMMON and w[:-1] not in _COMMON)


_ENDINGS = ("ing", "ed", "es", "s", "e")


def _stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4 and not word.endswith("ss"):
            return word[: -len(ending)]
    return word

