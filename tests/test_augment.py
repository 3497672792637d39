"""Tool-set augmentation: rows on renamed tools, written descriptions and distractors, judged on the real tools.

One small six-domain job with the default augmentation is shared by the job-level tests; the
others play a few tasks per domain on chosen transforms. The figures of the issue (no name in
more than 30% of the rows offering its tool, distractors in 20% of rows) are measured on a
larger corpus by benchmarks/augment.py.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

import toolgym
from tests.conftest import builtin_domains
from toolgym.config import load_config
from toolgym.envs.augment import UNOFFERED, AugmentConfig, ToolTransform, draw_transform
from toolgym.envs.gold import gold_messages
from toolgym.errors import ConfigError
from toolgym.generators.inspection.figures import inspect_dir
from toolgym.generators.job import run_job
from toolgym.generators.reading import load_split
from toolgym.integrations.trl import environment_classes
from toolgym.verifiers.augment_spoils import AUGMENT_SPOILS, with_call
from toolgym.verifiers.conduct import failed_calls

ROOT = Path(__file__).resolve().parent.parent
MASKED = AugmentConfig(untouched=0.0, names={"masked": 1.0}, distractors={"share": 1.0, "min": 2, "max": 3})
KINDS = ("multi_step", "parallel", "no_tool/unavailable", "no_tool/irrelevant")
JOB = pytest.mark.xdist_group("augmented_job")  # the tests sharing the job run on one worker: it runs once


@pytest.fixture(scope="module")
def augmented_job(tmp_path_factory):
    """configs/augment.yaml at a small size: every built-in domain, default augmentation."""
    out = tmp_path_factory.mktemp("augment") / "job"
    config = load_config(ROOT / "configs" / "augment.yaml",
                         [f"output.dir={out}", "mix.tasks_per_domain=20", f"domains={json.dumps(builtin_domains())}"])
    result = run_job(config, progress=False)
    assert result["ok"], result
    rl = load_split(out, "rl_tasks")
    chats = [r for split in ("sft", "no_tool") for r in load_split(out, split)]
    return out, chats, rl


def _tasks_by_id(rl):
    return {r["id"].removesuffix("-rl"): r["task"] for r in rl if r["item_type"] == "episode"}


@JOB
def test_every_row_of_an_augmented_six_domain_job_replays_and_verifies(augmented_job):
    out, chats, rl = augmented_job
    tasks = _tasks_by_id(rl)
    assert {r["domain"] for r in chats} == set(builtin_domains()) and len(chats) >= 100
    conventions = set()
    for row in chats:
        transform = ToolTransform.from_dict(row["augment"])
        task = toolgym.Task.model_validate(tasks[row["task_id"]])
        score = toolgym.verify(task, row["messages"], augment=row["augment"])
        assert score.passed and score.value == 1.0, (row["id"], score.to_dict())
        real = toolgym.load_domain(task.domain).schemas(task.tools)
        assert row["tools"] == transform.apply(real)  # the row lists what its transform offers
        conventions.add("untouched" if transform.untouched else transform.convention)
    assert {"untouched", "snake", "camel", "verb_first", "object_first", "abbreviated", "masked"} <= conventions
    # an RL item rebuilds the same tool set and names its augmented environment
    episode = next(r for r in rl if r["item_type"] == "episode" and not r["augment"]["untouched"])
    assert "+aug-" in episode["environment"]
    env = toolgym.make(episode["domain"])
    _, info = env.reset(options={"task": episode["task"], "augment": episode["augment"]})
    assert info["tools"] == episode["tools"] and info["augment"]["id"] == episode["augment"]["id"]


@JOB
def test_inspect_reports_the_transforms_and_the_variety_of_names(augmented_job):
    out, chats, _ = augmented_job
    figures = inspect_dir(out).augment
    assert figures.active and figures.rows == len(chats)
    assert 0 < figures.untouched < figures.rows
    assert set(figures.conventions) >= {"snake", "camel", "masked"}
    assert figures.with_distractors > 0 and figures.paraphrased > 0
    assert figures.distinct_names > 3 * figures.real_tools
    from toolgym.generators.inspection.report import summary_lines

    assert any(line.startswith("tool-set augmentation:") for line in summary_lines(inspect_dir(out)))


@pytest.mark.parametrize("domain_name", builtin_domains())
def test_masked_names_score_full_with_the_gold_mapped_and_nothing_real_shows(domain_name):
    domain = toolgym.load_domain(domain_name)
    env = toolgym.ToolEnv(domain, augment=MASKED)
    real_names = {t.name for t in domain.agent_tools}
    for kind in KINDS:
        if kind not in domain.kinds:
            continue
        task = domain.generate_tasks(1, seed=4, kinds=[kind])[0]
        transform = draw_transform(task, MASKED, domain)
        gold, _ = gold_messages(domain, task)
        chat = transform.augment_messages(gold)
        score = toolgym.verify(task, chat, augment=transform.to_dict())
        assert score.passed and score.value == 1.0, (kind, score.to_dict())
        played = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
        assert played.messages == chat and played.verification.value == 1.0  # the env plays the same chat
        offered = {s["function"]["name"] for s in env.tools}
        assert not offered & real_names and len(offered) == len(task.tools) + len(transform.distractors)
        calls = [c["function"]["name"] for m in chat for c in m.get("tool_calls") or ()]
        assert set(calls) <= offered and not (set(calls) & real_names)
        if calls:  # the verifier does not take a renamed call for the real tool unless told the transform
            assert toolgym.verify(task, chat).value < 1.0


@pytest.mark.parametrize("domain_name", ["retail", "telecom", "vehicle"])
def test_a_distractor_or_a_remembered_real_name_is_an_error_that_costs_score(domain_name):
    domain = toolgym.load_domain(domain_name)
    for kind in domain.kinds:
        task = domain.generate_tasks(1, seed=6, kinds=[kind])[0]
        transform = draw_transform(task, MASKED, domain)
        chat = transform.augment_messages(gold_messages(domain, task)[0])
        distractor = transform.distractors[0]["schema"]["function"]["name"]
        _, outcome = with_call(task, chat, transform, distractor, {})
        assert outcome.error and outcome.error.startswith(f"unknown tool {distractor!r}")  # as an unknown tool is
        for name, spoil in AUGMENT_SPOILS.items():
            spoiled = spoil(task, chat, transform)
            if spoiled is None:
                assert name == "remembered_name" and not task.gold_calls()
                continue
            score = toolgym.verify(task, spoiled, augment=transform.to_dict())
            assert score.value < 1.0, (kind, name, score.to_dict())
            assert failed_calls(spoiled) == 1  # a chat with a failed call never becomes a training row


def test_withheld_tools_stay_withheld_under_any_name():
    domain = toolgym.load_domain("retail")
    task = domain.generate_tasks(1, seed=2, kinds=["no_tool/unavailable"])[0]
    (withheld,) = task.no_tool.withheld_tools
    transform = draw_transform(task, MASKED, domain)
    offered = {s["function"]["name"] for s in transform.apply(domain.schemas(task.tools))}
    assert transform.offered_name(withheld) not in offered and withheld not in offered
    world = domain.new_world(task)
    for name in (transform.offered_name(withheld), withheld):
        assert transform.run(domain, world, task.tools, name, {}).error.startswith("unknown tool")
    assert not world.diff()
    world.close()


def test_a_transform_is_plain_data_drawn_from_the_task_and_the_config():
    domain = toolgym.load_domain("banking")
    task = domain.generate_tasks(1, seed=3, kinds=["multi_step"])[0]
    config = AugmentConfig(untouched=0.0)
    transform = draw_transform(task, config, domain)
    again = ToolTransform.from_dict(json.loads(json.dumps(transform.to_dict())))
    assert again.id == transform.id == draw_transform(task, config, domain).id
    assert again.apply(domain.schemas(task.tools)) == transform.apply(domain.schemas(task.tools))
    assert draw_transform(task, AugmentConfig(untouched=0.0, paraphrase=0.9), domain).seed != transform.seed
    for call in task.gold_calls():
        real = {"name": call.name, "arguments": dict(call.arguments)}
        assert transform.to_real(transform.to_augmented(real)) == real
    assert transform.to_real({"name": "no_such_tool", "arguments": {}})["name"] == f"{UNOFFERED}no_such_tool"


def test_bad_augment_config_names_the_key_and_the_allowed_values():
    with pytest.raises(ConfigError, match=r"augment\.names.*unknown naming convention.*kebab.*snake"):
        load_config({"augment": {"names": {"kebab": 1}}})
    with pytest.raises(ConfigError, match=r"distractors\.min \(4\) must not exceed distractors\.max \(2\)"):
        load_config({"augment": {"distractors": {"min": 4, "max": 2}}})
    with pytest.raises(ConfigError, match="did you mean 'paraphrase'"):
        load_config({"augment": {"paraphrases": 0.5}})


@JOB
def test_trl_environment_takes_the_rows_transform_and_rewards_the_gold(augmented_job):
    _, _, rl = augmented_job
    row = next(r for r in rl if r["item_type"] == "episode" and r["kind"] == "multi_step" and not r["augment"]["untouched"]
               and r["augment"]["distractors"])
    classes = environment_classes(rows=[row])
    cls = classes[row["environment"]]
    methods = {n for n, v in vars(cls).items() if not n.startswith("_") and callable(v)}
    assert methods == {s["function"]["name"] for s in row["tools"]}  # renamed tools and distractors, as the row offers
    env = cls()
    env.reset(**row)
    transform = ToolTransform.from_dict(row["augment"])
    distractor = transform.distractors[0]["schema"]["function"]["name"]
    task = toolgym.Task.model_validate(row["task"])
    oracle = toolgym.OracleTeacher()
    for turn in range(40):
        move = transform.augment_message(oracle.message_at(task, turn))
        if move.get("tool_calls"):
            for call in move["tool_calls"]:
                getattr(env, call["function"]["name"])(**call["function"]["arguments"])
        else:
            reply = env.send_message_to_user(move["content"])
            if "left the conversation" in reply:
                break
    assert env.get_reward() == 1.0
    copy = pickle.loads(pickle.dumps(env))
    assert copy.get_reward() == 1.0 and copy.augment == row["augment"]
    wrong = cls()
    wrong.reset(**row)
    assert "unknown tool" in getattr(wrong, distractor)(**{p: "x" for p in _required(transform, distractor)})
    with pytest.raises(ConfigError, match=r"environment_classes\(rows=dataset\)"):
        environment_classes(names=[row["environment"]])


def _required(transform: ToolTransform, name: str) -> list[str]:
    schema = next(d["schema"] for d in transform.distractors if d["schema"]["function"]["name"] == name)
    return schema["function"]["parameters"]["required"]


@pytest.mark.parametrize("domain_name", ["retail", "workplace"])
def test_served_episodes_take_a_rows_transform_and_map_calls_back(domain_name):
    """The core every served adapter runs on (OpenEnv, MCP, SkyRL, verl, NeMo Gym): a reset with the row's
    `augment` offers the renamed tools; the gold played under those names scores 1.0, a distractor call less."""
    from toolgym.integrations.episode import Episode

    domain = toolgym.load_domain(domain_name)
    task = domain.generate_tasks(1, seed=4, kinds=["multi_step"])[0]
    transform = draw_transform(task, MASKED, domain)
    chat = transform.augment_messages(gold_messages(domain, task)[0])
    row = {"task": task.model_dump_json(), "augment": transform.to_dict()}
    episode = Episode()
    try:
        episode.start(row=row)
        offered = {s["function"]["name"] for s in episode.tools}
        assert not offered & {t.name for t in domain.agent_tools}, "only the row's names are offered"
        outcome = None
        for message in (m for m in chat if m.get("role") == "assistant"):
            outcome = episode.act(message)
        assert outcome is not None and outcome.done and outcome.verification["score"] == 1.0, outcome.verification

        episode.start(task=task, augment=json.dumps(transform.to_dict()))  # the transform as JSON text also works
        distractor = transform.distractors[0]["schema"]["function"]["name"]
        assert episode.call_tool(distractor, {}).is_error
        for message in (m for m in chat if m.get("role") == "assistant"):
            if not episode.done:
                episode.act(message)
        assert episode.grade().value < 1.0
    finally:
        episode.close()
