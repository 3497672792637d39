"""Detectors for the grammar slips that template filling makes (issue #9's list).

Each detector takes one chat turn's text and returns the matches it finds; `GRAMMAR_CLASSES`
names them with the roles they apply to (raw payment ids are a slip only when the assistant says
them: a user may well quote their own id).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .text import Row, split_sentences, texts


@dataclass(frozen=True)
class GrammarMatch:
    name: str
    text: str  # the offending words
    start: int


Detector = Callable[[str], list[GrammarMatch]]


def _finder(name: str, pattern: re.Pattern[str], keep: Callable[[re.Match[str]], bool] = lambda m: True) -> Detector:
    def detect(text: str) -> list[GrammarMatch]:
        return [GrammarMatch(name, m.group(0), m.start()) for m in pattern.finditer(text) if keep(m)]

    detect.__name__ = name
    return detect


# "on on": one word twice; "had had" and "that that" can be right
_DOUBLED = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.IGNORECASE)
_DOUBLE_OK = {"had", "that"}
doubled_word = _finder("doubled_word", _DOUBLED, lambda m: m.group(1).lower() not in _DOUBLE_OK)

# a sentence opening with a lowercase "my": at the start of the turn or after . ! ? or a colon
# ("Sure: my name is ..." reads as two stuck-together sentences, and issue #9 counts it)
lowercase_my = _finder("lowercase_my_opening", re.compile(r"(?:^|(?<=[.!?:]\s))\s*my\b"))

# "Also, What": words that are never names, capitalised after a comma
_NEVER_NAMES = (
    "What|Where|When|Why|How|Which|Who|Could|Can|Would|Will|Should|Please|My|Your|Is|Are|Do|Does|"
    "And|But|Also|It|This|That|These|Those|Thanks|Thank|Then|So|Or|If|Let|We|You|There|Here|"
    # "The" opens a title too: "Well, The Daily Drive, please." names a podcast; "Thanks, The order ..." is glued
    r"The(?!\s+[A-Z])"
)
# ... and after a linking word ("Also, Quick question"), any capital but "I" is a glued sentence
_LINKS = r"Also|also|Plus|plus|And|and|Then|then|Next|next|Anyway|anyway|Besides|besides|By the way|by the way"
capital_after_comma = _finder(
    "capital_after_comma",
    # ", and There is": a sentence glued on after a conjunction keeps its capital
    re.compile(rf",\s+(?:(?:and|but|so|or)\s+)?(?:{_NEVER_NAMES})\b|\b(?:{_LINKS}),\s+(?!I\b|I'|I’)[A-Z]"),
)

# "Mastercard card", "Visa card", "gift card card": a card brand (which already names the card)
# or a word ending in "card", followed by "card"; "your Visa ending in 1234" or "card ending in 1234" reads right
_CARD_BRANDS = r"visa|discover|american express|amex|diners club|jcb|\w*card"
brand_card = _finder("card_doubled", re.compile(rf"\b(?:{_CARD_BRANDS})\s+card\b", re.IGNORECASE))

# "a earbuds", "a order", "a headphones": "a" before a vowel sound or a plural
_YOO = re.compile(r"^(u[bnrst][aeiouy]|u[sn]i|use|usb|utility|eu|one|once|ubiquitous)", re.IGNORECASE)
_PLURAL_END = re.compile(r"(ds|ts|ers|ones|ks|gs|ps)$")
_A_WORD = re.compile(r"\b[Aa]\s+([A-Za-z][\w-]*)")


def _wrong_a(match: re.Match[str]) -> bool:
    word = match.group(1)
    if word.isupper() and len(word) > 1:  # an abbreviation: "a USB cable", "a SIM"
        return False
    lower = word.lower()
    vowel_sound = lower[0] in "aeiou" and not _YOO.match(lower)
    return vowel_sound or bool(_PLURAL_END.search(lower))


article_a = _finder("a_before_vowel_or_plural", _A_WORD, _wrong_a)

# "is currently delivered": a finished event said as a lasting state
currently_done = _finder(
    "currently_finished_event",
    re.compile(
        r"\b(?:is|are) currently (?:delivered|shipped|cancell?ed|returned|exchanged|refunded|placed|completed)\b",
        re.IGNORECASE,
    ),
)

# "Unfortunately, but I can't", "I'm afraid, but ...": a regret that already carries the contrast, then "but"
but_after_regret = _finder(
    "but_after_regret", re.compile(r"\b(?:Unfortunately|Regrettably|Sadly|I'm afraid|I’m afraid),?\s+but\b", re.IGNORECASE)
)

# "credit_card_7009466": an internal id (snake_case words then digits) said to the user
raw_id = _finder("raw_payment_id", re.compile(r"\b[a-z]+(?:_[a-z]+)*_\d{3,}\b"))

# "...your order id and your email. Could you share it?": "it" after asking for two things
_SINGLE_ASK = re.compile(r"\b(?:share|provide|give me|send|send me|tell me|confirm) it\b", re.IGNORECASE)
_TWO_THINGS = re.compile(r"\b\w+(?:,\s*\w+)*,?\s+and\s+(?:your |the |my )?\w+", re.IGNORECASE)


def it_after_two_things(text: str) -> list[GrammarMatch]:
    found = []
    sentences = split_sentences(text)
    for index, sentence in enumerate(sentences):
        ask = _SINGLE_ASK.search(sentence)
        if not ask:
            continue
        before = " ".join(sentences[max(0, index - 1) : index]) + " " + sentence[: ask.start()]
        if _TWO_THINGS.search(before):
            found.append(GrammarMatch("it_after_two_things", sentence, text.find(sentence)))
    return found


# "They is finishing up": a plural pronoun opening a sentence with a singular verb (mid-sentence
# "what I told you is" is right, so only at a sentence start)
_PRONOUN_VERB = re.compile(r"(?:^|(?<=[.!?;:]\s))(?:They|We|You|they|we|you)\s+(?:is|has|was|does)\b")
pronoun_agreement = _finder("pronoun_agreement", _PRONOUN_VERB)

# "Any time you need us, I'm here": one clause that speaks as the team and as one person
_US_THEN_I = re.compile(r"\bus, I(?:'m| am|'ll| will)\b|\bme, we(?:'re| are|'ll| will)\b")
us_then_i = _finder("us_then_i", _US_THEN_I)


# "I've checked, here's the answer.", "I checked both documents, here's what they say.": two sentences
# joined by a comma where a report of what was done hands over to what it found
_SPLICE = re.compile(r"\b(?:I've|I have|I) (?:checked|looked|had a look|read|opened)\b[^.!?,]*,\s+(?:here(?:'s| is| it| are)|this is)\b", re.IGNORECASE)
comma_splice = _finder("comma_splice", _SPLICE)

# "You can always get in touch anytime.": one offer that says "always" twice
always_anytime = _finder("always_anytime", re.compile(r"\balways\b[^.!?]*\b(?:anytime|any time)\b", re.IGNORECASE))

# name -> (detector, roles it applies to)
GRAMMAR_CLASSES: dict[str, tuple[Detector, tuple[str, ...]]] = {
    "doubled_word": (doubled_word, ("user", "assistant")),
    "lowercase_my_opening": (lowercase_my, ("user", "assistant")),
    "capital_after_comma": (capital_after_comma, ("user", "assistant")),
    "card_doubled": (brand_card, ("user", "assistant")),
    "a_before_vowel_or_plural": (article_a, ("user", "assistant")),
    "currently_finished_event": (currently_done, ("user", "assistant")),
    "but_after_regret": (but_after_regret, ("user", "assistant")),
    "raw_payment_id": (raw_id, ("assistant",)),
    "it_after_two_things": (it_after_two_things, ("assistant",)),
    "pronoun_agreement": (pronoun_agreement, ("user", "assistant")),
    "us_then_i": (us_then_i, ("assistant",)),
    "comma_splice": (comma_splice, ("assistant",)),
    "always_anytime": (always_anytime, ("user", "assistant")),
}


def find_grammar(text: str, role: str) -> list[GrammarMatch]:
    """Every grammar slip of the known classes in one turn spoken by `role`."""
    return [m for detect, roles in GRAMMAR_CLASSES.values() if role in roles for m in detect(text)]


@dataclass
class GrammarTally:
    turns: int = 0  # turns with at least one slip of the class
    examples: list[str] = field(default_factory=list)


def grammar_findings(rows: Iterable[Row], examples: int = 3) -> dict[str, GrammarTally]:
    """Per class: how many turns have the slip, and a few of them."""
    found = {name: GrammarTally() for name in GRAMMAR_CLASSES}
    for row in rows:
        for role in ("user", "assistant"):
            for text in texts(row, role):
                for name in sorted({m.name for m in find_grammar(text, role)}):
                    tally = found[name]
                    tally.turns += 1
                    if len(tally.examples) < examples:
                        tally.examples.append(f"[{row.get('domain')}/{row.get('kind')} {role}] {text[:240]}")
    return found
