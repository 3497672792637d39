"""Closings, thanks and greetings: goodbyes, claims of done, thanks and greetings out of place."""

from __future__ import annotations

import re

from toolgym.envs.user_turns import THANKS

from ..text import Row, split_sentences
from .base import _QUOTED, Knowledge, Message, _quote, _said

# ---- closings, thanks and greetings -------------------------------------------------------------

_FAREWELL = re.compile(
    r"^(?:(?:and |so )?(?:bye|goodbye|good bye|bye for now|take care|all the best|cheers|speak soon|talk soon|"
    r"have a (?:great|good|nice|lovely|wonderful) (?:day|one|week|evening|weekend|trip|drive|flight)|"
    r"enjoy the rest of your day|stay well|keep well|good luck with everything|goodbye for now|safe travels|drive safely)"
    r"|[^.!?]*,\s*(?:and )?(?:bye|goodbye|bye for now|take care|all the best|cheers|speak soon|talk soon|stay well|keep well|"
    r"have a (?:great|good|nice|lovely|wonderful) (?:day|one|week)|goodbye for now|good luck with everything|"
    r"enjoy the rest of your day))[.!]*$",
    re.IGNORECASE,
)


def talk_after_goodbye(row: Row, know: Knowledge) -> list[str]:
    """A turn that says goodbye and then keeps talking."""
    found = []
    for _, text in [*_said(row.get("messages") or [], "assistant"), *_said(row.get("messages") or [], "user")]:
        text = _QUOTED.sub('"q"', text)  # a message quoted for sending may end with its own sign-off
        sentences = split_sentences(text)
        for sentence in sentences[:-1]:
            if _FAREWELL.match(sentence):
                found.append(_quote(text, text.find(sentence)))
                break
    return found


_DONE_CLAIM = re.compile(
    r"\b(?:done on our side|taken care of|all (?:done|set)|is (?:complete|sorted|settled|finished|wrapped up)|"
    r"(?:everything|it's all|all of it|that part|your request) is (?:in order|done|sorted|complete|finished)|"
    r"(?:is|are|has been|have been) (?:updated|changed|processed|completed)|we discussed is)\b",
    re.IGNORECASE,
)


_NEGATED = re.compile(r"\b(?:nothing|no|not|never|none)\b|n't\b", re.IGNORECASE)


def _calls(messages: list[Message]) -> list[str]:
    """The tools called, by the assistant or on the user's device."""
    return [
        str((c.get("function") or {}).get("name") or c.get("name"))
        for m in messages
        for c in [*(m.get("tool_calls") or ()), *(m.get("user_tool_calls") or ())]
    ]


def done_after_read_only(row: Row, know: Knowledge) -> list[str] | None:
    """The closing line says something was done, in a chat that changed nothing."""
    if know.writes is None:
        return None
    messages = row.get("messages") or []
    domain = str(row.get("domain"))
    if any(know.writes(domain, name) for name in _calls(messages)):
        return []
    said = _said(messages, "assistant")
    if not said or not messages or messages[-1].get("role") != "assistant":
        return []
    last = said[-1][1]
    claims = [s for s in split_sentences(last) if _DONE_CLAIM.search(s) and not _NEGATED.search(s)]
    return [_quote(claims[0])] if claims else []


# a phrase quoted in single marks ("how to say 'thank you' in Swahili"), not an apostrophe ("I'm")
_SINGLE_QUOTED = re.compile(r"(?<!\w)'[^']{1,60}'(?!\w)")


def doubled_thanks(row: Row, know: Knowledge) -> list[str]:
    """Two sentences of one turn that both thank (a message quoted for sending thanks its own readers,
    and a phrase quoted to be translated is no thanks)."""
    found = []
    for role in ("assistant", "user"):
        for _, text in _said(row.get("messages") or [], role):
            unquoted = _SINGLE_QUOTED.sub("'q'", _QUOTED.sub('"q"', text))
            thanking = [s for s in split_sentences(unquoted) if THANKS.search(s)]
            if len(thanking) >= 2:
                found.append(f"[{role}] " + _quote(text))
    return found


# A sentence that announces what follows ("Here's what I found:"), and the words that say a change is done
_ANNOUNCED = re.compile(  # a sentence that announces, where it starts or after a lead ("I found it, here's the result.")
    r"\b(?:here'?s (?:what|the)|here is (?:what|the)|here it is|here they are|here are|let me (?:share|tell you) what|"
    r"this is what|the results are in)\b",
    re.IGNORECASE,
)
_DONE_WORD = re.compile(r"\b(?:done|(?:gone|went) through|finished|completed)\b", re.IGNORECASE)
_TWO_DONE_CLAUSES = re.compile(r"\bthat's (?:done|finished|completed)\b.*\bthat's (?:done|finished|completed)\b", re.IGNORECASE)


def _says_done_twice(sentence: str) -> bool:
    """"That's gone through, it went through fine.", "Right, that's done, that's finished." (not "Done and
    done!", a set phrase, nor "All done, it went through fine.", two different words)."""
    roots = [word.lower().replace("gone", "went") for word in _DONE_WORD.findall(sentence)]
    repeated = len(roots) != len(set(roots)) and "done and done" not in sentence.lower()
    return repeated or bool(_TWO_DONE_CLAUSES.search(sentence))


def doubled_lead(row: Row, know: Knowledge) -> list[str]:
    """An agent turn that announces its answer twice ("Here's what I see. Here's what I found: ...") or
    opens by saying twice that it is done ("That's gone through, it went through fine.")."""
    found = []
    for _, text in _said(row.get("messages") or [], "assistant"):
        sentences = split_sentences(_QUOTED.sub('"q"', text))
        if len(sentences) >= 2 and _ANNOUNCED.search(sentences[0]) and _ANNOUNCED.match(sentences[1]):
            found.append(_quote(text))
        elif sentences and _says_done_twice(sentences[0]):
            found.append(_quote(text))
    return found


_GREETING_START = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|morning|evening|dear [\w ]+?)(?: there| again| hello)?\b[,.!]",
    re.IGNORECASE,
)


_THANKS_FOR_CONTACT = re.compile(
    r"\bthanks? (?:you )?for (?:reaching out|getting in touch|contacting us)\b|\bglad you got in touch\b", re.IGNORECASE
)


def greeting_out_of_place(row: Row, know: Knowledge) -> list[str]:
    """A user's greeting anywhere but the start of their first turn (a later request, after the id);
    the agent's thanks for getting in touch (or gladness at it) anywhere but its first words."""
    found = []
    messages = row.get("messages") or []
    for order, (_, text) in enumerate(_said(messages, "user")):
        for match in _GREETING_START.finditer(text):
            if order > 0 or match.start() > 0:
                found.append(_quote(text, match.start()))
                break
    for _, text in _said(messages, "assistant")[1:]:
        thanks = _THANKS_FOR_CONTACT.search(text)
        if thanks:
            found.append(_quote(text, thanks.start()))
    return found
