"""What every coherence detector shares: the row's messages, what may be known beyond them, quoting."""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]
REFUSING_KINDS = ("no_tool/invalid_value", "no_tool/policy_refusal", "no_tool/unavailable", "no_tool/irrelevant",
                  "no_tool/missing_info")  # fmt: skip


@dataclass
class Knowledge:
    """What detectors may know beyond the row: each None when the corpus cannot tell."""

    writes: Callable[[str, str], bool] | None = None  # (domain, tool name) -> whether it changes the world
    handoff: Callable[[str], bool] | None = None  # domain -> whether a refusal may offer people (Domain.refusal_handoff)
    task: Callable[[Any], Any] | None = None  # task id -> its Task (None when not held), when the corpus holds tasks
    asides: Callable[[str], AbstractSet[str]] | None = None  # domain -> its asides (Phrasebook.asides)


def _content(message: Message) -> str:
    content = message.get("content")
    return content.replace("###STOP###", "").strip() if isinstance(content, str) else ""


def _said(messages: list[Message], role: str) -> list[tuple[int, str]]:
    return [(i, _content(m)) for i, m in enumerate(messages) if m.get("role") == role and _content(m)]


def _quote(text: str, at: int = 0, width: int = 90) -> str:
    start = max(0, at - width // 3)
    return ("..." if start else "") + text[start : start + width].replace("\n", " ") + ("..." if start + width < len(text) else "")


_QUOTED = re.compile(r"\"([^\"]{1,300})\"|“([^”]{1,300})”")
