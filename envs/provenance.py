"""Argument provenance: where every value an agent passes to a tool came from.

An argument value is *seen* when the agent had it in front of it before the call that passes it:
the system prompt, the user's turns, the values of tool results (not their field names) and its
own earlier call arguments. Values are compared in canonical form, as grounding compares stated
facts (envs/grounding.py): numbers as numbers (the user's "two" is 2), dates, times and phone
numbers by their canonical value, strings case- and space-insensitively as whole tokens.

By the parameter's schema:

- an enum value must be *named in words* by the user, a tool result or an earlier call: its own
  words (`fog_lights` is "fog lights", inflections allowed) or words the domain or tool maps to
  it (`value_words`, "petrol station" for `fuel_station`); the system prompt does not name it;
- a value equal to the parameter's schema default passes (leaving it out makes the same call);
- an optional flag set away from its default needs its words (`insurance`, `direct only`) from
  the user or a tool result; a required flag is a yes/no the outcome checks judge;
- text the agent composes (a message body, a note, a search expression: `free_text`) is checked
  for the facts inside it (ids, amounts, dates, numbers), not word by word;
- a value the gold plan computed from what it read (one degree warmer than the zone read, the day
  after a date seen) is declared on its step (`Step.derived`); the same value passes.

Everything is linear in the chat: texts are indexed once, lazily, and values looked up in sets
(envs/seen.py holds what the agent has seen and its indexes).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .grounding import StatedFact, extract_facts
from .seen import NUMBER, Seen, canonical_number, values_text, words_of

if TYPE_CHECKING:
    from .domain import Domain
    from .task import Task
    from .tools import Tool

# Parameter names that hold text the agent writes itself (engine default of `free_text`).
FREE_TEXT_NAMES = frozenset(
    {"body", "text", "message", "note", "notes", "content", "comment", "comments", "description", "summary", "subject",
     "expression", "details", "memo"}
)  # fmt: skip
# Numbers arithmetic brings with it (a percentage over 100): not facts an expression must have seen.
_ARITHMETIC = frozenset({"0", "1", "100"})
# Words that carry no choice: left out of a value's words unless the value is nothing else ("on").
_FILLER = frozenset("the a an of or and to for in on at by with is my your".split())
_FLAG_FILLER = _FILLER | {"only", "use", "include", "enable", "enabled"}
_SLUG = re.compile(r"[^a-z0-9]+")
_ISO_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2})?")
MISSING = object()


# ---- what a parameter accepts -------------------------------------------------------------------


@dataclass(frozen=True)
class ParamSpec:
    """What the schema says of one parameter, as provenance reads it."""

    name: str
    types: frozenset[str]
    enum: tuple[Any, ...] = ()
    default: Any = MISSING
    free_text: bool = False
    item: ParamSpec | None = None  # the items of an array
    value_words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # enum value -> phrases


def _schema_parts(schema: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield schema
    for option in schema.get("anyOf", ()) or ():
        yield from _schema_parts(option)


def param_spec(name: str, schema: Mapping[str, Any], *, free_text: bool, value_words: Mapping[str, Iterable[str]]) -> ParamSpec:
    types: set[str] = set()
    enum: list[Any] = []
    item: ParamSpec | None = None
    for part in _schema_parts(schema):
        if "type" in part:
            types.add(part["type"])
        enum += list(part.get("enum", ()))
        if "const" in part:
            enum.append(part["const"])
        if part.get("type") == "array" and isinstance(part.get("items"), dict):
            item = param_spec(name, part["items"], free_text=free_text, value_words=value_words)
    return ParamSpec(
        name=name,
        types=frozenset(types),
        enum=tuple(enum),
        default=schema.get("default", MISSING),
        free_text=free_text,
        item=item,
        value_words={str(k): tuple(v) for k, v in value_words.items()},
    )


_SPECS: dict[tuple[int, int], tuple[Tool, Any, dict[str, ParamSpec]]] = {}


def naming_intent(parameter: str, value: Any) -> str:
    """The phrasebook intent whose variants are how users name an enum value: `say_<parameter>_<value>`
    (the value lower-cased, other characters than letters and digits as `_`: `say_reason_no_longer_needed`)."""
    return f"say_{parameter}_{_SLUG.sub('_', str(value).lower()).strip('_')}"


def enum_words(tool: Tool, parameter: str, values: Iterable[Any], domain: Domain | None) -> dict[str, list[str]]:
    """Phrases users say for each enum value: the domain's `value_words`, its phrasebook's
    `say_<parameter>_<value>` intents, and the tool's own `value_words`."""
    intents = set(domain.phrasebook.intents()) if domain is not None else set()
    words: dict[str, list[str]] = {}
    declared = tool.value_words.get(parameter, {})
    for value in [*values, *(v for v in declared if v not in {str(x) for x in values})]:
        phrases = words.setdefault(str(value), [])
        if domain is not None:
            phrases += domain.value_words.get(str(value), ())
            if naming_intent(parameter, value) in intents:
                phrases += domain.phrasebook.pooled(naming_intent(parameter, value))
        phrases += declared.get(str(value), ())
    return {v: p for v, p in words.items() if p}


def _flag_values(spec: ParamSpec) -> tuple[Any, ...]:
    return (True, False) if spec.types == {"boolean"} else ()


def tool_specs(tool: Tool, domain: Domain | None = None) -> dict[str, ParamSpec]:
    """The parameters of a tool as provenance reads them (made once per tool and domain)."""
    key = (id(tool), id(domain))
    found = _SPECS.get(key)
    if found is not None and found[0] is tool and found[1] is domain:
        return found[2]
    properties = tool.schema["function"]["parameters"].get("properties", {})
    free = set(tool.free_text) if tool.free_text is not None else FREE_TEXT_NAMES
    specs = {}
    for name, schema in properties.items():
        plain = param_spec(name, schema, free_text=name in free, value_words={})
        values = plain.enum or (plain.item.enum if plain.item is not None else ()) or _flag_values(plain)
        words = enum_words(tool, name, values, domain)
        specs[name] = param_spec(name, schema, free_text=name in free and not values, value_words=words)
    _SPECS[key] = (tool, domain, specs)
    return specs



# ---- judging one value ---------------------------------------------------------------------------


def _content_words(text: str, filler: frozenset[str] = _FILLER) -> list[str]:
    words = words_of(text.replace("_", " "))
    content = [w for w in words if w not in filler]
    return content or words


def _phrase_words(phrase: str) -> list[str]:
    """A naming phrase's words without a leading article ("the driver's door" -> driver s door)."""
    words = words_of(phrase)
    while len(words) > 1 and words[0] in ("the", "a", "an"):
        words = words[1:]
    return words


def _named(own: list[str], phrases: Iterable[str], seen: Seen) -> bool:
    """The own words in one named text (any order), or a mapped phrase word for word."""
    return (bool(own) and seen.words(own, named_only=True)) or any(
        seen.sequence(_phrase_words(p), named_only=True) for p in phrases
    )


def _enum_named(value: Any, spec: ParamSpec, seen: Seen) -> bool:
    """The user, a tool result or an earlier call named the value: its own words or a phrase mapped to it."""
    synonyms = spec.value_words.get(str(value), ())
    if isinstance(value, int | float) and not isinstance(value, bool):
        return seen.number(value, named_only=True) or _named([], synonyms, seen)
    return _named(_content_words(str(value)), synonyms, seen)


def _flag_named(value: bool, spec: ParamSpec, seen: Seen) -> bool:
    return _named(_content_words(spec.name, _FLAG_FILLER), spec.value_words.get(str(value), ()), seen)


def _facts_unseen(text: str, seen: Seen) -> list[str]:
    """The facts inside a composed text that were not seen, its bare numbers included (each distinct one once)."""
    missing: list[str] = []
    inside: set[str] = set()  # numbers that are part of a fact (an amount's digits, a date's parts)
    for fact in dict.fromkeys(extract_facts(text)):
        inside.update(NUMBER.findall(fact.text))
        if fact.value not in _ARITHMETIC and not seen.fact(fact):
            missing.append(fact.text)
    for raw in dict.fromkeys(NUMBER.findall(text)):
        if raw not in inside and canonical_number(raw) not in _ARITHMETIC and not seen.number(raw):
            missing.append(raw)
    return missing


def _string_seen(value: str, seen: Seen) -> bool:
    if seen.phrase(value):
        return True
    iso = _ISO_DATETIME.match(value.strip())
    if iso:  # a date and a time, each seen in its own words (midnight: a date written as a moment)
        hhmm = iso.group(2)
        time_seen = hhmm == "00:00" or seen.fact(StatedFact("time", hhmm, hhmm))
        return time_seen and seen.fact(StatedFact("date", "", iso.group(1)))
    facts = extract_facts(value)
    if facts and sum(len(f.text) for f in facts) >= len(value.strip()) - 2:  # the value is its facts
        if all(seen.fact(f) for f in facts):
            return True
        if any(f.kind != "identifier" for f in facts):
            return False  # a date, an amount, a phone number: its canonical form decides
    if canonical_number(value) is not None:
        return seen.number(value)
    words = words_of(value)
    # a name split over a record's fields, an id the user gave without its prefix ("gift card 1379233")
    return (len(words) > 1 or any(c.isdigit() for c in value)) and seen.words(_content_words(value))


def value_problem(value: Any, spec: ParamSpec | None, seen: Seen) -> str | None:
    """Why a value passed for a parameter was not seen (None: it was)."""
    if value is None or value == "" or value == [] or value == {}:
        return None
    if spec is not None and spec.default is not MISSING and value == spec.default and type(value) is type(spec.default):
        return None  # the same call as leaving it out
    if isinstance(value, list):
        item = spec.item if spec is not None else None
        return next((p for p in (value_problem(v, item, seen) for v in value) if p), None)
    if isinstance(value, dict):
        return next((p for p in (value_problem(v, None, seen) for v in value.values()) if p), None)
    if isinstance(value, bool):
        if spec is None or spec.default is MISSING:
            return None  # a required yes/no: either answer is a reading of the request
        return None if _flag_named(value, spec, seen) else f"{spec.name}={value} was never asked for"
    if spec is not None and spec.enum and value in spec.enum:
        if len(set(map(str, spec.enum))) == 1:
            return None  # the only value the parameter takes
        return None if _enum_named(value, spec, seen) else f"{spec.name}={value!r} was never named"
    if isinstance(value, int | float):
        return None if seen.number(value) else f"{_name(spec)}={value!r} was never seen"
    text = str(value)
    if spec is not None and spec.free_text:
        missing = _facts_unseen(text, seen)
        return f"{spec.name} states {missing[:3]} never seen" if missing else None
    return None if _string_seen(text, seen) else f"{_name(spec)}={text!r} was never seen"


def _name(spec: ParamSpec | None) -> str:
    return spec.name if spec is not None else "value"


# ---- a whole chat ------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnseenArgument:
    """A call argument whose value the agent had not seen before the call."""

    message_index: int
    tool: str
    parameter: str
    problem: str

    def describe(self) -> str:
        return f"{self.tool} at message {self.message_index}: {self.problem}"


def derived_values(task: Task) -> set[tuple[str, str, str]]:
    """(tool, parameter, canonical value) of every gold argument its step declares derived."""
    found = set()
    for step in task.plan:
        for call in step.calls:
            for parameter in step.derived:
                if parameter in call.arguments:
                    found.add((call.name, parameter, derived_key(call.arguments[parameter])))
    return found


def derived_key(value: Any) -> str:
    number = canonical_number(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    return number if number is not None else json.dumps(value, sort_keys=True, default=str).lower()


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            return {}
    return raw if isinstance(raw, dict) else {}


def agent_calls(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, arguments) of each call an assistant message makes."""
    found = []
    for call in message.get("tool_calls") or ():
        function = call.get("function", call)
        found.append((str(function.get("name")), _arguments(function.get("arguments"))))
    return found


def observe(seen: Seen, message: dict[str, Any], tools: Mapping[str, Tool] | None = None, domain: Domain | None = None) -> None:
    """Add what a message puts in front of the agent: its text, or an assistant message's call arguments.

    The agent's own composed text (a `free_text` argument) is not a source: it was checked only for
    its facts, so its other words would launder any value into a later call."""
    role = message.get("role")
    content = message.get("content")
    text = content if isinstance(content, str) else None
    if role == "assistant":
        for name, arguments in agent_calls(message):
            tool = (tools or {}).get(name)
            free = tool.free_text if tool is not None and tool.free_text is not None else FREE_TEXT_NAMES
            kept = {k: v for k, v in arguments.items() if k not in free}
            if kept:
                seen.add(values_text(kept), named=True)
    elif role == "tool":
        seen.add_result(text)
    elif role == "user":
        seen.add(text, named=True)
    else:  # the system prompt, and anything else put in front of the agent
        seen.add(text, named=False)


def seen_before(messages: list[dict[str, Any]], index: int, domain: Domain | None = None, today: dt.date | None = None) -> Seen:
    """What the agent had seen before message `index`."""
    seen = Seen(today=today)
    for message in messages[:index]:
        observe(seen, message, domain.tools if domain is not None else None, domain)
    return seen


def unseen_arguments(
    messages: list[dict[str, Any]],
    tools: Mapping[str, Tool],
    *,
    domain: Domain | None = None,
    derived: set[tuple[str, str, str]] = frozenset(),  # type: ignore[assignment]
    today: dt.date | None = None,
) -> tuple[int, list[UnseenArgument]]:
    """How many agent calls the chat makes, and every argument passed without having been seen.

    `derived` holds the (tool, parameter, value) the gold plan declares computed; `today` is the
    world's date, against which "tomorrow" and weekdays are read.
    """
    seen = Seen(today=today)
    found: list[UnseenArgument] = []
    calls = 0
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            for name, arguments in agent_calls(message):
                calls += 1
                tool = tools.get(name)
                specs = tool_specs(tool, domain) if tool is not None else {}
                for parameter, value in arguments.items():
                    if derived and (name, parameter, derived_key(value)) in derived:
                        continue
                    problem = value_problem(value, specs.get(parameter), seen)
                    if problem:
                        found.append(UnseenArgument(index, name, parameter, problem))
        observe(seen, message, tools, domain)
    return calls, found
