"""Grammar-safe slots for phrasings, the final polish of a composed utterance, and registers.

The filters let a template say "an eSIM", "3 orders", "your Visa ending in 4242" and "a, b or c"
without the author thinking about sound, number or brand; `polish` capitalises sentence starts
and removes doubled words that appear where two parts meet ("on on"). `register_of` reads a
persona's description for the way that person writes (terse, chatty, formal, ...), which the
scripted user speaks in and the assistant answers in.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from .composition import words_of
from .grounding import extract_facts
from .user_turns import NOT_AFTER_TITLE

# Words whose first letter is a vowel but whose sound is not ("a unit", "a one-off", "a European").
_CONSONANT_SOUND = re.compile(r"^(u[bnrst][aeiouy]|u[sn]i|use|usu|usb|utility|uk\b|eu|ewe|one\b|one-|once|ubiquitous)", re.IGNORECASE)
# Words whose first letter is a consonant but whose sound is a vowel ("an hour", "an honest").
_VOWEL_SOUND = re.compile(r"^(hour|honest|honou?r|heir)", re.IGNORECASE)
# Letters said with a vowel sound when an abbreviation is spelled out: "an SMS", "an MMS", "an eSIM".
_VOWEL_LETTERS = set("AEFHILMNORSX")
_PLURAL_ENDINGS = re.compile(r"(buds|phones|pants|glasses|scissors|shorts|jeans|headphones|earbuds|goods|clothes|supplies|"
                             r"leggings|shoes|boots|sneakers|sandals|slippers|socks|gloves)$", re.IGNORECASE)
_IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women", "foot": "feet", "tooth": "teeth"}


def article(phrase: Any) -> str:
    """The phrase with 'a' or 'an' by its first sound; a plural noun ('earbuds') gets none."""
    text = str(phrase).strip()
    if not text:
        return text
    words = text.split()
    first = words[0]
    if _PLURAL_ENDINGS.search(words[-1]) and " of " not in text:
        return text  # "earbuds", "Wireless Earbuds" take none; "a pair of jeans" does
    return f"{'an' if _vowel_sound(first) else 'a'} {text}"


def _vowel_sound(word: str) -> bool:
    core = word.lstrip("\"'(")
    if not core:
        return False
    if core[0].isdigit():
        return core.startswith(("8", "11", "18"))  # "an 8", "an 11-day"
    letters = re.match(r"[A-Za-z]+", core)
    head = letters.group(0) if letters else core
    if len(head) >= 2 and head.isupper():  # spelled-out abbreviation: "an SMS", "a SIM"? (SIM is said as a word)
        return head[0] in _VOWEL_LETTERS and head not in ("SIM", "NAS", "NASA", "FAQ", "UFO", "URL")
    if len(head) >= 2 and head[0].islower() and head[1].isupper():  # "eSIM", "iPhone"
        return head[0] in "aeio"
    if _VOWEL_SOUND.match(core):
        return True
    return core[0].lower() in "aeiou" and not _CONSONANT_SOUND.match(core)


def plural(word: Any, count: Any = 2) -> str:
    """The word in the number `count` asks for: plural('order', 3) -> 'orders'."""
    text = str(word)
    if _as_number(count) == 1:
        return text
    if text.lower() in _IRREGULAR:
        return _IRREGULAR[text.lower()]
    if re.search(r"(s|x|z|ch|sh)$", text):
        return text + "es"
    if re.search(r"[^aeiou]y$", text):
        return text[:-1] + "ies"
    return text + "s"


def counted(count: Any, word: Any) -> str:
    """'1 order', '3 orders'."""
    return f"{count} {plural(word, count)}"


def _as_number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def join_words(items: Any, last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' (last='or' for alternatives)."""
    words = [str(i) for i in items]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} " + words[-1]


def card(last4: Any, brand: Any = None) -> str:
    """'Visa ending in 4242' or 'card ending in 4242': a brand is never followed by 'card'."""
    name = str(brand).strip() if brand else ""
    name = re.sub(r"\s+card$", "", name, flags=re.IGNORECASE)
    return f"{name or 'card'} ending in {last4}"


def capfirst(text: Any) -> str:
    value = str(text)
    return value[:1].upper() + value[1:]


def inline(text: Any) -> str:
    """A sentence-cased fragment said inside a sentence: 'Turn on roaming' -> 'turn on roaming',
    'The phone has no signal' -> 'the phone has no signal'. Names keep their capital: a possessive
    ("Kristen's meeting"), a run of capitalised words ("Mechanical Keyboard"), an acronym or an id;
    an article or a possessive before a name does not ("Your Visa" -> "your Visa").
    A fragment that lands at a sentence start is capitalised again by `polish`."""
    value = str(text)
    words = value.split(" ", 2)
    first = words[0]
    if first in _NEVER_NAMES and len(words) > 1:  # "The Basic 5 plan", "Your Visa ending in 2122", "There's $10"
        return first.lower() + value[len(first) :]
    titled = first[:1].isupper() and (first == "A" or (first[1:].isalpha() and first[1:].islower()))
    if len(words) < 2 or not titled:
        return value
    if words[1][:1].isupper() or first.endswith("'s"):
        return value
    return first.lower() + value[len(first) :]


# Opening words no name starts with: a capital after them is the next word's own.
# words that open a sentence but never a name: "The Basic 5 plan", "On July 7, ..." (a preposition before a date)
_NEVER_NAMES = frozenset("The Your There's There It's Its This That These Those Our My Their An On In At From Since By".split())


def lower_first(text: str) -> str:
    """'Turn on roaming' said inside a sentence: 'turn on roaming'; 'A traveller's bookings': 'a
    traveller's bookings' (an id or acronym, 'Wi-Fi' or 'APN', stays as it is). Unlike `inline`, a
    capitalised second word does not make the first a name: the text is known to open on a verb."""
    head = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if head == "A" or (head[:1].isupper() and head[1:].islower()) else text


# A label that names several things on its own: "check-in and check-out dates", "nights" (not "address", "status")
_NAMES_SEVERAL = re.compile(r"\band\b|[^sui']s$")


def one_or_all(count: Any, single: str = "it", several: str = "them") -> str:
    """The pronoun for what was asked: 'it' after one thing, 'them' after several (a single label
    that names several, "check-in and check-out dates", is several)."""
    if isinstance(count, list | tuple) and len(count) == 1 and isinstance(count[0], str):
        return several if _NAMES_SEVERAL.search(count[0].strip()) else single
    number = count if isinstance(count, int | float) else len(count) if hasattr(count, "__len__") else 2
    return single if number == 1 else several


_THIRD_PERSON_OWNER = re.compile(r"\b(?:the |a )?(?:verified |signed-in |current )?(?:customer|traveller|traveler|user|caller|account holder)'s\b")


def to_the_user(text: str) -> str:
    """A tool's description said to the person it serves: "the verified customer's saved payees" ->
    "your saved payees" (a description speaks of the customer in the third person)."""
    return _THIRD_PERSON_OWNER.sub("your", text)


# words after "you" that take no third-person -s: a modal ("you can"), or a word that makes "you"
# an object or a subject with no verb next ("transfer you to", "you and")
_KEPT_AFTER_YOU = frozenset({"can", "could", "may", "might", "must", "should", "will", "would",
                             "to", "for", "with", "at", "in", "on", "about", "from", "by", "into", "as", "if", "when",
                             "and", "or", "a", "an", "the", "all", "both", "back", "up", "out", "over", "now", "here", "there"})


def about_the_user(text: str) -> str:
    """A tool's description (said to the person it serves) said about them, as a trace speaks:
    "share a file you own" -> "share a file the user owns", "your mailbox" -> "the user's mailbox"."""

    def subject(match: re.Match[str]) -> str:
        word = match.group(1)
        return f"the user {word if word.lower() in _KEPT_AFTER_YOU else _third_person(word)}"

    if "you" not in text.lower():
        return text
    # a quoted span is the user's own words ('the text "thanks for your help"'): kept as written
    parts = _QUOTED.split(text)
    for i in range(0, len(parts), 2):
        part = re.sub(r"\byours?\b", "the user's", parts[i])
        part = re.sub(r"\byou ([a-z]+)\b", subject, part)
        parts[i] = re.sub(r"\byou\b", "the user", part)  # what is left is an object: "shared with you"
    return "".join(parts)


_QUOTED = re.compile(r'("[^"]*"|“[^”]*”)')


def _third_person(verb: str) -> str:
    """'own' -> 'owns', 'organise' -> 'organises', 'have' -> 'has', 'reach' -> 'reaches'."""
    if verb == "have":
        return "has"
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


_DETERMINERS = frozenset({"the", "a", "an", "my", "your", "his", "her", "their", "its", "our", "this", "that", "these", "those"})


def owned(labels: Any, word: str = "your") -> list[str]:
    """Labels said with `word` in front ('your phone number'), except a label that names its own
    owner or article ('the company's name', 'her booking number'): a fact of someone else's is not
    'your' fact, whoever speaks for them."""
    items = [labels] if isinstance(labels, str) else list(labels)
    return [str(x) if str(x).split(" ", 1)[0].lower() in _DETERMINERS else f"{word} {x}" for x in items]


def bare(labels: Any) -> list[str]:
    """Labels without their article or owner, for "which/what <label>": 'the date' -> 'date'."""
    items = [labels] if isinstance(labels, str) else list(labels)
    return [str(x).split(" ", 1)[1] if " " in str(x) and str(x).split(" ", 1)[0].lower() in _DETERMINERS else str(x) for x in items]


def is_status(status: Any, adverb: str = "") -> str:
    """A record's status said as what it is: 'is shipped', 'is still pending'; a status naming a
    request ('return requested') is one the record has: 'has a return requested' ('is return
    requested' reads as a form's field). A status that records an event ('delivered') is one the
    record is marked with, once an adverb stands before it: 'is still marked as delivered', not 'is
    still delivered'."""
    text = str(status)
    head, _, rest = text.partition(" ")
    if rest == "requested":
        return " ".join(w for w in (adverb, "has", article(head), rest) if w)
    if adverb and text in _EVENT_STATUSES:
        return f"is {adverb} marked as {text}"
    return " ".join(w for w in ("is", adverb, text) if w)


_EVENT_STATUSES = frozenset({"delivered", "shipped", "returned", "exchanged"})


FILTERS = {
    "is_status": is_status,
    "owned": owned,
    "bare": bare,
    "a": article,
    "article": article,
    "plural": plural,
    "counted": counted,
    "join_words": join_words,
    "card": card,
    "capfirst": capfirst,
    "inline": inline,
    "it_or_them": one_or_all,
}

# A repeated lower-case word ("on on"), or a capitalised one repeated in lower case ("The the");
# names repeated as names ("Bora Bora") are kept.
_DOUBLED = re.compile(r"\b([A-Za-z])([a-z]*)\s+(?:\1|(?i:\1))\2\b")
_KEEP_DOUBLED = {"that", "had", "is", "very", "bye", "no", "ha", "so"}
# A sentence start: the text's start, or after . ! ? (and a closing bracket) and spaces. A colon
# does not open a sentence, but "my" there reads as one, so it is rewritten to "My" too.
# A message quoted inside a sentence ('post "Fixed. Thanks!" in #general') ends with its own mark;
# the word after its closing quote goes on the sentence around it, so it opens nothing.
# A word that goes on past a full stop ("bryan.elliott.com", an email or a file name) is a value, kept as written.
_OPENING = re.compile(r"(^|[.!?][')\]]*\s+)([a-z])([a-z']*)(?=[\s,!?;:]|\.(?!\w)|$)")
_MY_AFTER_COLON = re.compile(r"(:\s+)my\b")
_MARKS = ",.!?;:"  # no space before them
_EMPTY_CLAUSE = re.compile(r"([.!?])[.,]+")  # spaces before marks are gone by then
_EMPTY_CLAUSE_PAIRS = tuple(end + mark for end in ".!?" for mark in ".,")
# a quotation that ends its sentence takes no second stop: 'the message "Hi Ana, thanks.". Shall I' -> '"Hi Ana, thanks." Shall I'
_STOP_AFTER_QUOTE = re.compile(r"([.!?][\"”])\.(?=\s|$)")
_STOP_AFTER_QUOTE_PAIRS = tuple(end + quote + "." for end in ".!?" for quote in "\"”")
_LETTERS = re.compile(r"[a-z]+")  # in lower case: a doubled word is two equal runs in a row


def _undouble(match: re.Match[str]) -> str:
    first, second = match.group(0).split()
    if first.lower() in _KEEP_DOUBLED or (first[0].isupper() and second[0].isupper()):
        return match.group(0)
    return first


@functools.lru_cache(maxsize=4096)  # a rollout's reasoning says again much of what its gold chat said
def polish(text: str) -> str:
    """Tidy an utterance put together from parts: spaces, doubled words, sentence openings.

    Only all-lowercase words are capitalised at a sentence start, so ids and brand spellings
    ('eSIM', 'ord_123') are kept as they are. A fragment (no full stop, question or exclamation
    mark at its end: 'the credit card ending in 4413', 'turn on roaming') is a slot for a longer
    sentence, and keeps its first word as written: its capital comes from where it lands.
    """
    text = " ".join(text.split())
    # Every utterance of a job passes here (~20 a task): each rewrite runs only where a cheap test
    # finds what it would change. Spaces are single from here on.
    for mark in _MARKS:
        if " " + mark in text:
            text = text.replace(" " + mark, mark)
    if any(pair in text for pair in _EMPTY_CLAUSE_PAIRS):
        text = _EMPTY_CLAUSE.sub(r"\1", text)
    words = _LETTERS.findall(text.lower())
    if any(a == b for a, b in zip(words, words[1:], strict=False)):
        text = _DOUBLED.sub(_undouble, text)
    if ": my" in text:
        text = _MY_AFTER_COLON.sub(r"\1My", text)
    fragment = not _SENTENCE_END.search(text)
    text = _OPENING.sub(lambda m: m.group(0) if fragment and not m.group(1) else m.group(1) + m.group(2).upper() + m.group(3), text)
    if any(pair in text for pair in _STOP_AFTER_QUOTE_PAIRS):  # last: the stop has opened the next sentence
        text = _STOP_AFTER_QUOTE.sub(r"\1", text)
    return text


_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?:\s*###STOP###)?\s*$")


# How a persona's description reads as a register: the first register whose words it contains.
REGISTERS: dict[str, tuple[str, ...]] = {
    "typo": ("typo", "types on a phone", "typing on"),
    "non_native": ("non-native", "simple, short sentences", "learning english", "second language"),
    "elderly": ("retiree", "elderly", "not very confident with technology", "unsure about phone", "grandparent"),
    "frustrated": ("frustrated", "angry", "impatient", "fed up", "called before"),
    "terse": ("short", "direct", "busy", "brief", "little punctuation"),
    "formal": ("careful", "courteous", "formal", "skeptical", "double-checks", "business"),
    "chatty": ("chatty", "friendly", "cheerful", "casual", "juggling", "apologises", "explains a lot"),
}
NEUTRAL = "neutral"


@functools.lru_cache(maxsize=4096)  # a domain has a few hundred personas, read at every utterance
def register_of(persona: str | None) -> str:
    """The register a persona writes in ('terse', 'chatty', 'formal', 'frustrated', 'elderly',
    'non_native', 'typo'), or 'neutral' when its description names none of them."""
    lowered = (persona or "").lower()
    for name, words in REGISTERS.items():
        if any(w in lowered for w in words):
            return name
    return NEUTRAL


ELDERLY_FROM = 60  # an elderly register ("my grandson helps me", "dear") fits a customer this old or older
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def age_on(born: Any, today: dt.date) -> int | None:
    """The age on `today` of someone born on `born`, a day with its year as a user types it
    ('2004-11-17', 'November 17, 2004', '17 November 2004'); None for anything else."""
    if not isinstance(born, str):
        return None
    if not _ISO_DATE.fullmatch(born):
        dates = [f.value for f in extract_facts(born) if f.kind == "date"]
        if len(dates) != 1 or not _ISO_DATE.fullmatch(dates[0]):  # one day, with its year
            return None
        born = dates[0]
    try:
        birth = dt.date.fromisoformat(born)
    except ValueError:  # an impossible date an invalid-value task gives on purpose
        return None
    return today.year - birth.year - ((today.month, today.day) < (birth.month, birth.day))


def speaker_age(facts: Any, today: dt.date) -> int | None:
    """The age of the user, when the facts they know hold their birth date."""
    born = next((f.value for f in facts if "birth" in f.label.lower()), None)
    return age_on(born, today)


def persona_fits(persona: str, age: int | None) -> bool:
    """Whether the persona's register fits someone of `age` (unknown: anyone fits)."""
    return age is None or register_of(persona) != "elderly" or age >= ELDERLY_FROM


_WORD = re.compile(r"(?<![\w@.#/-])[A-Za-z]{4,}(?![\w@/-]|\.\w)")  # a plain word, not part of an id, email or path
# Words the other side reads to tell a yes from a no, or that end the chat: never misspelled.
_NEVER_MISSPELL = {"please", "proceed", "ahead", "confirm", "sure", "okay", "yes", "don't", "never", "mind", "stop", "rather"}


def with_typos(text: str, seed: int, keep: Any = (), rate: int = 5) -> str:
    """The text as a hurried typist writes it: about one word in `rate` (of four letters or more)
    has two letters swapped or one dropped. Facts, ids and the words in `keep` are never touched."""
    kept = {w.lower() for value in keep for w in re.findall(r"[A-Za-z]+", str(value))}
    state = (seed * 2654435761) & 0xFFFFFFFF

    def slip(match: re.Match[str]) -> str:
        nonlocal state
        word = match.group(0)
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        if word.lower() in kept or word.lower() in _NEVER_MISSPELL:
            return word
        if state % rate:
            return word
        at = 1 + (state >> 8) % (len(word) - 2)
        if (state >> 4) % 2:
            return word[:at] + word[at + 1] + word[at] + word[at + 2 :]
        return word[:at] + word[at + 1 :]

    return _WORD.sub(slip, text)


_FIRST_CLAUSE = re.compile(r"^(.*?)(?:[.:;]\s|[.:;]?$|,? such as|\s\(|, or\b|,\s(?=[a-z]+ed\b))", re.DOTALL)
_NOUN_OPENINGS = frozenset({"the", "a", "an", "one", "details", "flights", "hotels", "all", "each", "every"})


_ASIDE = re.compile(r"\s*\([^()]*\)")  # a parenthetical of a description: '(APN)', '(cellular)'
# the first clause and its ", or ...": not a participle's aside ("..., priced as a share of the fare")
_ALL_USES = re.compile(r"^(.*?)(?:[.:;]\s|[.:;]?$|,? such as|\s\(|,\s(?=[a-z]+ed\b))", re.DOTALL)


def tool_description(domain: Any, name: str) -> str:
    """A tool's description as its schema gives it; empty for a tool the domain lacks."""
    try:
        return str(domain.tool(name).schema["function"].get("description") or "")
    except Exception:  # noqa: BLE001 - an unknown tool (a hostile plan) just has no description
        return ""


def tool_purpose(domain: Any, name: str, whole: bool = False) -> str:
    """What a tool does, as a verb phrase to say inside a sentence, from the first clause of its
    description: 'list the verified customer's accounts', 'look up a traveller's profile' (a
    description that opens on a noun reads as a lookup); empty for a tool the domain lacks.
    `whole`: with every use the clause names ('mark a message as read or unread, or set or clear its
    flag'), for saying what cannot be done when the request asked for only one of them."""
    description = _ASIDE.sub("", tool_description(domain, name).strip())  # "Switch mobile (cellular) data on or off."
    found = (_ALL_USES if whole else _FIRST_CLAUSE).match(description)
    text = (found.group(1) if found else description).strip().rstrip(".")
    if not text:
        return ""
    text = lower_first(text)  # it opens on a verb ('Switch Wi-Fi calling'), never a name
    first = text.split()[0].lower()
    if first == "what":  # "What cancelling would cost" -> "find out what cancelling would cost"
        return f"find out {text}"
    return f"look up {text}" if first in _NOUN_OPENINGS else text


_SCOPE_ITEMS = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_SCOPE_OWNER = re.compile(r"(?:your|this car's|our|the) ")
_NOT_AN_AREA = frozenset({"your", "our", "this", "the", "car", "at", "work", "on", "web", "described"})


def _area_key(word: str) -> str:
    """How an area's word meets a tool's: 'bookings' and 'booking', 'doors' and 'door'."""
    return word.lower().rstrip("s")[:5]


def tool_area_words(name: str) -> list[str]:
    """The words of a tool's name that say which area of the scope it serves: its verb and the head of
    its object ('return_delivered_order_items': return, items). The words between only qualify the
    object: without 'modify_pending_order_address' the agent can still cancel or change orders, so
    "orders" stays in what it offers help with."""
    words = [w for w in name.lower().split("_") if w]
    return words if len(words) <= 2 else [words[0], words[-1]]


def scope_without(scope: str, words: Iterable[str]) -> str:
    """A domain's scope ('your flights, hotel stays, ..., insurance and loyalty points') without the
    areas `words` name (a tool that cannot be used: 'add_insurance'), so that "I can't add insurance"
    is not followed by an offer of help with insurance; '' when nothing is left."""
    keys = {_area_key(w) for w in words if len(w) > 3}
    items = [item for item in _SCOPE_ITEMS.split(scope) if item]
    kept = [item for item in items if not keys & {_area_key(w) for w in words_of(item) if w not in _NOT_AN_AREA}]
    if not kept:
        return ""
    owner = _SCOPE_OWNER.match(items[0])  # "your", "this car's": said once, before the first area left
    if owner and not _SCOPE_OWNER.match(kept[0]):
        kept[0] = owner.group(0) + kept[0]
    return kept[0] if len(kept) == 1 else ", ".join(kept[:-1]) + " and " + kept[-1]


_TIME_GREETING = re.compile(r"\b(Good|good) (morning|afternoon|evening)\b")


def part_of_day(hour: int) -> str:
    """'morning', 'afternoon' or 'evening' (the night too) of an hour of the clock."""
    return "morning" if 5 <= hour < 12 else "afternoon" if 12 <= hour < 18 else "evening"


def greeting_at(text: str, hour: int) -> str:
    """The text with a "Good morning" of the wrong part of the day set right: a user writing at 09:30
    does not say "Good evening" (the policy tells the agent the time)."""
    part = part_of_day(hour)
    return _TIME_GREETING.sub(lambda m: f"{m.group(1)} {part}", text)


_BETWEEN_SENTENCES = re.compile(rf"(?<=[.!?]){NOT_AFTER_TITLE}\s+")
_REDRAWS = 8  # other draws tried while a text repeats a sentence already said
REDRAW_STRIDE = 7919  # seed offset between two draws


def sentences_of(text: str) -> set[str]:
    """A text's sentences, in lower case: what a repeat is compared by."""
    return {s.lower() for s in _BETWEEN_SENTENCES.split(text) if s.strip()}


_APOLOGY = re.compile(r"\b(?:sorry|apolog\w*)\b", re.IGNORECASE)


def apologies(texts: Iterable[str]) -> int:
    """How many sentences of the texts apologise ("Sorry for the trouble.", "Apologies for the hassle."):
    what the agent's next words read before they say sorry once more, or "Sorry again"."""
    return sum(1 for text in texts for sentence in _BETWEEN_SENTENCES.split(text or "") if _APOLOGY.search(sentence))


def unrepeated(draw: Callable[[int], str], seed: int, said: set[str]) -> str:
    """`draw(seed)`, drawn again with other seeds while one of its sentences is in `said` (a lead-in or
    an agent's question said earlier in the chat); the first draw when every draw repeats something."""
    first = text = draw(seed)
    for attempt in range(1, _REDRAWS + 1):
        if sentences_of(text).isdisjoint(said):
            return text
        text = draw(seed + REDRAW_STRIDE * attempt)
    return first


def apart(candidates: Iterable[str], said: frozenset[str], own: frozenset[str] = frozenset()) -> str:
    """The first of `candidates` (wordings of one sentence, the usual draw first) that says no word of
    `said` (what the turn said before it: "Seat heating is now level 2. Cruise control is off now.")
    other than its own values' words (`own`); failing one, the first that repeats the fewest."""
    best, fewest = "", -1
    for text in candidates:
        repeated = len((words_of(text) & said) - own)
        if fewest < 0 or repeated < fewest:
            best, fewest = text, repeated
        if not repeated:
            break
    return best


def dates_in_words(iso: str) -> list[str]:
    """An ISO date ('2016-11-08') as people and pages write it, the fullest first: '8 November 2016',
    'November 8, 2016', 'November 8', '8 November'; none for another text."""
    date = _ISO_DATE.fullmatch(iso)
    if date is None or not 1 <= int(date[2]) <= 12:
        return []
    name, day, year = calendar.month_name[int(date[2])], int(date[3]), date[1]
    return [f"{day} {name} {year}", f"{name} {day}, {year}", f"{name} {day}", f"{day} {name}"]


def _as_date(day: dt.date | str) -> dt.date:
    return dt.date.fromisoformat(day) if isinstance(day, str) else day


def month_day(day: dt.date | str) -> str:
    """A day as people name one this year: 'March 13' (from a date or '2025-03-13')."""
    date = _as_date(day)
    return f"{date:%B} {date.day}"


def said_day(day: dt.date | str, today: dt.date) -> str:
    """A day as one writes it to someone: 'June 20' this year, 'October 21, 2023' in another (its
    year tells something then, and a required output keeps it)."""
    date = _as_date(day)
    return month_day(date) if date.year == today.year else full_day(date)


def full_day(day: dt.date | str) -> str:
    """A day with its year, as one writes a birth date: 'November 17, 2004'."""
    date = _as_date(day)
    return f"{month_day(date)}, {date.year}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# How users type a day, by weight: mostly as said, at times with an ordinal ("June 8th"), day first
# ("8 June"), or as forms and apps write it ("2025-06-08"), so that a day typed so is not a sign of
# the one kind of chat (an impossible day) that must keep that form.
_TYPED_DAY_WEIGHTS = {"said": 0.65, "ordinal": 0.12, "day_first": 0.1, "iso": 0.13}


def typed_day(rng: Any, day: dt.date | str, today: dt.date) -> str:
    """A day as a user types it: 'June 8' (with its year when not this year's), 'June 8th',
    '8 June' or '2025-06-08'; every form reads as the same day (envs/grounding.py)."""
    date = _as_date(day)
    form = rng.choices(list(_TYPED_DAY_WEIGHTS), weights=list(_TYPED_DAY_WEIGHTS.values()))[0]
    year = "" if date.year == today.year else str(date.year)
    if form == "iso":
        return date.isoformat()
    if form == "ordinal":
        return f"{date:%B} {_ordinal(date.day)}" + (f", {year}" if year else "")
    if form == "day_first":
        return f"{date.day} {date:%B}" + (f" {year}" if year else "")
    return said_day(date, today)


def day_in_words(day: dt.date | str) -> str:
    """'2025-03-13' -> 'Thursday, March 13'."""
    date = _as_date(day)
    return f"{date:%A}, {month_day(date)}"


def moment_in_words(local: str) -> str:
    """A local time as tools write it, '2025-03-13 09:00', as people do: 'Thursday, March 13 at 09:00'."""
    day, _, time = local.partition(" ")
    return f"{day_in_words(day)} at {time}" if time else day_in_words(day)


def zone_in_words(zone: str) -> str:
    """A time zone id as people name it: 'America/New_York' -> 'New York time'."""
    return zone.rsplit("/", 1)[-1].replace("_", " ") + " time"
