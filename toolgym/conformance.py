"""The conformance suite of one domain: named checks shared by `toolgym check` and the tests.

Each check takes the domain and the options and yields `Finding`s: one per kind where the check
is about kinds, else one for the domain. A finding lists its failures (empty: passed) or says
why the check was skipped. `run` runs the checks and `report` prints them; the pytest suite
(tests/test_conformance.py) parametrizes over `CHECKS`, so both run the same code.

`spoil` and `grounding` run the ground-truth functions (`verifiers.spoil.spoil_failures`,
`envs.grounding.ungrounded_facts`) over generated tasks of every kind.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolgym.envs import ALL_KINDS, Domain, Task
from toolgym.envs.caches import Bounded
from toolgym.errors import ToolgymError

MAX_FAILURES_SHOWN = 5


@dataclass(frozen=True)
class Options:
    tasks_per_kind: int = 200  # oracle replay in the default size; the other sizes get a quarter
    kinds: tuple[str, ...] | None = None  # None: every kind of the domain
    random_steps: int = 10_000
    seed: int = 7
    spoil_tasks_per_kind: int | None = None  # None: a tenth of tasks_per_kind, at least 5


@dataclass
class Finding:
    check: str
    kind: str | None = None  # None: about the whole domain
    checked: int = 0  # how many things were checked (tasks, tools, steps)
    failures: list[str] = field(default_factory=list)
    skipped: str | None = None

    @property
    def passed(self) -> bool:
        return self.skipped is None and not self.failures


Check = Callable[[Domain, Options], Iterator[Finding]]
CHECKS: dict[str, Check] = {}


def check(name: str) -> Callable[[Check], Check]:
    def register(fn: Check) -> Check:
        CHECKS[name] = fn
        return fn

    return register


def _kinds(domain: Domain, options: Options) -> list[str]:
    return [k for k in domain.kinds if options.kinds is None or k in options.kinds]


# The checks draw the same tasks (the options' seed) and several play them (gold, grounding and
# language read the oracle's chat): what one check generated or played, the next one reuses.
# Keys carry the domain object's id, and an entry is used only for that very object.
_generated: Bounded[tuple[int, int, str, str], tuple[Domain, list[Task]]] = Bounded(lambda: 64)
_played: Bounded[tuple[int, str], tuple[Domain, Any]] = Bounded(lambda: 4096)


def _rollout(domain: Domain, task: Task):
    """The oracle teacher and the scripted user play the task through the public API (remembered)."""
    import toolgym

    found = _played.get((id(domain), task.id))
    if found is not None and found[0] is domain:
        return found[1]
    env = toolgym.make(domain.name, world_size=task.world_size)
    trajectory = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
    _played[(id(domain), task.id)] = (domain, trajectory)
    return trajectory


def _generate(domain: Domain, finding: Finding, n: int, options: Options, kind: str, size: str) -> list[Task]:
    """Tasks of one kind (remembered), or none with the generator's error recorded."""
    key = (id(domain), options.seed, kind, size)
    found = _generated.get(key)
    if found is not None and found[0] is domain and len(found[1]) >= n:
        return found[1][:n]  # the first n of a longer draw are the n tasks asked for (tasks stream in order)
    try:
        tasks = domain.generate_tasks(n, seed=options.seed, kinds=[kind], size=size)
    except ToolgymError as exc:
        finding.failures.append(f"generating {kind} in world size {size!r}: {exc}")
        return []
    if found is None or found[0] is not domain or len(found[1]) < len(tasks):
        _generated[key] = (domain, tasks)
    return list(tasks)


# ---- the checks -----------------------------------------------------------------------------


@check("schemas")
def schemas(domain: Domain, options: Options) -> Iterator[Finding]:
    """Every tool has a description, every parameter one too, and the schema is JSON."""
    finding = Finding("schemas", checked=len(domain.tools))
    if not domain.tools:
        finding.failures.append("the domain has no tools")
    for tool in domain.tools.values():
        function = tool.schema["function"]
        if not function.get("description"):
            finding.failures.append(f"{tool.name}: no description")
        for param, spec in function["parameters"]["properties"].items():
            if not spec.get("description"):
                finding.failures.append(f"{tool.name}.{param}: no description")
        try:
            json.dumps(tool.schema)
        except TypeError as exc:
            finding.failures.append(f"{tool.name}: schema is not JSON ({exc})")
    yield finding


@check("authorization")
def authorization(domain: Domain, options: Options) -> Iterator[Finding]:
    """Every write's records are known, and so is how the user is identified (see envs/authz.py)."""
    spec = domain.authz
    # every tool is examined (a read-only domain has no write records, and that is a pass, not nothing checked)
    finding = Finding("authorization", checked=max(len(spec.records), len(domain.tools)))
    for where in spec.unresolved:
        finding.failures.append(
            f"{where}: the argument looks like a record id but names no table; declare "
            "@tool(writes=True, acts_on=Record(arg, table)) (or acts_on=() if it names no owned record)"
        )
    if any(spec.records.values()) and not spec.identifiers and spec.signed_in is None:
        finding.failures.append(
            "writes act on owned records but nothing says who the user is: mark the tool that identifies "
            "them @tool(identifies='<result field>'), or pass Domain(acting_user=ActingUser(signed_in=...))"
        )
    yield finding


@check("kinds")
def kinds(domain: Domain, options: Options) -> Iterator[Finding]:
    """A generator for every kind, and every declared size builds."""
    finding = Finding("kinds", checked=len(ALL_KINDS))
    missing = [k for k in ALL_KINDS if k not in domain.generators]
    if missing:
        finding.failures.append(f"no generator for {missing}")
    for size in domain.sizes:
        try:
            domain.template(size=size)
        except ToolgymError as exc:
            finding.failures.append(f"world size {size!r} does not build: {exc}")
    yield finding


@check("check_env")
def check_env(domain: Domain, options: Options) -> Iterator[Finding]:
    """gymnasium's env checker passes on the registered id, in the smallest world."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env as gym_check

    from toolgym.envs.registration import register_all

    finding = Finding("check_env", checked=1)
    register_all()  # a domain found after import (an entry point installed since) gets its id now
    env = gymnasium.make(domain.env_id, world_size=domain.sizes[0])
    try:
        gym_check(env.unwrapped)
    except Exception as exc:  # noqa: BLE001 - any failure of the checker is a finding
        finding.failures.append(f"{type(exc).__name__}: {exc}")
    finally:
        env.close()
    yield finding


@check("determinism")
def determinism(domain: Domain, options: Options) -> Iterator[Finding]:
    """The same seeds give the same tasks and the same first observation."""
    import toolgym

    finding = Finding("determinism", checked=3)
    size = domain.sizes[0]
    task = domain.generate_tasks(1, seed=3, size=size)[0]
    first = toolgym.make(domain.name).reset(seed=5, options={"task": task})
    if first != toolgym.make(domain.name).reset(seed=5, options={"task": task}):
        finding.failures.append("reset with the same task and seed gave different observations")
    if toolgym.make(domain.name).reset(seed=9) != toolgym.make(domain.name).reset(seed=9):
        finding.failures.append("reset with the same seed gave different observations")
    ids = [t.id for t in domain.generate_tasks(30, seed=11)]
    if ids != [t.id for t in domain.generate_tasks(30, seed=11)]:
        finding.failures.append("generate_tasks with the same seed gave different tasks")
    for size in domain.sizes:
        finding.checked += 1
        finding.failures += _wall_clock_dependence(domain, size)
    yield finding


# Far enough from today that a birthday, an age, a "days ago" or an hour of the day all move.
_ANOTHER_DAY = 400.3


def _wall_clock_dependence(domain: Domain, size: str) -> list[str]:
    """A world is the same whatever the date and time it is built at: its "now" is the world's clock."""
    from datetime import UTC, datetime, timedelta

    import time_machine

    seed = domain.world_seed
    today = domain.build_template(seed, size)
    with time_machine.travel(datetime.now(UTC) + timedelta(days=_ANOTHER_DAY), tick=False):
        later = domain.build_template(seed, size)
    if today.state_hash == later.state_hash:
        return []
    return [f"world {seed} ({size}) built {_ANOTHER_DAY:g} days later holds other rows: it reads the wall clock "
            "(datetime.now, date.today, time.time, or Faker's date_of_birth/date_between/past_date, which count "
            "from today); derive dates from the world's clock (`clock` of the Domain) instead"]


@check("gold")
def gold(domain: Domain, options: Options) -> Iterator[Finding]:
    """Every kind, in every size: distinct tasks whose gold conversation scores 1.0 and passes."""
    for kind in _kinds(domain, options):
        finding = Finding("gold", kind)
        for size in domain.sizes:
            n = options.tasks_per_kind if size == domain.default_size else max(1, options.tasks_per_kind // 4)
            tasks = _generate(domain, finding, n, options, kind, size)
            if len({t.id for t in tasks}) != len(tasks):
                finding.failures.append(f"duplicate tasks in world size {size!r}")
            for task in tasks:
                finding.checked += 1
                score = _rollout(domain, task).verification
                if not (score.value == 1.0 and score.passed):
                    finding.failures.append(f"{task.id} ({size}): gold scored {score.value:.3f}: {score.to_dict()}")
        yield finding


@check("augment")
def augment(domain: Domain, options: Options) -> Iterator[Finding]:
    """augment.yaml keeps each description's facts and tool names; on masked or abbreviated names with
    distractors the gold scores 1.0, and the env plays exactly the gold chat mapped through the transform."""
    import toolgym
    from toolgym.envs.augment import AugmentConfig
    from toolgym.envs.augment.variants import variant_problems

    data = Finding("augment", checked=len(domain.agent_tools))
    data.failures += variant_problems(domain)
    yield data
    config = AugmentConfig(untouched=0.0, names={"masked": 1.0, "abbreviated": 1.0}, distractors={"share": 1.0})
    for kind in _kinds(domain, options):
        finding = Finding("augment", kind)
        for task in _generate(domain, finding, min(2, options.tasks_per_kind), options, kind, domain.default_size):
            finding.checked += 1
            env = toolgym.ToolEnv(domain, world_size=task.world_size, augment=config)
            played = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
            score = played.verification
            if not (score.value == 1.0 and score.passed):
                finding.failures.append(f"{task.id} ({env.transform.convention}): gold scored {score.value:.3f}: {score.to_dict()}")
            elif played.messages != env.transform.augment_messages(_rollout(domain, task).messages):
                finding.failures.append(f"{task.id}: the augmented chat is not the gold chat mapped through its transform")
            env.close()
        yield finding


@check("wrong")
def wrong(domain: Domain, options: Options) -> Iterator[Finding]:
    """Empty trajectories, a dropped write, and a changed argument all score below 1.0."""
    from toolgym.verifiers import verify

    n = max(6, options.tasks_per_kind // 10)
    for kind in _kinds(domain, options):
        finding = Finding("wrong", kind)
        for task in _generate(domain, finding, n, options, kind, domain.default_size):
            messages = _rollout(domain, task).messages
            for name, spoiled in _wrong_variants(domain, messages):
                finding.checked += 1
                if verify(task, spoiled).value >= 1.0:
                    finding.failures.append(f"{task.id}: {name} scored 1.0")
        yield finding


def _wrong_variants(domain: Domain, messages: list[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    yield "the empty trajectory (prompt only)", messages[:2]
    writes = [
        (i, j)
        for i, m in enumerate(messages)
        for j, c in enumerate(m.get("tool_calls") or [])
        if domain.tool(c["function"]["name"]).writes
    ]
    if writes:
        i, j = writes[-1]
        dropped = copy.deepcopy(messages)
        del dropped[i]["tool_calls"][j]
        yield "the trajectory without its last write", dropped
    for i, m in enumerate(messages):
        calls = m.get("tool_calls") or []
        arguments = calls[0]["function"]["arguments"] if calls else {}
        key = next((k for k, v in arguments.items() if isinstance(v, str | int | float) and not isinstance(v, bool)), None)
        if key is not None:
            changed = copy.deepcopy(messages)
            value = changed[i]["tool_calls"][0]["function"]["arguments"][key]
            changed[i]["tool_calls"][0]["function"]["arguments"][key] = (
                value + 1 if isinstance(value, int | float) else f"{value}-wrong"
            )
            yield f"a wrong {key!r} in message {i}", changed
            return


@check("random_actions")
def random_actions(domain: Domain, options: Options) -> Iterator[Finding]:
    """Random (valid and invalid) actions never raise, and rewards stay in [0, 1]."""
    import toolgym

    finding = Finding("random_actions", checked=options.random_steps)
    env = toolgym.make(domain.name, world_size=domain.sizes[0], max_turns=50)
    env.action_space.seed(0)
    env.reset(seed=0)
    try:
        for step in range(options.random_steps):
            _, reward, terminated, truncated, info = env.step(env.action_space.sample())
            if not 0.0 <= reward <= 1.0:
                finding.failures.append(f"step {step}: reward {reward} outside [0, 1]")
            if terminated or truncated:
                if "verification" not in info:
                    finding.failures.append(f"step {step}: an ended episode has no info['verification']")
                env.reset()
    except Exception as exc:  # noqa: BLE001 - a raise is the failure this check looks for
        finding.failures.append(f"step {step}: {type(exc).__name__}: {exc}")
    yield finding


@check("phrasings")
def phrasings(domain: Domain, options: Options) -> Iterator[Finding]:
    """Every reply of generated tasks renders in every variant, and states its required outputs."""
    from toolgym.envs.generation import check_phrasings
    from toolgym.verifiers.matching import output_stated

    for kind in _kinds(domain, options):
        finding = Finding("phrasings", kind)
        for task in _generate(domain, finding, max(5, options.tasks_per_kind // 10), options, kind, domain.default_size):
            finding.checked += 1
            try:
                check_phrasings(domain, task)
            except ToolgymError as exc:
                finding.failures.append(str(exc))
                continue
            if task.no_tool is not None:
                continue
            book = domain.phrasebook
            renders = [
                [book.render(r.intent, i, **r.vars) for i in range(len(book.variants(r.intent)))] for r in task.replies
            ]
            for output in task.required_outputs:
                # whatever variant the oracle draws, some reply states the output (as the verifier reads it: in any
                # case, a date or a month in any format)
                if not any(all(output_stated(output, text) for text in texts) for texts in renders):
                    finding.failures.append(f"{task.id}: not every variant of its replies states the required output {output!r}")
        yield finding


# Tasks per kind the coverage check draws at least: a tool a generator uses in one task of a
# hundred is still taught, and a smaller draw would call it unused by chance.
COVERAGE_TASKS = 100


@check("coverage")
def coverage(domain: Domain, options: Options) -> Iterator[Finding]:
    """Every tool of the domain, agent and user side, is called by the gold plan of some generated task
    (of at least COVERAGE_TASKS per kind). A tool no generator uses is one no model learns from this
    domain's data."""
    finding = Finding("coverage", checked=len(domain.tools))
    if options.kinds is not None:
        finding.skipped = "needs every kind's tasks (run without --kinds)"
        yield finding
        return
    used: set[str] = set()
    count = max(options.tasks_per_kind, COVERAGE_TASKS)
    for kind in domain.kinds:
        for task in _generate(domain, finding, count, options, kind, domain.default_size):
            used.update(c.name for s in task.plan if not s.declined for c in s.calls)
    unused = sorted(set(domain.tools) - used)
    if unused:
        finding.failures.append(
            f"{len(unused)} tool(s) called by no gold plan in {count} tasks per kind: {', '.join(unused)}; "
            "add a generator that uses each (or remove the tool)"
        )
    yield finding


# ---- ground truth (#8) -----------------------------------------------------------------------


def _per_kind(
    name: str, domain: Domain, options: Options, n: int, judge: Callable[[list[Task]], list[str]]
) -> Iterator[Finding]:
    """One finding per kind: `judge` gets n generated tasks and returns their failures."""
    for kind in _kinds(domain, options):
        finding = Finding(name, kind)
        tasks = _generate(domain, finding, n, options, kind, domain.default_size)
        finding.checked = len(tasks)
        finding.failures += judge(tasks)
        yield finding


@check("spoil")
def spoil(domain: Domain, options: Options) -> Iterator[Finding]:
    """Cheap and spoiled answers (lazy 'OK.', claimed success, a write without consent, ...) never score 1.0."""
    from toolgym.verifiers.spoil import spoil_failures

    n = options.spoil_tasks_per_kind or max(5, options.tasks_per_kind // 10)
    yield from _per_kind("spoil", domain, options, n, lambda tasks: list(spoil_failures(domain.name, tasks)))


@check("grounding")
def grounding(domain: Domain, options: Options) -> Iterator[Finding]:
    """Every fact a gold assistant turn states was seen before in the conversation."""
    from toolgym.envs.grounding import ungrounded_facts

    def judge(tasks: list[Task]) -> list[str]:
        found = ((task, ungrounded_facts(_rollout(domain, task).messages)) for task in tasks)
        return [f"{task.id}: ungrounded {facts}" for task, facts in found if facts]

    yield from _per_kind("grounding", domain, options, options.tasks_per_kind, judge)


# ---- language (#9) ----------------------------------------------------------------------------

MIN_DISTINCT_OPENINGS = 0.8  # share of an acting kind's rows whose normalized opening is their own


@check("language")
def language(domain: Domain, options: Options) -> Iterator[Finding]:
    """Gold chats (with their reasoning and closing line) have no grammar slip and no incoherence of
    the known classes, and acting kinds open in varied words.

    The corpus-wide figures (stock sentences, repeated turns, trace wordings) need a corpus: `toolgym inspect`."""
    from toolgym.generators.inspection import grammar_findings
    from toolgym.generators.inspection.coherence import Knowledge, coherence_findings
    from toolgym.generators.inspection.metrics import openings

    for kind in _kinds(domain, options):
        finding = Finding("language", kind)
        tasks = _generate(domain, finding, max(20, options.tasks_per_kind // 2), options, kind, domain.default_size)
        finding.checked = len(tasks)
        rows = [_gold_row(domain, task) for task in tasks]  # each row's task_id names its task
        know = Knowledge(
            writes=lambda _, tool: tool in domain.tools and domain.tools[tool].writes,
            handoff=lambda _: bool(domain.refusal_handoff),
            task={task.id: task for task in tasks}.get,
        )
        finding.failures += [
            f"{name} in {tally.turns} turn(s), e.g. {tally.examples[0]!r}"
            for name, tally in grammar_findings(rows, examples=1).items()
            if tally.turns
        ]
        finding.failures += [
            f"{name} in {tally.rows} chat(s), e.g. {tally.examples[0]!r}"
            for name, tally in coherence_findings(rows, know, examples=1).items()
            if tally.rows
        ]
        if not kind.startswith("no_tool/") and len(tasks) >= 20:
            for figures in openings(rows).values():
                if figures.distinct_share < MIN_DISTINCT_OPENINGS:
                    finding.failures.append(
                        f"only {figures.distinct} of {figures.rows} openings are distinct "
                        f"(at least {MIN_DISTINCT_OPENINGS:.0%} wanted)"
                    )
        yield finding


def _gold_row(domain: Domain, task: Task) -> dict[str, Any]:
    """The gold chat as a corpus row: the oracle's reasoning on every assistant turn, the closing line."""
    from toolgym.generators.reasoning import with_reasoning
    from toolgym.generators.rows import with_closer

    messages = with_closer(task, with_reasoning(task, _rollout(domain, task).messages))
    return {"domain": domain.name, "kind": task.kind, "task_id": task.id, "messages": messages}


# ---- running and reporting ------------------------------------------------------------------


def run(domain: Domain | str, options: Options | None = None, only: Sequence[str] | None = None) -> list[Finding]:
    """Run the named checks (default: all) on one domain."""
    import toolgym

    domain = toolgym.load_domain(domain) if isinstance(domain, str) else domain
    options = options or Options()
    names = list(only) if only else list(CHECKS)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        from toolgym.errors import UnknownNameError

        raise UnknownNameError("conformance check", unknown[0], CHECKS)
    findings: list[Finding] = []
    for name in names:
        try:
            findings += list(CHECKS[name](domain, options))
        except Exception as exc:  # noqa: BLE001 - a check that crashes is a failure to report, not a traceback
            findings.append(Finding(name, failures=[f"the check raised {type(exc).__name__}: {exc}"]))
    return findings


def report(domain_name: str, findings: Sequence[Finding], write: Callable[[str], Any] = print) -> bool:
    """Print one line per check (and per kind), the first failures under it; True if all passed."""
    write(f"toolgym check {domain_name}")
    for finding in findings:
        where = f"{finding.check}" + (f" [{finding.kind}]" if finding.kind else "")
        if finding.skipped:
            status = f"SKIP  ({finding.skipped})"
        elif finding.failures:
            status = f"FAIL  {len(finding.failures)} failure(s) in {finding.checked} checked"
        else:
            status = f"ok    {finding.checked} checked"
        write(f"  {where:42s} {status}")
        for failure in finding.failures[:MAX_FAILURES_SHOWN]:
            write(f"      - {failure}")
        if len(finding.failures) > MAX_FAILURES_SHOWN:
            write(f"      ... and {len(finding.failures) - MAX_FAILURES_SHOWN} more")
    failed = [f for f in findings if f.failures]
    skipped = [f for f in findings if f.skipped]
    write(
        f"{'FAILED' if failed else 'PASSED'}: {len(findings) - len(failed) - len(skipped)} passed, "
        f"{len(failed)} failed, {len(skipped)} skipped"
    )
    return not failed
