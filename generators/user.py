"""ScriptedUser: plays a task's scenario from templates, with no model.

It opens with the first request, gives a fact only when the agent asks for it, says yes when
asked to confirm (no, for a step the task marks declined), carries out on-device steps when the agent has asked for one, moves to the
next request when the agent has answered, and ends the chat when nothing is left.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from toolgym.envs.conversation import (
    STOP_MARKER,
    asks_confirmation,
    asks_open_question,
    confirm_step_asked,
    mentions,
    outcome,
    request_text,
    said_before,
    step_cues,
    undecided,
    unsupported,
)
from toolgym.envs.fact_words import fact_answer
from toolgym.envs.phrasing import owned, polish, register_of, with_typos
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Scenario, Task
from toolgym.envs.user_turns import spoken_sentences
from toolgym.errors import DomainError

from .base import Message, UserSimulator

_DEFAULT_CLOSING = Scenario.model_fields["closing"].default
# A reading that opens on an acknowledgement ("Okay, I did it. It shows ...") takes no lead-in:
# "Alright. Okay, I see this: ..." acknowledged twice.
_OPENS_ON_ACK = re.compile(r"^(?:okay|ok|alright|all right|right|done|sure|there)\b", re.IGNORECASE)


class ScriptedUser(UserSimulator):
    name = "scripted"

    def reply_sync(self, messages: list[Message], task: Task) -> Message:
        scenario = task.scenario
        phrases = load_domain(task.domain).phrasebook
        user_messages = [m for m in messages if m.get("role") == "user"]
        if not user_messages:
            return {"role": "user", "content": scenario.requests[0]}
        seed = task.seed + len(user_messages)
        register = register_of(scenario.persona)
        # what this user has said, and what their later requests will say: a reply picks other words
        spoken = _sentences(user_messages) | spoken_sentences(scenario.requests)
        if messages[-1].get("role") == "user" and messages[-1].get("content") is None:
            report = self._report(messages[-1], phrases, seed, register, spoken, again=_done_before(messages))
            return {"role": "user", "content": report}
        facts = [f.value for f in scenario.facts] + [f.label for f in scenario.facts] + list(scenario.unknown)

        def say(intent: str, **values: Any) -> str:
            """The intent in the persona's register, in words this user has not said yet in the chat;
            a typo-prone persona slips outside facts and ids."""
            name = phrases.voiced(intent, register)
            count = phrases.combinations(name)
            every = (lambda i: phrases.render(name, i, **values), count) if count <= _ENUMERATED else None
            text = fresh(lambda s: phrases.say(name, s, **values), seed, spoken, every=every)
            return with_typos(text, seed, keep=facts) if register == "typo" else text

        if _stalled(messages, scenario.requests):
            return _final(say("user_gives_up"))
        said = " ".join(m.get("content") or "" for m in user_messages)
        last = next((m for m in reversed(messages) if m.get("role") == "assistant"), {})
        text = last.get("content") or ""

        if text and asks_confirmation(text):
            step = confirm_step_asked(task, messages)
            if step is not None and step.declined:
                return {"role": "user", "content": say("user_decline")}
            return {"role": "user", "content": say("user_confirm")}
        asking = request_text(text) if text else ""
        if asking:
            unknown = [label for label in scenario.unknown if mentions(asking, [label])]
            if unknown:  # a choice not made yet is no fact to look up ("I haven't decided how much yet")
                # `alone`: the question asked for nothing else, so "it" is clear and the user does not say
                # the agent's label back ("I can't tell you my wife's phone number yet.")
                alone = not any(mentions(asking, f.keywords or [f.label]) for f in scenario.facts)
                return _final(say("user_undecided" if undecided(task) else "user_unknown", labels=unknown, alone=alone))
            asked = [f for f in scenario.facts if mentions(asking, f.keywords or [f.label])]
            # what was not said yet; and asked for what the chat holds already, the user says it again,
            # for it may have been said as something else (a travel date that is also the check-in date,
            # the day inside "the one leaving on March 9", a home town inside "the Diodreathwick fair").
            # Not a value the agent's words hold (it has it: "I can't send the message "Are we on?"..."),
            # and told a value is invalid or missing, the user goes to find the right one.
            again = [] if outcome(task) == "pending" else [f for f in asked if not said_before(f.value, text)]
            wanted = [f for f in asked if not said_before(f.value, said)] or again
            if wanted:
                # each in the domain's own words where it has them ("it goes in Projects"), else "my X is Y"
                chosen = {s.choice.fact for s in task.plan if s.choice is not None}
                # a pick among options the agent offered, not a record the user had in mind (ask_which)
                offers = {s.choice.fact for s in task.plan if s.choice is not None and s.choice.question.intent != "ask_which"}
                worded = [fact_answer(phrases, f, register, seed, f.key in chosen, f.key in offers) for f in wanted]
                pairs = [own or f"{label} is {f.value}" for f, own, label in zip(wanted, worded, owned([f.label for f in wanted], "my"), strict=True)]
                return {"role": "user", "content": say("user_reveal", pairs=pairs, recalled=not any(worded),
                                                       open_question=asks_open_question(text),
                                                       offered=any(f.key in offers for f in wanted))}
        pending = self._pending_user_step(task, user_messages)
        if pending is not None:
            if not mentions(text, step_cues(pending)):
                return {"role": "user", "content": say("user_needs_guidance")}
            calls = [{"name": c.name, "arguments": dict(c.arguments)} for c in pending.calls]
            return {"role": "user", "content": None, "user_tool_calls": calls}
        sent = sum(1 for m in user_messages if m.get("content") in scenario.requests)
        if sent < len(scenario.requests):
            return {"role": "user", "content": scenario.requests[sent]}
        ending = outcome(task)
        if ending == "refused":  # no "Great, thank you!" after a refusal; no apology for a unit the tools lack
            return _final(say("user_done_unsupported" if unsupported(task) else "user_done_refused"))
        if ending == "not_found":  # nor after hearing that nothing was found
            return _final(say("user_done_not_found"))
        if ending == "pending":  # told a value is invalid or missing: they go to find the right one
            return _final(say(_pending_close(task)))
        if scenario.closing and scenario.closing != _DEFAULT_CLOSING:  # the task's own closing line
            return _final(scenario.closing)
        return _final(say("user_done"))

    @staticmethod
    def _report(message: Message, phrases: Any, seed: int, register: str = "neutral", spoken: set[str] | None = None,
                again: bool = False) -> str:
        """What the user tells the agent after acting on the device: what each action showed, in the
        persona's voice (a lead-in and an afterword around the readings, `user_report_*`, in words
        not said yet in the chat). `again`: the user did one of these actions before ("Did it. Again.")."""
        lead, after = phrases.voiced("user_report_lead", register), phrases.voiced("user_report_after", register)
        spoken = spoken or set()
        lines: list[str] = []
        observed = False  # a result shows more than the setting the user just made: a reading to interpret
        for call, result in zip(message.get("user_tool_calls") or [], message.get("user_tool_results") or [], strict=False):
            values = _result_values(result)
            observed = observed or _observed(call, values)
            intent = f"user_saw_{call.get('name')}"
            if "error" in values:
                lines.append(phrases.say("user_saw_error", seed, error=str(values["error"]).rstrip(".")))
                continue
            if intent in phrases.intents():
                try:
                    lines.append(fresh(functools.partial(_reading, phrases, intent, values), seed, spoken | spoken_sentences(lines)))
                    continue
                except DomainError:  # the result lacks a field the phrasing names: say it plainly
                    pass
            shown = ", ".join(f"{k.replace('_', ' ')}: {str(v).rstrip('.')}" for k, v in values.items())
            lines.append(phrases.say("user_saw", seed, summary=shown))
        # the lead-in and afterword are optional: said only in words new to the chat and to the readings
        spoken = spoken | spoken_sentences(lines)
        acknowledged = bool(lines) and bool(_OPENS_ON_ACK.match(lines[0]))
        opening = "" if acknowledged else fresh(lambda s: phrases.say(lead, s, again=again), seed, spoken, optional=True)
        closing = fresh(lambda s: phrases.say(after, s, observed=observed), seed + 1, spoken | spoken_sentences([opening]), optional=True)
        return polish(" ".join([opening, *lines, closing]))

    @staticmethod
    def _pending_user_step(task: Task, user_messages: list[Message]) -> Any:
        """The next on-device step of the current request, if the agent has reached it."""
        done = sum(1 for m in user_messages if m.get("user_tool_calls"))
        user_steps = [s for s in task.plan if s.caller == "user"]
        if done >= len(user_steps):
            return None
        sent = sum(1 for m in user_messages if m.get("content") in task.scenario.requests)
        step = user_steps[done]
        return step if step.segment < sent else None


def _observed(call: dict[str, Any], values: dict[str, Any]) -> bool:
    """Whether a device result shows something beyond the action's own arguments: a switch turned on
    answers `{"mobile_data": "on"}`, which tells the agent nothing new ("Does that tell you anything?")."""
    given = {str(v) for v in (call.get("arguments") or {}).values()}
    return any(str(v) not in given for v in values.values())


def _done_before(messages: list[Message]) -> bool:
    """Whether the last message's device actions repeat one the user did earlier in the chat."""
    names = {c.get("name") for c in messages[-1].get("user_tool_calls") or []}
    return any(c.get("name") in names for m in messages[:-1] if m.get("role") == "user" for c in m.get("user_tool_calls") or [])


_STALL_TURNS = 5  # gold chats have at most three text-only agent turns in a row within one request


def _stalled(messages: list[Message], requests: list[str]) -> bool:
    """Whether the agent has spoken `_STALL_TURNS` times in a row with no call, no device action and
    no new request of the user between: the user leaves, so an agent that talks in circles still ends
    its episode (and is graded). A new request starts the count afresh (a declined change followed by
    another request that needs a question and a confirmation is no circle); there are only so many."""
    count = 0
    for message in reversed(messages):
        if message.get("role") == "assistant":
            if message.get("tool_calls"):
                break
            count += 1
        elif message.get("role") == "user" and (message.get("user_tool_calls") or message.get("content") in requests):
            break
    return count >= _STALL_TURNS


def _reading(phrases: Any, intent: str, values: dict[str, Any], seed: int) -> str:
    """One reading of a device result in the words the draw `seed` picks."""
    return str(phrases.say(intent, seed, **values))


def _result_values(result: str) -> dict[str, Any]:
    """A device result as template values: its fields, or the whole text as `result`."""
    try:
        decoded = json.loads(result)
    except (TypeError, json.JSONDecodeError):
        return {"result": result}
    if isinstance(decoded, dict):
        return {str(k): v for k, v in decoded.items()}
    return {"result": decoded}


def _pending_close(task: Task) -> str:
    """How a user told their value will not do leaves: one a nearer valid value was offered for is
    theirs to choose again (`user_done_rethink`: a cruise speed or a meeting length is not something
    to "find", conversation.undecided); else they go to find the right one (`user_done_pending`). (A
    value the tools lack was no mistake: that chat ends as refused, `user_done_unsupported`.)"""
    return "user_done_rethink" if undecided(task) else "user_done_pending"


_TRIES = 16  # other draws of a phrasing before a repeat is accepted (an intent with few variants)
_ENUMERATED = 256  # an intent with this many wordings or fewer is then tried wording by wording


def _sentences(user_messages: list[Message]) -> set[str]:
    """What this user has said so far, sentence by sentence (normalised)."""
    return spoken_sentences([str(m.get("content") or "").replace(STOP_MARKER, "") for m in user_messages])


def fresh(render: Callable[[int], str], seed: int, spoken: set[str], optional: bool = False,
          every: tuple[Callable[[int], str], int] | None = None) -> str:
    """A phrasing none of whose sentences the user has said before in this chat: the draw for `seed`,
    else the next draws (a few), else, given `every` (each wording by its number, and how many
    there are), the first wording from a place the seed picks that repeats nothing (random draws
    can miss the few that fit an intent of 15 wordings); else the one that repeats least, or
    nothing for an `optional` part (a lead-in the user can do without)."""
    best, best_overlap = "", None
    draws: Iterable[str] = (render(seed + 7919 * attempt) for attempt in range(_TRIES))
    if every is not None:
        wording, count = every
        draws = itertools.chain(draws, (wording((seed + i) % count) for i in range(count)))
    for text in draws:
        said = spoken_sentences([text.replace(STOP_MARKER, "")])
        overlap = len(said & spoken)
        if not overlap:
            return text
        if best_overlap is None or overlap < best_overlap:
            best, best_overlap = text, overlap
    return "" if optional else best


def _final(content: str) -> Message:
    if STOP_MARKER not in content:
        content = f"{content} {STOP_MARKER}"
    return {"role": "user", "content": content}
