"""`@tool`: a plain typed function becomes a validated, schema-described tool.

The first parameter (the World) is injected and hidden. The rest of the signature and the
docstring's `Args:` section *are* the OpenAI function schema; arguments are validated by a
pydantic model before the call, and every failure becomes a readable tool message.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import pydantic
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic_core import ErrorDetails, to_json

from toolgym.errors import DomainError, ToolError, unknown_name_message

from .claims import Claims, ClaimsSpec, declare_claims
from .world import World

if TYPE_CHECKING:
    from .authz import Record

Caller = Literal["agent", "user"]
_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^\s*(Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^\s*(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


class ToolOutcome(NamedTuple):
    """What one call produced: the JSON text the model sees, and the error message if it failed."""

    content: str
    error: str | None = None


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into the description and per-argument descriptions."""
    lines = inspect.cleandoc(doc or "").splitlines()
    description: list[str] = []
    args: dict[str, str] = {}
    section = "description"
    current: str | None = None
    for line in lines:
        if _ARGS_HEADER.match(line):
            section, current = "args", None
            continue
        if _SECTION_HEADER.match(line):
            section, current = "other", None
            continue
        if section == "description":
            description.append(line)
        elif section == "args":
            match = _ARG_LINE.match(line)
            if match and (len(line) - len(line.lstrip())) <= 4:
                current = match.group(1)
                args[current] = match.group(3).strip()
            elif current and line.strip():
                args[current] = (args[current] + " " + line.strip()).strip()
    return " ".join(" ".join(description).split()), args


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def _inline_refs(schema: Any, defs: dict[str, Any]) -> Any:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if ref and ref.startswith("#/$defs/"):
            merged = {**defs[ref.split("/")[-1]], **{k: v for k, v in schema.items() if k != "$ref"}}
            return _inline_refs(merged, defs)
        return {k: _inline_refs(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [_inline_refs(v, defs) for v in schema]
    return schema


def _describe_error(tool: Tool, error: ErrorDetails) -> str:
    loc = error.get("loc") or ()
    param = str(loc[0]) if loc else "?"
    where = ".".join(str(p) for p in loc)
    kind = error.get("type", "")
    if kind == "missing":
        desc = tool.param_descriptions.get(param, "")
        return f"missing required parameter {param!r} ({desc})"
    if kind == "extra_forbidden":
        return unknown_name_message(f"parameter of {tool.name}:", param, tool.param_descriptions)
    got = error.get("input")
    message = error.get("msg", "invalid value")
    return f"parameter {where!r} got {got!r}: {message}"


class Tool:
    """A domain function with its schema, argument model, flags and what its success lets the agent claim."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        writes: bool,
        caller: Caller,
        name: str | None = None,
        claims: ClaimsSpec = None,
        free_text: Iterable[str] | None = None,
        value_words: Mapping[str, Mapping[Any, Iterable[str]]] | None = None,
        acts_on: Record | Sequence[Record] | None = None,
        identifies: str | None = None,
        computes: bool = False,
        area: str | None = None,
        hands_over: bool = False,
    ):
        if caller not in ("agent", "user"):
            raise DomainError(f"tool {func.__name__}: caller must be 'agent' or 'user', got {caller!r}")
        if computes and writes:
            raise DomainError(f"tool {name or func.__name__!r}: computes is for reads that work a value out (a write changes the world)")
        self.func = func
        self.name = name or func.__name__
        self.writes = writes
        # A read that works a value out from its arguments alone (a calculator, a converter): asking
        # for its inputs looks no record up, and a guessed input gives a wrong answer.
        self.computes = computes
        # The words of the domain's scope this tool serves ('bags' for add_baggage): a decline for the
        # tool withheld leaves that area out of what it offers. None: the words of the tool's name.
        self.area = area
        if hands_over and not writes:
            raise DomainError(f"tool {name or func.__name__!r}: hands_over is for a write (the handover is recorded)")
        # A successful call hands the conversation to someone else (a human agent): it is the last thing
        # the agent does, so a gold plan makes no call after it (envs/gold.py).
        self.hands_over = hands_over
        self.caller: Caller = caller
        # What a write acts on (envs/authz.py): None lets the engine infer it from the argument names.
        self.acts_on: tuple[Record, ...] | None = None if acts_on is None else tuple(_records(acts_on))
        if self.acts_on and not writes:
            raise DomainError(f"tool {self.name!r}: acts_on is for write tools (mark it @tool(writes=True))")
        # The field of a successful result that names the acting user (a lookup by email, a verified identity).
        self.identifies = identifies
        self.description, self.param_descriptions, self.args_model = self._build_signature()
        self.params = tuple(self.param_descriptions)
        # Argument provenance (envs/provenance.py): parameters holding text the agent composes
        # (None: the engine's default names), and words a user says for an enum value.
        self.free_text = None if free_text is None else tuple(free_text)
        self.value_words = {p: {str(v): tuple(w) for v, w in words.items()} for p, words in (value_words or {}).items()}
        for declared in [*(self.free_text or ()), *self.value_words]:
            if declared not in self.param_descriptions:
                raise DomainError(
                    unknown_name_message(f"parameter of {self.name} (declared for provenance):", declared, self.param_descriptions)
                )
        self.schema = self._build_schema()
        # the values its schema lists ('all' doors, an "accepted" response): a call picks them, no read shows them
        self.choices = frozenset(_schema_choices(self.schema))
        self.claims: Claims = declare_claims(
            claims, name=self.name, description=self.description, param_descriptions=self.param_descriptions, writes=writes
        )
        self.__doc__ = func.__doc__
        self.__name__ = self.name
        self.__wrapped__ = func

    def __repr__(self) -> str:
        flags = "write" if self.writes else "read"
        return f"<tool {self.name} ({flags}, {self.caller})>"

    def __call__(self, world: World, **kwargs: Any) -> Any:
        return self.func(world, **kwargs)

    def _build_signature(self) -> tuple[str, dict[str, str], type[BaseModel]]:
        description, documented = parse_docstring(self.func.__doc__)
        if not description:
            raise DomainError(f"tool {self.name!r} has no description: give it a docstring")
        try:
            hints = typing.get_type_hints(self.func, include_extras=True)
        except Exception as exc:
            raise DomainError(f"tool {self.name!r}: its annotations cannot be resolved ({exc})") from exc
        params = list(inspect.signature(self.func).parameters.values())
        if not params or hints.get(params[0].name) is not World:
            raise DomainError(f"tool {self.name!r}: the first parameter must be `world: World`")
        fields: dict[str, Any] = {}
        descriptions: dict[str, str] = {}
        for param in params[1:]:
            if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
                raise DomainError(f"tool {self.name!r}: parameter {param.name!r} must be a plain named parameter")
            if param.name not in hints:
                raise DomainError(f"tool {self.name!r}: parameter {param.name!r} has no type annotation")
            annotation = hints[param.name]
            field_info = _annotated_field(annotation)
            text = documented.get(param.name) or (field_info.description if field_info else None)
            if not text:
                raise DomainError(
                    f"tool {self.name!r}: parameter {param.name!r} has no description; "
                    f"add '{param.name}: ...' under 'Args:' in the docstring"
                )
            descriptions[param.name] = text
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (annotation, Field(default, description=text))
        extra = set(documented) - set(descriptions)
        if extra:
            raise DomainError(f"tool {self.name!r}: the docstring describes unknown parameter(s) {sorted(extra)}")
        try:
            model = create_model(  # type: ignore[call-overload]
                f"{self.name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
            )
        except (pydantic.PydanticSchemaGenerationError, TypeError) as exc:
            raise DomainError(f"tool {self.name!r}: a parameter has an unsupported annotation ({exc})") from exc
        return description, descriptions, model

    def _build_schema(self) -> dict[str, Any]:
        try:
            raw = self.args_model.model_json_schema()
        except Exception as exc:
            raise DomainError(f"tool {self.name!r}: its parameters cannot be described as JSON schema ({exc})") from exc
        parameters = _strip_titles(_inline_refs(raw, raw.get("$defs", {})))
        parameters.pop("additionalProperties", None)
        parameters.setdefault("properties", {})
        parameters.setdefault("required", [])
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }

    def run(self, world: World, arguments: Any) -> ToolOutcome:
        """Validate and run one call. Bad arguments and failed preconditions become errors."""
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as exc:
                return _error(f"{self.name}: arguments are not valid JSON ({exc.msg} at position {exc.pos})")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return _error(f"{self.name}: arguments must be a JSON object, got {type(arguments).__name__}")
        try:
            validated = self.args_model.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(_describe_error(self, e) for e in exc.errors())
            return _error(f"{self.name}: {problems}")
        kwargs = validated.__dict__  # the validated fields, by name (no copy needed)
        try:
            if self.writes:
                with world.tool_scope(self.name, True):
                    value = self.func(world, **kwargs)
            else:
                world.begin_read(self.name)
                try:
                    value = self.func(world, **kwargs)
                finally:
                    world.end_read()
        except ToolError as exc:
            return _error(f"{self.name}: {exc}")
        return ToolOutcome(content=result_text(value))


def _schema_choices(schema: Any) -> Iterator[str]:
    """Every `enum` and `const` value a JSON schema lists, at any depth."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "enum":
                yield from (str(v) for v in value)
            elif key == "const":
                yield str(value)
            else:
                yield from _schema_choices(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _schema_choices(item)


def result_text(value: Any) -> str:
    """A tool's return value as the agent reads it: compact JSON."""
    return to_json(value, serialize_unknown=True).decode()


def shown_as(**fields: Any) -> str:
    """How a tool result writes these fields side by side ('"zone":"rear_left","temperature_c":19.0'):
    a `Step.evidence` fragment kept in step with the results' own encoding."""
    return result_text(fields)[1:-1]


def _records(acts_on: Any) -> list[Any]:
    from .authz import Record

    records = [acts_on] if isinstance(acts_on, Record) else list(acts_on)
    bad = [r for r in records if not isinstance(r, Record)]
    if bad:
        raise DomainError(f"acts_on takes Record(...) declarations (toolgym.envs.authz), got {bad[0]!r}")
    return records


def _annotated_field(annotation: Any) -> Any:
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, pydantic.fields.FieldInfo):
                return meta
    return None


def _error(message: str) -> ToolOutcome:
    return ToolOutcome(content=json.dumps({"error": message}, ensure_ascii=False), error=message)


def is_error_output(content: Any) -> bool:
    """Whether a tool output in a chat is the error the env answers a failed call with ({"error": ...})."""
    return isinstance(content, str) and content.lstrip().startswith('{"error"')


def tool(
    func: Callable[..., Any] | None = None,
    *,
    writes: bool = False,
    caller: Caller = "agent",
    name: str | None = None,
    claims: ClaimsSpec = None,
    free_text: Iterable[str] | None = None,
    value_words: Mapping[str, Mapping[Any, Iterable[str]]] | None = None,
    acts_on: Record | Sequence[Record] | None = None,
    identifies: str | None = None,
    computes: bool = False,
    area: str | None = None,
    hands_over: bool = False,
) -> Any:
    """Mark a function as a tool: `@tool`, `@tool(writes=True)`, `@tool(caller="user")`.

    `claims` declares what a successful call lets the agent claim (see envs/claims.py): verbs such
    as `claims=("cancel", "refund")`, or a `Claims(...)`; by default they come from the tool's
    name and description.
    `free_text` names the parameters whose text the agent composes (a message body): provenance
    checks the facts inside them rather than every word (default: body, text, note, content, ...).
    `value_words` maps, per parameter, an enum value to the phrases a user says for it
    (`{"category": {"fuel_station": ["petrol station", "gas station"]}}`).
    `acts_on` declares the record(s) a write acts on (`()`: none), `identifies` the result field
    that names the acting user (see envs/authz.py; both are inferred from names when left out).
    `computes` marks a read that works a value out from its arguments alone (`calculate`,
    `convert_units`): the agent asks for its inputs to get an answer right, not to find records.
    `area` names the words of the domain's scope the tool serves when its name does not say them
    (`add_baggage`: "bags"); a decline for the tool withheld offers help with everything else.
    `hands_over` marks a write whose success hands the conversation itself to someone else (a human
    agent takes over the chat): nothing the agent does may follow it. A tool that only passes a case
    on (a fraud team that calls back) is no handover.
    """

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool(
            f, writes=writes, caller=caller, name=name, claims=claims, free_text=free_text, value_words=value_words,
            acts_on=acts_on, identifies=identifies, computes=computes, area=area, hands_over=hands_over,
        )  # fmt: skip

    return wrap(func) if func is not None else wrap
