"""Task generation: the context a generator works in, and proving each task by replay."""

from __future__ import annotations

import datetime as dt
import itertools
import math
import random
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolgym.errors import DomainError, GeneratorBug, UnknownNameError

from .composition import words_of
from .difficulty import difficulty_of
from .gold import check_gold, gold_chat, prove_unfinished
from .grounding import ungrounded_facts
from .phrasing import (
    REDRAW_STRIDE,
    apart,
    greeting_at,
    persona_fits,
    register_of,
    sentences_of,
    speaker_age,
    to_the_user,
    tool_purpose,
    typed_day,
    unrepeated,
)
from .replay import calls_with_outputs, replay_plan
from .rereads import repeated_reads, without_calls
from .task import NoToolSpec, Step, Task, Utterance
from .tools import is_error_output
from .user_turns import tidy_requests
from .world import World

if TYPE_CHECKING:
    from .domain import Domain
    from .phrasebook import Phrasebook

MAX_ATTEMPTS = 20  # draws per task before giving up on finding one not yet generated
_UNFINISHED = itertools.count()
APART_WORDINGS = 48  # wordings tried for a sentence said beside others (say_apart)


@dataclass
class GenContext:
    """What a task generator gets: the world to read from, a seeded RNG, phrasings."""

    domain: Domain
    world: World
    rng: random.Random
    seed: int
    kind: str
    world_seed: int
    size: str

    def say(self, intent: str, **values: Any) -> str:
        """Render the intent's variant for this task; every variant must render with `values`.

        When the phrasebook has `intent@register` variants, the task's persona (drawn once, see
        `persona`) picks its register's wording."""
        intent = self._voiced(intent, values)
        if values:
            return self._phrased(intent, values)
        return self._fresh(intent)

    def _phrased(self, intent: str, values: dict[str, Any]) -> str:
        """A phrasing of facts: the same values give the same words wherever a generator says them, and
        other values do not repeat a sentence the task has said ("Has my order #W1 shipped yet? What's
        its status?" then "... #W2 ... What's its status?" in one chat)."""
        phrases = self.domain.phrasebook
        said: dict[str, str] = self.__dict__.setdefault("_phrasings", {})
        key = f"{intent}:{sorted(values.items(), key=lambda item: item[0])!r}"
        text = said.get(key)
        if text is None:
            used: set[str] = self.__dict__.setdefault("_sentences", set())
            text = said[key] = unrepeated(lambda seed: phrases.say(intent, seed, **values), self.seed, used)
            used.update(sentences_of(text))
        return text

    def typed_day(self, day: dt.date | str) -> str:
        """A day as the user types it: 'June 8', 'June 8th', '8 June' or '2025-06-08', with its year
        when not the world's (envs/phrasing.typed_day)."""
        return typed_day(self.rng, day, self.world.now.date())

    def say_apart(self, intent: str, after: frozenset[str], /, **values: Any) -> str:
        """`say`, for a sentence that follows others in one turn: drawn again while it says a word they
        said (`after`) that its own values do not hold, so results said side by side do not each say
        "now"."""
        if not after:
            return self.say(intent, **values)
        intent, phrases = self._voiced(intent, values), self.domain.phrasebook
        own = words_of(" ".join(str(v) for v in values.values()))
        count = phrases.combinations(intent)
        # the usual draw, then every wording (a few dozen at most), else other draws
        others = (phrases.render(intent, i, **values) for i in range(count)) if count <= APART_WORDINGS else (
            phrases.say(intent, self.seed + REDRAW_STRIDE * attempt, **values) for attempt in range(1, APART_WORDINGS))
        return apart(itertools.chain([phrases.say(intent, self.seed, **values)], others), after, own)

    def say_without(self, intent: str, parts: frozenset[str], **values: Any) -> str:
        """`say` without the intent's parts of those names (see `Phrasebook.say_without`)."""
        return self.domain.phrasebook.say_without(self._voiced(intent, values), self.seed, parts, **values)

    def _voiced(self, intent: str, values: dict[str, Any]) -> str:
        """The intent in the persona's register where the phrasebook has one, its variables checked."""
        phrases = self.domain.phrasebook
        if phrases.has_registers(intent):
            intent = phrases.voiced(intent, register_of(self.persona()))
        phrases.check_variables(intent, values)
        return intent

    def _fresh(self, intent: str) -> str:
        """A lead-in or filler (an intent without values) whose sentences this task has not used yet:
        "Thanks. One more thing." is not followed by "Thanks. Something else." in the same chat."""
        phrases = self.domain.phrasebook
        used: set[str] = self.__dict__.setdefault("_sentences", set())
        text = unrepeated(lambda seed: phrases.say(intent, seed), self.seed, used)
        if self.world is not None:  # greeted for the world's hour: "Good evening" is not said at 09:30
            text = greeting_at(text, self.world.now.hour)
        used.update(sentences_of(text))
        return text

    def pick(self, items: Sequence[Any]) -> Any:
        if not items:
            raise GeneratorBug(f"{self.domain.name} {self.kind} generator: nothing to pick from")
        return items[self.rng.randrange(len(items))]

    def persona(self) -> str:
        """The task's persona, drawn once: requests said before `compose` speak in its register."""
        chosen = self.__dict__.get("_persona")
        if chosen is None:
            # drawn by the seed, not the task's rng: a second draw for another persona (see `draw`)
            # replays the generator's other choices (the same customer) unchanged
            unfit = self.__dict__.get("_unfit_registers", ())
            pool = [p for p in self.domain.phrasebook.variants("persona") if register_of(p) not in unfit]
            pool = pool or self.domain.phrasebook.variants("persona")
            chosen = self.__dict__["_persona"] = pool[zlib.crc32(f"{self.seed}:persona".encode()) % len(pool)]
        return chosen

    def task(self, **fields: Any) -> Task:
        """A Task with this context's domain, world, kind and seed filled in."""
        fields.setdefault("tools", [t.name for t in self.domain.agent_tools])
        fields.setdefault("kind", self.kind)
        return Task(
            domain=self.domain.name,
            domain_version=self.domain.version,
            world_seed=self.world_seed,
            world_size=self.size,
            seed=self.seed,
            **fields,
        )

    def derive(self, kind: str) -> Task:
        """A task of another kind drawn with this context (to build a variant of it)."""
        fields = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        derived = GenContext(**{**fields, "kind": kind})
        if "_unfit_registers" in self.__dict__:  # the persona the task may not have, the derived one neither
            derived.__dict__["_unfit_registers"] = self.__dict__["_unfit_registers"]
        return self.domain.generators[kind](derived)


def finalize(domain: Domain, task: Task) -> Task:
    """Replay the gold plan, record the end state it reaches, give the task its id, prove its gold
    conversation sound (grounded, consented, diagnosed, reported: see envs/gold.py), and rate its
    difficulty (envs/difficulty.py). A read the play made again is left out of the plan, which is
    proven again without it: always where it showed the same result, where it changed only if the
    gold still proves without it (envs/rereads.py)."""
    offered = set(task.tools)
    facts = {f.key for f in task.scenario.facts}
    for step in task.plan:
        missing = set(step.needs) - facts
        if missing:
            raise GeneratorBug(f"{domain.name} {task.kind} (seed {task.seed}): step needs unknown facts {missing}")
        for call in step.calls:
            if step.caller == "agent" and call.name not in offered:
                raise GeneratorBug(f"{domain.name} {task.kind} (seed {task.seed}): gold call {call.name!r} not offered")
    if len(task.replies) != task.segments:
        raise GeneratorBug(
            f"{domain.name} {task.kind} (seed {task.seed}): {task.segments} request(s) but {len(task.replies)} replies"
        )
    check_phrasings(domain, task)
    revising = task.scenario.revising_segments()
    requests = tidy_requests(task.scenario.requests, domain.phrasebook.fillers, revising, domain.phrasebook.revision_leads)
    task = task.model_copy(update={"scenario": task.scenario.model_copy(update={"requests": requests})})
    done = _finished_and_proven(domain, task)
    if not domain.enforce_ground_truth:
        return done
    played = gold_chat(domain, done)[0]
    unchanged = repeated_reads(domain, task, played)
    if (every := repeated_reads(domain, task, played, changed=True)) != unchanged:
        try:
            return _finished_and_proven(domain, without_calls(task, every))
        except GeneratorBug:
            pass  # a reply needs what changed: the read that showed it stays
    # proven again without them: the reads left must still ground every reply
    return _finished_and_proven(domain, without_calls(task, unchanged)) if unchanged else done


def _finished_and_proven(domain: Domain, task: Task) -> Task:
    """The task with its end state, id and difficulty, its gold chat proven where the domain asks."""
    if domain.enforce_ground_truth:
        proven = _proven(domain, task)
        if proven is not None:
            return proven
    results: list[tuple[int, str]] = []
    world = replay_plan(domain, task, results)
    try:
        done = _with_end_state(task, world, results)
    finally:
        world.close()
    if domain.enforce_ground_truth:
        check_gold(domain, done)
    return done


def _proven(domain: Domain, task: Task) -> Task | None:
    """The task finished and proven by one gold play, or None where the play is no replay of the plan.

    The play runs the plan's calls on a fresh world, as the replay would: it finds the end state and
    proves the chat. The chat reads only whether the task writes."""
    writes = any(domain.tools[c.name].writes for s in task.plan if not s.declined for c in s.calls)
    # its id only names it in the play's caches (a content hash would cost a JSON dump a task)
    unfinished = task.model_copy(update={"expected_writes": int(writes), "id": f"unfinished-{next(_UNFINISHED)}"})
    return prove_unfinished(domain, unfinished, lambda played, world, messages: _finished(task, played, world, messages))


def _with_end_state(task: Task, world: World, results: list[tuple[int, str]]) -> Task:
    """The task with the end state its gold calls reach, its id and its difficulty."""
    done = task.model_copy(update={"expected_state_hash": world.state_hash(), "expected_writes": len(world.changes)})
    return done.with_id().model_copy(update={"difficulty": difficulty_of(task, results)})  # the id leaves it out


def _finished(task: Task, unfinished: Task, world: World, messages: list[dict[str, Any]]) -> Task | None:
    """The task finished from the gold play of `unfinished`, or None when that play is not a replay
    of the plan: other calls, a call that errs (the replay names it), or writes where the chat was
    played as if there were none, or the reverse."""
    planned = [(number, step.caller, call.name, call.arguments)
               for number, step in enumerate(task.plan) if not step.declined for call in step.calls]
    played = calls_with_outputs(messages)
    if [p[1:] for p in planned] != [p[:3] for p in played]:
        return None
    outputs = [p[3] for p in played if p[3] is not None and not is_error_output(p[3])]
    if len(outputs) < len(played):
        return None
    if bool(world.changes) != bool(unfinished.expected_writes):
        return None
    return _with_end_state(task, world, [(p[0], output) for p, output in zip(planned, outputs, strict=True)])


def check_phrasings(domain: Domain, task: Task) -> None:
    """The task's replies render in every variant with their vars; an acting task's replies and
    instructions ask nothing (the scripted user reads a question mark as a request for facts)."""
    phrases = domain.phrasebook
    where = f"{domain.name} {task.kind} (seed {task.seed})"
    for index, reply in enumerate(task.replies):
        try:
            phrases.check_variables(reply.intent, reply.vars)
        except (DomainError, UnknownNameError) as exc:
            raise GeneratorBug(f"{where}: reply {index}: {exc}") from None
        if task.no_tool is None and phrases.asks(reply.intent):
            raise GeneratorBug(
                f"{where}: reply {index} ({reply.intent!r}) has a variant with a question mark; replies that "
                "close an acting segment state results and ask nothing"
            )
    for step in task.plan:
        if step.instruction and "?" in step.instruction:
            raise GeneratorBug(f"{where}: the instruction {step.instruction!r} asks a question; say what to do")


def iter_tasks(
    domain: Domain,
    n: int,
    seed: int,
    kinds: Sequence[str] | None,
    *,
    world_seed: int | None = None,
    size: str | None = None,
) -> Iterator[Task]:
    """Replay-proven distinct tasks, kinds taken in turn, one at a time (see Domain.generate_tasks)."""
    kinds = list(kinds) if kinds else domain.kinds
    for kind in kinds:
        if kind not in domain.generators:
            raise UnknownNameError(f"task kind of domain {domain.name!r}", kind, domain.kinds)
    world_seed = domain.world_seed if world_seed is None else world_seed
    size = size or domain.default_size
    template = domain.template(world_seed, size)
    world = World(template)
    seen_ids: set[str] = set()
    seen_lessons: set[str] = set()
    try:
        for index in range(n):
            kind = kinds[index % len(kinds)]
            fallback: Task | None = None
            for attempt in range(MAX_ATTEMPTS):
                task = draw(domain, world, seed, kind, index, attempt)
                if task.lesson_key() not in seen_lessons:
                    break  # a task unlike any before
                if fallback is None and task.id not in seen_ids:
                    fallback = task  # the same lesson in other words: used only if nothing new turns up
            else:
                if fallback is None:
                    raise too_few_distinct(domain, len(seen_ids), kinds, size)
                task = fallback
            seen_ids.add(task.id)
            seen_lessons.add(task.lesson_key())
            yield task
    finally:
        world.close()


def draw(domain: Domain, world: World, seed: int, kind: str, index: int, attempt: int) -> Task:
    """The `index`-th task of a stream (domain, kind, seed, world) at one attempt, proven.

    A draw depends only on these: any process holding the same world makes the same task, so
    the draws of one stream can be made apart and put in order afterwards (generators/plan.py).
    """
    task_seed = zlib.crc32(f"{domain.name}:{seed}:{kind}:{index}:{attempt}".encode())
    ctx = GenContext(domain, world, random.Random(task_seed), task_seed, kind, world.template.seed, world.template.size)
    task = domain.generators[kind](ctx)
    if not persona_fits(task.scenario.persona, speaker_age(task.scenario.facts, world.now.date())):
        # an elderly voice for a customer the world makes younger: the same task in another persona
        again = GenContext(domain, world, random.Random(task_seed), task_seed, kind, world.template.seed, world.template.size)
        again.__dict__["_unfit_registers"] = {register_of(task.scenario.persona)}
        task = domain.generators[kind](again)
    task = finalize(domain, task)
    if world.changes:
        raise DomainError(f"{domain.name} {kind} generator wrote to the world it reads from")
    return task


def too_few_distinct(domain: Domain, found: int, kinds: Sequence[str], size: str) -> GeneratorBug:
    return GeneratorBug(
        f"{domain.name}: found only {found} distinct tasks of kinds {list(kinds)} in world size "
        f"{size!r} ({MAX_ATTEMPTS} draws in a row repeated earlier ones); ask for fewer or use a bigger world"
    )


# ---- generators the engine offers every domain ----------------------------------------------


IRRELEVANT_SLOTS = ("city", "topic", "dish", "phrase", "language", "skill", "occasion")
_SLOT_USE = re.compile(r"\{\{\s*(" + "|".join(IRRELEVANT_SLOTS) + r")\b")


def slotted_fillings(phrases: Phrasebook) -> list[int]:
    """How many different requests each `irrelevant_request_slotted` template makes: the product of the
    sizes of the slot vocabularies (`slot_<name>`) it uses."""
    sizes = {name: len(phrases.variants(f"slot_{name}")) for name in IRRELEVANT_SLOTS}
    return [math.prod(sizes[name] for name in set(_SLOT_USE.findall(t))) for t in phrases.variants("irrelevant_request_slotted")]


def irrelevant_task(ctx: GenContext) -> Task:
    """A request no tool of the domain serves: the agent answers or declines without a call."""
    phrases = ctx.domain.phrasebook
    if ctx.rng.random() < 0.5:  # the domain's near misses and general requests
        request = ctx.pick(phrases.pooled("irrelevant_request"))
    else:  # a template with slots drawn from small vocabularies
        slots = {name: ctx.pick(phrases.variants(f"slot_{name}")) for name in IRRELEVANT_SLOTS}
        # each filling of each template equally likely: a template of 15 fillings drawn as often as one
        # of 2,000 ran dry in a large job, whose worlds then drew repeats (research fell 96 tasks short)
        fillings = slotted_fillings(phrases)
        index = ctx.rng.choices(range(len(fillings)), weights=fillings)[0]
        request = phrases.render("irrelevant_request_slotted", index, **slots)
    return ctx.task(
        scenario={"persona": ctx.persona(), "goal": "Ask something unrelated to this service.", "requests": [request]},
        replies=[Utterance(intent="decline_irrelevant", vars={"scope": ctx.domain.scope})],
        no_tool=NoToolSpec(reason="no tool of this service fits the request"),
    )


# Draws of a task to withhold a tool from: most banking multi-step tasks ask two things in one
# message (about 2 in 3) and go, so 20 draws in a row could all be joined (a job of 4,200 tasks
# stopped on one); at 80, with one draw in three usable, a miss is about one in 10^13.
UNAVAILABLE_ATTEMPTS = 4 * MAX_ATTEMPTS


def unavailable_task_from(kind: str):
    """A generator that withholds the tool a `kind` task needs first: the agent must say so."""

    def generate(ctx: GenContext) -> Task:
        for _ in range(UNAVAILABLE_ATTEMPTS):  # some tasks of `kind` only read, only fix, or ask two things: draw again
            base = ctx.derive(kind)
            needed = next(
                (c.name for s in base.plan if withholdable(s) for c in s.calls if ctx.domain.tool(c.name).writes), None
            ) if asks_one_thing(base) else None
            if needed is not None:
                break
        else:
            raise GeneratorBug(
                f"{ctx.domain.name}: {UNAVAILABLE_ATTEMPTS} {kind} tasks in a row had no write call that their first request "
                "asks for, or asked two things in it"
            )
        step = next((s for s in base.plan if any(c.name == needed for c in s.calls) and s.confirm), None)
        action = step.confirm if step else None
        opening = [{"role": "user", "content": base.scenario.requests[0]}]
        said = opening[0]["content"]
        if (
            step is None
            or action is None
            or ungrounded_facts([*opening, {"role": "assistant", "content": action}])
            or _unsaid_figures(action, said)
            or _unsaid_values(action, said, [c for c in step.calls if c.name == needed], ctx.domain.tool(needed).choices)
        ):
            # the confirm text names facts the user has not given yet ("seat 2E", the event's time,
            # a colleague's address, found by reads this task never makes): say what the tool does instead
            action = to_the_user(tool_purpose(ctx.domain, needed, whole=True)) or needed.replace("_", " ")
        return ctx.task(
            # one request, asked of a service that cannot act: nothing to look up, nothing revised
            scenario=base.scenario.model_copy(update={"requests": base.scenario.requests[:1], "lookups": [], "revisions": []}),
            tools=[t for t in base.tools if t != needed],
            replies=[Utterance(intent="decline_unavailable", vars={"action": action})],
            no_tool=NoToolSpec(reason=f"the tool {needed!r} is not available", withheld_tools=[needed]),
        )

    return generate


_FIGURE_WORD = re.compile(r"[\w$#:.,/-]*\d[\w$#:.,/-]*")


def _unsaid_figures(text: str, said: str) -> list[str]:
    """The words with a digit in `text` that `said` does not hold ("2E" from "seat 2E", which grounding
    reads as no fact, when the user asked only to "pick a seat")."""
    lowered = said.lower()
    return [word for found in _FIGURE_WORD.findall(text) if (word := found.strip(".,:;/-")) and word.lower() not in lowered]


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def _unsaid_values(text: str, said: str, calls: Sequence[Any], listed: frozenset[str]) -> list[str]:
    """The values in `text` the user did not say that only a read shows: an email address, or a word
    argument of `calls` ("kim.ortiz@brightwell.example" from the lookup the base task made first).
    A value the tool's schema `listed` ('all' doors) is one of its choices, not something read."""
    lowered = said.lower()
    values = {v for c in calls for v in c.arguments.values() if isinstance(v, str) and len(v) > 2 and v not in listed}
    found = [v for v in values if re.search(rf"(?<!\w){re.escape(v)}(?!\w)", text, re.IGNORECASE)]
    return list(dict.fromkeys(v for v in [*found, *_EMAIL.findall(text)] if v.lower() not in lowered))


def asks_one_thing(task: Task) -> bool:
    """Whether the task's first request asks one thing. A decline of one tool would leave the other
    ask of a joined request ("Dispute the Lyft charge. Then one more: add up my charges ...") unanswered."""
    from .structures import JOINED_REPLY

    return not task.replies or task.replies[0].intent != JOINED_REPLY


def withholdable(step: Step) -> bool:
    """Whether an unavailable task may withhold the tool of this step: the agent's, answering the
    first request (the only one its chat keeps; a piece's steps are segment 0 until assembled), and
    no fix (a step with `evidence` answers a fault the agent has to find first: without that search,
    "I can't take a bill payment" answers nothing the user said, "my phone has no service")."""
    return step.caller == "agent" and step.segment == 0 and not step.evidence
