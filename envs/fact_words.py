"""A domain's own words for asking and giving one fact, where its label reads stiffly.

The engine builds both from the fact's label: the agent asks "Could you give me your preferred window
opening?" and the user answers "My preferred window opening is 40% open.". People do not talk like
that about everything, so a domain may say them its own way in its phrasebook:

- `ask_fact_<key>`: the agent's question for that one fact ("How far should it open?"), said in
  place of the `ask` part of `ask_facts` (its lead-in and afterword stay the engine's). It must name
  a keyword of the fact, since that is how the user knows what is asked, and must not read as a
  yes/no confirmation ("should I", "proceed"): the user would say yes.
- `tell_fact_<key>`: the user's clause that gives it, with `{{ value }}` ("about {{ value }}, please"),
  joined like the engine's "my X is Y" clauses in `user_reveal`.

Both may read `{{ label }}`, where one key has several labels ("sales tax rate", "discount percentage").

Both may have `@register` wordings. A fact without them keeps the engine's words: the label's, or
for the answer to "which one?" the engine's `tell_choice` ("I mean FB100381", not "My flight is FB100381").
"""

from __future__ import annotations

from collections.abc import Sequence

from toolgym.errors import DomainError

from .phrasebook import Phrasebook
from .task import Fact

ASK_PREFIX = "ask_fact_"
GIVE_PREFIX = "tell_fact_"
CHOICE_INTENT = "tell_choice"  # the engine's clause for the record the user means, asked which
PICK_INTENT = "tell_pick"  # ... and for the one they pick among options offered ("I'll take the 3 GB one")
_REDRAWS = 12  # other draws of a question tried while it names another fact's keyword


def fact_question(phrases: Phrasebook, facts: Sequence[Fact], register: str | None, seed: int, avoid: Sequence[str] = ()) -> str:
    """The domain's question when one fact is asked and it words that fact's question; else ''.

    `avoid`: the keywords of the task's other withheld facts. A question naming one ("What opening
    would you like, in percent?" when the charge limit is asked for by "percent" too) would have the
    user give that one now, so it is drawn again; '' when every draw names one."""
    if len(facts) != 1 or not phrases.has(intent := f"{ASK_PREFIX}{facts[0].key}"):
        return ""
    voiced, avoided = phrases.voiced(intent, register), [word.lower() for word in avoid]
    for attempt in range(_REDRAWS):
        question = phrases.say(voiced, seed + attempt, label=facts[0].label)
        if not any(word in question.lower() for word in avoided):
            return question
    return ""


def fact_answer(phrases: Phrasebook, fact: Fact, register: str | None, seed: int, chosen: bool = False, offered: bool = False) -> str:
    """The user's clause giving `fact` in the domain's words; for the answer to "which one?"
    (`chosen`), the engine's `tell_choice` ("I mean #W123") where the domain has none, or its
    `tell_pick` where the options were offered to choose from (`offered`: "I'll take black / M", not
    "I meant black / M"); else ''. A wording that drops the value would leave the agent nothing to
    act on: it fails, naming the intent."""
    intent = f"{GIVE_PREFIX}{fact.key}"
    if not phrases.has(intent):
        if not chosen:
            return ""
        intent = PICK_INTENT if offered else CHOICE_INTENT
    voiced = phrases.voiced(intent, register)
    said = phrases.say(voiced, seed, value=fact.value, label=fact.label)
    if str(fact.value) not in said:
        raise DomainError(f"utterance {voiced!r} said {said!r}, which leaves out the value {fact.value!r}: use {{{{ value }}}}")
    return said
