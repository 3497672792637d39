"""Task: one generated, replay-proven job for an agent, serialisable to JSON.

Its id is a hash of its content, so the same task generated twice has the same id and a
changed task never shares an id with the old one.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

TaskKind = Literal[
    "single",
    "parallel",
    "multi_step",
    "multi_turn",
    "no_tool/irrelevant",
    "no_tool/missing_info",
    "no_tool/unavailable",
    "no_tool/invalid_value",
    "no_tool/policy_refusal",
    "injection",
]
ALL_KINDS: tuple[str, ...] = get_args(TaskKind)
ACTION_KINDS: tuple[str, ...] = ("single", "parallel", "multi_step", "multi_turn", "injection")
NO_TOOL_KINDS: tuple[str, ...] = tuple(k for k in ALL_KINDS if k.startswith("no_tool/"))


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Fact(_Model):
    """Something the user knows, and the words an agent would use to ask for it."""

    key: str
    value: str
    label: str = Field(description="how an agent names it: 'email address'")
    keywords: list[str] = Field(default_factory=list, description="words in a question that ask for it")


class ToolCall(_Model):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Revision(_Model):
    """A request that takes back or corrects an earlier one: the gold follows the latest request only.

    `revise`: the user changes their mind (another size, another date, declining and asking for
    something else); `correct`: the user corrects a fact they gave. `abandoned` holds the calls
    the earlier request would have made: they are minefields (compose adds them to `forbidden`).
    """

    segment: int = Field(description="the request (segment) that revises")
    kind: Literal["revise", "correct"]
    abandoned: list[ToolCall] = Field(default_factory=list)


class Scenario(_Model):
    """What the simulated user is and wants."""

    persona: str
    goal: str = Field(description="the user's aim in plain words, for an LLM user simulator")
    requests: list[str] = Field(description="the user's opening message for each segment of the conversation")
    facts: list[Fact] = Field(default_factory=list)
    withheld: list[str] = Field(default_factory=list, description="fact keys given only when asked")
    unknown: list[str] = Field(default_factory=list, description="labels of what the user cannot tell")
    closing: str = "Thanks, that's all I needed."
    identity: list[str] = Field(default_factory=list, description="fact keys that identify the user (asking for them is no question of the task's own)")
    lookups: list[Fact] = Field(
        default_factory=list,
        description=(
            "what the user cannot tell but a tool finds (an order id, a booking reference): value is what the gold "
            "finds, keywords the words that ask for it; the agent looks it up instead of asking"
        ),
    )
    revisions: list[Revision] = Field(default_factory=list)

    def fact(self, key: str) -> Fact | None:
        return next((f for f in self.facts if f.key == key), None)

    def revising_segments(self) -> set[int]:
        """The segments whose request revises or corrects an earlier one (their writes are the earlier request's)."""
        return {revision.segment for revision in self.revisions}


class Utterance(_Model):
    """A templated line: the intent names the template, vars fill it."""

    intent: str
    vars: dict[str, Any] = Field(default_factory=dict)


class Choice(_Model):
    """The user's words fit several records: the gold shows them, asks which one, and acts on the one named.

    The step that acts `needs` the (withheld) fact `fact`; when it is missing, the gold asks `question`
    (it names every option) and the user answers with the fact. A policy that acts before the user
    has chosen guessed: the `chosen` check fails it.
    """

    fact: str = Field(description="key of the fact the user gives when asked which (withheld)")
    label: str = Field(description="what is chosen, as the question names it: 'order' (\"which order\")")
    options: list[str] = Field(min_length=2, description="how the question names each candidate; the chosen one among them")
    question: Utterance = Field(description="the gold's question, naming every option")


class Step(_Model):
    """One step of a gold plan: one call, or several made together (parallel)."""

    calls: list[ToolCall]
    caller: Literal["agent", "user"] = "agent"
    segment: int = 0
    part: int | None = Field(
        default=None,
        description=(
            "for a request that asks several things one after another, joined by a link ('After that:'): which of "
            "them the step serves, counted from 0 (envs.structures.in_sequence); None: the whole request"
        ),
    )
    needs: list[str] = Field(default_factory=list, description="fact keys the agent must have first")
    confirm: str | None = Field(default=None, description="what the agent states before asking for a yes")
    disclose: list[str] = Field(
        default_factory=list,
        description=(
            "for a confirm step: what the question asking for a yes must state besides the action, a consequence the "
            "policy asks the agent to warn of ('7.4 GB' used, more than the smaller plan holds); a yes to less is no consent"
        ),
    )
    instruction: str | None = Field(default=None, description="for user steps: what the agent asks the user to do")
    cues: list[str] = Field(
        default_factory=list, description="for user steps: words in an agent message that ask for it (default: from the tool names)"
    )
    declined: bool = Field(
        default=False,
        description=(
            "a confirm step the user turns down: the oracle asks (confirm is set), the scripted user says no, "
            "the gold makes no call; replay skips it and its calls are forbidden actions"
        ),
    )
    derived: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "argument -> how the gold computed its value from what it had seen, as a noun phrase its reasoning says "
            "('the convert_units result rounded to the nearest 0.5 °C, the car's step'); argument provenance accepts "
            "that very value for that argument though no text shows it"
        ),
    )
    evidence: list[str] = Field(
        default_factory=list,
        description=(
            "text fragments, any of which seen earlier in a tool result or a user message shows what the step "
            "rests on: the fault a fix step fixes, the setting that calls for the step (a reading converted to "
            "an imperial driver's miles, the zone temperature a comfort step moves from), the sentence naming "
            "the page a link leads to; generation raises GeneratorBug if the gold acts before it"
        ),
    )
    choice: Choice | None = Field(default=None, description="the step acts on the record the user picks among candidates")
    because: str = Field(
        default="",
        # left out of the stored task when empty: a task without one keeps its content id
        exclude_if=lambda value: not value,
        description=(
            "for a step that comes before what was asked: the rule that asks for it, as a clause about the world "
            "('the engine starts only with the brake pressed'); the gold's reasoning says it"
        ),
    )


class Forbidden(_Model):
    """A minefield: a call (name and argument subset) or a row change that must not happen."""

    reason: str
    tool: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    table: str | None = None
    key: list[Any] | None = None


class WorldEdit(_Model):
    """A change made to the world before the episode starts (a fault, an injected note)."""

    table: str
    key: Any = None
    set: dict[str, Any] = Field(default_factory=dict)
    insert: dict[str, Any] | None = None
    plants: str = Field(default="", description="injection: the instruction the edit writes into text a tool shows")


class NoToolSpec(_Model):
    """What a no-tool task expects instead of a call."""

    reason: str
    missing: list[str] = Field(default_factory=list, description="labels the agent must ask for")
    invalid: dict[str, Any] = Field(default_factory=dict, description="parameter -> the invalid value given")
    withheld_tools: list[str] = Field(default_factory=list)
    # What the reply must say, by kind (empty: the gold reply's own values, `Task.replies[0].vars`, are used).
    scope: str = Field(default="", description="irrelevant: what the service does, which the decline states")
    action: str = Field(default="", description="unavailable: the action the reply says cannot be done")
    problem: str = Field(default="", description="invalid_value: why the value is invalid")
    rule: str = Field(default="", description="policy_refusal: the rule the refusal states")
    about: str = Field(default="", description="missing_info: whose facts are asked for ('your', 'your son's')")


class Difficulty(_Model):
    """How hard a task is, from its structure (the formula: envs/difficulty.py).

    `score` orders tasks finely (sort by it for a curriculum); `level` (1-5) bands it for a job's
    `mix.difficulty` and for filtering."""

    level: int = Field(ge=1, le=5)
    score: float
    calls: int = Field(description="gold calls, agent and user side")
    dependent_steps: int = Field(description="steps that wait on an earlier step's result")
    questions: int = Field(description="questions the agent must ask besides identity (missing values, choices)")
    candidates: int = Field(description="records to tell apart: options beyond the chosen one, over all choices")
    revisions: int = Field(description="requests that revise or correct an earlier one")
    distractors: int = Field(description="records the reads show that the task neither acts on nor reports")


class Task(_Model):
    id: str = ""
    domain: str
    domain_version: int
    world_seed: int
    world_size: str
    kind: TaskKind
    seed: int
    scenario: Scenario
    tools: list[str] = Field(description="names of the agent tools offered")
    setup: list[WorldEdit] = Field(default_factory=list)
    plan: list[Step] = Field(default_factory=list)
    replies: list[Utterance] = Field(default_factory=list, description="the agent's report closing each segment")
    required_outputs: list[str] = Field(default_factory=list)
    forbidden: list[Forbidden] = Field(default_factory=list)
    no_tool: NoToolSpec | None = None
    expected_state_hash: str = ""
    expected_writes: int = 0
    difficulty: Difficulty | None = Field(default=None, description="set when the task is proven (envs/difficulty.py)")

    def content_id(self) -> str:
        """Hash of the whole content, seed included (the seed picks the oracle's phrasings).

        The difficulty is left out: it is computed from the rest, so it adds nothing to tell tasks apart."""
        body = self.model_dump_json(exclude={"id", "difficulty"})
        return f"{self.domain}-{hashlib.sha256(body.encode()).hexdigest()[:16]}"

    def lesson_key(self) -> str:
        """What the task teaches: its kind, the user's turns (normalised) and the gold calls.

        Two tasks alike here differ only in persona or wording; a corpus needs just one of them.
        """
        turns = [" ".join(r.lower().split()) for r in self.scenario.requests]
        calls = [[c.name, c.arguments] for s in self.plan for c in s.calls]
        body = json.dumps([self.domain, self.kind, turns, calls], sort_keys=True, default=str)
        return hashlib.sha256(body.encode()).hexdigest()

    def with_id(self) -> Task:
        return self.model_copy(update={"id": self.content_id()})

    @property
    def segments(self) -> int:
        return len(self.scenario.requests)

    def gold_calls(self, caller: str = "agent") -> list[ToolCall]:
        """The calls the gold conversation makes (a declined step makes none)."""
        return [call for step in self.plan if step.caller == caller and not step.declined for call in step.calls]

    def declined_calls(self) -> list[ToolCall]:
        """Calls of steps the user turned down: a trajectory that makes them fails."""
        return [call for step in self.plan if step.declined for call in step.calls]
