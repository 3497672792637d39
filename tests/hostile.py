"""Hostile actions for fuzzing an env: what a broken or adversarial model could send.

`hostile_action(rng, tools)` draws one: the action space's own random messages, plus shapes
no well-behaved client sends (deep JSON, huge integers, lone surrogates, non-dict calls,
`function` not a dict, arithmetic that divides by zero, long replies).
"""

from __future__ import annotations

import json
import random
from typing import Any

_WEIRD_VALUES: list[Any] = [
    None, True, -1, 0, 2**70, 10**5000, float("inf"), float("nan"), 1e308, -0.0, "", "\ud800", "x\udfffy",
    "0**-1", "1/0", "9**9**9", "(" * 60 + "1" + ")" * 60, "%s%n", "' OR 1=1 --", "\x00", "é" * 50,
    [], {}, [[[[[]]]]], {"a": {"b": {"c": {}}}}, ["\ud83d"], b"bytes", object(), 3 + 4j,
]


def _deep(depth: int, kind: str = "list") -> str:
    return "[" * depth + "]" * depth if kind == "list" else '{"a":' * depth + "1" + "}" * depth


def _weird(rng: random.Random) -> Any:
    return rng.choice(_WEIRD_VALUES)


def _call(rng: random.Random, tools: list[dict[str, Any]]) -> Any:
    draw = rng.random()
    name: Any = rng.choice(tools)["function"]["name"] if tools and rng.random() < 0.7 else _weird(rng)
    params = list(rng.choice(tools)["function"]["parameters"].get("properties", {})) if tools else ["x"]
    arguments: Any = {p: _weird(rng) for p in params if rng.random() < 0.8}
    if draw < 0.1:
        return _weird(rng)  # a call that is not a dict
    if draw < 0.2:
        return {"function": _weird(rng)}  # `function` not a dict
    if draw < 0.3:
        arguments = _deep(rng.choice([40, 3000]), rng.choice(["list", "dict"]))
    elif draw < 0.4:
        arguments = '{"x": ' + "9" * rng.choice([4301, 6000]) + "}"
    elif draw < 0.5:
        arguments = _weird(rng)
    elif draw < 0.6 and isinstance(arguments, dict):
        arguments = ('{"' + '": 1, "'.join(arguments))[: rng.randrange(0, 40)]  # cut short
    if draw < 0.65 and isinstance(arguments, dict) and tools:
        arguments = {"expression": rng.choice(["0**-1", "0 ** -2.5", "(-8) ** 0.5", "1e308*10", "2**1000"])}
        name = "calculate" if rng.random() < 0.7 else name
    return {"id": _weird(rng) if rng.random() < 0.1 else f"c{rng.randrange(100)}", "type": "function",
            "function": {"name": name, "arguments": arguments}}


def hostile_action(rng: random.Random, tools: list[dict[str, Any]], space: Any = None) -> Any:
    """One hostile action: a dict, text, or something that is neither."""
    draw = rng.random()
    if draw < 0.15 and space is not None:
        return space.sample()
    if draw < 0.45:
        calls: Any = [_call(rng, tools) for _ in range(rng.randrange(0, 4))]
        if rng.random() < 0.1:
            calls = _weird(rng)  # tool_calls=5, a string, ...
        message: dict[str, Any] = {"role": rng.choice(["assistant", "assistant", "user", _weird(rng)]),
                                   "content": _weird(rng) if rng.random() < 0.3 else "ok", "tool_calls": calls}
        if rng.random() < 0.1:
            message["reasoning_content"] = _weird(rng)
        return message
    if draw < 0.7:
        inner = rng.choice([_deep(rng.choice([100, 3000])), '{"name": "x", "arguments": {"a": ' + "1" * 5000 + "}}",
                            json.dumps({"name": rng.choice(tools)["function"]["name"] if tools else "x",
                                        "arguments": {"a": "\ud800"}}), "{", "null", "[1,2]", "\ud800"])
        text = f"<think>{'<think>' * rng.randrange(3)}</think><tool_call>{inner}</tool_call>" * rng.randrange(1, 3)
        return text if rng.random() < 0.7 else text[: rng.randrange(len(text) + 1)]
    if draw < 0.8:
        return rng.choice([_deep(3000), '{"tool_calls": ' + _deep(3000) + "}", '{"tool_calls": 5}',
                           '[{"function": 7}]', "9" * 5000, '{"name": "a", "arguments": "' + "9" * 5000 + '"}'])
    if draw < 0.9:
        return _weird(rng)  # neither a dict nor text
    return rng.choice(["Can you confirm " + "a" * 2000 + "?", "(yes/no)" * 100, "please provide " * 100,
                       "\ud800 go ahead?", "x" * rng.randrange(1, 2000)])
