"""verl's agent-loop interface over toolgym's worlds: `ToolgymAgentLoop` built as verl's worker builds it.

verl cannot be in the `test` extra (it pins transformers<5.11; the trl extra needs >=5.24), so this
module runs where verl is installed beside toolgym (docs/rl.md, "verl", says how) and is skipped
otherwise. The model's seat is a scripted server manager that emits the gold's turns as tokens of a
tiny local Qwen3-template tokenizer; the tokenization (verl's Continuous Token builder), the masks
and the reward are verl's and toolgym's own code.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

verl_agent_loop = pytest.importorskip(
    "verl.experimental.agent_loop.agent_loop", reason="verl is not installed here (it is not in the test extra)"
)

import hydra  # noqa: E402  (verl's own dependency, present when verl is)
from omegaconf import OmegaConf  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

from tests.conftest import builtin_domains  # noqa: E402
from tests.serving import DO_NOTHING, gold  # noqa: E402
from tests.tiny_lm import tiny_tokenizer  # noqa: E402
from toolgym.errors import ConfigError  # noqa: E402
from toolgym.generators.chat_format import hermes_text  # noqa: E402
from toolgym.integrations.verl import AGENT_NAME, task_of  # noqa: E402

EOS = "<|im_end|>"
LOOPS = Path(__file__).parents[1] / "configs" / "verl_agent_loops.yaml"


class _ScriptedServer:
    """verl's LLM server client, with the model's turns fixed in advance (as token ids, ending in EOS)."""

    def __init__(self, tokenizer, replies: list[str]):
        self.tokenizer, self.replies, self.prompts = tokenizer, iter(replies), []

    async def generate(self, *, request_id, prompt_ids, sampling_params, **_):
        self.prompts.append(list(prompt_ids))
        reply = next(self.replies, DO_NOTHING)
        return TokenOutput(token_ids=self.tokenizer.encode(reply + EOS, add_special_tokens=False), stop_reason="completed")


@pytest.fixture(scope="module")
def tokenizer():
    corpus = [m.get("content") or "" for domain in builtin_domains() for _, moves in gold(domain, 4) for m in moves]
    return tiny_tokenizer([c for c in corpus if c] * 2, vocab_size=2000)


def _loop(tokenizer, server, response_length=60000):
    config = OmegaConf.create({
        "actor_rollout_ref": {"rollout": {"prompt_length": 60000, "response_length": response_length,
                                          "multi_turn": {"max_assistant_turns": 60}}},
        "data": {},
    })  # fmt: skip
    (entry,) = [c for c in OmegaConf.load(LOOPS) if c.name == AGENT_NAME]  # as verl reads agent_loop_config_path
    return hydra.utils.instantiate(  # what verl's AgentLoopWorker does with a registered agent_name
        config=entry,
        trainer_config=verl_agent_loop.DictConfigWrap(config=config),
        server_manager=server,
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=None,
        data_config=verl_agent_loop.DictConfigWrap(config.data),
        tools=verl_agent_loop.ToolListWrap([]),
    )


def _play(tokenizer, server, task, response_length=60000):
    async def run():  # verl builds a loop inside its worker's event loop (the loop keeps a handle on it)
        return await _loop(tokenizer, server, response_length).run({"temperature": 1.0}, **_row(task))

    return asyncio.run(run())


def _row(task):
    return {"raw_prompt": [], "task": task.model_dump_json(), "extra_info": {}, "tools_kwargs": {}}


@pytest.mark.parametrize("domain", builtin_domains())
def test_gold_tokens_score_full_with_only_the_model_tokens_masked_in(tokenizer, domain):
    task, moves = gold(domain, 4)[1]
    replies = [hermes_text(m.get("content"), m.get("tool_calls")) for m in moves]
    server = _ScriptedServer(tokenizer, replies)
    output = _play(tokenizer, server, task)

    assert output.reward_score == 1.0, task.id
    assert output.extra_fields["reward_extra_info"] == {"passed": 1.0, "score": 1.0}
    assert len(output.response_ids) == len(output.response_mask) and 0 in output.response_mask
    trained = tokenizer.decode([t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m])
    assert trained == "".join(reply + EOS for reply in replies)  # the model's turns, and nothing the world said
    assert server.prompts[0] == output.prompt_ids and len(server.prompts) == len(replies)
    assert output.metrics.tool_calls > 0 and output.extra_fields["toolgym_assistant_turns"] == len(replies)

    lazy = _play(tokenizer, _ScriptedServer(tokenizer, []), task)
    assert lazy.reward_score < 1.0 and lazy.extra_fields["reward_extra_info"]["passed"] == 0.0


def test_a_spent_response_budget_ends_the_episode_with_the_score_so_far(tokenizer):
    task, moves = gold("retail", 4)[1]
    replies = [hermes_text(m.get("content"), m.get("tool_calls")) for m in moves]
    output = _play(tokenizer, _ScriptedServer(tokenizer, replies), task, response_length=64)
    assert len(output.response_ids) <= 64 and output.reward_score < 1.0


def test_the_documented_config_names_the_loop_verl_registers():
    (entry,) = OmegaConf.load(LOOPS)
    assert verl_agent_loop._agent_loop_registry[AGENT_NAME]["_target_"] == entry["_target_"]


def test_a_row_without_its_task_is_refused_by_name():
    with pytest.raises(ConfigError, match="`task` column"):
        task_of({"raw_prompt": [], "extra_info": {}})
