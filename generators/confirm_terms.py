"""The amounts a question asking for a yes states, and which results showed them: the trace before
it names them ('quote_cancellation returned "refund":436.0 and "fee":100.0' before "I'll cancel booking FB100057
with a refund of $436.00 (fee $100.00)"), so a yes is seen to cover the terms as they were read."""

from __future__ import annotations

import re
from typing import Any

from toolgym.envs.phrasing import join_words
from toolgym.envs.seen import canonical_number

_AMOUNT = re.compile(r"\$\d[\d,]*\.\d\d")  # how a question states money: "$1,286.26"
_DECIMAL_FIELD = re.compile(r'("[^"{}\[\],]+":\s*(-?\d+\.\d+))')  # a JSON field whose value is a number with decimals
_MONEY_KEY = re.compile(r"fee|price|amount|cost|refund|total|balance|payment|charge|fare|rate|paid", re.IGNORECASE)
_MOST = 2  # amounts named at most: a refund and its fee, a fare and its card charge


def terms_stated(messages: list[dict[str, Any]], question: str, cited: str) -> str:
    """'get_order_details returned "total":38.45': each amount `question` states, as the field of the latest result
    (of `messages`, the chat since the request) that shows it as a number of its own. An amount the
    user wrote is theirs, not a term a result set (the loan payment they asked for, though the loan's
    monthly payment is the same); one `cited` already names, or none shows, is left out too. Empty
    when the question states none."""
    said = {canonical_number(a[1:]) for m in messages if m.get("role") == "user" for a in _AMOUNT.findall(str(m.get("content") or ""))}
    amounts = [a for a in dict.fromkeys(canonical_number(a[1:]) for a in _AMOUNT.findall(question)) if a not in said][:_MOST]
    if not amounts:
        return ""
    names = {c.get("id"): (c.get("function") or {}).get("name", "a tool") for m in messages for c in m.get("tool_calls") or ()}
    by_tool: dict[str, list[str]] = {}
    for amount in amounts:
        for message in reversed(messages):
            content = message.get("content")
            if message.get("role") != "tool" or not isinstance(content, str):
                continue
            # the field as the result writes it ('"refund":436.0'): which of the result's values it is;
            # the question states money, so a field of money before a plan's "data_gb": 5.0
            fields = [field for field, v in _DECIMAL_FIELD.findall(content) if canonical_number(v) == amount]
            shown = next((f for f in fields if _MONEY_KEY.search(f.split(":", 1)[0])), fields[0] if fields else None)
            if shown is not None:
                if shown.rsplit(":", 1)[1].strip() not in cited:
                    by_tool.setdefault(names.get(message.get("tool_call_id"), "a tool"), []).append(shown)
                break
    return ", and ".join(f"{tool} returned {join_words(values)}" for tool, values in by_tool.items())
