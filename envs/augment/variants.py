"""A domain's augmentation data, `domains/<name>/augment.yaml`: description variants and near misses.

`descriptions` maps an agent tool to a few descriptions written in other words (each keeps every
fact of the tool's own). `near_misses` are tools that exist in no world: a name like a real
tool's and a meaning no task of the domain needs (staff-side operations, other entities). Both
are optional; a domain without the file still gets renamed tools, other domains' tools as
distractors and a shuffled order.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from toolgym.errors import DomainError

from .naming import usable

if TYPE_CHECKING:
    from ..domain import Domain

FILE = "augment.yaml"
_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object"})
_CACHE: dict[tuple[str, str], DomainVariants] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class DomainVariants:
    descriptions: dict[str, tuple[str, ...]]
    near_misses: tuple[dict[str, Any], ...]  # OpenAI function schemas, named in the domain's own style


def domain_variants(domain: Domain) -> DomainVariants:
    """The domain's augment.yaml, read and checked once per process (empty when there is none)."""
    path = domain.folder / FILE
    key = (domain.name, str(path))
    found = _CACHE.get(key)
    if found is None:
        with _LOCK:
            found = _CACHE.get(key)
            if found is None:
                found = _CACHE[key] = _read(domain, path)
    return found


def _read(domain: Domain, path: Any) -> DomainVariants:
    if not path.exists():
        return DomainVariants({}, ())
    where = f"{domain.name}/{FILE}"
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise DomainError(f"{where} is not valid YAML: {exc}") from None
    if not isinstance(data, dict) or set(data) - {"descriptions", "near_misses"}:
        raise DomainError(f"{where}: the top level holds `descriptions` and `near_misses` only, got {sorted(data) if isinstance(data, dict) else data!r}")
    return DomainVariants(_descriptions(domain, data.get("descriptions") or {}, where),
                          tuple(_near_miss(domain, n, s, where) for n, s in (data.get("near_misses") or {}).items()))


def _descriptions(domain: Domain, raw: Any, where: str) -> dict[str, tuple[str, ...]]:
    agent = {t.name: t for t in domain.agent_tools}
    out: dict[str, tuple[str, ...]] = {}
    for name, variants in dict(raw).items():
        if name not in agent:
            raise DomainError(f"{where}: descriptions.{name} names no agent tool of {domain.name!r}; its agent tools: {sorted(agent)}")
        if not isinstance(variants, list) or not variants or not all(isinstance(v, str) and v.strip() for v in variants):
            raise DomainError(f"{where}: descriptions.{name} must be a list of non-empty strings (a few ways to say what it does)")
        texts = [" ".join(v.split()) for v in variants]
        if agent[name].description in texts or len(set(texts)) != len(texts):
            raise DomainError(f"{where}: descriptions.{name} repeats a description (the tool's own, or one variant twice)")
        out[name] = tuple(texts)
    return out


def _near_miss(domain: Domain, name: str, spec: Any, where: str) -> dict[str, Any]:
    at = f"{where}: near_misses.{name}"
    if not usable(name) or name != name.lower():
        raise DomainError(f"{at}: a near miss is named in snake_case like the domain's tools")
    if name in domain.tools:
        raise DomainError(f"{at}: {name!r} is a real tool of {domain.name!r}; a near miss must be a tool the world does not have")
    if not isinstance(spec, dict) or not isinstance(spec.get("description"), str) or not spec["description"].strip():
        raise DomainError(f"{at}: give a `description` saying what it does (and for whom)")
    properties: dict[str, Any] = {}
    for param, schema in (spec.get("parameters") or {}).items():
        if not isinstance(schema, dict) or schema.get("type") not in _JSON_TYPES or not schema.get("description"):
            raise DomainError(f"{at}.parameters.{param}: give a JSON `type` ({', '.join(sorted(_JSON_TYPES))}) and a `description`")
        properties[param] = dict(schema)
    required = spec.get("required", list(properties))
    if set(required) - set(properties):
        raise DomainError(f"{at}.required names parameters it does not have: {sorted(set(required) - set(properties))}")
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": " ".join(spec["description"].split()),
            "parameters": {"type": "object", "properties": properties, "required": list(required)},
        },
    }


def variant_problems(domain: Domain) -> list[str]:
    """What is wrong with the domain's augment.yaml: a file that does not load, or a description
    variant that states other facts (numbers, ids, amounts) or names other tools than the tool's own
    description (a model reading either must learn the same thing)."""
    from ..grounding import stated_facts

    try:
        variants = domain_variants(domain)
    except DomainError as exc:
        return [str(exc)]
    problems = []
    names = set(domain.tools)
    for name, texts in variants.descriptions.items():
        own = domain.tools[name].description
        for text in texts:
            if set(stated_facts(text)) != set(stated_facts(own)):
                problems.append(f"{name}: variant states {sorted(stated_facts(text))}, the description {sorted(stated_facts(own))}: {text!r}")
            if _tool_names(text, names) != _tool_names(own, names):
                problems.append(f"{name}: variant names tools {sorted(_tool_names(text, names))}, the description "
                                f"{sorted(_tool_names(own, names))}: {text!r}")
    return problems


def _tool_names(text: str, names: set[str]) -> set[str]:
    return {word for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if word in names}
