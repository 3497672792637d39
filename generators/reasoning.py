"""The oracle's reasoning traces: the evidence in the chat and the decision it leads to.

A trace names which fact, from which message (the user's words or a tool's result), feeds the
next call, or why no call is made (a fact is missing, a yes is needed, only the user can act, the
request is outside what the tools do). The wording comes from the `reason_*` intents, composed of
parts so traces vary; the facts come from the chat, so they are true of it.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from toolgym.envs.conversation import Move, call_taking, finds_records, outcome, unsupported, works_out
from toolgym.envs.phrasebook import Phrasebook
from toolgym.envs.phrasing import (
    about_the_user,
    dates_in_words,
    join_words,
    lower_first,
    tool_description,
    tool_purpose,
)
from toolgym.envs.registry import load_domain
from toolgym.envs.structures import LEFT_AS_IS
from toolgym.envs.task import Step, Task, ToolCall
from toolgym.envs.user_turns import thanked_last
from toolgym.verifiers.matching import output_stated

from .confirm_terms import terms_stated
from .last_said import ASKED, FOUND_NOTHING, argument_values, last_said, reported_by_user, whole
from .outputs_seen import MOST_RECALLED, MOST_REPORTED, named, seen_outputs
from .request_quote import RequestCues, user_request
from .result_notes import found_before_turn, page_turns, planted_order, without_planted
from .worked_out import worked_out


def purpose_of(task: Task, step: Step, call: ToolCall | None = None) -> str:
    """What the step's tools do, from the first sentence of a tool's description: the given call's,
    else the step's first; said about the user, as a trace speaks ('a file the user owns')."""
    # every use the first sentence names: a flag set by mark_message is not "mark ... as read or unread"
    return about_the_user(tool_purpose(load_domain(task.domain), (call or step.calls[0]).name, whole=True)) or "take the next step"


MOST_CITED = 6  # the argument values a call trace names at most: a call's usual arguments (an address's five parts)


def evidence_for(step: Step, messages: list[dict[str, Any]]) -> str:
    """Where the step's argument values (or the fault it fixes) were seen: 'the user gave "a@b.co" and
    "Tara", and get_order_details returned "#W1"', 'the user reported "data saver is on"' (values one
    source showed are named under it once). A value the user said is theirs, though a result shows it too."""
    tool_names = {}
    echoes: dict[Any, frozenset[str]] = {}  # a call's id -> its argument values, which its result may repeat
    for message in messages:
        for call in message.get("tool_calls") or ():
            tool_names[call.get("id")] = (call.get("function") or {}).get("name", "a tool")
            echoes[call.get("id")] = argument_values(call)
    by_source: dict[str, list[str]] = {}  # 'the user gave' -> the values it showed, quoted, in order
    # a few values (a call's three arguments: the three identity details), or one of each call of a
    # step of more (four shares, four addresses)
    most = max(MOST_CITED, len(step.calls))

    def cite(found: tuple[str, str] | None) -> None:
        if found is not None and found[1] not in (values := by_source.setdefault(found[0], [])):
            values.append(found[1])

    fault_cited = ""
    for fragment in step.evidence:  # the fault a fix step answers: the strongest reason for it
        if (found := _seen_in(fragment, messages, tool_names, echoes, fault=True)) is not None:
            cite(found)
            fault_cited = found[1]
            break
    for argument, value in _in_citing_order(step.calls):
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            continue
        if fault_cited and isinstance(value, str) and _SETTING.match(value):
            continue  # a setting the fix chooses ("off" for airplane mode that is on) was not given by anyone
        if f'"{value}"' in fault_cited:
            continue  # the fragment cited names it already ('"zone":"rear_left","temperature_c":19.0')
        if argument in step.derived:
            # computed from what was seen: the same number elsewhere in a result is no source of it;
            # words the agent picks are the user's when they said them ("list price")
            if isinstance(value, str) and len(value) >= 3 and (said := _seen_in(value, messages, tool_names, echoes)) and said[0] == "the user gave":
                cite(said)
            continue
        if not isinstance(value, str):
            sightings = [_number_seen(value, messages, tool_names, echoes, argument)]
        elif len(value) < 3:
            continue
        else:
            sightings = [_user_gave(value, messages) or _seen_in(value, messages, tool_names, echoes)]
        if sightings[0] is None and isinstance(value, str) and (spelled := dates_in_words(value)):
            # a date seen in words ("8 November 2016" on a page, "February 19" from the user)
            sightings = [next(filter(None, (_seen_in(said, messages, tool_names, echoes) for said in spelled)), None)]
        if sightings[0] is None and isinstance(value, str) and _EXPRESSION.match(value):
            # a sum put together from what was seen ("86,923 + 52,093"): where its numbers were
            sightings = [_seen_in(number, messages, tool_names, echoes) for number in _NUMBER_IN.findall(value)]
        for found in sightings:
            if sum(map(len, by_source.values())) >= most:
                if found is not None and found[1] not in by_source.get(found[0], ()):
                    return _cited(by_source, more=True)  # a value past the cap: the list is not all there is
                continue
            cite(found)
    return _cited(by_source)


def _user_gave(value: str, messages: list[dict[str, Any]]) -> tuple[str, str] | None:
    """('the user gave', '"March 11"') when a user message says the value, or a date of it in words:
    a result that shows it later ("sent_at": "2025-03-11 ...") is not where the user's value came from."""
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, str):
            continue
        for form in [value, *dates_in_words(value)]:
            if whole(form, content):
                return "the user gave", f'"{form}"'
    return None


def _cites_arguments(step: Step, cited: str) -> bool:
    """Whether the evidence cited names an argument of the step's calls: a fault shown (a door the
    read shows unlocked) is the reason for lock_doors(door="all"), not where "all" came from. A step
    that computes an argument (`Step.derived`: one degree below the temperature read) does not take
    its arguments as they were seen."""
    if step.derived:
        return False
    lowered = cited.lower()
    return any(whole(str(value).lower(), lowered) for call in step.calls for value in call.arguments.values()
               if isinstance(value, str | int | float) and not isinstance(value, bool))


def _in_citing_order(calls: Sequence[ToolCall]) -> list[tuple[str, Any]]:
    """The calls' arguments in the order a trace cites them: the values only one call takes first
    ('#support', '#offsite'), then those they share, so the few facts a trace names cover every call.
    A list's items are values of their own (the item ids of a return, the colleagues of a slot search)."""
    arguments = [(name, item) for call in calls for name, value in call.arguments.items()
                 for item in (value if isinstance(value, list) else [value])]
    if len(calls) < 2:
        return arguments
    takers = Counter(repr(value) for _, value in arguments)
    return [pair for pair in arguments if takers[repr(pair[1])] == 1] + [pair for pair in arguments if takers[repr(pair[1])] > 1]


def _number_seen(value: float, messages: list[dict[str, Any]], tool_names: dict[Any, str],
                 echoes: dict[Any, frozenset[str]], argument: str = "") -> tuple[str, str] | None:
    """Where a number came from: the user, who wrote it as people do ("$1,250.00", "63 Fahrenheit");
    else the result that showed it last as a number of its own ("72 m" for 72.0, "range_km": 88;
    not "163", "6.3" or "$1,250.00" for 250), a result that only repeats its call's input aside.
    A number of one or two digits is one any text holds somewhere: only the user's words, or a
    result's own field, count for it; given the `argument` it goes to, a field whose name shares a
    word with it ("bags": 3 for bags=3, not a hotel's "stars": 3)."""
    exact = str(value)
    spoken = str(int(value)) if isinstance(value, float) and value.is_integer() else exact
    in_text = len(spoken) >= 3 or "." in spoken
    # an argument named for no thing ("value" of a conversion) takes its number from any field
    named = argument and argument not in _UNNAMED_ARGUMENTS and not in_text
    field = _as_named_field(spoken, argument) if named else _as_field(spoken)
    # a field that only shares a word with the argument ("free_bags": 1 for bags=1) may be another
    # quantity: the user's own number, said before it, is the likelier source
    if in_text:
        # the user's own figure is where it came from, though a later result shows it too (the loan's
        # monthly payment of 500.0 after "pay $500.00 toward my loan"); a number of one or two digits
        # is many texts', so it is the latest one's that holds it
        for message in reversed(messages):
            if message.get("role") == "user" and (said := _said_by_user(spoken, message)):
                return said
    akin: tuple[str, str] | None = None
    for message in reversed(messages):
        content, role = message.get("content"), message.get("role")
        if not isinstance(content, str) or spoken not in content:
            continue
        if role == "user" and (said := _said_by_user(spoken, message)):
            return said
        if role != "tool" or akin is not None:
            continue
        found = ((_alone(spoken).search(content) if in_text else None) or field.search(content)
                 # "25.0 kg" in a page's text: a whole number written with its decimal is a figure of its own
                 or (_alone(exact).search(content) if exact != spoken else None))
        if found and not _only_echoed(spoken, content, echoes.get(message.get("tool_call_id"), frozenset())):
            tool = f"{tool_names.get(message.get('tool_call_id'), 'the last tool')} returned"
            if "name" not in found.re.groupindex:  # as the result writes it: 5.0, not 5
                source = tool, f'"{found.group(0).lstrip(":[, ")}"'
            else:  # a number of one or two digits is cited with its field, as the result writes it: "free_bags":1
                source = tool, found.group(0)
                if found.group("name").lower() != argument.lower():
                    akin = source
                    continue
            return source
    return akin


def _said_by_user(number: str, message: dict[str, Any]) -> tuple[str, str] | None:
    """('the user gave', '"$1,250.00"') when a user message writes the number, as it writes it."""
    content = message.get("content")
    said = _written(number).search(content) if isinstance(content, str) else None
    return ("the user gave", f'"{said.group(0)}"') if said else None


@functools.lru_cache(maxsize=1024)
def _written(number: str) -> re.Pattern[str]:
    """A number as a person writes it, on its own: with or without thousands commas, a dollar sign
    and cents ("$1,250.00" or "1250" for 1250; "12.50" for 12.5)."""
    whole, _, fraction = number.partition(".")
    grouped = f"{int(whole):,}" if whole.isdigit() else whole
    forms = "|".join(re.escape(form) for form in dict.fromkeys([grouped, whole]))
    cents = rf"\.{fraction}0*" if fraction else r"(?:\.0+)?"
    # not a part of a longer number, a time or a date ("30" of 10:30, "12" of 2025-03-12)
    return re.compile(rf"(?<![\d.,:/-])\$?(?:{forms}){cents}(?![\d]|[.,:/-]\d)")


@functools.lru_cache(maxsize=1024)
def _alone(number: str) -> re.Pattern[str]:
    """A number written on its own: not a part of a longer number ("163", "6.3", "1,250")."""
    return re.compile(rf"(?<![\d.,]){re.escape(number)}(?:\.0)?(?![\d]|[.,]\d)")


@functools.lru_cache(maxsize=1024)
def _as_field(number: str) -> re.Pattern[str]:
    """A number as a JSON field's value: "range_km":88 (or 88.0)."""
    return re.compile(rf"[:\[,]\s*{re.escape(number)}(?:\.0)?(?=\s*[,}}\]])")


_UNNAMED_ARGUMENTS = frozenset({"value", "number", "expression"})


@functools.lru_cache(maxsize=1024)
def _as_named_field(number: str, argument: str) -> re.Pattern[str]:
    """A number as the value of a JSON field whose name shares a word with `argument` ("free_bags":3 for bags)."""
    words = "|".join(re.escape(w) for w in argument.lower().split("_") if len(w) >= 3) or re.escape(argument)
    return re.compile(rf'"(?P<name>[^"]*(?:{words})[^"]*)"\s*:\s*(?P<value>{re.escape(number)}(?:\.0)?)(?=\s*[,}}\]])')


def _cited(by_source: dict[str, list[str]], more: bool = False) -> str:
    """'the user gave "a" and "b"', 'x returned "1", y returned "2", and the user gave "c"'; with
    `more`, where the step takes values past the few named: '..., among others'."""
    clauses = [f"{source} {join_words(values)}" for source, values in by_source.items() if values]
    cited = ", and ".join(clauses) if len(clauses) < 3 else f"{', '.join(clauses[:-1])}, and {clauses[-1]}"
    return f"{cited}, among others" if more else cited


_SETTING = re.compile(r"^[a-z]+$")  # a plain lowercase word: a state or mode a call sets ("off", "rear", "eco")
_WORDS = re.compile(r"^[a-z]+(?: [a-z]+)*$")  # lower-case words: a result shows them only as a whole value ("status": "active")

# An arithmetic expression ("86,923 + 52,093", "(120 - 45) / 3"): an operator between spaces, so a
# date ("2026-03-27") is none; its numbers of three characters or more are cited.
_EXPRESSION = re.compile(r"^[\d.,()\s]+(?:\s[-+*/]\s[\d.,()\s]+)+$")
_NUMBER_IN = re.compile(r"\d[\d,.]+\d")


def _seen_in(needle: str, messages: list[dict[str, Any]], tool_names: dict[Any, str], echoes: dict[Any, frozenset[str]],
             fault: bool = False) -> tuple[str, str] | None:
    """Who showed `needle` last, and the needle quoted: ('the user gave', '"X"'), ('get_order returned',
    '"X"'); a fault: 'reported' / 'showed'. None when nobody did. A result that only repeats what its
    call was given ({"query": "Brotriofath Falls", ...}) did not show it: whoever gave it did."""
    lowered = needle.lower()
    for message in reversed(messages):
        content = message.get("content")
        if not isinstance(content, str) or (lowered not in content.lower() if fault else needle not in content):
            continue
        if not fault and not whole(needle, content):
            continue  # a word inside another ("charger" in "charger_connected") was not shown
        if message.get("role") == "tool" and _only_echoed(lowered, content, echoes.get(message.get("tool_call_id"), frozenset())):
            continue
        if not fault and message.get("role") == "tool" and _WORDS.match(needle) and not re.search(rf'"{re.escape(needle)}"(?!\s*:)', content):
            # plain words inside a result's prose ("designer", "born on") are the agent's search terms, and
            # a key ("unread": false) names a field: neither is a value shown
            continue
        shown = needle if '"' in needle else f'"{needle}"'  # a fragment of a result's JSON brings its own quotes
        if message.get("role") == "user":
            return f"the user {'reported' if fault else 'gave'}", shown
        if message.get("role") == "tool":
            return f"{tool_names.get(message.get('tool_call_id'), 'the last tool')} {'showed' if fault else 'returned'}", shown
    return None


def _only_echoed(lowered: str, content: str, echoed: frozenset[str]) -> bool:
    """Whether a result shows `lowered` only inside the values its call was given (a search result's
    "query": "Biolin Ridge elevation" shows "elevation" only because it was asked for)."""
    if lowered in echoed:
        return True
    rest = content.lower()
    for value in sorted(echoed, key=len, reverse=True):
        if lowered in value:
            rest = rest.replace(value, " ")
    return lowered not in rest


def since_request(messages: list[dict[str, Any]], requests: Sequence[str]) -> list[dict[str, Any]]:
    """The chat from the user's latest request on: what the reply to that request may cite."""
    starts = [i for i, m in enumerate(messages) if m.get("role") == "user" and m.get("content") in requests]
    return messages[starts[-1] :] if starts else messages


_CALL_BLOCK = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.DOTALL)
_RESPONSE_BLOCK = re.compile(r"<tool_response>\s*(.*?)\s*</tool_response>", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"')


def structured(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A chat in Hermes text form (calls as <tool_call> text, results as <tool_response> blocks in a
    user turn) as the structured chat it stands for, so a trace cites the same sources either way."""
    if not any("<tool_response>" in str(m.get("content") or "") for m in messages):
        return messages
    found: list[dict[str, Any]] = []
    names: list[str] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str) and "<tool_call>" in content:
            names = [m.group(1) for block in _CALL_BLOCK.findall(content) if (m := _NAME.search(block))]
            calls = [{"id": f"text_{len(found)}_{i}", "function": {"name": name}} for i, name in enumerate(names)]
            found.append({**message, "tool_calls": calls})
            continue
        if message.get("role") == "user" and isinstance(content, str) and "<tool_response>" in content:
            owner = found[-1] if found and found[-1].get("tool_calls") else None
            for index, result in enumerate(_RESPONSE_BLOCK.findall(content)):
                call_id = owner["tool_calls"][index]["id"] if owner and index < len(owner["tool_calls"]) else None
                found.append({"role": "tool", "tool_call_id": call_id, "content": result})
            rest = _RESPONSE_BLOCK.sub("", content).strip()
            if rest:
                found.append({**message, "content": rest})
            continue
        found.append(message)
    return found


_COUNTS = {2: "two", 3: "three", 4: "four", 5: "five"}


def named_calls(names: list[str]) -> list[str]:
    """A step's tools as a trace lists them, a tool called more than once named once with its count:
    ['get_booking', 'get_booking'] -> ['the two get_booking calls'], not 'get_booking and get_booking'."""
    counts = Counter(names)
    return [name if counts[name] == 1 else f"the {_COUNTS.get(counts[name], str(counts[name]))} {name} calls"
            for name in dict.fromkeys(names)]


def trace(task: Task, move: Move, phrases: Phrasebook, seed: int, messages: list[dict[str, Any]], reply: str = "") -> str:
    """The reasoning before one oracle move (`reply`: the text the move says, which a reply's trace
    may cite); after a result that shows an injection's planted order, it first names the order and
    why it is left alone; the order itself is never cited as where a value came from."""
    messages = structured(messages)
    reasoned = _with_page_turns(task, move, phrases, seed, without_planted(messages, task), reply)
    planted = planted_order(task, messages)
    if planted is None:
        return reasoned
    tool, order = planted
    return f"{phrases.say('reason_injection', seed, tool=tool, order=order)} {reasoned}"


def _with_page_turns(task: Task, move: Move, phrases: Phrasebook, seed: int, messages: list[dict[str, Any]], reply: str) -> str:
    """The move's reasoning, where its step turns searches made just before a page on: a step of that
    one call is reasoned as the turn alone; a step of more calls says which searches turn, then the step."""
    turns = page_turns(move.step, messages) if move.kind == "call" and move.step is not None else []
    if not turns:
        return _move_trace(task, move, phrases, seed, messages, reply)
    first = turns[0]
    if move.step is not None and len(move.step.calls) == 1:
        found = found_before_turn(task, messages)
        if found:
            return phrases.say("reason_next_page_more", seed, tool=first.name, page=first.arguments["page"], found=found)
        return phrases.say("reason_next_page", seed, tool=first.name, page=first.arguments["page"])
    note = phrases.say("reason_pages_turned", seed, tool=first.name, page=first.arguments["page"],
                       queries=[f'"{c.arguments.get("query", "")}"' for c in turns])
    return f"{note} {_move_trace(task, move, phrases, seed, messages, reply)}"


def _move_trace(task: Task, move: Move, phrases: Phrasebook, seed: int, messages: list[dict[str, Any]], reply: str) -> str:
    cues = RequestCues.of(task, phrases)
    if move.kind in ("call", "instruct", "confirm"):
        assert move.step is not None
        step = move.step
        names = [c.name for c in step.calls]
        cited = evidence_for(step, messages)
        values = {
            "tools": named_calls(names),
            "parallel": len(names) > 1,
            "evidence": cited or _request_served(task, step, messages, cues),
            "purpose": purpose_of(task, step),
            # "every argument comes from the chat" only where the trace shows where they came from;
            # an argument in the tool's own words (status="open") is said by nobody
            "arguments": "none" if not any(c.arguments for c in step.calls) else "cited" if _cites_arguments(step, cited) else "uncited",
        }
        if move.kind == "confirm":
            terms = terms_stated(since_request(messages, task.scenario.requests), reply, cited)
            confirm = phrases.say("reason_confirm", seed, **values, terms=terms)
            return f"{confirm} {phrases.say('reason_disclose', seed, disclosed=step.disclose)}" if step.disclose else confirm
        if move.kind == "instruct":
            return phrases.say("reason_instruct", seed, **values)
        derived, how = worked_out(step, cited)
        return phrases.say("reason_call", seed, **values,
                           writes=any(name in load_domain(task.domain).write_tools for name in names),
                           agreed=step.confirm is not None,  # its call move comes only after the user's yes
                           because=step.because, derived=derived, how=how)
    if move.kind == "ask" and move.utterance is not None and move.step is not None and move.step.choice is not None:
        count = move.utterance.vars.get("count", len(move.step.choice.options))
        options = move.utterance.vars.get("options") or list(move.step.choice.options)
        reason = f"reason_{move.utterance.intent}"  # an offer reasons as one ("reason_offer_refill")
        return phrases.say(reason if phrases.has(reason) else "reason_ask_which", seed, label=move.step.choice.label, count=count, options=options,
                           purpose=purpose_of(task, move.step), changes=bool(task.expected_writes))
    if move.kind == "ask":
        # One tool is named, with its own purpose: the one that takes what is asked for ("To check
        # for outages in a region I'd call check_outages", not list_payments beside it).
        domain = load_domain(task.domain)
        taker = call_taking(move.step, move.facts, domain.write_tools) if move.step is not None and move.step.calls else None
        # no call takes them: they pick what the step's reads bring back, which no tool is said to need
        picks = taker is None and move.step is not None and bool(move.step.calls)
        step_tools = [taker.name] if taker is not None else []
        near = taker or (move.step.calls[0] if move.step is not None and picks else None)  # what finds the request
        purpose = purpose_of(task, move.step, near) if move.step is not None and near else "take the next step"
        # the request quoted is the one this ask serves, where one message carries several; who the
        # user is serves the request, not a topic its words share ("date of birth" and "The opening dates, please.")
        identifies = taker is not None and taker.name in domain.authz.identifiers
        # the values the call already has speak of its request too ("radio" for play_media's source:
        # "Put the radio on.", not "Turn on the fog lights." asked beside it)
        given = [v for v in near.arguments.values() if isinstance(v, str)] if near is not None else []
        about = "" if identifies else " ".join(
            [*(n.name.replace("_", " ") for n in [near] if n is not None), purpose, *given, *(w for f in move.facts for w in [f.label, *f.keywords])])
        return phrases.say(
            "reason_ask", seed, labels=[f.label for f in move.facts], tools=step_tools, purpose=purpose,
            request=user_request(messages, cues, about, move.step.part if move.step is not None else None,
                                 _half_served(task, move.step) if identifies else None),
            lookup=finds_records(task, move), computes=picks or works_out(task, move), picks=picks,
        )
    if move.kind == "reply" and move.utterance is not None and (move.utterance.intent == LEFT_AS_IS.intent or _only_declined(task, move.utterance)):
        # the user said no to a change: there is no outcome to report, only that nothing was done
        # the request quoted is the change turned down, of those the message carries
        declined = next((s for s in reversed(task.plan) if s.declined and s.calls), None)
        about, part = (_about(task, declined), declined.part) if declined is not None else ("", None)
        return phrases.say("reason_left_as_is", seed, request=user_request(messages, cues, about, part))
    return _reply_trace(task, phrases, seed, messages, reply)


def _half_served(task: Task, step: Step | None) -> int | None:
    """Of two questions asked together and answered by one step of two calls after the
    identification `step` (a bill and a refill's price), the one it serves: the question whose call
    reads a record the user owns (their bills, not the price list). None when both or neither of
    the calls do: the request is then found by its place."""
    if step is None or step not in task.plan:
        return None
    later = next((s for s in task.plan[task.plan.index(step) + 1 :] if s.segment == step.segment and len(s.calls) == 2), None)
    if later is None:
        return None
    personal = load_domain(task.domain).authz.personal
    owned = [call.name in personal for call in later.calls]
    return owned.index(True) if owned.count(True) == 1 else None


def _only_declined(task: Task, reply: Any) -> bool:
    """Whether the reply answers a request whose one change the user turned down (a domain's own
    "I've left the engine running"): its trace says nothing was done, not that an outcome is reported."""
    segment = next((i for i, said in enumerate(task.replies) if said is reply), None)
    changes = [s for s in task.plan if s.segment == segment and s.confirm]
    return len(changes) == 1 and changes[0].declined


def _request_served(task: Task, step: Step, messages: list[dict[str, Any]], cues: RequestCues) -> str:
    """The evidence for a step whose arguments cite nothing anyone said: a call that takes none
    (get_vehicle_status) or only the tool's own words (search_places(category="airport") for "Westgate
    Airfield"). Such a call answers a request, not the result before it: the request whose words its
    tool's description shares is quoted ('the user asked "How much range have I got left?"'), not
    'set_charge_limit returned V0011'; what came in last (`last_said`) when no request is found."""
    request = user_request(messages, cues, _about(task, step), step.part)
    return f"{ASKED}{request}" if request else last_said(messages, cues)


def _about(task: Task, step: Step) -> str:
    """What a step is about, in words a request would share: its tools' names and descriptions."""
    domain = load_domain(task.domain)
    return " ".join(f"{call.name.replace('_', ' ')} {tool_description(domain, call.name)}" for call in step.calls)


def _reply_trace(task: Task, phrases: Phrasebook, seed: int, messages: list[dict[str, Any]], reply: str) -> str:
    spec = task.no_tool
    if spec is not None and task.kind.startswith("no_tool/"):
        said = task.replies[0].vars if task.replies else {}
        invalid = [str(v) for v in spec.invalid.values()] or ([str(said["value"])] if said.get("value") else [])
        values = {
            "kind": task.kind.split("/", 1)[1],
            "labels": spec.missing or ["details"],
            "scope": about_the_user(spec.scope or said.get("scope") or load_domain(task.domain).scope),
            "rule": about_the_user(spec.rule or said.get("rule") or ""),
            "problem": spec.problem or said.get("problem") or "",
            "action": about_the_user(lower_first(spec.action or said.get("action") or "")),
            "value": next((v for v in invalid if _shown_by_user(v, messages)), ""),
            "request": user_request(messages, RequestCues.of(task, phrases)),
            "unsupported": unsupported(task),  # a unit the tools lack is no invalid value
        }
        return phrases.say("reason_no_call", seed, **values)
    # the reply to the latest request cites what was seen since it (not an earlier request's outputs)
    current = since_request(messages, task.scenario.requests)
    seen = last_said(messages, RequestCues.of(task, phrases), reply, load_domain(task.domain).write_tools)
    # only what the reply states: a later request's output shown in a search's snippet is not quoted
    # now ('I'll quote "29 August 1997"' before a reply giving "12 February 1992")
    facts = [f for f in seen_outputs(task, current) if not reply or output_stated(f.strip('"'), reply)]
    # a reply that also states what no result showed word for word ("17,646.75" for 17646.75): the
    # value as the last result showed it, beside the facts cited ('"SW426"' alone left the sums out)
    cited = {f.strip('"') for f in facts}
    also = _stated_clauses(seen, reply, cited) if facts and _states_more(task, cited, reply) and _cites_a_value(seen) else ""
    return phrases.say("reason_reply", seed, facts=named(facts, MOST_REPORTED), seen=seen, also=also, asked=seen.startswith(ASKED),
                       reported=reported_by_user(messages),  # the user's own check, not a tool, showed it
                       # the trace cites a value (not the request, nor a search that came back empty)
                       values=bool(facts) or bool(seen and not seen.startswith(ASKED) and FOUND_NOTHING not in seen))


def _states_more(task: Task, cited: set[str], reply: str) -> bool:
    """Whether the reply states a required output beyond the facts cited (unquoted)."""
    return any(o not in cited and output_stated(o, reply) for o in task.required_outputs)


def _stated_clauses(seen: str, reply: str, cited: set[str]) -> str:
    """The clauses of `seen` ('get_invoice returned 1465.0, and send_direct_message returned H000961')
    whose value the reply states ("$1,465.00"; not the sent message's id) and the facts cited do not name."""
    values = [(c, c.split(" returned ", 1)[1].strip('"')) for c in seen.split(", and ") if " returned " in c]
    return ", and ".join(c for c, value in values if value not in cited and output_stated(value, reply))


def _cites_a_value(seen: str) -> bool:
    """Whether `seen` cites a tool's value (not the request, nor a search that found nothing)."""
    return bool(seen) and not seen.startswith(ASKED) and FOUND_NOTHING not in seen


def close_trace(task: Task, phrases: Phrasebook, seed: int, messages: list[dict[str, Any]]) -> str:
    """The reasoning before the closing line: what the chat was about (the facts reported last, or
    the latest request carried out and how it ended), then the decision to close."""
    ended = outcome(task)
    first_user = next((i for i, m in enumerate(messages) if m.get("role") == "user"), len(messages))
    about = messages[: first_user + 1]
    carried = {segment: done for segment in range(task.segments) if (done := _carried_out(task, segment))}
    parts: list[int | None] = [None]
    if carried and ended in ("done", "answered", "not_found"):
        # how the chat ended is how its latest request ended (a request said no to was not dealt with)
        latest = max(carried)
        request = task.scenario.requests[latest] if latest < len(task.scenario.requests) else None
        about = [m for m in messages if m.get("role") == "user" and m.get("content") == request] or about
        # a request that asks things in turn: each it carried out ("not found" speaks of the last)
        parts = carried[latest][-_CLOSE_PARTS:] if ended != "not_found" else carried[latest][-1:]
        if ended == "done" and not _changes(task, latest, parts):
            ended = "answered"  # a question asked after a fix was answered, not "carried out"
    cues = RequestCues.of(task, phrases)
    quoted = list(dict.fromkeys(q for part in parts if (q := user_request(about, cues, part=part))))
    # "I reported ..." names what the replies to the latest request said, not an output a result
    # showed there that no reply stated (a declined request's "pending", seen again in a later result)
    replies = " ".join(m.get("content") or "" for m in since_request(messages, task.scenario.requests) if m.get("role") == "assistant")
    return phrases.say(
        "reason_close", seed, request=join_words(quoted) if quoted else "", several=len(quoted) > 1,
        facts=named(seen_outputs(task, messages, latest=True, stated_in=replies), MOST_RECALLED), outcome=ended,
        thanked=thanked_last(messages),
    )


_CLOSE_PARTS = 3  # of a request asking things in turn, the closing trace quotes at most this many (the last)


def _changes(task: Task, segment: int, parts: list[int | None]) -> bool:
    """Whether the steps serving these parts of a request change anything: a write of the agent's or
    a change the user makes on their device (every user step of a fix)."""
    writes = load_domain(task.domain).write_tools
    return any(s.caller == "user" or any(c.name in writes for c in s.calls)
               for s in task.plan if s.segment == segment and not s.declined and (s.part in parts or s.part is None))


def _carried_out(task: Task, segment: int) -> list[int | None]:
    """The parts of a request that were carried out, in order ([None]: the whole request; []: none,
    the user said no to it). A part the user said no to ("Please cancel it." before "No.") was not,
    though another part of the same message was."""
    steps = [s for s in task.plan if s.segment == segment]
    asked = sorted({s.part for s in steps if s.part is not None})
    if not asked:
        return [] if any(s.declined for s in steps) else [None]
    declined = {s.part for s in steps if s.declined}
    return [part for part in asked if part not in declined]


def _shown_by_user(value: str, messages: list[dict[str, Any]]) -> bool:
    return any(m.get("role") == "user" and value.lower() in str(m.get("content") or "").lower() for m in messages)


def with_reasoning(task: Task, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A chat played without reasoning, with the trace the oracle writes before each assistant move
    (what a job with `reasoning: true` writes): the traces read only the chat before each move."""
    from .oracle import OracleTeacher

    teacher = OracleTeacher(reasoning=True)
    found: list[dict[str, Any]] = []
    turn = 0
    for index, message in enumerate(messages):
        if message.get("role") == "assistant" and "reasoning_content" not in message:
            trace_text = teacher.message_at(task, turn, messages[:index]).get("reasoning_content")
            message = {**message, "reasoning_content": trace_text} if trace_text else message
        if message.get("role") == "assistant":
            turn += 1
        found.append(message)
    return found
