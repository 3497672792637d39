import atexit
import os
import random
import shutil
import subprocess
import tempfile

import pytest

import toolgym
from toolgym.envs import registry

# Hermetic: worlds the tests build are kept on disk for this run only, never in the user's cache
# (a test of the cache itself points it elsewhere).
if "TOOLGYM_WORLD_CACHE" not in os.environ:
    _test_worlds = tempfile.mkdtemp(prefix="toolgym-test-worlds-")
    os.environ["TOOLGYM_WORLD_CACHE"] = _test_worlds
    atexit.register(shutil.rmtree, _test_worlds, ignore_errors=True)


@pytest.fixture(scope="session")
def toy_domain():
    """The tests' tiny domain, registered for the session (it is not a built-in)."""
    from tests.toy import DOMAIN

    registry.add(DOMAIN)
    return DOMAIN


@pytest.fixture(scope="session")
def book():
    """The engine's own phrasebook (no domain's wordings on top)."""
    from toolgym.envs.phrasebook import ENGINE_UTTERANCES, Phrasebook

    return Phrasebook(ENGINE_UTTERANCES)


def rescan_domains(monkeypatch) -> None:
    """Find domains again, as a new process would; the registry's state is restored after the test."""
    monkeypatch.setattr(registry, "_found", None)
    monkeypatch.setattr(registry, "_broken", {})
    monkeypatch.setattr(registry, "_warned", set())


def builtin_domains() -> list[str]:
    """The domains shipped in `domains/`: not the tests' toy, nor a domain another test in this
    process installed or added (a pytest worker runs many tests)."""
    shipped = {name for name, entry in registry.found().items() if entry.origin.startswith("toolgym.domains.")}
    return [name for name in toolgym.list_domains() if name in shipped]


HEAVY_SAMPLE = 2  # the heavy suites cost what two domains cost, however many domains there are
FUZZ_SAMPLE = 1  # the hostile-action fuzz (~110 s of CPU a domain) runs on the front of that sample: one domain a commit


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def heavy_domains(count: int = HEAVY_SAMPLE) -> list[str]:
    """The built-in domains the heavy suites run on (conformance at 200 tasks per kind, the 1,000-task
    ground truth; the 100,000-action fuzz on the first `count` of them): all of them up to `count`;
    beyond that, a sample drawn by TOOLGYM_TEST_SEED (default: the commit under test, so a re-run of a
    commit draws the same sample and successive commits cover every domain). TOOLGYM_HEAVY_DOMAINS
    names them instead ("all": every one)."""
    names = builtin_domains()
    chosen = os.environ.get("TOOLGYM_HEAVY_DOMAINS", "").strip()
    if chosen == "all":
        return names
    if chosen:
        wanted = [n.strip() for n in chosen.split(",") if n.strip()]
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            raise pytest.UsageError(f"TOOLGYM_HEAVY_DOMAINS names unknown domain(s) {unknown}; known: {names}")
        return wanted
    if len(names) <= count:
        return names
    seed = os.environ.get("TOOLGYM_TEST_SEED") or _commit() or "0"
    # one draw for every count: a smaller sample is the front of the larger one
    return sorted(random.Random(seed).sample(names, HEAVY_SAMPLE)[:count])


def pytest_report_header(config):
    return (f"heavy suites on domains: {', '.join(heavy_domains())}; the fuzz on {', '.join(heavy_domains(FUZZ_SAMPLE))} "
            "(TOOLGYM_HEAVY_DOMAINS=all for every one)")


def agent_call(domain, world, name: str, **arguments):
    """One call of an agent tool in `world`, as an episode makes it: (error, the result's JSON)."""
    import json

    from toolgym.envs.replay import run_call

    outcome = run_call(domain, world, [t.name for t in domain.agent_tools], name, arguments)
    return outcome.error, (json.loads(outcome.content) if outcome.error is None else None)


def small_world_index(name: str):
    """A built-in domain's task index (`tasks/index.py: index_of`) over its small world 0."""
    import importlib

    from toolgym.envs import World

    index_of = importlib.import_module(f"toolgym.domains.{name}.tasks.index").index_of
    domain = toolgym.load_domain(name)
    world = World(domain.template(0, "small"))
    try:
        return index_of(world)
    finally:
        world.close()


def pytest_collection_modifyitems(items):
    """Under pytest-xdist (`-n auto --dist loadgroup`), every Ray test runs on one worker, one at a time:
    two local Ray clusters on a small machine would starve each other."""
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(pytest.mark.xdist_group("ray"))


def played_with_reasoning(domain, tasks):
    """Each task played by the oracle teacher with reasoning and the scripted user: (task, trajectory)."""
    from toolgym.envs.gold import _env
    from toolgym.generators.oracle import OracleTeacher
    from toolgym.generators.user import ScriptedUser

    env = _env(domain)
    env.user = ScriptedUser()
    teacher = OracleTeacher(reasoning=True)
    for task in tasks:
        _, info = env.reset(options={"task": task})
        done = env.verification is not None
        while not done:
            _, _, terminated, truncated, _ = env.step(teacher.act_sync(env.messages, info["tools"], task))
            done = terminated or truncated
        yield task, env.trajectory()


def choice_exchanges(domain, tasks, label: str):
    """Per task whose gold asks which `label` the user means ("Which flight do you mean?"): the gold
    chat's question naming every candidate, and the user's answer to it (question, answer)."""
    from toolgym.envs.gold import gold_messages

    for task in tasks:
        choice = next((s.choice for s in task.plan if s.choice is not None and s.choice.label == label), None)
        if choice is None:
            continue
        chat = gold_messages(domain, task)[0]
        at = next(i for i, m in enumerate(chat) if m["role"] == "assistant" and all(o in (m.get("content") or "") for o in choice.options))
        yield chat[at]["content"], next(m["content"] for m in chat[at:] if m["role"] == "user")


def days_the_user_typed(domain, tasks) -> list[str]:
    """The words in which users named the days the gold's calls take ('June 8', '8 June', '2025-06-08'
    for run_on='2025-06-08'), from every gold chat whose calls take one; each chat's calls are
    asserted grounded, so the verifier read every one of those words as its day."""
    import re

    from toolgym.envs.gold import gold_messages
    from toolgym.envs.grounding import extract_facts

    iso = re.compile(r"\d{4}-\d\d-\d\d")
    typed: list[str] = []
    for task in tasks:
        days = {str(v) for c in task.gold_calls() for v in c.arguments.values() if iso.fullmatch(str(v))}
        if not days:
            continue
        chat, verification = gold_messages(domain, task)
        said = [f for m in chat if m["role"] == "user" and m.get("content") for f in extract_facts(m["content"]) if f.kind == "date"]
        assert verification.components["arguments_grounded"] == 1.0, verification.details
        typed += [f.text for day in days for f in said if f.value in (day, day[5:])]  # a yearless day is this year's
    return typed
