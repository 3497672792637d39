"""Utterance templates: several Jinja2 phrasings per intent, one chosen by a seed.

The engine ships generic phrasings (greeting, asking, confirming, declining); a domain's
`utterances.yaml` adds its own intents and may replace the engine's, or drop engine variants it
cannot use (`exclude_engine:`, such as an "irrelevant" request its own tools serve).

An intent is either a list of whole variants, or a mapping of *parts* (acknowledgement, act,
detail, handover ...), each a list of variants, of which the seed draws one per part and joins
them in order: four parts of six variants give 1,296 sentences. A part with an empty variant ("")
is optional. `intent@register` (`confirm@terse`) replaces the intent for a persona's register
(see `phrasing.register_of`); `voiced()` picks it.

Every variant is parsed when the phrasebook is built (on a domain's first use of it): a syntax
error, or a variable in an engine intent that the engine does not pass, fails there. A domain's own intents are checked on first
use: every variant must render with the variables the caller gives (see `check_variables`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jinja2
import yaml

from toolgym.errors import DomainError, UnknownNameError

from .composition import Composition
from .phrasing import FILTERS, polish
from .snippets import snippet

ENGINE_UTTERANCES = Path(__file__).parent / "templates" / "utterances.yaml"
# The sentences of task structures (envs/structures.py): questions naming candidates, revisions' lead-ins.
ENGINE_STRUCTURES = Path(__file__).parent / "templates" / "structures.yaml"
_JINJA = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)


_JINJA.filters.update(FILTERS)


def money(value: float) -> str:
    """An amount as agents state it and required outputs expect it: '$1,234.50'."""
    return f"${float(value):,.2f}"


def said_amount(value: float, none: str) -> str:
    """The required output for an amount that may be nothing: '$40.00', or the words a reply says
    for nothing ('no charge', 'no refund'), since an agent would not say '$0.00 was refunded'."""
    return money(value) if value else none


_JINJA.filters["money"] = money
_CAPITALIZE = re.compile(r"\|\s*capitalize\b")


# The variables the engine passes to its own intents (oracle teacher, scripted user, engine
# generators). A variant of these intents, the engine's or a domain's replacement, may use only these.
ENGINE_VARIABLES: dict[str, frozenset[str]] = {
    intent: frozenset(names)
    for intent, names in {
        "ask_facts": ("labels", "opening", "lookup", "computes", "looked", "apologised"),
        "confirm": ("action", "details", "apologised"),
        "instruct": ("instruction", "checks", "reported", "again"),
        "decline_irrelevant": ("scope",),
        "decline_unavailable": ("action", "handoff", "scope", "left"),
        "ask_missing": ("labels", "chosen"),
        "point_out_invalid": ("value", "label", "problem", "valid"),
        "point_out_unsupported": ("value", "label", "problem", "valid"),
        "refuse_policy": ("rule", "instead"),
        "farewell": ("thanked", "evening"),
        "user_reveal": ("pairs", "recalled", "open_question", "offered"),
        "tell_choice": ("value",),
        "tell_pick": ("value",),
        "user_unknown": ("labels", "alone"),
        "user_undecided": ("labels", "alone"),
        "user_confirm": (),
        "user_done": (),
        "user_done_pending": (),
        "user_done_unsupported": (),
        "user_done_rethink": (),
        "user_done_not_found": (),
        "user_saw": ("summary",),
        "user_saw_error": ("error",),
        "user_report_lead": ("again",),
        "user_report_after": ("observed",),
        "user_needs_guidance": (),
        "user_gives_up": (),
        "irrelevant_request": (),
        "irrelevant_request_slotted": ("city", "topic", "dish", "phrase", "language", "skill", "occasion"),
        "persona": (),
        "system_tone": (),
        "reason_call": ("tools", "parallel", "evidence", "purpose", "arguments", "writes", "agreed", "because", "derived", "how"),
        "reason_ask": ("labels", "tools", "purpose", "request", "lookup", "computes", "picks"),
        "reason_confirm": ("tools", "parallel", "evidence", "purpose", "arguments", "terms"),
        "reason_instruct": ("tools", "parallel", "evidence", "purpose", "arguments"),
        "reason_reply": ("facts", "seen", "values", "asked", "reported", "also"),
        "reason_left_as_is": ("request",),
        "reason_next_page": ("tool", "page"),
        "reason_pages_turned": ("tool", "page", "queries"),
        "reason_disclose": ("disclosed",),
        "reason_injection": ("tool", "order"),
        "reason_no_call": ("kind", "labels", "scope", "rule", "problem", "action", "value", "request", "unsupported"),
        "reason_close": ("request", "facts", "outcome", "thanked", "several"),
        "ask_which": ("label", "what", "options", "count"),
        "ask_pick": ("label", "what", "options", "count"),
        "reason_ask_which": ("label", "count", "options", "purpose", "changes"),
        "reason_ask_pick": ("label", "count", "options", "purpose", "changes"),
        "revise_lead": (),
        "revise_lead_other": (),
        "correct_lead": (),
        "and_also": (),
        "reply_both": ("first", "second", "acted"),
        "reply_left_as_is": (),
        "and_then": (),
    }.items()
}
_YAML_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml reads the phrasebooks ~10x faster


class _YAML_LOADER(_YAML_BASE):  # noqa: N801 - used as a loader class, named as before
    """Rejects a mapping that names a key twice: YAML keeps the last without a word, and the
    wordings listed under the first would never be said."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{key!r} is given twice in one mapping; YAML would keep only the last: merge or rename them",
                    key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)

# Values a reply variant may read without every caller passing them, guarded with `is defined`: what
# the oracle adds from the domain (`Domain.handoff`, `Domain.scope`) and from the chat (`after_answer`:
# the user's last words answered the agent), the nearest valid value an invalid-value task may
# carry (`valid`), what the tools left do where a task withholds a whole area (`left`), and whether
# a missing value is the user's choice (`chosen`, pieces.missing_info), and how many of the agent's
# sentences before the reply apologised (`apologised`: a frustrated user hears sorry once, not at each step).
OPTIONAL_REPLY_VALUES = frozenset({"handoff", "scope", "valid", "after_answer", "left", "chosen", "instead", "apologised"})
EXCLUDE_KEY = "exclude_engine"  # in a domain's utterances.yaml: engine variants it does not use
VOICES_KEY = "exclude_voices"  # in a domain's utterances.yaml: voices its assistant lacks (templates/voices.yaml)
ENGINE_VOICES = Path(__file__).parent / "templates" / "voices.yaml"
# The intents (and their `@register` wordings) a domain frames a user's turn with, around the
# request itself, and the parts of a request intent that do the same ("aside: [It's for a report.]"):
# their sentences are asides, which a reasoning trace never quotes as the request.
FRAMING_INTENTS = frozenset({"opening", "opener", "aside", "next_request", "follow_up", "last_follow_up", "and_also",
                             "revise_lead", "revise_lead_other", "correct_lead"})
# "worry": a request's reaction beside it ("I want this dealt with now.", "Please help, I think it's fraud."), not what it asks
FRAMING_PARTS = frozenset({"aside", "greet", "context", "hello", "worry"})
# The parts of a reply intent that open it on an acknowledgement ("I've checked, here it is.") and
# that close the turn ("Happy to help with anything else."): two answers joined in one message say
# neither between them (see `say_without`).
ACK_PARTS = frozenset({"ack"})
CLOSING_PARTS = frozenset({"close"})
_EXPRESSION = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)


def variables_of(source: str) -> frozenset[str]:
    """The variables a template reads (raises jinja2.TemplateSyntaxError on bad syntax)."""
    return snippet(source, _JINJA).variables


def _allowed(intent: str) -> frozenset[str] | None:
    """The variables the engine passes to an engine intent (and to its registers, `confirm@terse`)."""
    return ENGINE_VARIABLES.get(intent.split("@", 1)[0])


def _failure(source: Path, intent: str) -> Callable[[str], Exception]:
    return lambda problem: DomainError(f"{source}: intent {intent!r} {problem}")


def _flat(variants: Any) -> Iterator[str]:
    """The variants of a list that may hold lists (YAML aliases), in order."""
    if isinstance(variants, str):
        yield variants
        return
    for item in variants:
        yield from _flat(item)


@functools.cache
def _voices() -> dict[str, dict[str, Any]]:
    loaded: dict[str, dict[str, Any]] = yaml.load(ENGINE_VOICES.read_text(), Loader=_YAML_LOADER)
    return loaded


def _with_voices(source: Path, exclusions: Any, voices: Any) -> Any:
    """A domain's exclusions with the variants of the voices it names (templates/voices.yaml) added."""
    if not voices:
        return exclusions
    known = _voices()
    if not isinstance(voices, list) or not isinstance(exclusions, dict):
        raise DomainError(f"{source}: {VOICES_KEY} must list voice names, such as [{', '.join(known)}]")
    merged = dict(exclusions)
    for voice in voices:
        if voice not in known:
            raise UnknownNameError(f"voice in {source.name}'s {VOICES_KEY}", voice, known)
        for intent, dropped in known[voice].items():
            if merged.get(intent) == "all":
                continue
            mine = merged.get(intent) or []
            merged[intent] = [*([mine] if isinstance(mine, str) else mine), dropped]
    return merged


class Phrasebook:
    def __init__(self, *sources: Path):
        self._raw: dict[str, list[str]] = {}
        self._parts: dict[str, Composition] = {}  # an intent's parts, in order; a list intent is one part
        self._all: dict[str, list[str]] = {}  # every source's variants, for pools that add up
        self._variables: dict[str, frozenset[str]] = {}  # variant text -> the variables it reads
        self._checked: set[tuple[str, tuple[str, ...]]] = set()
        self._asks: dict[str, bool] = {}
        self._framing: list[str] = []  # the variants of framing intents and parts (see `asides`)
        for source in sources:
            if not source.exists():
                continue
            try:
                data = yaml.load(source.read_text(), Loader=_YAML_LOADER) or {}
            except yaml.YAMLError as exc:
                raise DomainError(f"{source}: {exc}") from None
            exclusions = data.pop(EXCLUDE_KEY, None) or {}
            self._exclude(source, _with_voices(source, exclusions, data.pop(VOICES_KEY, None) or []))
            for intent in [i for i in data if "@" not in i and i in self._raw]:
                for voiced in [v for v in self._raw if v.startswith(f"{intent}@") and v not in data]:
                    del self._raw[voiced], self._parts[voiced]  # a replaced intent's engine registers go too
            for intent, variants in data.items():
                parts = self._parts[intent] = Composition.read(variants, _failure(source, intent))
                if intent.split("@")[0] in FRAMING_INTENTS:
                    self._framing += parts.leaves()
                elif isinstance(variants, dict):
                    self._framing += [v for name, part in variants.items() if name in FRAMING_PARTS
                                      for v in ([part] if isinstance(part, str) else part or []) if isinstance(v, str)]
                self._raw[intent] = list(parts.leaves())
                pool = self._all.setdefault(intent, [])
                pool += [v for v in self._raw[intent] if v not in pool]
        for intent, variants in self._all.items():
            for index, variant in enumerate(variants):
                names = self._variables[variant] = self._parse(intent, index, variant)
                allowed = _allowed(intent)
                if allowed is not None and not names <= allowed:
                    raise DomainError(
                        f"utterance {intent!r} (variant {index}: {variant!r}) uses "
                        f"{sorted(names - allowed)}, which the engine does not pass; it passes {sorted(allowed) or 'nothing'}"
                    )
        self._registered: dict[str, bool] = {}  # intent -> whether it has @register wordings

    def _exclude(self, source: Path, exclusions: Any) -> None:
        """Drop engine variants a domain does not use: `intent: [variant, ...]`, or `intent: all`. A list
        may hold lists (YAML aliases of variants several intents drop): they are read as one."""
        if not isinstance(exclusions, dict):
            raise DomainError(f"{source}: {EXCLUDE_KEY} must map intents to a list of variants or 'all'")
        for intent, dropped in exclusions.items():
            if intent not in self._raw:
                raise UnknownNameError(f"engine intent in {source.name}'s {EXCLUDE_KEY}", intent, self._raw)
            if dropped == "all":
                self._raw[intent], self._all[intent], self._parts[intent] = [], [], Composition([])
                continue
            dropped = list(_flat(dropped))
            unknown = [d for d in dropped if d not in self._all[intent]]
            if unknown:
                raise DomainError(f"{source}: {EXCLUDE_KEY} {intent!r} names variants the engine does not have: {unknown}")
            self._raw[intent] = [v for v in self._raw[intent] if v not in dropped]
            self._all[intent] = [v for v in self._all[intent] if v not in dropped]
            self._parts[intent] = self._parts[intent].without(set(dropped))
            if self._parts[intent].has_empty_part():
                raise DomainError(f"{source}: {EXCLUDE_KEY} {intent!r} drops every variant of one of its parts")

    @staticmethod
    def _parse(intent: str, index: int, variant: str) -> frozenset[str]:
        if "|" in variant and _CAPITALIZE.search(variant):
            raise DomainError(f"utterance {intent!r} (variant {index}: {variant!r}) uses Jinja's `capitalize`, which also "
                              "lowers every later letter ('Wi-Fi calling' -> 'wi-fi calling'); use `capfirst`")
        try:
            return variables_of(variant)
        except jinja2.TemplateSyntaxError as exc:
            raise DomainError(f"utterance {intent!r} (variant {index}: {variant!r}) is not valid Jinja2: {exc.message}") from None

    def check_variables(self, intent: str, given: Any) -> None:
        """Raise DomainError unless every variant of `intent` renders with the variables `given`."""
        key = (intent, tuple(given))  # a tuple hashes faster than a set; callers pass names in one order
        if key in self._checked:
            return
        names = set(key[1])
        for index, variant in enumerate(v for name in self._family(intent) for v in self.variants(name)):
            missing = self._variables[variant] - names - OPTIONAL_REPLY_VALUES
            if missing:
                raise DomainError(
                    f"utterance {intent!r} (variant {index}: {variant!r}) needs {sorted(missing)}, "
                    f"but its caller passes only {sorted(names) or 'nothing'}"
                )
        self._checked.add(key)

    def asks(self, intent: str) -> bool:
        """Whether some variant's own text (not its variables) holds a question mark."""
        found = self._asks.get(intent)
        if found is None:
            found = self._asks[intent] = any(
                "?" in _EXPRESSION.sub("", v) for name in self._family(intent) for v in self.variants(name)
            )
        return found

    def intents(self) -> list[str]:
        return sorted(self._raw)

    @functools.cached_property
    def fillers(self) -> frozenset[str]:
        """The sentences some variant writes whole, with no slot (asides, lead-ins, greetings),
        normalised as `user_turns.sentence_key`: words that carry no fact of a task."""
        from .user_turns import fixed_sentences

        return frozenset(fixed_sentences([v for variants in self._all.values() for v in variants]))

    @functools.cached_property
    def asides(self) -> frozenset[str]:
        """The fillers that frame a user's turn and never ask for the task: what an opening, an
        aside, the lead-in of a next request or of one that replaces the last writes whole ("Please go
        slowly with me.", "Right, so, bear with me.", "It's for a report.", "Let's turn to something
        else."), normalised (FRAMING_INTENTS, FRAMING_PARTS). A
        request written whole is a filler too, but no aside."""
        from .user_turns import fixed_sentences

        return frozenset(fixed_sentences(self._framing))

    @functools.cached_property
    def joining_links(self) -> tuple[str, ...]:
        """The words that join a second request onto the first in one message ("After that:", "Also:"),
        longest first, so a sentence that opens with one can be read without it."""
        return self._links("and_then", "and_also")

    @functools.cached_property
    def also_links(self) -> tuple[str, ...]:
        """Every way a second question is joined onto the first in one message ("Also:", "Also, a
        second question."), longest first: where such a message splits into the two it asks."""
        return tuple(sorted(set(self._family_variants("and_also")), key=len, reverse=True))

    @functools.cached_property
    def lead_links(self) -> tuple[str, ...]:
        """The links above and the lead-ins of a request that replaces the last one which run into it
        after a colon ("What I do need is this: Cancel booking FB1."): not the request's own words."""
        leads = self._family_variants(*FRAMING_INTENTS)
        return tuple(sorted({*self.joining_links, *(lead for lead in leads if lead.endswith(":"))}, key=len, reverse=True))

    @functools.cached_property
    def sequence_links(self) -> tuple[str, ...]:
        """The links of requests done one after another ("After that:", not "Also:"): where a message
        that asks several things in turn is split into the parts its steps serve (`Step.part`)."""
        return self._links("and_then")

    def _links(self, *intents: str) -> tuple[str, ...]:
        links = self._family_variants(*intents)
        return tuple(sorted({link for link in links if link.endswith(":")}, key=len, reverse=True))

    @functools.cached_property
    def revision_leads(self) -> frozenset[str]:
        """The lead-ins of a request that takes back or corrects the one before (normalised)."""
        from .user_turns import fixed_sentences

        return frozenset(fixed_sentences(self._family_variants("revise_lead", "revise_lead_other", "correct_lead")))

    def _family_variants(self, *intents: str) -> list[str]:
        """Every variant of the intents and of their registers (a typing persona's "and lastly:" is
        as much a link as "Lastly:"), stripped."""
        return [v.strip() for i in intents for name in self._family(i) if name in self._all for v in self._all[name]]

    def _family(self, intent: str) -> list[str]:
        """The intent and its registers (`intent@terse`, ...): what a caller of `voiced` may render."""
        return [intent, *(name for name in self._raw if name.startswith(f"{intent}@") and self._raw[name])]

    def voiced(self, intent: str, register: str | None) -> str:
        """`intent@register` when the phrasebook has it, else `intent` (the register's own wording)."""
        if register:
            name = f"{intent}@{register}"
            if self._raw.get(name):
                return name
        return intent

    def has_registers(self, intent: str) -> bool:
        """Whether some `intent@register` wording exists (cached per intent)."""
        found = self._registered.get(intent)
        if found is None:
            found = self._registered[intent] = any(name.startswith(f"{intent}@") for name in self._raw)
        return found

    def combinations(self, intent: str) -> int:
        """How many distinct utterances the intent can make (the product of its parts' variants)."""
        return self._parts_of(intent).count()

    def pooled(self, intent: str) -> list[str]:
        """The variants of an intent from the engine and the domain together (not replaced)."""
        if intent not in self._all:
            raise UnknownNameError("utterance intent", intent, self._all)
        return self._all[intent]

    def has(self, intent: str) -> bool:
        """Whether the phrasebook has wordings for the intent (an optional one a domain may give)."""
        return bool(self._raw.get(intent))

    def variants(self, intent: str) -> list[str]:
        if intent not in self._raw:
            raise UnknownNameError("utterance intent", intent, self._raw)
        if not self._raw[intent]:
            raise DomainError(f"utterance intent {intent!r} has no variants left (all excluded with {EXCLUDE_KEY})")
        return self._raw[intent]

    def render(self, intent: str, index: int, /, **values: Any) -> str:
        """Render one given combination of an intent (when the caller draws it itself)."""
        return self._render(intent, self._parts_of(intent).by_index(index), values)

    def say(self, intent: str, seed: int, /, **values: Any) -> str:
        """Render one phrasing of `intent`, chosen by `seed` (stable across runs); each part is drawn on its own."""
        return self._render(intent, self._parts_of(intent).by_seed(seed, intent), values)

    def say_without(self, intent: str, seed: int, parts: frozenset[str], /, **values: Any) -> str:
        """`say` without the intent's parts of the given names (ACK_PARTS, CLOSING_PARTS); the other
        parts say what `say` would. The first answer of a message that goes on to a second does not
        close the turn in its middle, and the second does not acknowledge again."""
        return self.say_swapping(intent, seed, dict.fromkeys(parts, ""), **values)

    def say_swapping(self, intent: str, seed: int, swap: Mapping[str, str], /, **values: Any) -> str:
        """`say` with the named parts said by the given templates instead ("" leaves one out): an
        agent's question about one fact in the domain's own words ("How far should it open?") in
        place of the engine's ("Could you give me your preferred window opening?")."""
        return self._render(intent, self._parts_of(intent).by_seed(seed, intent, swap), values)

    def closing_lines(self, intent: str) -> list[str]:
        """The templates the intent's closing parts say, the empty one aside."""
        return [line for line in self._parts_of(intent).leaves_of(CLOSING_PARTS) if line]

    def _parts_of(self, intent: str) -> Composition:
        self.variants(intent)  # raises for an unknown or emptied intent
        return self._parts[intent]

    def _render(self, intent: str, chosen: list[str], values: dict[str, Any]) -> str:
        pieces = []
        for source in chosen:
            try:
                pieces.append(snippet(source, _JINJA).render(values, _JINJA))
            except jinja2.UndefinedError as exc:
                raise DomainError(f"utterance {intent!r} (variant {source!r}) needs a value: {exc.message}") from None
        return polish(" ".join(pieces))


def render_file(path: Path, **values: Any) -> str:
    return _compiled_file(path, path.stat().st_mtime_ns).render(**values).strip() + "\n"


@functools.lru_cache(maxsize=64)
def _compiled_file(path: Path, mtime_ns: int) -> jinja2.Template:
    """A template file compiled once (a policy is rendered in up to 512 prompt variants per world;
    compiling costs milliseconds, rendering tens of microseconds); an edited file compiles again."""
    return _JINJA.from_string(path.read_text())
