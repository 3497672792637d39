"""Which value a tool result showed that a reasoning trace can name: the figure a reply states, as
the result shows it ('137.12', not 'gift_card_8904273'), a figure or a name inside a page's text,
else an id; a write's result that states none, the field it changed. A result that only repeats
what its call was given did not show it.
"""

from __future__ import annotations

import calendar
import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from toolgym.envs.phrasing import dates_in_words
from toolgym.envs.seen import word_key, words_of
from toolgym.envs.tools import shown_as

_ID_KEY = re.compile(r"(?:^|_)(?:id|number|ref|reference|code)$")


def result_value(content: str, reply: str = "", given: frozenset[str] = frozenset(), said: str = "", reads: bool = True,
                 tool: str = "") -> str:
    """A value a tool result showed that a trace can name. With the reply about to be sent, the first
    of: a figure it states, as the result shows it (an answer before an id: '137.12', not
    'gift_card_8904273'); a figure of the reply that a text of the result holds ('"1,255,919"' from a
    page's text); any other value it states; a name of the reply that such a text holds. Else an id
    field, else the first short value with a digit ('C1042', '#W1', '$12.00'); empty when the result
    shows none. `given`: the call's own argument values (lower case), which a result that
    echoes them ({"query": "elevation", ...}) did not show; `said`: the user's words (lower case),
    whose names a text repeats (the place asked about is not the answer found); `reads`: the call
    only reads, so a figure or phrase the user brought is not what it showed (a write's result
    confirms what was asked: "done" is no answer to cite). With a reply that states none of its values,
    only an id names what the result was about. `tool`: the call's tool, whose own name a result may
    repeat ("where": "direct message" from send_direct_message): no fact the reply passes on."""
    try:
        data = json.loads(content)
    except (TypeError, ValueError):
        return ""
    records = list(records_of(data))
    if reply and (found := stated_value(records, reply, given, said, reads, tool)):
        return found
    items = list(records[0].items()) if records else []
    for name, value in sorted(items, key=lambda kv: not _ID_KEY.search(str(kv[0]))):
        shown = str(value)
        if reply and not _ID_KEY.search(str(name)):
            break  # a reply that states none of the result's figures is not backed by one of them ("change_fee": 0.0 for "cannot be changed")
        if isinstance(value, str | int | float) and not isinstance(value, bool) and any(c.isdigit() for c in shown) and len(shown) <= 40:
            # an input a computation repeats is not what it showed ({"value": 63.0, ..., "result": 17.2}
            # after value=63); the id a write echoes still names its record
            if _ID_KEY.search(str(name)) or not _echoed(value, given):
                return shown
    return ""


def stated_value(records: list[dict[str, Any]], reply: str, given: frozenset[str], said: str, reads: bool = True,
                 tool: str = "") -> str:
    """The value of a result's records that `reply` states (the order is `result_value`'s), other
    than one that only says the tool's name again ("scheduled" from schedule_transfer); empty when
    it states none."""
    lowered = reply.lower()
    own = {word_key(w) for w in tool.lower().split("_") if w}
    # each found ends with the value as shown and its field's name; the answer before an id, a figure before a word ('75.00', not 'economy'), then the longest, then
    # the first record's (a list puts the current bill first: its 47.00, not an old bill's 27.00 that the
    # reply states as a payment); a value the call was given last (a search's own query), though a
    # write's result that confirms it ({"level": 2} after level=2) still beats an id
    stated = sorted((str(value).lower() in given, bool(_ID_KEY.search(str(name))), not any(c.isdigit() for c in shown),
                     -len(shown), position, shown, name)
                    for position, record in enumerate(records) for name, value in record.items()
                    if (shown := _stated_as(value, lowered, reply)) and not _names_only(shown, own))
    fresh = [found for found in stated if not found[0]]
    # a value the user did not bring: the title they asked about ("Sales 2025 quarterly report") is
    # not the owner the file names (a write's result confirms what was asked: that is its answer)
    unsaid = [found for found in fresh if not (reads and _brought(found[-2].strip('"').lower(), said))]
    # a page's own date, as its text may write it too, is when it was written, not what it says
    written_on = {form.lower() for record in records if isinstance(record.get("date"), str) for form in dates_in_words(record["date"])}
    in_text = _found_in_text(records, reply, _FIGURE, lambda found: found in given or found in said or found in written_on)
    if unsaid and not unsaid[0][1] and not unsaid[0][2] and not (in_text and unsaid[0][-1] == "date"):
        # a figure that is not an id (a page's own "date" is when it was written: a figure its text
        # gives that the reply states is what the page said, "31,524" and not 2023-10-28)
        shown = unsaid[0][-2]
        # a page's "part": 1 is not the 1 of "1 November 2024": a figure of one or two digits that a
        # longer figure of the text holds is that figure's
        if len(shown) <= 2 and in_text and _whole_token_in(shown, in_text.strip('"').lower()):
            return in_text
        return shown
    # a figure inside a text ('"60,123"' from a page) before a word or an id the result also shows
    if in_text:
        return in_text
    if unsaid:
        return unsaid[0][-2]
    # then a name of two words or more that the user did not bring ('"South Georgia and the South
    # Sandwich Islands"'; the place they asked about is not the answer found)
    if name := _found_in_text(records, reply, _NAME_PHRASE, lambda found: found in given or found in said):
        return name
    if reads:
        # what is left of a read's stated values is what the user brought (not an answer to cite)
        # or what the call was given (a search that found nothing showed only its own query)
        given_back = [found for found in stated if found[0]]
        return given_back[0][-2] if given_back else ""
    if fresh:
        return fresh[0][-2]
    return stated[0][-2] if stated else ""


def _names_only(shown: str, own: set[str]) -> bool:
    """Whether every word of a value shown is one of the tool name's (`own`, compared by word_key)."""
    words = {word_key(w) for w in words_of(shown)}
    return bool(own) and bool(words) and words <= own


def changed_field(content: str, earlier: Sequence[str], named: frozenset[str] = frozenset()) -> str:
    """What a write changed, as its result shows it ('"headlights":"off"'): the first plain field of
    the result whose value differs from the same record's in the latest earlier result that showed
    that record (found by its id); with none, the field the call names, every word of its key one of
    the `named` words (its tool's name and argument values: set_trunk(action="open") names
    '"trunk_open":true'); '' when there is neither. A write that returns the whole record (a car's
    state after set_lights) names the record's id first, which says nothing about what the write
    did; a field it shows only now (a charge limit a status read leaves out) is no change."""
    data, before = _with_record_before(content, earlier)
    if data is None:
        return ""
    for key, value in data.items():
        if isinstance(value, dict | list):
            continue
        if (key in before and before[key] != value) if before is not None else _named_by(str(key), named):
            fragment = shown_as(**{key: value})
            if fragment in content:  # quoted as the result writes it
                return fragment
    return ""


# Words of a field's key that say its state or unit, not what it is: cancel_cruise_control names
# "cruise_on" by its "cruise"
_STATE_WORDS = frozenset({"on", "off", "is", "pct", "kmh", "km", "at"})


def _named_by(key: str, named: frozenset[str]) -> bool:
    """Whether every word of a key, its state and unit words aside, is one the call names."""
    words = set(key.lower().split("_"))
    return bool(words - _STATE_WORDS) and words - _STATE_WORDS <= named


def change_stated(content: str, earlier: Sequence[str], found: str, reply: str) -> str:
    """When `found`, the value of a write's result that the reply states, is a field the write left
    as it was (the card's brand in "I've frozen the Mastercard ending in 6671"), the field it changed
    or added that the reply states instead ('"status":"frozen"'), and the value again inside an object
    the write added ('"status":"cancelled" and "amount":373.41', a refund of the order's total); else
    `found`. Only against an earlier read of the same record: without one, nothing tells what stayed."""
    data, before = _with_record_before(content, earlier)
    if data is None or before is None:
        return found
    value_of = found.strip('"')
    if not any(str(value) == value_of and before.get(key) == value for key, value in data.items()):
        return found
    lowered = reply.lower()
    # the value inside what the write added, where it shows it again: a cancelled order's refund of
    # its total ("refund":{"amount":373.41,...}), which the reply states as the refund
    added = next((fragment for key, value in data.items() if key not in before and isinstance(value, dict)
                  for inner, shown in value.items() if str(shown) == value_of
                  if (fragment := shown_as(**{inner: shown})) in content), "")
    # a field that differs first, then one the read did not show (a cancelled transfer's "status",
    # which the list of pending transfers leaves out)
    for changed in (lambda key, value: key in before and before[key] != value, lambda key, value: key not in before):
        for key, value in data.items():
            if changed(key, value) and not isinstance(value, dict | list) and _stated_as(value, lowered, reply):
                fragment = shown_as(**{key: value})
                if fragment in content:
                    return f"{fragment} and {added}" if added else fragment
    return added or found


def _with_record_before(content: str, earlier: Sequence[str]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A write's result (None: not an object with an id) and the same record (by id) in the latest
    earlier result that showed it (None: none did)."""
    data = json_or_none(content)
    if not isinstance(data, dict):
        return None, None
    ident = next(((key, value) for key, value in data.items() if _ID_KEY.search(str(key)) and isinstance(value, str)), None)
    if ident is None:
        return None, None
    before = next((record for text in reversed(earlier) for record in records_of(json_or_none(text))
                   if record.get(ident[0]) == ident[1]), None)
    return data, before


def json_or_none(content: str) -> Any:
    """The JSON value of a text, or None when it is not JSON."""
    try:
        return json.loads(content)
    except (TypeError, ValueError):
        return None


def _brought(value: str, said: str) -> bool:
    """Whether the user's words hold `value`, a figure or a phrase of several words (a lone word, a
    state such as "frozen", says what a write did as much as what was asked)."""
    return (" " in value or any(c.isdigit() for c in value)) and value in said


def _echoed(value: Any, given: frozenset[str]) -> bool:
    """Whether a result's value is one its call was given (63.0 for 63, in any case)."""
    whole = isinstance(value, float) and value.is_integer()
    return str(value).lower() in given or (whole and str(int(value)) in given)


def records_of(data: Any, depth: int = 2) -> Iterator[dict[str, Any]]:
    """The objects of a result, in order: itself, then those it holds ({"payment": {...}}, lists of
    rows), `depth` objects deep (a list is not a level)."""
    if isinstance(data, list):
        for item in data:
            yield from records_of(item, depth)
    elif isinstance(data, dict) and depth > 0:
        yield data
        for value in data.values():
            if isinstance(value, dict | list):
                yield from records_of(value, depth - 1)


def _stated_as(value: Any, reply: str, written: str = "") -> str:  # `reply` in lower case, `written` as sent
    """The value as the result shows it, when the reply states it (3122.59 as '$3,122.59', 2025-01-28
    as '28 January 2025'); '' when it does not. Whole tokens only, and a text of 4 characters or more
    (2 with a digit), so a stray 'on' never counts. Words are quoted, so the trace cites them as one
    value ("6 inch, carbon steel").
    A capitalised word is a name, stated only as written (the folder "Shared" is not "shared with")."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    if isinstance(value, str):
        has_digit = any(c.isdigit() for c in value)
        if written and " " not in value and value[:1].isupper() and not has_digit and not _whole_token_in(value, written):
            return ""
        forms = [value] if (2 if has_digit else 4) <= len(value) <= 40 else []
        forms += dates_in_words(value)[:2]  # a date as a page writes it, with its year
    else:
        whole = [str(int(value))] if isinstance(value, float) and value.is_integer() else []
        forms = [f"{value:,.2f}", f"{value:.2f}", f"{value:,}", str(value), *whole]
    for form in dict.fromkeys(forms):
        if _whole_token_in(form.lower(), reply):
            shown = str(value)  # a figure or an id as it is; words, or a figure among them, quoted as one value
            return shown if any(c.isdigit() for c in shown) and " " not in shown else f'"{shown}"'
    return ""


# A figure as a reply writes it: '1,255,919', '46', '2.5', '25 August 1972', 'August 25, 1972'
_FIGURE = re.compile(
    rf"\b\d{{1,2}} (?:{'|'.join(calendar.month_name[1:])}) \d{{4}}\b|\b(?:{'|'.join(calendar.month_name[1:])}) \d{{1,2}}, \d{{4}}\b"
    r"|(?<![\w/.-])\d(?:[\d,]*\d)?(?:\.\d+)?(?![\w/-])"
)


_NAME_PHRASE = re.compile(r"(?<![\w.])[A-Z][\w'-]+(?: (?:of |and (?:the )?|the )?[A-Z][\w'-]+)+")


def _found_in_text(records: list[dict[str, Any]], reply: str, pattern: re.Pattern[str], skip: Callable[[str], bool]) -> str:
    """The longest phrase of the reply matching `pattern` that a long text of the result holds, quoted
    as written ('"1,255,919"' from a page's text, '"46"' from a list of matches); '' when none is
    there. Only texts too long to cite whole are read (a short value is cited whole)."""
    texts = [text.lower() for record in records for value in record.values()
             for text in (value if isinstance(value, list) else [value]) if isinstance(text, str) and len(text) > 40]
    if not texts:
        return ""
    for found in sorted({m.group(0) for m in pattern.finditer(reply) if len(m.group(0)) >= 2}, key=len, reverse=True):
        lowered = found.lower()
        if not skip(lowered) and any(_whole_token_in(lowered, text) for text in texts):
            return f'"{found}"'
    return ""


def _whole_token_in(needle: str, text: str) -> bool:
    """`needle` in `text` not inside a longer word or number: '10.00' in '$10.00.' but not in '110.00'
    or '10.005' (a find, not a regex: a pattern per value would be compiled anew for most values)."""
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = text[start - 1] if start else " "
        after = text[end : end + 2]
        if not (before.isalnum() or before in "_.,-") and not (
            after[:1].isalnum() or after[:1] == "_" or (after[:1] in ".," and after[1:2].isdigit())
            or (after[:1] == "-" and after[1:2].isalnum())  # '.../wiki/hanibury' is not in '.../wiki/hanibury-food-expo'
        ):
            return True
        start = text.find(needle, start + 1)
    return False
