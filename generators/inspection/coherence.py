"""Detectors for utterances that do not fit their turn (issue #22's classes).

Each detector reads one chat row (its messages, in order, with tool calls and reasoning) and
returns what it found there, as short quotes; a row counts once per class. Some need to know more
than the row says: which tools write, whether the domain has a hand-off, the task the row was
played from. They get it from a `Knowledge`; a class whose knowledge is missing is reported as
not measured rather than as zero.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from toolgym.envs.user_turns import GREETING_ADDRESSEE, GREETING_LEAD, THANKS, sentence_key

from .text import Row, split_sentences

Message = dict[str, Any]
REFUSING_KINDS = ("no_tool/invalid_value", "no_tool/policy_refusal", "no_tool/unavailable", "no_tool/irrelevant",
                  "no_tool/missing_info")  # fmt: skip


@dataclass
class Knowledge:
    """What detectors may know beyond the row: each None when the corpus cannot tell."""

    writes: Callable[[str, str], bool] | None = None  # (domain, tool name) -> whether it changes the world
    handoff: Callable[[str], bool] | None = None  # domain -> whether it declares a hand-off to people
    task: Callable[[Any], Any] | None = None  # task id -> its Task (None when not held), when the corpus holds tasks
    asides: Callable[[str], AbstractSet[str]] | None = None  # domain -> its asides (Phrasebook.asides)


def _content(message: Message) -> str:
    content = message.get("content")
    return content.replace("###STOP###", "").strip() if isinstance(content, str) else ""


def _said(messages: list[Message], role: str) -> list[tuple[int, str]]:
    return [(i, _content(m)) for i, m in enumerate(messages) if m.get("role") == role and _content(m)]


def _quote(text: str, at: int = 0, width: int = 90) -> str:
    start = max(0, at - width // 3)
    return ("..." if start else "") + text[start : start + width].replace("\n", " ") + ("..." if start + width < len(text) else "")


# ---- slots and traces ---------------------------------------------------------------------------

# What an empty or missing slot leaves behind: a mark straight after a colon or a bracket, "None",
# a word that needs a continuation right before a full stop ("because.", "the."), or a verb's slot
# missing between words ("it can a profile", "To I'd need", "Next I a profile", "to right now").
_EMPTY_SLOT = re.compile(
    r"[:;(]\s*[.,;:!?)]|\(\s*\)|\bNone\b(?! of)|\bnull\b|\{\{|\}\}|\b(?:to|To)\s+I\b|(?<!\d )\bto (?:right now|at the moment|today)\b|"
    r"\b(?:it|which|that|they) (?:can|could|will|would) (?:a|an|the|your|my)\b|\bI (?:a|an|the|your)\b|"
    r"\b(?:because|since|the|an|your|my|their)\s*[.,;:!?](?!\w)"
)


def empty_slot(row: Row, know: Knowledge) -> list[str]:
    found = []
    for message in row.get("messages") or ():
        if message.get("role") not in ("assistant", "user"):
            continue
        for text in (message.get("content"), message.get("reasoning_content")):
            match = _EMPTY_SLOT.search(_QUOTED.sub('"q"', text)) if isinstance(text, str) else None
            if match:
                found.append(_quote(_QUOTED.sub('"q"', text), match.start()))
    return found


_GREETING = re.compile(
    rf"^{GREETING_LEAD}(?:(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening|day)|morning|evening|greetings|dear [\w ]+|assistant)"
    rf"{GREETING_ADDRESSEE}|"
    r"hello (?:there|again|hello)|hi there|thanks|thank you|ok(?:ay)?|done|right|sure|yes|no|quick one|"
    r"before i forget|one more thing|no worries|of course|great|perfect|cool|got it|alright|all right|cheers|brilliant|"
    r"lovely|wonderful|please|sorry|excuse me|hey there|bye|goodbye|that's all|that's it)[.!?,]*$",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"]{1,300})\"|“([^”]{1,300})”")


def _quotes(text: str) -> list[str]:
    return [a or b for a, b in _QUOTED.findall(text)]


def _quoted_words(text: str) -> list[str]:
    """The words a trace quotes, a cut quote without its closing '…'."""
    return [q.removesuffix("…").strip() for q in _quotes(text)]


def _marks_as_one(text: str) -> str:
    """Double quotation marks read as single: a trace quotes the user's quoted title with single marks."""
    return text.replace('"', "'")


def _traces(messages: list[Message]) -> list[tuple[int, str]]:
    return [
        (i, m["reasoning_content"].strip())
        for i, m in enumerate(messages)
        if m.get("role") == "assistant" and isinstance(m.get("reasoning_content"), str) and m["reasoning_content"].strip()
    ]


def greeting_as_evidence(row: Row, know: Knowledge) -> list[str]:
    """A trace that quotes a greeting, a thanks, filler or an aside that frames the user's turn
    ("Please go slowly with me.") as what it acts on."""
    found = []
    messages = row.get("messages") or []
    asides = know.asides(str(row.get("domain"))) if know.asides is not None else frozenset()
    for index, trace in _traces(messages):
        # a word the turn's own call passes (a search for "morning") is what it acts on, not a greeting
        arguments = json.dumps([c.get("function", c).get("arguments") for c in messages[index].get("tool_calls") or ()]).lower()
        weak = [q for q in _quotes(trace)
                if (_GREETING.match(q.strip()) or sentence_key(q) in asides) and q.strip().lower() not in arguments]
        if weak:
            found.append(f"{trace[:160]} (cites {weak[0]!r})")
    return found


_FACT_TOKEN = re.compile(r"[\w.+-]*\d[\w./:+-]*|[\w.+-]+@[\w.-]+|#\w+|\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")


def trace_facts(trace: str) -> list[str]:
    """What a trace names that the chat can show: quoted words, ids, numbers, dates, names."""
    facts = [q.strip() for q in _quoted_words(trace)]
    unquoted = _QUOTED.sub(" ", trace)
    facts += [t.strip(".,;:") for t in _FACT_TOKEN.findall(unquoted)]
    return [f for f in facts if f]


def _earlier_text(messages: list[Message], before: int) -> str:
    parts = []
    for message in messages[:before]:
        if message.get("role") == "system":
            continue
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        for call in message.get("user_tool_calls") or ():
            parts.append(str(call))
        for result in message.get("user_tool_results") or ():
            parts.append(str(result))
    return " ".join(parts).lower()


def trace_without_fact(row: Row, know: Knowledge) -> list[str]:
    """A trace that names nothing seen earlier in the chat (no quote, id, amount or name from it)."""
    messages = row.get("messages") or []
    found = []
    for index, trace in _traces(messages):
        earlier = _marks_as_one(_earlier_text(messages, index))
        facts = trace_facts(trace)
        if not any(_marks_as_one(f.lower()) in earlier for f in facts):
            found.append(trace[:160])
    return found


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


def doubled_thanks(row: Row, know: Knowledge) -> list[str]:
    """Two sentences of one turn that both thank (a message quoted for sending thanks its own readers)."""
    found = []
    for role in ("assistant", "user"):
        for _, text in _said(row.get("messages") or [], role):
            thanking = [s for s in split_sentences(_QUOTED.sub('"q"', text)) if THANKS.search(s)]
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


# ---- the user ---------------------------------------------------------------------------------

_DELIGHT = re.compile(
    r"\b(?:wonderful|great|perfect|amazing|brilliant|fantastic|excellent|lovely|awesome|made my day|thank you so much|"
    r"thanks so much|about time|finally|you're a star|that's a relief|appreciate it so much|really appreciate)\b",
    re.IGNORECASE,
)


def delight_after_refusal(row: Row, know: Knowledge) -> list[str]:
    """A user pleased by a refusal, a notice that their value is invalid, or a question back."""
    if row.get("kind") not in REFUSING_KINDS:
        return []
    messages = row.get("messages") or []
    found = []
    refused = False
    for message in messages:
        if message.get("role") == "assistant" and _content(message) and not message.get("tool_calls"):
            refused = True
        elif message.get("role") == "user" and refused:
            text = _content(message)
            match = _DELIGHT.search(text)
            if match:
                found.append(_quote(text, match.start()))
            break
    return found


def repeated_user_sentence(row: Row, know: Knowledge) -> list[str]:
    """The same user sentence twice in one chat (a message quoted for sending is the user's cargo, not
    their words; a request that takes back the one before restates what it changes)."""
    counts: Counter[str] = Counter()
    shown: dict[str, str] = {}
    task = know.task(row.get("task_id")) if know.task else None
    requests = task.scenario.requests if task is not None else []
    revised = {  # a revising request -> the sentences of the request it takes back
        requests[r.segment]: {sentence_key(s) for s in split_sentences(requests[r.segment - 1])}
        for r in (task.scenario.revisions if task is not None else ())
        if 0 < r.segment < len(requests)
    }
    for _, text in _said(row.get("messages") or [], "user"):
        for sentence in split_sentences(_QUOTED.sub('"q"', text)):
            key = sentence_key(sentence)
            if key in revised.get(text, ()) or key == "q":  # "q": a sentence that is only a quoted message
                continue
            if key:
                counts[key] += 1
                shown.setdefault(key, sentence)
    return [shown[k] for k, n in counts.items() if n > 1]


_DEAR = re.compile(r",\s*dear\b|\bdear\s*[.!?]", re.IGNORECASE)


def register_mismatch(row: Row, know: Knowledge) -> list[str] | None:
    """A voice that does not fit the customer: an elderly turn of phrase ('dear') from a persona who
    is not elderly, or an elderly persona for a customer whose birth date makes them younger."""
    if know.task is None:
        return None
    task = know.task(row.get("task_id"))
    if task is None:
        return []
    from toolgym.envs.phrasing import persona_fits, register_of

    age = customer_age(task)
    if not persona_fits(task.scenario.persona, age):
        return [f"an elderly persona for a customer aged {age}: {task.scenario.persona}"]
    if register_of(task.scenario.persona) == "elderly":
        return []
    found = []
    for _, text in _said(row.get("messages") or [], "user"):
        match = _DEAR.search(text)
        if match:
            found.append(f"{_quote(text, match.start())} (persona: {task.scenario.persona})")
    return found


def customer_age(task: Any) -> int | None:
    """The customer's age on the world's date, when the task's facts hold their birth date."""
    from toolgym.envs.phrasing import speaker_age
    from toolgym.envs.registry import load_domain

    return speaker_age(task.scenario.facts, load_domain(task.domain).clock(task.world_seed).date())


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
    rf"\b(?:I|we|will|would|can|could|to|please|then|should|shall|must|I'll|I'd|we'll) (?:{_VERBS})\b(?! [A-Z])|"
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


# ---- refusals --------------------------------------------------------------------------------

_UNKNOWN = re.compile(
    r"\b(?:don't|do not|can't|cannot|didn't) (?:know|remember|recall|have|find|see)\b|\bnot sure\b|\bno idea\b|"
    r"\bhaven't (?:decided|got|picked|chosen)\b|\bforgot\b|\bdon't know\b|\bunsure\b|\bnot with me\b",
    re.IGNORECASE,
)
_ASKING = re.compile(r"\?|\b(?:could you|can you|please) (?:give|tell|share|send|provide|let)\b|\bwhat(?:'s| is) (?:your|the)\b", re.IGNORECASE)


def asked_what_user_lacks(row: Row, know: Knowledge) -> list[str] | None:
    """The user has just said they do not have a fact, and the next turn asks them for it anyway."""
    if know.task is None:
        return None
    task = know.task(row.get("task_id"))
    if task is None or not task.scenario.unknown:
        return []
    messages = row.get("messages") or []
    found = []
    for index, message in enumerate(messages[:-1]):
        text = _content(message)
        if message.get("role") != "user" or not _UNKNOWN.search(text):
            continue
        # what they say they lack: a label in the sentence that says so ("I don't have time for this."
        # before "Adjust the charge limit." lacks nothing)
        saying = " ".join(s for s in split_sentences(text) if _UNKNOWN.search(s)).lower()
        lacking = [label for label in task.scenario.unknown if label.lower() in saying]
        if not lacking and not any(w in saying for w in ("don't know", "not sure", "no idea")):
            continue
        labels = lacking or list(task.scenario.unknown)
        reply = next((m for m in messages[index + 1 :] if m.get("role") == "assistant"), None)
        answer = _content(reply) if reply else ""
        questions = [s for s in split_sentences(answer) if _ASKING.search(s)]
        if any(label.lower() in q.lower() for q in questions for label in labels):
            found.append(f"{_quote(text)} -> {_quote(answer)}")
    return found


def invalid_without_offer(row: Row, know: Knowledge) -> list[str] | None:
    """An invalid value whose nearest valid value exists, answered without offering it."""
    if know.task is None:
        return None
    if row.get("kind") != "no_tool/invalid_value":
        return []
    task = know.task(row.get("task_id"))
    if task is None:
        return []
    offer = _valid_value(task)
    if not offer:
        return []
    said = " ".join(text for _, text in _said(row.get("messages") or [], "assistant"))
    return [] if offer.lower() in said.lower() else [f"valid {offer!r} not offered: {_quote(said)}"]


def _valid_value(task: Any) -> str:
    """The valid value the task's reply offers ('3 bags', '25'), when it has one."""
    for reply in task.replies:
        value = reply.vars.get("valid")
        if value:
            return str(value)
    return ""


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
    Detector("handoff_without_one", handoff_without_one, "a hand-off to people in a domain that declares none"),
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
