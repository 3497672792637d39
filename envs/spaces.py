"""Gymnasium spaces for chat: actions are assistant messages, observations lists of messages.

`sample()` draws random messages, valid and invalid alike (unknown tools, wrong argument
types, broken JSON text), so random policies and fuzzing exercise the env's error paths.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

ROLES = ("system", "user", "assistant", "tool")
_CHARS = string.ascii_letters + string.digits + " _-.#@{}[]\":,<>/"


def _text(rng: np.random.Generator, low: int = 0, high: int = 40) -> str:
    length = int(rng.integers(low, high))
    return "".join(_CHARS[i] for i in rng.integers(0, len(_CHARS), size=length))


class AssistantMessageSpace(spaces.Space):
    """Assistant actions: an OpenAI-style dict or raw model text."""

    def __init__(self, tools: Sequence[dict[str, Any]] = (), seed: int | None = None):
        super().__init__(shape=None, dtype=None, seed=seed)
        self.tools = list(tools)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def _value(self, schema: dict[str, Any]) -> Any:
        rng = self.np_random
        if rng.random() < 0.2:  # a value of the wrong type, on purpose
            return [None, -1, 3.5, True, _text(rng), {"x": 1}][int(rng.integers(0, 6))]
        if "enum" in schema:
            return schema["enum"][int(rng.integers(0, len(schema["enum"])))]
        kind = schema.get("type")
        if kind == "integer":
            return int(rng.integers(-5, 1000))
        if kind == "number":
            return float(np.round(rng.uniform(-10, 1000), 2))
        if kind == "boolean":
            return bool(rng.integers(0, 2))
        if kind == "array":
            return [self._value(schema.get("items", {})) for _ in range(int(rng.integers(0, 3)))]
        return _text(rng, 1, 12)

    def _call(self, index: int) -> dict[str, Any]:
        rng = self.np_random
        if self.tools and rng.random() < 0.85:
            function = self.tools[int(rng.integers(0, len(self.tools)))]["function"]
            properties = function["parameters"].get("properties", {})
            arguments = {k: self._value(v) for k, v in properties.items() if rng.random() < 0.9}
            if rng.random() < 0.1:
                arguments[_text(rng, 1, 8)] = 1  # an unknown parameter
            name = function["name"]
        else:
            name, arguments = _text(rng, 1, 16), {}
        encoded: Any = arguments if rng.random() < 0.8 else json.dumps(arguments)[: int(rng.integers(0, 30))]
        return {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": encoded}}

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        rng = self.np_random
        draw = rng.random()
        if draw < 0.5:
            return {"role": "assistant", "content": None,
                    "tool_calls": [self._call(i) for i in range(int(rng.integers(1, 4)))]}
        if draw < 0.7:
            return {"role": "assistant", "content": _text(rng, 0, 60)}
        if draw < 0.9:
            call = self._call(0)["function"]
            body = json.dumps({"name": call["name"], "arguments": call["arguments"]})
            if rng.random() < 0.3:
                body = body[: int(rng.integers(0, len(body)))]
            return f"<think>{_text(rng)}</think><tool_call>{body}</tool_call>"
        return _text(rng, 0, 80)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) or (isinstance(x, dict) and x.get("role", "assistant") == "assistant")

    def __repr__(self) -> str:
        return f"AssistantMessageSpace({len(self.tools)} tools)"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AssistantMessageSpace) and other.tools == self.tools


class ChatSpace(spaces.Space):
    """Observations: the list of chat messages added since the last action."""

    def __init__(self, seed: int | None = None):
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, Any]]:
        rng = self.np_random
        return [{"role": ROLES[int(rng.integers(1, 4))], "content": _text(rng)} for _ in range(int(rng.integers(1, 3)))]

    def contains(self, x: Any) -> bool:
        return isinstance(x, list) and all(
            isinstance(m, dict) and m.get("role") in ROLES and (m.get("content") is None or isinstance(m["content"], str))
            for m in x
        )

    def __repr__(self) -> str:
        return "ChatSpace()"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ChatSpace)
