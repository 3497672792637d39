"""ToolTransform: how one row's tool set differs from the domain's, and the way back.

A transform renames tools and parameters, swaps in written description variants, adds
distractor tools and orders the list. The model sees only the offered (augmented) names; the
world runs only the real tools: every call is mapped back (`resolve`, `to_real`) before it
runs and before it is verified, so every check sees the real names. A call the offered set
cannot map back (a distractor, a name from memory, an unknown parameter) is an error the model
sees, as an unknown tool is, and costs score.

The transform is plain data (`to_dict` / `from_dict`), recorded on each row it shaped.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from toolgym.errors import ConfigError, unknown_name_message

from ..tools import ToolOutcome

if TYPE_CHECKING:
    from ..domain import Domain
    from ..world import World

SPEC_VERSION = 1
# A call that cannot be mapped back keeps its name behind this mark in the real view, so no check
# takes a name the model remembered (but was not offered) for the real tool.
UNOFFERED = "unoffered:"
_MAY_NAME = re.compile(r"[_0-9]")
_MEMO_FROM = 500  # characters: a text this long (a system prompt) is renamed once per transform


@lru_cache(maxsize=64)
def _identifiers_of(domain_name: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """The domain's tool names and identifier-like parameter names as whole words, and those of them that
    are plain words (`calculate`): a text with none of these and no `_` or digit has nothing to rename."""
    from ..registry import load_domain

    domain = load_domain(domain_name)
    names = {t.name for t in domain.tools.values()}
    names |= {p for t in domain.agent_tools for p in t.params if re.search(r"[_0-9]", p)}
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    plain = tuple(n for n in names if not re.search(r"[_0-9]", n))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])"), plain


@dataclass(frozen=True)
class Resolved:
    """A call mapped back to the real tool: its real name and arguments, or the error the model sees."""

    name: str | None = None
    arguments: Any = None
    error: str | None = None


@dataclass(frozen=True, eq=False)
class ToolTransform:
    domain: str
    convention: str = "original"
    untouched: bool = True
    names: dict[str, str] = field(default_factory=dict)  # real tool -> offered name (every agent tool)
    params: dict[str, str] = field(default_factory=dict)  # real parameter -> offered name (one per row)
    descriptions: dict[str, str] = field(default_factory=dict)  # real tool -> written variant, in offered names
    distractors: list[dict[str, Any]] = field(default_factory=list)  # {"origin": ..., "schema": offered schema}
    order: list[str] = field(default_factory=list)  # offered names, in the order the row lists them
    shuffled: bool = False
    seed: str = ""

    # ---- identity and serialisation ------------------------------------------------------------
    @classmethod
    def identity(cls, domain: str, seed: str = "") -> ToolTransform:
        return cls(domain=domain, seed=seed)

    def to_dict(self) -> dict[str, Any]:
        return {"version": SPEC_VERSION, "id": self.id, **self._body(), "seed": self.seed}

    def _body(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "untouched": self.untouched,
            "convention": self.convention,
            "names": dict(self.names),
            "params": dict(self.params),
            "descriptions": dict(self.descriptions),
            "distractors": [dict(d) for d in self.distractors],
            "order": list(self.order),
            "shuffled": self.shuffled,
        }

    @classmethod
    def from_dict(cls, data: ToolTransform | dict[str, Any] | str) -> ToolTransform:
        """A transform from its recorded form (a row's `augment` value, as a dict or JSON text)."""
        if isinstance(data, ToolTransform):
            return data
        if isinstance(data, str):
            data = json.loads(data)
        if not isinstance(data, dict) or "domain" not in data:
            raise ConfigError(f"a tool transform is a dict with at least 'domain' (a row's `augment` value), got {data!r:.120}")
        if data.get("version", SPEC_VERSION) != SPEC_VERSION:
            raise ConfigError(f"tool transform version {data.get('version')!r} is not readable here (this build reads {SPEC_VERSION})")
        known = {"domain", "untouched", "convention", "names", "params", "descriptions", "distractors", "order", "shuffled", "seed"}
        return cls(**{k: v for k, v in data.items() if k in known})

    @cached_property
    def id(self) -> str:
        """A short hash of what the transform does (two rows with the same id offer the same tools alike)."""
        return hashlib.sha256(json.dumps(self._body(), sort_keys=True).encode()).hexdigest()[:12]

    def summary(self) -> dict[str, Any]:
        """What was done, in a few values (for statistics and `toolgym inspect`)."""
        near = sum(1 for d in self.distractors if str(d.get("origin", "")).startswith("near_miss/"))
        return {
            "untouched": self.untouched,
            "names": self.convention,
            "paraphrased": len(self.descriptions),
            "distractors": len(self.distractors),
            "near_misses": near,
            "shuffled": self.shuffled,
        }

    # ---- lookups --------------------------------------------------------------------------------
    @cached_property
    def _real_of(self) -> dict[str, str]:
        return {offered: real for real, offered in self.names.items()}

    @cached_property
    def distractor_names(self) -> frozenset[str]:
        return frozenset(d["schema"]["function"]["name"] for d in self.distractors)

    @cached_property
    def _domain(self) -> Domain:
        from ..registry import load_domain

        return load_domain(self.domain)

    def offered_name(self, real: str) -> str:
        return real if self.untouched else self.names.get(real, real)

    def offered_param(self, real: str) -> str:
        return real if self.untouched else self.params.get(real, real)

    @cached_property
    def _param_maps(self) -> dict[str, dict[str, str]]:
        """Per real tool: offered parameter name -> real parameter name."""
        return {t.name: {self.offered_param(p): p for p in t.params} for t in self._domain.agent_tools}

    # ---- schemas --------------------------------------------------------------------------------
    def apply(self, schemas: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tool list a row offers: the real schemas renamed and described, distractors added, ordered."""
        schemas = list(schemas)
        if self.untouched:
            return schemas
        offered = [self.offered_schema(s) for s in schemas] + [d["schema"] for d in self.distractors]
        position = {name: i for i, name in enumerate(self.order)}
        return sorted(offered, key=lambda s: position.get(s["function"]["name"], len(position)))

    def offered_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """One real tool's schema as this row offers it (name, description, parameter names)."""
        function = schema["function"]
        real = function["name"]
        description = self.descriptions.get(real) or self.rename_text(function.get("description") or "")
        parameters = function.get("parameters") or {}
        properties = {
            self.offered_param(p): {**spec, **({"description": self.rename_text(spec["description"])} if "description" in spec else {})}
            for p, spec in (parameters.get("properties") or {}).items()
        }
        renamed = {**parameters, "properties": properties, "required": [self.offered_param(p) for p in parameters.get("required") or ()]}
        return {**schema, "function": {**function, "name": self.offered_name(real), "description": description, "parameters": renamed}}

    # ---- text -----------------------------------------------------------------------------------
    @cached_property
    def _text_names(self) -> dict[str, str]:
        """Identifiers renamed in free text: every tool name, and parameter names that cannot be plain words."""
        found = {p: o for p, o in self.params.items() if p != o and re.search(r"[_0-9]", p)}
        found.update({r: o for r, o in self.names.items() if r != o})
        return found

    def rename_text(self, text: str) -> str:
        """Text with real tool names (and identifier-like parameter names) written as offered."""
        if self.untouched or not text or not self._text_names:
            return text
        long = len(text) > _MEMO_FROM
        if long and text in self._renamed:  # the system prompt: renamed at reset, compared again when graded
            return self._renamed[text]
        pattern, plain = _identifiers_of(self.domain)
        if not _MAY_NAME.search(text) and not any(word in text for word in plain):
            return text
        names = self._text_names
        renamed = pattern.sub(lambda m: names.get(m.group(0), m.group(0)), text)
        if long:
            self._renamed.clear()
            self._renamed[text] = renamed
        return renamed

    @cached_property
    def _renamed(self) -> dict[str, str]:
        return {}

    def _error_text(self, text: str, real_tool: str | None) -> str:
        """An error message in offered names: tool names, and the tool's quoted parameter names."""
        text = self.rename_text(text)
        if real_tool is None:
            return text
        for real in self._domain.tools[real_tool].params:
            offered = self.offered_param(real)
            if offered != real:
                text = text.replace(f"'{real}'", f"'{offered}'")
        return text

    # ---- calls ----------------------------------------------------------------------------------
    def resolve(self, name: Any, arguments: Any, offered: Collection[str]) -> Resolved:
        """A call as the model made it, mapped back to a real tool offered to this row (or why it cannot be)."""
        if self.untouched:
            return Resolved(name, arguments)
        real = self._real_of.get(name) if isinstance(name, str) else None
        if real is None or real not in offered:
            known = [self.offered_name(t) for t in offered]
            return Resolved(error=unknown_name_message("tool", str(name), known))
        if isinstance(arguments, str):
            try:
                decoded = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                return Resolved(real, arguments)  # the tool itself says what is wrong with the text
            arguments = decoded
        if not isinstance(arguments, dict):
            return Resolved(real, arguments)
        params = self._param_maps[real]
        for key in arguments:
            if key not in params:
                return Resolved(error=unknown_name_message(f"parameter of {name}:", str(key), params))
        return Resolved(real, {params[k]: v for k, v in arguments.items()})

    def run(self, domain: Domain, world: World, offered: Collection[str], name: Any, arguments: Any) -> ToolOutcome:
        """One agent call as the env runs it under this transform; errors speak the offered names."""
        from ..replay import run_call

        resolved = self.resolve(name, arguments, offered)
        if resolved.error is not None:
            return ToolOutcome(content=json.dumps({"error": resolved.error}, ensure_ascii=False), error=resolved.error)
        outcome = run_call(domain, world, offered, resolved.name, resolved.arguments)
        if outcome.error is None or self.untouched:
            return outcome
        error = self._error_text(outcome.error, resolved.name)
        return ToolOutcome(content=json.dumps({"error": error}, ensure_ascii=False), error=error)

    def to_real(self, call: dict[str, Any], offered: Collection[str] | None = None) -> dict[str, Any]:
        """A call (`{"function": {...}}` or `{"name", "arguments"}`) with real names; what cannot be mapped
        back is marked `unoffered:` so no check mistakes it for a real tool or parameter."""
        if self.untouched:
            return call
        function = call.get("function", call)
        if not isinstance(function, dict):
            return call
        name, arguments = function.get("name"), function.get("arguments")
        real = self._real_of.get(name) if isinstance(name, str) else None
        if real is None:
            mapped: dict[str, Any] = {**function, "name": f"{UNOFFERED}{name}"}
        else:
            mapped = {**function, "name": real, "arguments": self._real_arguments(real, arguments)}
        return {**call, "function": mapped} if "function" in call else mapped

    def _real_arguments(self, real: str, arguments: Any) -> Any:
        decoded = arguments
        if isinstance(arguments, str):
            try:
                decoded = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                return arguments
        if not isinstance(decoded, dict):
            return arguments
        params = self._param_maps[real]
        return {params.get(k, f"{UNOFFERED}{k}"): v for k, v in decoded.items()}

    def to_augmented(self, call: dict[str, Any]) -> dict[str, Any]:
        """A call with real names (the gold's) as this row offers it."""
        if self.untouched:
            return call
        function = call.get("function", call)
        name, arguments = function.get("name"), function.get("arguments")
        if isinstance(arguments, dict):
            arguments = {self.offered_param(k): v for k, v in arguments.items()}
        mapped = {**function, "name": self.offered_name(name), "arguments": arguments}
        return {**call, "function": mapped} if "function" in call else mapped

    # ---- messages -------------------------------------------------------------------------------
    def real_messages(self, messages: Iterable[dict[str, Any]], policy: str | None = None) -> list[dict[str, Any]]:
        """A chat as the verifiers read it: every agent call (and its result's name) in real names.

        policy: the domain's own system prompt for the task; a system message that is exactly it
        under this transform is given back as it (so checks read, and cache, the real prompt).
        """
        messages = list(messages)
        if self.untouched:
            return messages
        out = []
        for message in messages:
            role = message.get("role")
            if role == "system" and policy is not None and message.get("content") == self.rename_text(policy):
                message = {**message, "content": policy}
            elif role == "assistant" and message.get("tool_calls"):
                message = {**message, "tool_calls": [self.to_real(c) if isinstance(c, dict) else c for c in message["tool_calls"]]}
            elif role == "tool" and isinstance(message.get("name"), str):
                real = self._real_of.get(message["name"])
                message = {**message, "name": real if real is not None else f"{UNOFFERED}{message['name']}"}
            out.append(message)
        return out

    def augment_message(self, message: dict[str, Any]) -> dict[str, Any]:
        """An assistant message written with real names (the oracle's) as this row's model would write it."""
        if self.untouched:
            return message
        out = dict(message)
        for key in ("content", "reasoning_content"):
            if isinstance(out.get(key), str):
                out[key] = self.rename_text(out[key])
        if out.get("tool_calls"):
            out["tool_calls"] = [self.to_augmented(c) for c in out["tool_calls"]]
        return out

    def augment_messages(self, messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """A whole real-name chat (a gold chat) as it reads under this transform: the system prompt's
        tool names, the assistant's calls and words, and each result's tool name."""
        if self.untouched:
            return list(messages)
        out = []
        for message in messages:
            role = message.get("role")
            if role == "system" and isinstance(message.get("content"), str):
                message = {**message, "content": self.rename_text(message["content"])}
            elif role == "assistant":
                message = self.augment_message(message)
            elif role == "tool" and isinstance(message.get("name"), str):
                message = {**message, "name": self.offered_name(message["name"])}
            out.append(message)
        return out
