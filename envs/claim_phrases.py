"""Where the parts of a claim lie in an assistant's tokens: a verb's subject and object, the
adverbs before it, the sentence it stands in, and the small word lists those walks stop at.

Every walk is bounded (`LOOK_BACK` tokens) and reads the positions `claim_tokens.tokenize`
recorded, so reading a claim stays linear in the text (envs/claim_reading.py reads the claims).
"""

from __future__ import annotations

from .claim_tokens import CLAUSE_END, Tokens
from .claim_words import COMPLETION_PHRASES

ADVERBS = {
    "also", "just", "now", "already", "successfully", "all", "both", "fully", "finally", "really", "indeed",
    "officially", "completely", "automatically", "immediately", "instantly", "correctly", "properly", "formally",
    "effectively", "right", "since", "likewise", "additionally", "too", "again", "each", "then",
}
BE = {"is", "are", "am", "was", "were"}
HAVE = {"have", "has"}
# Where the words naming what was acted on end, after an active verb ("cancelled your order *for* you").
OBJECT_END = {
    "to", "for", "from", "on", "in", "at", "with", "by", "into", "onto", "via", "as", "and", "or", "then", "now",
    "today", "back", "up", "off", "over", "out", "through", "successfully", "again", "already", "too", "also",
    "because", "since", "after", "before", "until", "while", "which", "who", "that", "is", "are", "was", "were", "has",
    "have", "will", "would", "can", "per",
}
PARTICLES = {"up", "off", "on", "back", "over", "out"}
# A passive subject reaches back to its determiner ("*your other order* has been cancelled").
DETERMINERS = {"your", "the", "my", "our", "this", "these", "those", "a", "an", "his", "her", "their", "its", "no", "which", "who",
               "nothing", "everything", "it", "that", "all", "every", "each", "both", "none", "neither", "any", "some"}
SUBJECT_STOP = {"and", "or", "then", "where", "okay", "ok", "great", "right", "yes", "now", "is", "are",
                "was", "were", "have", "has", "i", "we", "you"}
INTERJECTIONS = {"okay", "ok", "great", "right", "perfect", "alright", "so", "well", "thanks", "good", "news", "yes",
                 "and", "wonderful", "excellent", ",", "!"}
NAMED = "<name>"  # stands in a noun phrase for a name or quoted title
# Words after which a noun phrase no longer names the record acted on ("the card *ending* 1234").
NOUN_STOP = {"ending", "ended", "named", "called", "titled", "worth", "totalling", "totaling", "costing"}
# Openers of a request to the reader.
IMPERATIVES = {"please", "give", "tell", "send", "share", "say", "just", "let", "kindly", "confirm", "reply"}
LOOK_BACK = 10  # tokens: how far a verb looks for its subject, auxiliary and adverbs


def phrase_end(tokens: Tokens, index: int, limit: int) -> int:
    """The last token of a state's phrase: up to the "and" that starts the next one."""
    position = index
    while position < limit and position - index < LOOK_BACK and tokens.words[position + 1] not in ("and", "or"):
        position += 1
    return position


def finite_after(tokens: Tokens, index: int) -> bool:
    """A verb later in the clause: "the transfer planned for May *is* cancelled" uses "planned" as an adjective."""
    end = min(tokens.clause_end[index], index + LOOK_BACK)
    return any(w in BE or w in HAVE for w in tokens.words[index + 1 : end + 1])


def request_sentence(tokens: Tokens, index: int) -> bool:
    """A sentence (or a part after a colon) that asks the reader to do something ("Please give me the speed and it's done")."""
    if tokens.word(first_word(tokens, tokens.sentence[index])) in IMPERATIVES:
        return True
    position = index
    while position > tokens.sentence[index] and index - position < LOOK_BACK * 3:
        position -= 1
        if tokens.words[position] == ":":
            return tokens.word(position + 1) in IMPERATIVES
    return False


def completion_phrase(tokens: Tokens, index: int) -> int:
    """The length of a completion phrase starting at `index` ("taken care of" -> 3, "all set" -> 1), or 0."""
    word = tokens.words[index]
    if word == "set" and (tokens.word(index - 1) == "all" or (tokens.word(index - 1) == "is" and tokens.word(index - 2) == "everything")):
        return 1  # "all set", "everything's set"
    for rest in COMPLETION_PHRASES.get(word, ()):
        if all(tokens.word(index + offset) == part for offset, part in enumerate(rest, start=1)):
            return 1 + len(rest)
    return 0


def skip_back(tokens: Tokens, position: int, limit: int) -> int:
    """The first position at or before `position` that is not an adverb ("have also just")."""
    stop = max(limit, position - LOOK_BACK)
    while position >= stop:
        word = tokens.words[position]
        if word in ADVERBS:
            position -= 1
        elif word == "and" and tokens.word(position - 1) == "ahead" and tokens.word(position - 2) in ("went", "gone", "go"):
            position -= 3  # "I've gone ahead and cancelled"
        else:
            break
    return position


def subject_start(tokens: Tokens, before: int) -> int:
    """Where the subject of a passive ending before `before` starts: back to its determiner.

    A clause that opens with the verb ("Your last order, #W1, is processed") takes its subject
    from the clauses before it in the sentence.
    """
    clause = tokens.clause[before] if 0 <= before < len(tokens.words) else 0
    if clause == before and clause > tokens.sentence[before] and tokens.word(clause - 1) == ",":
        clause = max(tokens.sentence[before], before - LOOK_BACK)
    position = before - 1
    stop = max(clause, before - LOOK_BACK)
    while position >= stop:
        word = tokens.words[position]
        if word in SUBJECT_STOP:
            return position + 1
        if word in DETERMINERS:
            return position
        position -= 1
    return max(stop, clause)


def subject_words(tokens: Tokens, subject: int, verb: int) -> list[str]:
    end = subject
    while end < verb and tokens.words[end] not in BE | HAVE | {"been", "being"} and end - subject < LOOK_BACK:
        end += 1
    return [w if common_word(tokens, position) else NAMED for position, w in enumerate(tokens.words[subject:end], start=subject)]


def common_word(tokens: Tokens, position: int) -> bool:
    """Not quoted and not a name: "the Down Sleeping *Bag*" is a product, not a bag."""
    if tokens.quoted[position]:
        return False
    return position == tokens.sentence[position] or not tokens.text[tokens.starts[position]].isupper()


def object_words(tokens: Tokens, after: int) -> list[str]:
    span: list[str] = []
    position = after
    while position < len(tokens.words) and position - after < LOOK_BACK:
        word = tokens.words[position]
        particle = word in PARTICLES and (position == after or tokens.word(position - 1) in PARTICLES)
        if word in CLAUSE_END or (word in OBJECT_END and not particle) or word in NOUN_STOP:
            break
        if not particle:  # "turned on roaming", "set it up"
            span.append(word if common_word(tokens, position) else NAMED)
        position += 1
    return span


def first_word(tokens: Tokens, sentence: int) -> int:
    """The first token of a sentence that is not an interjection ("Okay, done." starts at "done")."""
    index = sentence
    while index < len(tokens.words) and index - sentence < 6 and tokens.words[index] in INTERJECTIONS:
        index += 1
    return index


def then_opens(tokens: Tokens, clause: int, index: int) -> bool:
    """'Then it's done.': a consequence still to come, when the sentence opens with 'then'."""
    return clause == tokens.sentence[index] and tokens.word(clause) == "then" and "i" not in tokens.words[clause:index]


def dated(tokens: Tokens, index: int) -> bool:
    """'has been cancelled since May', '... on 2025-03-01': a state with a past date, read back."""
    end = min(tokens.clause_end[index], index + 8)
    tail = tokens.words[index + 1 : end + 1]
    return any(w in ("since", "ago", "previously", "earlier", "yesterday", "last") for w in tail) or (
        "on" in tail and any(any(ch.isdigit() for ch in w) for w in tail)
    )


def sentence_text(tokens: Tokens, index: int) -> str:
    start = tokens.starts[tokens.sentence[index]]
    end = tokens.ends[tokens.sentence_end[index]]
    text = tokens.text[start : min(end, start + 240)].strip()
    return text if end - start <= 240 else text + "..."
