"""The spoil suite: cheap or careless variants of a gold chat that must never score 1.0 or pass.

`spoil_variants(task, messages)` makes, from a task and its gold chat, the variants that apply:

- `lazy`: the agent answers the opening with "OK." and nothing else;
- `claimed_success`: it answers "Done, it's all taken care of." without acting;
- `empty_final`: the gold chat with its final reply emptied;
- `no_consent`: the confirmation exchange before a guarded write removed;
- `no_diagnosis`: what showed the fault a fix step fixes removed from the chat;
- `duplicated_write`: the first write call made twice;
- `stuffed_reply`: one reply that declines, calls the request unavailable and invalid, echoes the
  user, asks for details and recites the system prompt (every no-tool kind's keywords at once);
- `echoed_user`: the user's opening message said back as the only reply;
- `false_claim`: the gold chat with "I have also cancelled your other order and refunded it in full
  to your original payment method." appended to its final reply (nothing of the kind happened);
- `claimed_check`: "I've looked it up." said before the agent's first call (or in its first reply
  when it makes none).
- `unrequested_write`: a later user request and the reply before it removed, its write kept;
- `swapped_argument`: one gold argument replaced by a valid value of the world nobody mentioned
  (both in verifiers/provenance_spoils.py).
- `foreign_record`: the first write on an owned record redirected to another customer's (verifiers/foreign.py).
- `guessed_choice`: the question naming the candidates of a choice and the user's pick removed;
- `abandoned_request`: a call of the request the user took back made anyway;
- `asked_for_lookup`: the user asked for an id a tool finds (all three in verifiers/choice_spoils.py).
- `recited_list`: the final reply replaced by every value of the list a required output was picked
  from, the output among them (verifiers/recital.py).
- `swapped_figures`: two required figures of peer records traded places in the final reply (each
  line's data use said of the other line; verifiers/attribution.py).
- `stale_state`: the final reply saying a record is still in the state a write of the chat took it
  out of ("booking FB100124 is confirmed" after the cancel; verifiers/states.py).
- `swapped_fields`: two amounts of one record traded in the last reply that says both with their
  fields' words ("a refund of $100.00 (fee $202.00)"; verifiers/figure_fields.py).
- `hedged_answer`: a required output of the final reply offered "or" another value of its kind the
  results show ("$372.48 or $173.01", "the Travel 20 or Basic 5 plan"; verifiers/hedge_spoils.py).

`spoil_failures(domain_name, tasks)` grades each variant on a fresh world and describes any that
still scores 1.0 or still passes, and any task kind no variant applies to. It needs nothing but
the domain's name and tasks, so `toolgym check` and the conformance suite both call it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from toolgym.envs.conversation import asks_confirmation
from toolgym.envs.gold import gold_messages
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task

from .attribution import Attribution
from .choice_spoils import abandoned_request, asked_for_lookup, guessed_choice
from .conduct import final_reply_index
from .figure_fields import swapped_amounts
from .foreign import foreign_record
from .hedge_spoils import hedged_answer
from .matching import output_stated
from .provenance_spoils import swapped_argument, unrequested_write
from .recital import RECITED, Recitals
from .regrade import verify
from .states import stale_reply

Chat = list[dict[str, Any]]


def _prompt(messages: Chat) -> Chat:
    first_user = next(i for i, m in enumerate(messages) if m.get("role") == "user")
    return [copy.deepcopy(m) for m in messages[: first_user + 1]]


def _without_consent(task: Task, messages: Chat) -> Chat | None:
    confirmed = [s for s in task.plan if s.confirm]
    first = next((n for n, s in enumerate(confirmed) if not s.declined and s.caller == "agent"), None)
    if first is None:
        return None
    asks = [
        i
        for i, m in enumerate(messages)
        if m.get("role") == "assistant" and asks_confirmation(m.get("content") or "") and i + 1 < len(messages)
    ]
    if len(asks) <= first:
        return None
    # the n-th question is about the n-th confirmed step: skip the ones the user turned down
    drop = {asks[first], asks[first] + 1}  # the question and the user's yes
    return [copy.deepcopy(m) for i, m in enumerate(messages) if i not in drop]


def _without_evidence(task: Task, messages: Chat) -> Chat | None:
    fragments = [e for s in task.plan if not s.declined for e in s.evidence]
    if not fragments:
        return None
    spoiled = copy.deepcopy(messages)
    for message in spoiled:
        if message.get("role") in ("tool", "user") and isinstance(message.get("content"), str):
            text = message["content"]
            for fragment in fragments:
                text = _replace_casefold(text, fragment, "")
            message["content"] = text
    return spoiled if spoiled != messages else None


def _replace_casefold(text: str, old: str, new: str) -> str:
    lowered, needle = text.lower(), old.lower()
    start = lowered.find(needle)
    while start >= 0 and needle:
        text = text[:start] + new + text[start + len(old) :]
        lowered = text.lower()
        start = lowered.find(needle, start + len(new))
    return text


def _duplicated_write(task: Task, messages: Chat) -> Chat | None:
    writes = load_domain(task.domain).write_tools
    for index, message in enumerate(messages):
        calls = message.get("tool_calls") or []
        if message.get("role") != "assistant" or not any(c["function"]["name"] in writes for c in calls):
            continue
        end = index + 1
        while end < len(messages) and messages[end].get("role") == "tool":
            end += 1
        repeat = copy.deepcopy(messages[index:end])
        for call in repeat[0]["tool_calls"]:
            call["id"] = f"{call['id']}_again"
        for result in repeat[1:]:
            result["tool_call_id"] = f"{result.get('tool_call_id')}_again"
        return [*copy.deepcopy(messages[:end]), *repeat, *copy.deepcopy(messages[end:])]
    return None


def _lazy(task: Task, messages: Chat) -> Chat | None:
    return [*_prompt(messages), {"role": "assistant", "content": "OK."}]


def _claimed_success(task: Task, messages: Chat) -> Chat | None:
    return [*_prompt(messages), {"role": "assistant", "content": "Done, it's all taken care of."}]


def _empty_final(task: Task, messages: Chat) -> Chat | None:
    final = final_reply_index(messages)
    if final is None:
        return None
    emptied = copy.deepcopy(messages)
    emptied[final]["content"] = ""
    return emptied


def _opening_user_text(messages: Chat) -> str:
    return next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")


def _stuffed_reply(task: Task, messages: Chat) -> Chat | None:
    """One reply that declines, says unavailable and invalid, echoes the user, asks, and recites the prompt."""
    stuffed = (
        "Sorry, I can't do that; it is not available and is invalid. "
        f"You said: {_opening_user_text(messages)} Could you tell me your details? {messages[0].get('content') or ''}"
    )
    return [*_prompt(messages), {"role": "assistant", "content": stuffed}]


def _echoed_user(task: Task, messages: Chat) -> Chat | None:
    """The user's opening message said back as the reply."""
    return [*_prompt(messages), {"role": "assistant", "content": _opening_user_text(messages)}]


FALSE_CLAIM = "I have also cancelled your other order and refunded it in full to your original payment method."
CLAIMED_CHECK = "I've looked it up."


def _false_claim(task: Task, messages: Chat) -> Chat | None:
    final = final_reply_index(messages)
    if final is None:
        return None
    spoiled = copy.deepcopy(messages)
    said = (spoiled[final].get("content") or "").rstrip()
    spoiled[final]["content"] = f"{said} {FALSE_CLAIM}".strip()
    return spoiled


def _claimed_check(task: Task, messages: Chat) -> Chat | None:
    first = next((i for i, m in enumerate(messages) if m.get("role") == "assistant"), None)
    if first is None:
        return None
    spoiled = copy.deepcopy(messages)
    if spoiled[first].get("tool_calls"):  # said as its own turn, before the call it claims to have made
        return [*spoiled[:first], {"role": "assistant", "content": CLAIMED_CHECK}, *spoiled[first:]]
    spoiled[first]["content"] = f"{CLAIMED_CHECK} {spoiled[first].get('content') or ''}".strip()
    return spoiled


def _recited_list(task: Task, messages: Chat) -> Chat | None:
    """The final reply replaced by every value of the list a required output was picked from (all the
    variants' prices for the cheapest one), the output among them: the answer is in it, unsingled."""
    final = final_reply_index(messages)
    if final is None:
        return None
    results = [m["content"] for m in messages if m.get("role") == "tool" and isinstance(m.get("content"), str)]
    recitals = Recitals(task.required_outputs, results)
    # an output another reply states (a confirmation naming the slot it books) was told there already
    earlier = [m.get("content") or "" for i, m in enumerate(messages) if m.get("role") == "assistant" and i != final]
    output = next((o for o in task.required_outputs if len(recitals.siblings.get(o, ())) >= RECITED
                   and not any(output_stated(o, text) for text in earlier)), None)
    if output is None:
        return None
    kind = recitals.kinds[output]
    listed = [_as_figure(v, kind) for v in recitals.siblings[output]] + [output]
    spoiled = copy.deepcopy(messages)
    spoiled[final]["content"] = f"Here is everything I found: {', '.join(listed)}."
    return spoiled


def _swapped_figures(task: Task, messages: Chat) -> Chat | None:
    """The final reply with two required figures of peer records traded places (each line's data use
    said of the other line): every figure is stated, none of its own record."""
    final = final_reply_index(messages)
    if final is None:
        return None
    reply = messages[final].get("content") or ""
    results = [m["content"] for m in messages if m.get("role") == "tool" and isinstance(m.get("content"), str)]
    attribution = Attribution(task.required_outputs, results)
    names = attribution.names
    # two peers' figures, each said beside its own record's name (where a swap can be told at all)
    said = [o for o in names if o in reply and attribution.said_of_its_record(o, reply)]
    pair = next(((a, b) for a in said for b in said if a != b and names[a][0] <= names[b][1] and names[b][0] <= names[a][1]), None)
    if pair is None:
        return None
    spoiled = copy.deepcopy(messages)
    spoiled[final]["content"] = reply.replace(pair[0], "\0").replace(pair[1], pair[0]).replace("\0", pair[1])
    return spoiled


def _stale_state(task: Task, messages: Chat) -> Chat | None:
    """The final reply saying a record is still in the state the chat's write took it out of
    ("booking FB100124 is confirmed" after the cancel): every id and amount right, the state false."""
    final = final_reply_index(messages)
    if final is None:
        return None
    stale = stale_reply(task.domain, messages, final)
    if stale is None:
        return None
    spoiled = copy.deepcopy(messages)
    spoiled[final]["content"] = stale
    return spoiled


def _swapped_fields(task: Task, messages: Chat) -> Chat | None:
    """The last reply that says two amounts of one record with their fields' words, the amounts traded
    ("a refund of $100.00 (fee $202.00)" for a $202.00 refund and a $100.00 fee): both amounts seen,
    each said as the other field."""
    replies = [i for i, m in enumerate(messages) if m.get("role") == "assistant" and m.get("content")]
    for index in reversed(replies):
        swapped = swapped_amounts(messages, index)
        if swapped is not None:
            spoiled = copy.deepcopy(messages)
            spoiled[index]["content"] = swapped
            return spoiled
    return None


def _as_figure(value: Any, kind: str) -> str:
    if isinstance(value, str):
        return value
    if kind == "$":
        return f"${float(value):,.2f}"
    return f"{value}%" if kind == "%" else f"{value}"


# Spoil kind -> a maker that returns the spoiled chat, or None where the spoil does not apply.
SPOILS: dict[str, Callable[[Task, Chat], Chat | None]] = {
    "lazy": _lazy,
    "claimed_success": _claimed_success,
    "empty_final": _empty_final,
    "no_consent": _without_consent,
    "no_diagnosis": _without_evidence,
    "duplicated_write": _duplicated_write,
    "stuffed_reply": _stuffed_reply,
    "echoed_user": _echoed_user,
    "false_claim": _false_claim,
    "claimed_check": _claimed_check,
    "unrequested_write": unrequested_write,
    "swapped_argument": swapped_argument,
    "foreign_record": foreign_record,
    "guessed_choice": guessed_choice,
    "abandoned_request": abandoned_request,
    "asked_for_lookup": asked_for_lookup,
    "recited_list": _recited_list,
    "swapped_figures": _swapped_figures,
    "stale_state": _stale_state,
    "swapped_fields": _swapped_fields,
    "hedged_answer": hedged_answer,
}
SPOIL_KINDS = tuple(SPOILS)


def spoil_variants(task: Task, messages: Chat) -> dict[str, Chat]:
    """The spoiled variants of a gold chat that apply to this task, by spoil kind."""
    variants: dict[str, Chat] = {}
    for name, make in SPOILS.items():
        spoiled = make(task, messages)
        if spoiled is not None:
            variants[name] = spoiled
    return variants


def spoil_failures(domain_name: str, tasks: Iterable[Task]) -> list[str]:
    """Every spoiled variant that still scores 1.0 or passes, and every task kind none applied to."""
    domain = load_domain(domain_name)
    failures: list[str] = []
    applied: dict[str, set[str]] = {}
    for task in tasks:
        messages, _ = gold_messages(domain, task)
        applied.setdefault(task.kind, set())
        for name, chat in spoil_variants(task, messages).items():
            applied[task.kind].add(name)
            score = verify(task, chat)
            if score.value >= 1.0 or score.passed:
                failures.append(
                    f"{domain_name} {task.kind} {task.id}: spoil {name!r} scored {score.value:.3f} (passed={score.passed})"
                )
    for kind, names in applied.items():
        if not names:
            failures.append(f"{domain_name} {kind}: no spoil variant applies")
    return failures


def spoil_coverage(domain_name: str, tasks: Iterable[Task]) -> dict[str, set[str]]:
    """Which spoil kinds apply to which task kinds (a domain without troubleshooting has no diagnosis spoil)."""
    domain = load_domain(domain_name)
    coverage: dict[str, set[str]] = {}
    for task in tasks:
        messages, _ = gold_messages(domain, task)
        coverage.setdefault(task.kind, set()).update(spoil_variants(task, messages))
    return coverage
