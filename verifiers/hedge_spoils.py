"""The `hedged_answer` spoil: the final reply offering a required output beside another value of its
kind that the chat's results show ("$372.48 or $173.01", "on the Travel 20 or Basic 5 plan"): every
output is in the reply, and none is committed to (verifiers/hedges.py)."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from toolgym.envs.task import Task

from .conduct import final_reply_index
from .figures import MIN_CHARACTERS, PROSE_WORDS, result_fields
from .matching import normalize_text, output_stated

Chat = list[dict[str, Any]]
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _as_number(value: Any) -> float | None:
    return round(float(value), 2) if isinstance(value, int | float) else None


def alternative(output: str, results: Sequence[str], answers: Sequence[str]) -> str | None:
    """Another value that a field showing `output` holds in the results, said as the output is
    ("$173.01" for "$372.48", "0.84 GB" for "22.38 GB", "Basic 5" for "Travel 20"); None if none."""
    fields = list(result_fields(results))
    said = output.strip()
    taken = {normalize_text(a) for a in answers} | {normalize_text(said)}
    # a value a text field shows (a name, a title, a plan, an id): another value of those fields
    keys = {k for k, v in fields if isinstance(v, str) and normalize_text(v) == normalize_text(said)}
    found = next((v for k, v in fields if k in keys and isinstance(v, str) and len(v.strip()) >= MIN_CHARACTERS
                  and len(v.split()) < PROSE_WORDS and normalize_text(v) not in taken), None)
    number = _NUMBER.search(said)
    if found is not None or number is None:
        return found
    # a figure (money, a count with its unit): another value of the fields that hold it, in its words
    figure = round(float(number.group(0).replace(",", "")), 2)
    keys = {k for k, v in fields if _as_number(v) == figure}
    decimals = len(number.group(0).partition(".")[2])
    for key, value in fields:
        other = _as_number(value)
        if key in keys and other is not None and other > 0 and other != figure:
            text = f"{said[: number.start()]}{other:,.{decimals}f}{said[number.end() :]}"
            if normalize_text(text) not in taken:
                return text
    return None


def hedged_answer(task: Task, messages: Chat) -> Chat | None:
    """The final reply with the first output only it states offered "or" another value of its kind."""
    final = final_reply_index(messages)
    if final is None:
        return None
    reply = messages[final].get("content") or ""
    results = [m["content"] for m in messages if m.get("role") == "tool" and isinstance(m.get("content"), str)]
    earlier = [m.get("content") or "" for i, m in enumerate(messages) if m.get("role") == "assistant" and i != final]
    for output in task.required_outputs:
        if output.lower() not in reply.lower() or any(output_stated(output, text) for text in earlier):
            continue
        other = alternative(output, results, task.required_outputs)
        if other is None:
            continue
        spoiled = copy.deepcopy(messages)
        spoiled[final]["content"] = re.sub(re.escape(output), lambda m, other=other: f"{m.group(0)} or {other}", reply, flags=re.I)
        return spoiled
    return None
