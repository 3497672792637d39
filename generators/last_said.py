"""What came in last, as a reasoning trace names it: the result value a reply states ('check_outages
returned OUT-12'), what a write changed ('set_lights returned "headlights":"off"'), a search that found
nothing, or the user's request when no result speaks for it (see `last_said`).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from toolgym.envs.phrasing import join_words

from .request_quote import RequestCues, user_request
from .result_values import change_stated, changed_field, json_or_none, records_of, result_value, stated_value

MAX_CLAUSES = 2  # a trace cites at most this many facts: short enough to learn from


def whole(needle: str, content: str) -> bool:
    """Whether `content` holds `needle` with no letter, digit or '_' on either side (a regex per
    needle would be compiled for every value of every task)."""
    start = content.find(needle)
    while start >= 0:
        end = start + len(needle)
        before, after = content[start - 1 : start], content[end : end + 1]
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = content.find(needle, start + 1)
    return False


USER_REPORT = "the user's report from the phone"  # how last_result names a check the user ran on their device


def reported_by_user(messages: list[dict[str, Any]]) -> bool:
    """Whether what came in last is the user's report of a check on their own device (a speed test
    they ran), not a tool's result."""
    return last_result(messages) == USER_REPORT


def last_result(messages: list[dict[str, Any]]) -> str:
    """The latest result, as a noun phrase: 'the get_line_details result' or 'the user's report'."""
    for message in reversed(messages):
        if message.get("role") == "tool":
            call = call_for(message, messages)
            return f"the {_name_of(call) or 'last tool'} result"
        if message.get("role") == "user" and (message.get("user_tool_results") or message.get("user_tool_calls")):
            return USER_REPORT
        if message.get("role") == "user" and message.get("content"):
            return ""
    return ""


def _arguments_of(call: dict[str, Any] | None) -> dict[str, Any]:
    """A tool call's arguments (given as JSON text or as a dict); {} when they are neither."""
    arguments = ((call or {}).get("function") or {}).get("arguments")
    if isinstance(arguments, str):
        arguments = json_or_none(arguments)
    return arguments if isinstance(arguments, dict) else {}


def argument_values(call: dict[str, Any]) -> frozenset[str]:
    """A tool call's argument values, in lower case."""
    return frozenset(str(v).lower() for v in _arguments_of(call).values() if isinstance(v, str | int | float) and not isinstance(v, bool))


def call_for(result: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The tool call a result answers (the latest with its id), or None."""
    for message in reversed(messages):
        for call in message.get("tool_calls") or ():
            if call.get("id") == result.get("tool_call_id"):
                return call
    return None


ASKED = "the user asked "  # how last_said names the request when no result value is cited
FOUND_NOTHING = " found nothing for "  # how last_said names a search that came back empty


def last_said(messages: list[dict[str, Any]], cues: RequestCues | None = None, reply: str = "",
              writes: AbstractSet[str] | None = None) -> str:
    """What came in last, when no argument cites it: 'check_outages returned OUT-12' (a value the
    reply states, when there is one), or the user's request ('the user asked "..."'); never a
    greeting. Empty when nothing specific can be named. `writes`: the names of the tools that write
    (None: any may): a write's result that repeats its input confirms what the reply reports
    ("level": 2 after level=2), a read's only repeats what it was asked ("cabin": "business")."""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        role, content = message.get("role"), message.get("content")
        if role == "tool":
            said = " ".join(m["content"] for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)).lower() if reply else ""
            if reply and (stated := _stated_in_last_step(messages, reply, said, writes)):
                return stated
            call = call_for(message, messages)
            given = argument_values(call) if call else frozenset()
            confirms = _writes(call, writes)
            value = result_value(content, reply, given, said, reads=not confirms, tool=_name_of(call)) if isinstance(content, str) else ""
            if confirms and reply and value and isinstance(content, str) and not whole(value.strip('"').lower(), reply.lower()):
                # a write whose reply states none of its result's values: what it changed, not the record's id
                earlier = [m["content"] for m in messages[:position] if m.get("role") == "tool" and isinstance(m.get("content"), str)]
                named = frozenset(w for text in (*given, _name_of(call)) for w in text.split("_"))
                value = changed_field(content, earlier, named) or value
            source = last_result(messages).removeprefix("the ").removesuffix(" result")
            echoed = bool(value) and value.strip('"').lower() in given
            data = json_or_none(content) if isinstance(content, str) else None
            if echoed and _finds_nothing(data) and not (writes is not None and confirms):
                # a search that found nothing showed only what it was asked: it did not "return" it
                # (a write's empty list, a sent mail's "cc": [], is no search)
                return f'{source}{FOUND_NOTHING}"{value.strip(chr(34))}"'
            if reply and writes is not None and not confirms and _empty_search(data, given):
                # a search that found nothing and echoed no term: what it looked for, not the zero
                # total it showed ('search_transactions returned 0.0' before "I found no transactions at Best Buy")
                term = _searched_for(call, reply)
                if term:
                    return f'{source}{FOUND_NOTHING}"{term}"'
            if value and (confirms or not echoed):  # a read repeating its input ("cabin": "business") showed nothing new
                if reply and echoed and value.strip('"').lower() not in reply.lower():
                    # a write confirming only the id it was given, which the reply never names: the
                    # reply answers the request ("Roaming is enabled."), not "enable_roaming returned L10838"
                    break
                return f"{source} returned {value}"
            break
        if role == "user" and (message.get("user_tool_results") or (isinstance(content, str) and content.strip())):
            break
    request = user_request(messages, cues)
    return f"{ASKED}{request}" if request else ""


def _name_of(call: dict[str, Any] | None) -> str:
    """The tool a call names ('' for none, or no call)."""
    return str(((call or {}).get("function") or {}).get("name") or "")


def _writes(call: dict[str, Any] | None, writes: AbstractSet[str] | None) -> bool:
    """Whether the call writes (any may, when the chat's tools are not known)."""
    return call is None or writes is None or _name_of(call) in writes


def _stated_in_last_step(messages: list[dict[str, Any]], reply: str, said: str, writes: AbstractSet[str] | None = None) -> str:
    """'check_tyre_pressure returned 38.0': of the results of the last step (several calls made
    together), the newest whose value `reply` states, other than one its call was given; empty when
    none does. The last result alone would name set_lights' id for a reply about the tyres. A value
    a write of the step was given is that write's to confirm ('set_seat_heating returned 3'), not
    another result's that shows it too (set_defrost's whole car, with its volume or seat position);
    a read of the step that the reply quotes comes before a write's other values."""
    step = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        call = call_for(message, messages)
        # a write's result confirms what it was given (not known when the chat's tools are not)
        step.append((message, call, argument_values(call) if call else frozenset(), writes is not None and _writes(call, writes)))
    earlier = [m["content"] for m in messages[: len(messages) - len(step)] if m.get("role") == "tool" and isinstance(m.get("content"), str)]
    confirmed = {value for _, _, given, confirms in step if confirms for value in given}
    side = ""
    read: dict[str, list[str]] = {}  # tool -> the values its results in the step show that the reply states
    for message, call, given, confirms in step:
        content = message.get("content")
        data = json_or_none(content) if isinstance(content, str) else None
        if data is None:
            continue
        if not confirms and writes is not None and _empty_search(data, given):
            continue  # a search that found nothing states only its emptiness (last_said names what it looked for)
        records = list(records_of(data))
        found = stated_value(records, reply, given, said, reads=not confirms, tool=_name_of(call))
        value = found.strip('"').lower()
        name = _name_of(call) or "the last tool"
        if found and value in given and confirms:
            return f"{name} returned {found}"
        if found and value not in given and value not in confirmed:
            if not confirms:
                read.setdefault(name, []).insert(0, found)
                confirmed.add(value)  # one value, shown by two reads, is cited once (the newest's)
            else:
                # a write's other values (set_fan's whole car, with its range) come after a read of the
                # step that states what the reply says: the read is what was asked for
                side = side or f"{name} returned {change_stated(content, earlier, found, reply)}"
    if read:
        # every read of the step the reply draws on, in call order ("get_line_details returned 7.62 and
        # 6.28" for two lines read together), not only the newest
        clauses = [f"{name} returned {join_words(list(dict.fromkeys(values))[:MAX_CLAUSES])}" for name, values in reversed(read.items())]
        return ", and ".join(clauses) if len(clauses) > 1 else clauses[0]
    return side


def _searched_for(call: dict[str, Any] | None, reply: str) -> str:
    """What a search that found nothing looked for, as the reply states it: of the call's argument
    values the reply names, a word before a figure or an id ("Best Buy", not "A20578"); '' for none."""
    lowered = reply.lower()
    named = [str(v) for v in _arguments_of(call).values() if isinstance(v, str) and v and whole(v.lower(), lowered)]
    return min(named, key=lambda v: any(c.isdigit() or c == "/" for c in v), default="")


def _empty_search(data: Any, given: frozenset[str]) -> bool:
    """Whether a read's result (parsed) shows nothing but emptiness: its lists all empty, and its other
    values only what the call was given or zero ({"account_id": "A1", "count": 0, "total": 0.0,
    "transactions": []}); a page with no links still shows its text."""
    if not isinstance(data, dict) or not _finds_nothing(data):
        return False
    return all(isinstance(v, list) or v is None or (isinstance(v, int | float) and not isinstance(v, bool) and v == 0)
               or str(v).lower() in given for v in data.values())


def _finds_nothing(data: Any) -> bool:
    """Whether a result's (parsed) lists are all empty ({"text": "elevation", "matches": []})."""
    lists = [v for v in data.values() if isinstance(v, list)] if isinstance(data, dict) else [data] if isinstance(data, list) else []
    return bool(lists) and not any(lists)
