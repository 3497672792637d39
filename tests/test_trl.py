"""TRL itself on toolgym's data and environments: a tiny local Qwen3, no downloads.

GRPO runs with `environment_classes()` as its environment factory; generation is replaced by
the oracle's moves written as model text, so TRL's own response parser reads the calls and
runs them on the environment's methods. SFT runs a step with assistant-only loss.
"""

from __future__ import annotations

import json
import pickle

import pytest

import toolgym
from tests.tiny_lm import tiny_qwen3, tiny_tokenizer
from toolgym.generators.chat_format import hermes_text
from toolgym.generators.reading import load_split
from toolgym.generators.rows import rl_rows
from toolgym.generators.writer import DatasetWriter
from toolgym.integrations.trl import USER_CHANNEL, environment_class, environment_classes

DOMAINS = ("retail", "telecom")
ACTING = ("single", "parallel", "multi_step", "multi_turn", "injection")
LAZY = "All done, your request is taken care of."
CONFIG = {"name": "trl-test", "seed": 0}


def _tasks():
    tasks = []
    for name in DOMAINS:
        domain = toolgym.load_domain(name)
        tasks += [domain.generate_tasks(1, seed=3, kinds=[kind])[0] for kind in ACTING]
    tasks.append(toolgym.load_domain("retail").generate_tasks(1, seed=3, kinds=["no_tool/unavailable"])[0])
    return tasks


@pytest.fixture(scope="module")
def rl_data(tmp_path_factory):
    """rl_tasks rows written by the real pipeline, a tokenizer trained on their chats, a tiny Qwen3."""
    out = tmp_path_factory.mktemp("rl")
    corpus = []
    with DatasetWriter(out, config=CONFIG) as writer:
        for task in _tasks():
            env = toolgym.make(task.domain)
            trajectory = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
            corpus += [hermes_text(m.get("content"), m.get("tool_calls")) for m in trajectory.messages]
            corpus.append(json.dumps(env.tools))
            writer.add(task.id, {"rl_tasks": rl_rows(task, [{"messages": trajectory.messages}], env.tools, False)})
    tokenizer = tiny_tokenizer(corpus)
    return load_split(out, "rl_tasks"), tokenizer


def _oracle_generation(trainer, tokenizer, seen_prompts):
    """Stands in for the model: even rollouts of a group play the oracle, odd ones do nothing.

    TRL calls generation first for every rollout, then for those whose last completion made
    calls, in order; the oracle's text replies go to the user through `send_message_to_user`.
    """
    oracle = toolgym.OracleTeacher()
    state = {"rows": None, "turns": {}}

    def generate(prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        environments = trainer.environments
        rows = state["rows"] if state["rows"] is not None else list(range(len(environments)))
        assert len(rows) == len(prompt_ids)
        texts, calling = [], []
        for row, ids in zip(rows, prompt_ids, strict=True):
            environment = environments[row]
            if state["rows"] is None:
                seen_prompts.append(tokenizer.decode(ids))
            if row % 2 or environment.trajectory.verification is not None:
                texts.append(LAZY if row % 2 else "Goodbye.")
                continue
            turn = state["turns"][row] = state["turns"].get(row, -1) + 1
            move = oracle.message_at(environment.trajectory.task, turn)
            calls = move.get("tool_calls") or [{"function": {"name": USER_CHANNEL, "arguments": {"message": move["content"]}}}]
            texts.append(hermes_text(None, calls))
            calling.append(row)
        state["rows"] = calling
        return [tokenizer(t + "<|im_end|>", add_special_tokens=False)["input_ids"] for t in texts], None

    def reset():
        state["rows"], state["turns"] = None, {}

    return generate, reset


@pytest.mark.slow
def test_grpo_runs_every_acting_kind_to_full_reward_through_trls_parser(rl_data, tmp_path):
    from trl import GRPOConfig, GRPOTrainer

    from toolgym.verifiers.rewards import environment_reward

    dataset, tokenizer = rl_data
    rewards: list[list[float | None]] = []
    completions: list = []

    def recorded(**kwargs):
        completions.extend(kwargs["completions"])
        values = environment_reward(**kwargs)
        rewards.append(values)
        return values

    args = GRPOConfig(  # one task per step: a batch pads to its longest chat, and attention grows with its square
        output_dir=str(tmp_path), use_cpu=True, bf16=False, per_device_train_batch_size=2, num_generations=2,
        max_completion_length=30000, max_tool_calling_iterations=100, max_steps=len(dataset), report_to="none",
        save_strategy="no", logging_steps=1, shuffle_dataset=False, seed=0, gradient_checkpointing=False,
    )  # fmt: skip
    model = tiny_qwen3(tokenizer)
    for name, parameter in model.named_parameters():  # train the last norm only: no backward through attention
        parameter.requires_grad = name == "model.norm.weight"
    before = model.model.norm.weight.detach().clone()
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, reward_funcs=[recorded], args=args,
        train_dataset=dataset, environment_factory=environment_classes(names=set(dataset["environment"])),
    )  # fmt: skip
    prompts: list[str] = []
    generate, reset = _oracle_generation(trainer, tokenizer, prompts)
    trainer._generate_single_turn = generate
    score = trainer._generate_and_score_completions

    def scored(inputs):
        reset()
        return score(inputs)

    trainer._generate_and_score_completions = scored
    trainer.train()

    values = [v for step in rewards for v in step]
    assert not model.model.norm.weight.detach().equal(before)  # the groups' spread of rewards moved the weights
    kinds = [(r["domain"], r["kind"]) for r in dataset for _ in range(2)]
    oracle = {k: v for k, v in zip(kinds[::2], values[::2], strict=True)}
    lazy = dict(zip(kinds[1::2], values[1::2], strict=True))
    assert oracle == {k: 1.0 for k in kinds}, oracle
    assert all(v < 1.0 for v in lazy.values()), lazy
    # TRL's parser read the calls: the oracle rollouts hold its tool messages, the lazy ones none
    assert all(any(m["role"] == "tool" for m in c) for c in completions[::2])
    assert not any(m["role"] == "tool" for c in completions[1::2] for m in c)
    # the unavailable task's prompt shows its tools but not the withheld one
    index = next(i for i, r in enumerate(dataset) if r["kind"] == "no_tool/unavailable")
    withheld = dataset[index]["task"]["no_tool"]["withheld_tools"]
    shown = prompts[2 * index]
    assert withheld and all(f'"{name}"' not in shown for name in withheld)
    assert f'"{USER_CHANNEL}"' in shown and '"get_order_details"' in shown


def test_environment_methods_give_the_tools_own_schemas_and_instances_pickle():
    from transformers.utils import get_json_schema

    from toolgym.generators.chat_format import USER_CHANNEL_SCHEMA

    def plain(schema):  # transformers drops defaults and writes `anyOf[X, null]` as X with nullable
        if isinstance(schema, list):
            return [plain(s) for s in schema]
        if not isinstance(schema, dict):
            return schema
        schema = {k: plain(v) for k, v in schema.items() if k != "default" and not (k == "required" and v == [])}
        options = schema.pop("anyOf", None)
        if options is not None:
            rest = [o for o in options if o != {"type": "null"}]
            schema = {**(rest[0] if len(rest) == 1 else {"anyOf": rest}), **schema}
            if len(rest) < len(options):
                schema["nullable"] = True
        return schema

    for name in DOMAINS:
        environment = environment_class(name)()
        for tool in toolgym.load_domain(name).agent_tools:
            assert plain(get_json_schema(getattr(environment, tool.name))) == plain(tool.schema), tool.name
        assert get_json_schema(environment.send_message_to_user) == USER_CHANNEL_SCHEMA

    task = toolgym.load_domain("telecom").generate_tasks(1, seed=2, kinds=["multi_turn"])[0]
    environment = environment_classes(["telecom"])["telecom"]()
    assert environment.reset(task=task.model_dump_json(), prompt=[{"role": "user", "content": "hi"}]) is None
    oracle = toolgym.OracleTeacher()
    for turn in range(3):
        move = oracle.message_at(task, turn)
        for call in move.get("tool_calls") or []:
            getattr(environment, call["function"]["name"])(**call["function"]["arguments"])
        if move.get("content"):
            assert environment.send_message_to_user(move["content"])  # the user answers
    clone = pickle.loads(pickle.dumps(environment))
    assert type(clone) is type(environment) and pickle.loads(pickle.dumps(type(environment))) is type(environment)
    assert clone.trajectory.messages == environment.trajectory.messages
    assert clone.get_reward() == environment.get_reward() < 1.0  # mid-episode: not yet solved


def test_rewards_take_trls_arguments_on_a_mixed_batch():
    from toolgym.verifiers.rewards import (
        environment_reward,
        episode_reward,
        exact_match_reward,
        f1_reward,
        format_reward,
        tool_call_reward,
    )

    task = toolgym.load_domain("retail").generate_tasks(1, seed=1, kinds=["multi_step"])[0]
    chat = toolgym.rollout_sync(toolgym.make("retail"), toolgym.OracleTeacher(), toolgym.ScriptedUser(), task).messages
    step = next(i for i, m in enumerate(chat) if m.get("tool_calls"))
    call = chat[step]["tool_calls"][0]["function"]
    parsed = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": call}]}  # as TRL parses
    columns = {  # an episode row, then a next-action row, each as TRL passes dataset columns
        "task": [task.model_dump(mode="json")] * 2,
        "target": [None, chat[step]],
        "item_type": ["episode", "next_action"],
        "environment": ["retail", "retail"],
    }
    trl_kwargs = {
        "prompts": [chat[:2], chat[:step]],
        "completions": [chat[2:], [parsed]],
        "completion_ids": [[1, 2], [3]],
        "trainer_state": None,
        "log_extra": lambda *a: None,
        "log_metric": lambda *a: None,
        **columns,
    }
    assert tool_call_reward(**trl_kwargs) == [None, 1.0]
    assert exact_match_reward(**trl_kwargs) == [None, 1.0]
    assert f1_reward(**trl_kwargs) == [None, 1.0]
    assert episode_reward(**trl_kwargs) == [1.0, None]
    assert format_reward(**trl_kwargs) == [1.0, 1.0]
    lazy = {**trl_kwargs, "completions": [[{"role": "assistant", "content": "Done!"}], "Done!"]}
    assert tool_call_reward(**lazy) == [None, 0.0]
    assert episode_reward(**lazy)[0] < 1.0
    assert format_reward(**{**lazy, "completions": ["<tool_call>{oops</tool_call>", [{"role": "assistant", "content": "<tool_call>{oops"}]]}) == [0.0, 0.0]
    with pytest.raises(ValueError, match="environments"):
        environment_reward(**trl_kwargs)
    with pytest.raises(ValueError, match="completion must be"):
        tool_call_reward(**{**trl_kwargs, "completions": [[parsed], 3]})


def _sft_split(tmp_path):
    from toolgym.generators.rows import chat_row

    out = tmp_path / "sft"
    corpus = []
    with DatasetWriter(out, config=CONFIG) as writer:
        for name in DOMAINS:
            for task in toolgym.load_domain(name).generate_tasks(2, seed=7, kinds=["multi_step"]):
                env = toolgym.make(name)
                trajectory = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
                episode = {"sample": 0, "messages": trajectory.messages, "teacher": {"name": "oracle"},
                           "user": {"name": "scripted"}, "verification": trajectory.verification.to_dict()}
                writer.add(task.id, {"sft": [chat_row(task, episode, env.tools)]})
                corpus += [hermes_text(m.get("content"), m.get("tool_calls")) for m in trajectory.messages]
                corpus.append(json.dumps(env.tools))
    return out, corpus


@pytest.mark.slow
@pytest.mark.parametrize("user_channel", [False, True])
def test_sft_step_with_assistant_only_loss_masks_exactly_the_assistant_turns(tmp_path, user_channel):
    from trl import SFTConfig, SFTTrainer

    out, corpus = _sft_split(tmp_path)
    dataset = load_split(out, "sft", user_channel=user_channel)  # as it is: no map, no glue
    tokenizer = tiny_tokenizer(corpus)
    model = tiny_qwen3(tokenizer)
    args = SFTConfig(
        output_dir=str(tmp_path / "run"), use_cpu=True, bf16=False, assistant_only_loss=True, max_steps=1,
        per_device_train_batch_size=2, max_length=None, report_to="none", save_strategy="no", gradient_checkpointing=False,
    )  # fmt: skip
    before = [p.detach().clone() for p in model.parameters()]
    trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)
    trainer.train()
    assert any(not p.detach().equal(b) for p, b in zip(model.parameters(), before, strict=True))

    for prepared, row in zip(trainer.train_dataset, dataset, strict=True):
        ids = prepared["input_ids"]
        mask = [label != -100 for label in prepared["labels"]]  # the assistant mask, folded into the labels
        spans, start = [], None
        for index, flag in enumerate([*mask, 0]):
            if flag and start is None:
                start = index
            elif not flag and start is not None:
                spans.append(tokenizer.decode(ids[start:index]))
                start = None
        assistant = [m for m in row["messages"] if m["role"] == "assistant"]
        assert len(spans) == len(assistant)
        for span, message in zip(spans, assistant, strict=True):
            assert span.rstrip().endswith("<|im_end|>") and "<|im_start|>" not in span
            assert "<tool_response>" not in span  # no tool result and no user turn is trained on
            for call in message.get("tool_calls") or []:
                assert f'"name": "{call["function"]["name"]}"' in span
                assert json.dumps(call["function"]["arguments"], ensure_ascii=False) in span
            if message.get("content"):
                assert message["content"] in span
        if user_channel:
            assert not any(m["role"] == "user" for m in row["messages"][2:])
            assert any(c["function"]["name"] == USER_CHANNEL for m in assistant for c in m.get("tool_calls") or [])
