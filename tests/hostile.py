"""Hostile actions for fuzzing an env: what a broken or adversarial model could send.

`hostile_action(rng, tools)` draws one: the action space's own random messages, plus shapes
no well-behaved client sends (deep JSON, huge integers, lone surrogates, non-dict calls,
`function` not a dict, arithmetic that divides by zero, long replies). `long_reply(shape, size)`
repeats one of `REPLY_SHAPES` (what fact and claim extractors read: dashes, digits, ids, money,
dates, dots, colons, hyphenated words, mixed scripts) to any length.
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


# Each shape is a unit repeated (a string) or a counter rendered (a function of the count): the
# repeats hit backtracking, the counted ones hit the per-fact work of thousands of distinct facts.
REPLY_SHAPES: dict[str, Any] = {
    "dashes": "a-", "digit dashes": "1-", "bare dashes": "-", "digits": "1", "spaced digits": "1 ",
    "ids": "W1234567, ", "dashed ids": "ORD-12-AB-", "hashes": "#1", "money": "$1,234.56 ", "money commas": "$1,",
    "number commas": "1,", "iso dates": "2026-03-04 ", "date dashes": "2026-", "month dates": "March 4, ",
    "day of month": "4th of ", "dots": "a.", "digit dots": "1.", "colons": "1:", "times": "12:30 ",
    "am pm": "1 a", "word colons": "a:", "hyphenated words": "well-known ", "one hyphenated word": "state-of-the-art-",
    "mixed scripts": "é1ж2-", "arabic digits": "١٢٣-", "cjk": "日本1-", "combining marks": "a\u0301-",
    "card endings": "ending in ", "card brands": "Visa card ", "phones": "(555) 555-", "emails": "a@b.",
    "units": "1 GB ", "confirm": "Could you confirm ", "json": '{"a": ', "slashes": "1/",
    "claims": "I have cancelled, refunded and booked ",
    "distinct ids": lambda i: f"W{i} ", "distinct money": lambda i: f"${i}.{i % 100:02d} ",
    "distinct times": lambda i: f"{i % 12 + 1}:{i % 60:02d} pm ", "distinct dates": lambda i: f"2026-{i % 12 + 1:02d}-{i % 28 + 1:02d} ",
    "distinct phones": lambda i: f"({i % 900 + 100}) {i % 1000:03d}-{i % 10000:04d} ", "distinct units": lambda i: f"{i} GB ",
    "distinct hyphenated": lambda i: f"x{i}-y ",
}


def long_reply(shape: str, size: int, opening: str = "Done. Ref 1 ") -> str:
    """`size` characters of one shape after an opening that states a fact (so every extractor runs)."""
    unit = REPLY_SHAPES[shape]
    if isinstance(unit, str):
        return (opening + unit * (size // len(unit) + 1))[:size]
    parts, length, count = [opening], len(opening), 0
    while length < size:
        parts.append(unit(count))
        length += len(parts[-1])
        count += 1
    return "".join(parts)[:size]


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
                       "\ud800 go ahead?", "x" * rng.randrange(1, 2000),
                       long_reply(rng.choice(list(REPLY_SHAPES)), rng.randrange(1, 4000))])
