"""The tokens of an assistant's text, and where each one's sentence, clause and scopes begin.

`tokenize` reads a text once: words (contractions split: "I've" -> "i", "have"; "haven't" ->
"have", "not"), stops and quotes, each with its place in the text and whether it stands inside
double quotes. For every token it then records where its sentence and clause start and end, and
the last negation, modal, condition or intention frame at or before it, so that a reader asks
"is there a negation between these two tokens?" in constant time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Words (with inner apostrophes, hyphens, dots and thousands commas: "I've", "top-up", "2,125.00"), stops, quotes.
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:(?:['’\-_.]|,(?=\d{3}))[A-Za-z0-9]+)*|[.!?;:,()\"“”—–]|\s-\s|\n")
_CONTRACTIONS = {"ve": "have", "re": "are", "m": "am", "ll": "will", "d": "would"}
_NOT_HEADS = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
# Words after which "'s" is "is" (or "has" before "been"); after a noun it is a possessive.
_S_IS = {"it", "that", "what", "there", "here", "everything", "he", "she", "who", "this", "all", "nothing", "where"}
SENTENCE_END = {".", "!", "?", "\n"}
CLAUSE_END = SENTENCE_END | {",", ";", ":", "(", ")", "—", "–", "-", "but", "so", "because", "although", "though", "whereas"}
_QUOTES = {'"', "“", "”"}
MODALS = {"will", "would", "shall", "should", "could", "might", "may", "must", "can"}
FACTIVE = {"confirm", "see", "tell", "report", "say", "assure", "verify", "let", "share", "note"}
_TO_FRAMES = {"going", "about", "ready", "want", "wants", "like", "love", "plan", "prepared", "need", "needs", "have",
              "has", "able", "set", "happy", "glad", "try", "trying", "intend", "aim", "hope", "wish", "needed"}
# Conditions, and questions inside a sentence: "Once it is cancelled", "tell me how each switch is set".
CONDITIONS = {"if", "once", "when", "whenever", "after", "before", "unless", "until", "till", "whether", "lest"}
EMBEDDED_QUESTIONS = {"how", "what", "why", "where", "whatever"}
NEGATORS = {"not", "no", "never", "nothing", "none", "nobody", "neither", "nor", "without", "unable", "cannot", "hardly"}
# "..., which is processed" relates; "which APN is selected" asks.
_RELATIVE_AFTER = {"is", "are", "was", "were", "has", "have", "had", "will", "would", "can", "could", "means", "now", "also"}


@dataclass
class Tokens:
    """A text's tokens and, per token, its sentence and clause and the last scope word before it."""

    text: str
    words: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    quoted: list[bool] = field(default_factory=list)
    sentence: list[int] = field(default_factory=list)  # first token of the token's sentence
    sentence_end: list[int] = field(default_factory=list)  # its last token (the stop, if any)
    clause: list[int] = field(default_factory=list)
    clause_end: list[int] = field(default_factory=list)
    # The last position at or before each token of a negation, a (non-factive) modal, a condition
    # and an intention frame ("ready to"): "is there one in [a, b)" is `last[b - 1] >= a`.
    last_negator: list[int] = field(default_factory=list)
    last_modal: list[int] = field(default_factory=list)
    last_condition: list[int] = field(default_factory=list)
    last_frame: list[int] = field(default_factory=list)

    def word(self, index: int) -> str:
        return self.words[index] if 0 <= index < len(self.words) else ""

    def any_between(self, last: list[int], start: int, end: int) -> bool:
        return end > start and end - 1 < len(last) and last[end - 1] >= start


def tokenize(text: str, subordinators: frozenset[str]) -> Tokens:
    tokens = Tokens(text)
    words, starts, ends, flags = tokens.words, tokens.starts, tokens.ends, tokens.quoted
    quoted = False
    for match in _TOKEN.finditer(text):
        raw = match.group(0)
        if raw in _QUOTES:
            quoted = (not quoted) if raw == '"' else raw == "“"
            continue
        start, end = match.span()
        word = raw.lower()
        if word[0] in " \t\n":
            word = word.strip() or "\n"
        if "'" in word or "’" in word:
            for part in _split_contraction(word.replace("’", "'")):
                words.append(part)
                starts.append(start)
                ends.append(end)
                flags.append(quoted)
            continue
        words.append(word)
        starts.append(start)
        ends.append(end)
        flags.append(quoted)
    _mark_spans(tokens)
    _mark_scopes(tokens, subordinators)
    return tokens


def _split_contraction(word: str) -> list[str]:
    if "'" not in word:
        return [word]
    if word.endswith("n't"):
        head = word[:-3]
        return [_NOT_HEADS.get(head, head), "not"]
    head, _, tail = word.rpartition("'")
    if tail in _CONTRACTIONS:
        return [head, _CONTRACTIONS[tail]]
    if tail == "s":
        if head == "let":
            return ["let", "us"]
        return [head, "is"] if head in _S_IS else [head]
    return [word]


def _mark_spans(tokens: Tokens) -> None:
    words = tokens.words
    sentence = clause = 0
    for index, word in enumerate(words):
        tokens.sentence.append(sentence)
        tokens.clause.append(clause)
        if tokens.quoted[index]:
            # a quoted title's colon or stop ends nothing of the agent's own sentence, unless the quotation
            # closes on the stop and a capital follows: 'has your email "Thanks!" It's in your sent items.'
            if word in SENTENCE_END and _closes_a_sentence(tokens, index):
                sentence = clause = index + 1
            continue
        if word in SENTENCE_END:
            sentence = clause = index + 1
        elif word in CLAUSE_END:
            clause = index + 1
    count = len(words)
    tokens.sentence_end = [0] * count
    tokens.clause_end = [0] * count
    sentence_end = clause_end = count - 1
    for index in range(count - 1, -1, -1):
        if index + 1 < count and tokens.sentence[index + 1] == index + 1:
            sentence_end = index
        if index + 1 < count and tokens.clause[index + 1] == index + 1:
            clause_end = index
        tokens.sentence_end[index] = sentence_end
        tokens.clause_end[index] = clause_end


def _closes_a_sentence(tokens: Tokens, index: int) -> bool:
    """Whether the quoted stop at `index` is the quotation's last token and a capitalised word follows it."""
    after = index + 1
    return after < len(tokens.words) and not tokens.quoted[after] and tokens.text[tokens.starts[after]].isupper()


def _mark_scopes(tokens: Tokens, subordinators: frozenset[str]) -> None:
    words = tokens.words
    negator = modal = condition = frame = -1
    for index, word in enumerate(words):
        if word in NEGATORS:
            negator = index
        if word in MODALS and tokens.word(index + 1) not in FACTIVE:
            modal = index
        asks_which = word == "which" and tokens.word(index + 1) not in _RELATIVE_AFTER  # "tell me which APN is selected"
        if (word in subordinators and not (word == "once" and tokens.word(index - 1) == "at")) or asks_which or (
            word == "soon" and tokens.word(index - 1) == "as"
        ):
            condition = index
        if word in ("be", "let") or (word == "to" and (tokens.word(index - 1) in _TO_FRAMES or tokens.word(index + 1) in ("be", "have"))):
            frame = index
        tokens.last_negator.append(negator)
        tokens.last_modal.append(modal)
        tokens.last_condition.append(condition)
        tokens.last_frame.append(frame)


# ---- reading --------------------------------------------------------------------------------------
