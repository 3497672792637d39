"""Reading what an assistant's words claim: acts it says were done, and checks it says it made.

A *claim of an act* is an action verb in a form that states the act done: first person ("I
cancelled", "I've also refunded"), the perfect or present passive ("has been cancelled", "is now
frozen", "was just sent"), a bare participle heading a sentence or after "Done." ("Done. Return
requested for order #W1") or a word of completion ("Done.", "It's all taken care of"). What the
user did ("the way you paid") is not the agent's claim. Forms that only describe a state ("your card is frozen", "order #W1 was
cancelled on May 3") are *weak*: a state read in a tool result may be reported without acting.

Not claims: negations ("I haven't cancelled anything"), questions ("Has it been refunded?"),
offers and intentions ("I'll cancel it once you confirm", "I can refund it", "it will be
refunded"), conditions ("Once cancelled, ..."), words quoted from a message the agent writes, and
a participle used as an adjective ("the cancelled order").

A *claim of a check* is "let me check" (its call may follow in the same turn) or "I looked it
up", "I've verified" (a call before).

The reader tokenizes a text once (envs/claim_tokens.py: for every token, where its clause and
sentence start and end and where the last negation, modal or condition stood); each verb then
looks back and ahead a bounded number of tokens. Linear in the text, with no regular expression
that can backtrack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from .claim_phrases import (
    BE,
    DETERMINERS,
    HAVE,
    INTERJECTIONS,
    NAMED,
    OBJECT_END,
    completion_phrase,
    dated,
    finite_after,
    first_word,
    object_words,
    phrase_end,
    request_sentence,
    sentence_text,
    skip_back,
    subject_start,
    subject_words,
    then_opens,
)
from .claim_tokens import CLAUSE_END, CONDITIONS, EMBEDDED_QUESTIONS, MODALS, SENTENCE_END, Tokens, tokenize
from .claim_words import (
    ACTION_NOUNS,
    CHECK_PAST,
    CHECK_VERBS,
    COMPLETION,
    COMPLETION_PHRASES,
    COMPLETION_STATES,
    RECORD_NOUNS,
    past_forms,
    singular,
)
from .grounding import StatedFact, extract_facts

_NOW = {"now", "just", "successfully", "immediately", "instantly"}
_ADDITIVE = {"also", "too", "additionally", "likewise", "besides", "furthermore", "moreover"}
_OTHER = {"other", "another", "second", "remaining", "rest"}
_BOTH = {"both", "two", "each"}
# Verbs that also describe a setting as it stands ("your phone is set to 3G"): claims only as acts, never as states.
_SETTING_VERBS = {"set", "turn", "switch", "put", "keep", "configure", "adjust", "limit"}
_INTERROGATIVES = {
    "is", "are", "was", "were", "has", "have", "had", "do", "does", "did", "can", "could", "would", "should", "shall",
    "will", "may", "might", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "want", "ok", "okay",
}
_DONE_OPENERS = {"done", "finished", "sorted", "complete", "completed"}
_DONE_WORDS = {"done", "set", "sorted", "finished", "complete", "completed"}
_LET_CHECK = {"check", "look", "verify", "review", "search", "pull", "find", "confirm", "double-check", "see", "go", "query"}
_LOOKED_WITH = {"it", "up", "into", "at", "them", "that", "this"}
_PRAISE = {"well", "nicely", "nice", "brilliantly", "beautifully"}
_PRONOUNS = {"it", "which", "that", "this", "they", "these", "those"}
# Verbs that start an act a noun names: "I've started the return", "the refund was issued".
_INITIATING = {"start", "begin", "open", "make", "place", "submit", "file", "process", "issue", "set_up", "arrange",
               "initiate", "lodge", "raise", "put_through", "log", "create", "request", "launch", "complete", "finish"}
ClaimKind = Literal["action", "done", "check"]


@dataclass(frozen=True)
class Claim:
    """One claim in a text."""

    kind: ClaimKind  # an act ("cancelled"), something done ("Done."), or a check ("I looked it up")
    verbs: tuple[str, ...]  # the base verbs the words may name; for "done", the act a noun names (or none)
    words: str  # the words of the claim as written
    sentence: str  # the sentence it stands in, for a report
    strong: bool = True  # states an act done now (a weak claim may report a state read in a tool result)
    nouns: frozenset[str] = frozenset()  # record nouns naming what was acted on ("order")
    facts: tuple[StatedFact, ...] = ()  # ids, amounts, dates named in its clause
    other: bool = False  # "your other order", "another booking": a subject besides one already named
    additive: bool = False  # "also", "too"
    count: int = 1  # distinct subjects named at least ("both" orders: 2)
    immediate: bool = False  # a check announced now ("let me check"): its call may follow in the same turn
    # How it is said: "active" (I / we / you, or a subject with "has"), "perfect" ("has been"),
    # "state" ("is", "was", "had been"), "bare" (a participle alone), "joined" ("... and refunded it").
    form: str = "active"
    said: str = ""  # the verb or completion words as written, lowercased ("cancelled", "taken care of")

    def describe(self) -> str:
        return f"{self.words!r} in {self.sentence!r}"


@dataclass(frozen=True)
class Vocabulary:
    """The verb forms a reader looks for (past forms, by form: "cancelled" -> cancel) and the record nouns."""

    forms: dict[str, frozenset[str]]  # one word, or two joined by a space ("set up")
    nouns: frozenset[str] = RECORD_NOUNS
    # "how each switch is set" asks; in a tool description "where the difference is refunded" states
    subordinators: frozenset[str] = frozenset(CONDITIONS | EMBEDDED_QUESTIONS)

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


def vocabulary_of(
    verbs: set[str] | frozenset[str],
    nouns: set[str] | frozenset[str] = frozenset(),
    *,
    descriptions: bool = False,
    records_only: bool = False,
) -> Vocabulary:
    """The forms to look for, given every verb that a claim may use and the record nouns."""
    forms: dict[str, set[str]] = {}
    for verb in verbs:
        for form in past_forms(verb):
            forms.setdefault(form, set()).add(verb)
    for check in CHECK_VERBS:  # reading verbs are checks, not acts
        for form in past_forms(check):
            forms.pop(form, None)
    subordinators = CONDITIONS if descriptions else CONDITIONS | EMBEDDED_QUESTIONS
    records = frozenset(nouns) if records_only else frozenset(RECORD_NOUNS | set(nouns))
    return Vocabulary({form: frozenset(v) for form, v in forms.items()}, records, frozenset(subordinators))


def read_claims(text: str, vocabulary: Vocabulary) -> list[Claim]:
    """The claims of acts and checks a text makes, in order."""
    return list(_read(text, vocabulary))


# ---- tokens -------------------------------------------------------------------------------------


_WORDS = re.compile(r"[a-z]+(?:['’-][a-z]+)*")


@lru_cache(maxsize=2048)
def _read(text: str, vocabulary: Vocabulary) -> tuple[Claim, ...]:
    if _triggers(vocabulary).isdisjoint(_WORDS.findall(text.lower())):
        return ()  # no word that could start a claim: most replies, read in one pass of C
    tokens = tokenize(text, vocabulary.subordinators)
    reader = _Reader(tokens, vocabulary)
    index = 0
    while index < len(tokens.words):
        index += reader.read_at(index)
    return tuple(reader.claims)


class _Reader:
    """One pass over a text's tokens, keeping what a later verb needs (the last claim, 'Done.')."""

    def __init__(self, tokens: Tokens, vocabulary: Vocabulary):
        self.tokens = tokens
        self.vocabulary = vocabulary
        self.claims: list[Claim] = []
        self.previous: tuple[int, Claim] | None = None  # for "cancelled your order and refunded it"
        self.done_sentences: set[int] = set()  # sentences that are, or follow, a bare "Done."
        self.facts: dict[int, tuple[StatedFact, ...]] = {}  # by start of the stretch they are read from
        self.fact_starts, self.fact_ends = _fact_stretches(tokens, vocabulary)
        self.triggers = _triggers(vocabulary)
        self.sentence_words: dict[int, frozenset[str]] = {}

    def read_at(self, index: int) -> int:
        """Read a claim whose verb starts at `index`; the number of tokens to move on."""
        tokens = self.tokens
        if tokens.quoted[index]:
            return 1
        if tokens.sentence[index] == index:
            self._note_done_opener(index)
        if tokens.words[index] not in self.triggers:
            return 1  # most words start nothing: one set lookup
        check = self._check_at(index)
        if check is not None:
            claim, width = check
            if claim is not None:
                self.claims.append(claim)
            return width
        found = self._verb_at(index)
        if found is None:
            return 1
        kind, verbs, width = found
        claim = self._claim(index, kind, verbs, width)
        if claim is not None:
            self.claims.append(claim)
            self.previous = (index, claim)
        return width

    def _note_done_opener(self, index: int) -> None:
        """'Done.', 'All set!', 'Okay, it's done.': the sentence and the next one state acts done."""
        tokens = self.tokens
        sentence = tokens.sentence[index]
        if index != sentence:
            return
        end = tokens.sentence_end[index]
        content = [w for w in tokens.words[index : min(end + 1, index + 8)] if w not in INTERJECTIONS and w not in SENTENCE_END]
        if content and content[0] in _DONE_OPENERS:
            self.done_sentences.add(sentence)
        if content and len(content) <= 3 and content[-1] in _DONE_WORDS and end - index < 8 and content[0] not in _PRAISE:
            self.done_sentences.update((sentence, end + 1))

    def _verb_at(self, index: int) -> tuple[ClaimKind, tuple[str, ...], int] | None:
        tokens = self.tokens
        word = tokens.words[index]
        phrase = completion_phrase(tokens, index)
        if phrase:
            return "done", (), phrase
        if word in COMPLETION:
            if word == "done" and tokens.word(index - 1) in _PRAISE:
                return None  # "Nicely done": praise for the user
            return "done", (), 1
        two = f"{word} {tokens.word(index + 1)}"
        forms = self.vocabulary.forms
        if two in forms:
            return "action", tuple(sorted(forms[two])), 2
        if word in forms:
            return "action", tuple(sorted(forms[word])), 1
        return None

    def _claim(self, index: int, kind: ClaimKind, verbs: tuple[str, ...], width: int) -> Claim | None:
        tokens = self.tokens
        frame = self._frame(index)
        if frame is None:
            return None
        strong, subject, active, coordinated, form = frame
        span = object_words(tokens, index + width) if active else subject_words(tokens, subject, index)
        nouns = self._head_noun(span)
        previous = self.previous[1] if coordinated and self.previous else None
        if previous is not None and not nouns and not set(span) - DETERMINERS - _PRONOUNS - {"them", "one"}:
            nouns = previous.nouns  # "cancelled your order and refunded it": the same subject
        if form == "state" and not strong and kind == "action" and set(verbs) <= _SETTING_VERBS:
            return None  # "your phone is set to 3G": a setting as it stands
        if form in ("state", "bare") and request_sentence(tokens, index):
            return None  # "Please give me the temperature and it's done": what will follow a reply
        acts = tuple(dict.fromkeys(ACTION_NOUNS[w] for w in span if w in ACTION_NOUNS))
        if subject < tokens.clause[index]:  # "#W1: processed", "Your order, #W1, is processed": named before
            facts = self._span_facts(subject, tokens.clause[index]) + self._facts(index)
        elif not active:  # "item I1 is paused and item I2 is active": each state its own subject's
            facts = self._span_facts(max(subject, self.fact_starts[index]), phrase_end(tokens, index, self._stretch_end(index)) + 1)
        else:
            facts = self._facts(index)
        if kind == "done":
            verbs = acts
            about_record = nouns or any(f.kind == "identifier" for f in facts) or (span and span[0] in _PRONOUNS)
            if tokens.words[index] in COMPLETION_STATES and about_record:
                pass  # "order #W1 is processed", "which is confirmed": a status that may be read back
            elif not nouns:
                strong = True  # "Everything is done", "It's all taken care of": about what was done, never read back
        elif set(verbs) & _INITIATING:
            verbs = tuple(dict.fromkeys((*verbs, *acts)))  # "I've started the return": a return
        clause = tokens.clause[index]
        around = self._sentence_words(index)
        first = index if active else max(subject if subject >= 0 else clause, clause)
        return Claim(
            kind=kind,
            verbs=verbs,
            words=tokens.text[tokens.starts[first] : tokens.ends[index + width - 1]].strip(),
            sentence=sentence_text(tokens, index),
            strong=strong,
            nouns=nouns,
            facts=facts,
            other=bool(_OTHER & set(span)) or bool(previous and previous.other),
            additive=bool(_ADDITIVE & around) or bool(previous and previous.additive),
            form=form,
            said=" ".join(tokens.words[index : index + width]),
            count=2 if _BOTH & set(span) or _BOTH & set(tokens.words[max(clause, min(index, subject) - 3) : index]) else 1,
        )

    def _sentence_words(self, index: int) -> frozenset[str]:
        """The words of the sentence holding `index`, made once per sentence (a long one has many verbs)."""
        start = self.tokens.sentence[index]
        found = self.sentence_words.get(start)
        if found is None:
            found = self.sentence_words[start] = frozenset(self.tokens.words[start : self.tokens.sentence_end[index] + 1])
        return found

    def _frame(self, index: int) -> tuple[bool, int, bool, bool, str] | None:
        """How the verb at `index` is framed: (strong, subject position, active, joined, form), or None.

        Active forms name what was acted on after the verb ("I cancelled *your order*"); passive
        ones before it ("*your order* has been cancelled"). A negation, modal or intention counts
        between the subject and the verb ("I have not", "it will be"); a condition anywhere in the
        clause ("Once it is cancelled").
        """
        tokens = self.tokens
        words = tokens.words
        clause, sentence = tokens.clause[index], tokens.sentence[index]
        if tokens.any_between(tokens.last_condition, clause, index) or then_opens(tokens, clause, index):
            return None
        aux_at = skip_back(tokens, index - 1, clause)
        aux = tokens.word(aux_at) if aux_at >= clause else ""
        # up to three words after the verb, in its own sentence ("... were already locked. Charging now: ..."
        # must not read the next sentence's "now" as this one's)
        end = index + 1
        while end < min(index + 4, len(words)) and tokens.sentence[end] == sentence:
            end += 1
        after = set(words[index + 1 : end])
        done_context = sentence in self.done_sentences
        now = bool(_NOW & (set(words[aux_at + 1 : index]) | after)) or done_context
        if aux == "been":
            have_at = skip_back(tokens, aux_at - 1, clause)
            have = tokens.word(have_at) if have_at >= clause else ""
            subject = subject_start(tokens, have_at)
            if self._blocked(subject, index) or have in MODALS or have == "to":
                return None
            if self._asked(index, subject):
                return None
            if have in HAVE:  # "has already been modified once", "has been cancelled since May": a state before
                before = "already" in words[have_at:index] or dated(tokens, index)
                return (now or not before), subject, False, False, "perfect"
            return now, subject, False, False, "state"  # "had been cancelled": a past state
        if aux == "being":
            subject = subject_start(tokens, aux_at - 1)
            return None if self._blocked(subject, index) else (True, subject, False, False, "perfect")
        if aux in BE:
            subject = subject_start(tokens, aux_at)
            if self._blocked(subject, index) or self._asked(index, subject):
                return None
            if aux in ("was", "were") and not _NOW & set(words[aux_at + 1 : end]):
                return False, subject, False, False, "state"  # "the doors were locked, so I ...": how it stood
            return now, subject, False, False, "state"
        if aux in HAVE or aux == "had" or aux in ("i", "we", "you"):
            pronoun_at = aux_at if aux in ("i", "we", "you") else skip_back(tokens, aux_at - 1, clause)
            pronoun = tokens.word(pronoun_at)
            if pronoun in MODALS or pronoun == "to":
                return None  # "would have cancelled", "to have sent"
            start = pronoun_at if pronoun_at >= clause else clause
            if self._blocked(start, index) or self._asked(index, start, inverted=pronoun_at):
                return None
            if pronoun == "you":
                return None  # "the way you paid": what the user did is not the agent's claim
            return (aux != "had" or now), start, True, False, "active"
        if aux in MODALS or aux in ("to", "be", "not", "get", "gets", "let", "please"):
            return None
        if self.previous is not None and tokens.clause[self.previous[0]] == clause and aux in ("and", "or", "then"):
            if self._blocked(clause, index):
                return None
            return self.previous[1].strong, clause, True, True, "joined"  # "cancelled your order and refunded it"
        # A bare participle: a predicate ("Return requested for order #W1") or an adjective ("the cancelled order").
        following = tokens.word(index + 1)
        if following and following not in OBJECT_END and following not in CLAUSE_END and following not in ("it", "them", "your", "the"):
            return None
        if self._blocked(clause, index) or tokens.any_between(tokens.last_modal, sentence, index) or self._asked(index, clause):
            return None
        if index == first_word(tokens, sentence):
            return True, clause, True, False, "bare"  # "Cancelled your order W1."
        if index == clause and tokens.word(index - 1) in (":", "—", "–", "-"):
            return done_context, tokens.clause[index - 2] if index >= 2 else clause, False, False, "bare"  # "Order #W1: cancelled."
        if done_context and index - first_word(tokens, sentence) <= 3 and not finite_after(tokens, index):
            return True, clause, False, False, "bare"  # "Done. Return requested for order #W1"
        return None  # "the refill is $45.00, added to your next bill": a description

    def _blocked(self, start: int, index: int) -> bool:
        """A negation, modal or intention between a subject and its verb."""
        tokens = self.tokens
        return (
            tokens.any_between(tokens.last_negator, start, index)
            or tokens.any_between(tokens.last_modal, start, index)
            or tokens.any_between(tokens.last_frame, start, index)
            or tokens.word(index + 1) in ("nothing", "neither")
        )

    def _asked(self, index: int, subject: int, inverted: int = -1) -> bool:
        """Whether the verb stands in a question: one asked from the sentence's start, or its last clause."""
        tokens = self.tokens
        end = tokens.sentence_end[index]
        if tokens.word(end) != "?":
            return False
        first = first_word(tokens, tokens.sentence[index])
        if tokens.word(first) in _INTERROGATIVES and (inverted < 0 or inverted <= first + 1):
            return True  # "Has it been refunded?", "Have I cancelled it?"; not "Did you know I cancelled it?"
        return inverted < 0 and tokens.clause[index] == tokens.clause[end]

    def _head_noun(self, span: list[str]) -> frozenset[str]:
        """The record noun heading the words that name what was acted on ("my road trip *playlist*")."""
        if NAMED in span:
            return frozenset()  # "the Beatles folder", "the file \"Q2 plan\"": a title, not a kind of record
        words = [w for w in span if w not in DETERMINERS and w not in CLAUSE_END and not any(ch.isdigit() for ch in w)]
        if not words:
            return frozenset()
        head = singular(words[-1])
        return frozenset((head,)) if head in self.vocabulary.nouns else frozenset()

    def _span_facts(self, start: int, end: int) -> tuple[StatedFact, ...]:
        tokens = self.tokens
        begin = tokens.ends[start - 1] if start else 0
        return tuple(extract_facts(tokens.text[begin : tokens.ends[end - 1]])) if end > start else ()

    def _stretch_end(self, index: int) -> int:
        return min(self.tokens.clause_end[index], self.fact_ends[self.fact_starts[index]])

    def _facts(self, index: int) -> tuple[StatedFact, ...]:
        """The facts of the verb's clause, up to the next verb joined by "and" ("froze card 1234 and passed case F3")."""
        tokens = self.tokens
        start = self.fact_starts[index]
        found = self.facts.get(start)
        if found is None:
            end = self._stretch_end(index)
            begin = tokens.ends[start - 1] if start else 0  # from the stop before: "$2,125.00" keeps its "$"
            found = self.facts[start] = tuple(extract_facts(tokens.text[begin : tokens.ends[end]]))
        return found

    def _check_at(self, index: int) -> tuple[Claim | None, int] | None:
        """'let me check' (immediate), 'I'm checking', or 'I (have) checked / looked it up / verified'."""
        tokens = self.tokens
        word = tokens.words[index]
        clause = tokens.clause[index]
        immediate = False
        start = index
        if word == "let" and tokens.word(index + 1) == "me":
            position = index + 2
            while tokens.word(position) in ("just", "quickly", "first", "now", "quick"):
                position += 1
            verb = tokens.word(position)
            if verb not in _LET_CHECK or (verb == "go" and tokens.word(position + 1) != "through"):
                return None
            immediate, width = True, position - index + 1
        elif word in ("checking", "looking") and tokens.word(index - 1) == "am":
            immediate, width, start = True, 1, index - 1
        elif word in ("went", "gone") and tokens.word(index + 1) == "through" and tokens.word(index + 2) not in SENTENCE_END:
            pronoun_at = skip_back(tokens, index - 1, clause)  # "I went through the emails" reads; "it went through" is done
            if tokens.word(pronoun_at) in HAVE:
                pronoun_at = skip_back(tokens, pronoun_at - 1, clause)
            if pronoun_at < clause or tokens.word(pronoun_at) not in ("i", "we"):
                return None
            start, width = pronoun_at, 2
        elif word in CHECK_PAST:
            pronoun_at = skip_back(tokens, index - 1, clause)
            if tokens.word(pronoun_at) in HAVE:
                pronoun_at = skip_back(tokens, pronoun_at - 1, clause)
            if pronoun_at < clause or tokens.word(pronoun_at) not in ("i", "we"):
                return None
            if word == "looked" and tokens.word(index + 1) not in _LOOKED_WITH:
                return None
            start, width = pronoun_at, 1
        else:
            return None
        if (
            tokens.any_between(tokens.last_condition, clause, index)
            or self._blocked(start, index)
            or self._asked(index, start, inverted=start)
        ):
            return None, width
        claim = Claim(
            kind="check",
            verbs=("check",),
            words=tokens.text[tokens.starts[start] : tokens.ends[index + width - 1]].strip(),
            sentence=sentence_text(tokens, index),
            immediate=immediate,
        )
        return claim, width


@lru_cache(maxsize=64)
def _triggers(vocabulary: Vocabulary) -> frozenset[str]:
    """Every word a claim can start with: verb forms (first words of two-word ones), completion and check words."""
    firsts = {form.split(" ")[0] for form in vocabulary.forms}
    return frozenset(firsts | COMPLETION | set(COMPLETION_PHRASES) | CHECK_PAST | {"let", "checking", "looking", "went", "gone", "set"})


def _fact_stretches(tokens: Tokens, vocabulary: Vocabulary) -> tuple[list[int], list[int]]:
    """For each token, where the stretch its facts are read from starts; for each start, where it ends.

    A stretch is a clause, cut before an "and" that joins another verb: in "I've frozen card 1234
    and passed the charge to the fraud team as case F300001" the case id is the second verb's.
    """
    words = tokens.words
    starts = [0] * len(words)
    ends: dict[int, int] = {}
    start = 0
    for index, word in enumerate(words):
        if tokens.clause[index] == index:
            start = index
        elif word in ("and", "or") and _verb_like(tokens.word(index + 1), vocabulary):
            ends[start] = index - 1
            start = index + 1
        starts[index] = start
        ends.setdefault(start, tokens.clause_end[index])
    return starts, [ends.get(i, tokens.clause_end[i] if i < len(words) else 0) for i in range(len(words))]


def _verb_like(word: str, vocabulary: Vocabulary) -> bool:
    return word in vocabulary.forms or word in COMPLETION or (word.endswith("ed") and len(word) > 4)

