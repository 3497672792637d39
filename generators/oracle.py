"""OracleTeacher: follows the task's gold plan and speaks through the domain's phrasings.

It is stateless: its next move is read off the chat (one move per assistant message), so it
answers a request the same way in a local loop, inside Ray, or behind an HTTP server.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from toolgym.envs.conversation import (
    Move,
    assistant_turns,
    finds_records,
    in_the_evening,
    oracle_moves,
    works_out,
)
from toolgym.envs.fact_words import fact_question
from toolgym.envs.parsing import clean_text
from toolgym.envs.phrasing import (
    apologies,
    register_of,
    scope_without,
    sentences_of,
    tool_area_words,
    unrepeated,
)
from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.envs.user_turns import thanked_last
from toolgym.errors import ConfigError

from .base import Message, Policy
from .reasoning import trace

_CACHE_SIZE = 512  # episodes in flight at once, with room; moves hold their task's steps
_LEAD_KINDS = ("ask", "confirm", "instruct")  # moves said in the phrasebook's words alone (no facts of a reply)


def _instruct_context(task: Task, moves: list[Move], turn: int) -> dict[str, bool]:
    """What an instruction's lead-in may say: `checks`, the step fixes no fault it was shown (no
    `evidence`): it looks or tests, so a speed test after the line is resumed is a check, not "Next
    thing to try."; `reported`, the user's last words reported what an earlier instruction showed
    ("Thanks, that helps." thanks for nothing after a yes); `again`, an earlier instruction of the chat
    was carried out ("One more check on the phone." is no first step of the user's)."""
    step = moves[turn].step
    checks = step is not None and not step.evidence
    spoken = [m.kind for m in moves[:turn] if m.kind != "call"]
    return {"checks": checks, "reported": bool(spoken) and spoken[-1] == "instruct", "again": "instruct" in spoken}


def _is_lead(move: Move) -> bool:
    return move.kind in _LEAD_KINDS and not (move.kind == "ask" and move.utterance is not None)


class OracleTeacher(Policy):
    name = "oracle"
    speaks_gold_names = True

    def __init__(self, reasoning: bool = False):
        self.reasoning = reasoning
        self._moves: OrderedDict[str, list[Move]] = OrderedDict()
        self._said: OrderedDict[tuple[str, int], str] = OrderedDict()  # (task, turn) -> an ask, confirm or instruct's words

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reasoning": self.reasoning}

    def moves(self, task: Task) -> list[Move]:
        key = task.id or task.content_id()
        found = self._moves.get(key)
        if found is None:
            found = self._moves[key] = oracle_moves(task)
            if len(self._moves) > _CACHE_SIZE:
                self._moves.popitem(last=False)
        return found

    def act_sync(self, messages: list[Message], tools: list[dict[str, Any]], task: Task | None = None) -> Message:
        if task is None:
            raise ConfigError("OracleTeacher needs the task: pass task= to act (rollout does)")
        return self.message_at(task, assistant_turns(messages), messages)

    def message_at(self, task: Task, turn: int, messages: list[Message] | None = None) -> Message:
        """The assistant message of the gold conversation at a turn (its number of assistant messages before).

        The chat so far (`messages`) is what the reasoning trace cites; without it the trace names no evidence.
        """
        phrases = load_domain(task.domain).phrasebook
        register = register_of(task.scenario.persona)  # answer in the register the user writes in
        moves = self.moves(task)
        seed = task.seed + turn
        if turn >= len(moves):
            farewell = phrases.say(phrases.voiced("farewell", register), seed, thanked=thanked_last(messages or []),
                                   evening=in_the_evening(task))
            return {"role": "assistant", "content": farewell}
        move = moves[turn]
        message: Message = {"role": "assistant", "content": None}
        if move.kind == "ask" and move.utterance is not None:  # a question of the task's own (which one)
            message["content"] = phrases.say(phrases.voiced(move.utterance.intent, register), seed, **move.utterance.vars)
        elif move.kind in _LEAD_KINDS:
            message["content"] = self._spoken(task, turn)
        elif move.kind == "reply":
            message["content"] = self._reply(task, turn)
        else:
            assert move.step is not None
            message["tool_calls"] = [
                {
                    "id": f"call_{turn}_{index}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": dict(call.arguments)},
                }
                for index, call in enumerate(move.step.calls)
            ]
        if self.reasoning:
            message["reasoning_content"] = trace(task, move, phrases, seed, messages or [], message.get("content") or "")
        return message

    def _spoken(self, task: Task, turn: int) -> str:
        """The words of an ask, confirm or instruct move, drawn again (another seed) while a sentence
        repeats one an earlier such move of the chat said: one caller is not told "Take your time."
        at every step, nor greeted twice. Read off the task alone, so every caller gets the same words."""
        key = (task.id or task.content_id(), turn)
        found = self._said.get(key)
        if found is not None:
            return found
        moves = self.moves(task)
        said = {s for t in range(turn) if _is_lead(moves[t]) for s in sentences_of(self._spoken(task, t))}
        text = unrepeated(lambda seed: self._lead_text(task, turn, seed), task.seed + turn, said)
        self._said[key] = text
        if len(self._said) > 16 * _CACHE_SIZE:
            self._said.popitem(last=False)
        return text

    def _reply(self, task: Task, turn: int) -> str:
        """The words of a reply move (kept, as `_spoken` keeps a lead's, for the moves after it to read)."""
        key = (task.id or task.content_id(), turn)
        found = self._said.get(key)
        if found is not None:
            return found
        phrases = load_domain(task.domain).phrasebook
        moves = self.moves(task)
        utterance = moves[turn].utterance
        assert utterance is not None
        intent = phrases.voiced(utterance.intent, register_of(task.scenario.persona))
        values = {**_domain_values(task), "after_answer": _after_answer(moves, turn), "apologised": self._apologised(task, turn),
                  **utterance.vars}
        text = self._said[key] = phrases.say(intent, task.seed + turn, **values)
        return text

    def _apologised(self, task: Task, turn: int) -> int:
        """How many sentences of the agent's words before `turn` apologise: a chat says sorry once or
        twice, not at every step, and "Sorry again" only after a first sorry."""
        moves = self.moves(task)
        return apologies(self._spoken(task, t) if _is_lead(m) else self._reply(task, t)
                         for t, m in enumerate(moves[:turn]) if _is_lead(m) or m.kind == "reply")

    def _lead_text(self, task: Task, turn: int, seed: int) -> str:
        phrases = load_domain(task.domain).phrasebook
        register = register_of(task.scenario.persona)
        moves = self.moves(task)
        move = moves[turn]
        assert move.kind == "ask" or move.step is not None
        if move.kind == "ask":
            # thanks for getting in touch fit the agent's first words only (`opening`: no text said before)
            opening = all(m.kind == "call" for m in moves[:turn])
            labels = [f.label for f in move.facts]
            values = {"labels": labels, "opening": opening, "lookup": finds_records(task, move), "computes": works_out(task, move),
                      "looked": any(m.kind == "call" for m in moves[:turn]),  # "I will gladly look into this" only before any call
                      "apologised": self._apologised(task, turn)}
            intent = phrases.voiced("ask_facts", register)
            asked = {f.key for f in move.facts}
            others = [f for f in task.scenario.facts if f.key in task.scenario.withheld and f.key not in asked]
            if question := fact_question(phrases, move.facts, register, seed, [w for f in others for w in f.keywords or [f.label]]):
                return phrases.say_swapping(intent, seed, {"ask": "{{ question }}"}, question=question, **values)
            return phrases.say(intent, seed, **values)
        if move.kind == "confirm":
            return phrases.say(phrases.voiced("confirm", register), seed, action=move.step.confirm,  # type: ignore[union-attr]
                               details=_gave_details(moves, turn), apologised=self._apologised(task, turn))
        return phrases.say(phrases.voiced("instruct", register), seed, instruction=move.step.instruction,  # type: ignore[union-attr]
                           **_instruct_context(task, moves, turn))

    def with_reasoning(self, task: Task, chat: list[Message]) -> list[Message] | None:
        """The chat this teacher has on the task, given the chat the oracle without reasoning had.

        Its moves do not depend on reasoning, so the chat is the same but for each assistant
        message's trace, made from the chat before it as `act` would make it. Messages are new
        dicts (their tool calls are shared). None when a trace is not storable as it stands
        (the env would have reported a format problem): the caller plays the task instead.
        """
        copied: list[Message] = []
        moves = self.moves(task)
        phrases = load_domain(task.domain).phrasebook
        for message in chat:
            message = dict(message)
            if message.get("role") == "assistant" and self.reasoning:
                turn = assistant_turns(copied)
                if turn < len(moves):
                    reasoning, problems = clean_text(
                        trace(task, moves[turn], phrases, task.seed + turn, copied, message.get("content") or ""))
                    if problems:
                        return None
                    if reasoning:
                        message["reasoning_content"] = reasoning
            copied.append(message)
        return copied


def _after_answer(moves: list[Move], turn: int) -> bool:
    """Whether the user's last words before the reply at `turn` answered the agent (a question, a
    confirmation, a step on their phone) rather than asked: 'Good question.' does not fit there."""
    for move in reversed(moves[:turn]):
        if move.kind == "reply":
            return False
        if move.kind in _LEAD_KINDS:
            return True
    return False


def _gave_details(moves: list[Move], turn: int) -> bool:
    """Whether the user's last words before `turn` gave something (a request, an answer, what a step
    showed) rather than a yes or no to a change put to them: "Thanks for the details." fits only then."""
    for move in reversed(moves[:turn]):
        if move.kind != "call":
            return move.kind != "confirm"
    return True


def _domain_values(task: Task) -> dict[str, Any]:
    """What a reply may offer instead, from the domain (`OPTIONAL_REPLY_VALUES`): the hand-off its
    policy allows for a refusal (unless the withheld tool is the hand-off itself) and its scope. The
    task's own values take precedence."""
    domain = load_domain(task.domain)
    withheld_tools = task.no_tool.withheld_tools if task.no_tool else ()
    withheld = " ".join(withheld_tools).lower()
    handoff = domain.refusal_handoff
    if "human" in withheld:  # "I can't transfer you; a human agent can help" contradicts itself
        handoff = ""
    # a tool's area as the domain names it ('chat messages'), else its name's verb and object ('return ... items')
    areas = [w for name in withheld_tools
             for w in (domain.tool(name).area.lower().split() if domain.tool(name).area else tool_area_words(name))]
    return {"handoff": handoff, "scope": scope_without(domain.scope, areas)}
