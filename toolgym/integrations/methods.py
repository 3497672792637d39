"""Tool methods for trainer environments: a tool's schema as a Python method transformers can read.

TRL turns an environment's public methods into tools with transformers' `get_json_schema`, which
reads the signature's type hints and a Google-style docstring. A real tool's method takes the
tool function's own hints (so the schema is the tool's); under a tool transform it carries the
offered names and descriptions, and each distractor becomes a method too (its calls reach the
env, which answers them as calls to an unknown tool).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any, Literal

from toolgym.envs.augment import ToolTransform
from toolgym.envs.registry import load_domain
from toolgym.envs.tools import Tool

_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


def docstring(description: str, params: dict[str, str]) -> str:
    """A Google-style docstring transformers reads back into the tool's description and parameters."""
    lines = [description]
    if params:
        lines += ["", "Args:"]
        lines += [f"    {name}: {' '.join(text.split())}" for name, text in params.items()]
    return "\n".join(lines)


def _method(name: str, owner: str, doc: str, parameters: list[inspect.Parameter], call: Callable[..., str]):
    def method(self: Any, **arguments: Any) -> str:
        return call(self, name, arguments)

    signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *parameters]
    method.__name__ = name
    method.__qualname__ = f"{owner}.{name}"
    method.__doc__ = doc
    method.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    method.__annotations__ = {p.name: p.annotation for p in parameters}  # no return hint: it is not in the schema
    return method


def _hinted(tool: Tool, rename: Callable[[str], str]) -> list[inspect.Parameter]:
    """The tool's own parameters (its function's hints, Annotated metadata dropped), keyword-only, renamed."""
    hints = typing.get_type_hints(tool.func)
    return [
        param.replace(name=rename(param.name), kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints[param.name])
        for param in list(inspect.signature(tool.func).parameters.values())[1:]
    ]


def tool_method(tool: Tool, owner: str, call: Callable[..., str], transform: ToolTransform | None = None):
    """The method of one real tool, in the transform's names when one is given."""
    if transform is None or transform.untouched:
        return _method(tool.name, owner, docstring(tool.description, tool.param_descriptions), _hinted(tool, str), call)
    offered = transform.offered_schema(tool.schema)["function"]
    params = {p: spec.get("description", "") for p, spec in offered["parameters"]["properties"].items()}
    return _method(offered["name"], owner, docstring(offered["description"], params), _hinted(tool, transform.offered_param), call)


def distractor_methods(transform: ToolTransform, owner: str, call: Callable[..., str]) -> list[Any]:
    """A method per distractor of the transform: another domain's tool keeps its hints, a near miss gets its JSON types."""
    methods = []
    for item in transform.distractors:
        schema = item["schema"]["function"]
        properties = schema["parameters"].get("properties") or {}
        params = {p: spec.get("description", "") for p, spec in properties.items()}
        kind, _, where = str(item.get("origin", "")).partition("/")
        if kind == "tool":
            origin_domain, _, real_name = where.partition("/")
            hinted = _hinted(load_domain(origin_domain).tool(real_name), transform.offered_param)
        else:
            required = set(schema["parameters"].get("required") or ())
            hinted = [_json_parameter(p, spec, p in required) for p, spec in properties.items()]
        methods.append(_method(schema["name"], owner, docstring(schema["description"], params), hinted, call))
    return methods


def _json_parameter(name: str, spec: dict[str, Any], required: bool) -> inspect.Parameter:
    annotation: Any
    if spec.get("enum"):
        annotation = Literal[tuple(spec["enum"])]
    elif spec.get("type") == "array":
        annotation = list[_JSON_TYPES.get((spec.get("items") or {}).get("type", "string"), str)]  # type: ignore[misc]
    else:
        annotation = _JSON_TYPES.get(spec.get("type", "string"), str)
    if required:
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation | None, default=None)
