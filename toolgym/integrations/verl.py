"""toolgym's worlds as a verl agent loop: `agent_name: toolgym` plays one episode per trajectory.

verl's own `ToolAgentLoop` does not fit a stateful world: its `BaseTool.create/release` run per call
(the world would be rebuilt between calls), it never asks a tool for the episode's reward, and its
defaults (`max_parallel_calls: 1`, `max_tool_response_length: 256`) cut toolgym's calls and
records. `ToolgymAgentLoop` is an `AgentLoopBase` instead: the trajectory owns one `Episode`
(the world, the scripted user and the verifier), built from the row's `task` column (an
`rl_tasks` split written as parquet keeps it; `extra_info.task` works too).

Per turn the model generates through verl's server manager; the text goes to the world as it is
(hermes `<tool_call>` blocks run as tools, plain text goes to the user); the world's new messages
(tool results, the user's reply) are appended through verl's Continuous Token builder with
response mask 0, so only the model's own tokens are trained. The loop ends when the user leaves,
when `multi_turn.max_assistant_turns` (default 60) is reached, or when the response budget
(`rollout.response_length`) is spent. `reward_score` is the verifier's score (the final one, or of
the conversation so far when the budget cut it), so verl's reward manager is not consulted;
`reward_extra_info` carries `passed` and `score` for verl's logs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register

from toolgym.errors import ConfigError

from .episode import MAX_TURNS, Episode

AGENT_NAME = "toolgym"


def task_of(row: Mapping[str, Any]) -> Any:
    """The Task JSON a verl row carries: its `task` column, or `extra_info["task"]`."""
    task = row.get("task")
    if task is None:
        task = (row.get("extra_info") or {}).get("task")
    if task is None:
        raise ConfigError(
            f"a toolgym verl row needs its `task` column (Task JSON, as rl_tasks writes it) or extra_info.task; "
            f"the row has {sorted(row)}"
        )
    return task


@register(AGENT_NAME)
class ToolgymAgentLoop(AgentLoopBase):
    """One toolgym episode per trajectory; see the module's docstring."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.pop("tools", None)  # verl's tool list is for ToolAgentLoop: the task brings its own tools
        super().__init__(*args, **kwargs)
        self.response_length = int(self.rollout_config.response_length)
        multi_turn = self.rollout_config.get("multi_turn") or {}
        self.max_turns = int(multi_turn.get("max_assistant_turns") or MAX_TURNS)

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        episode = Episode(max_turns=self.max_turns)
        try:
            return await self._play(episode, sampling_params, task_of(kwargs))
        finally:
            episode.close()

    async def _play(self, episode: Episode, sampling_params: dict[str, Any], task: Any) -> AgentLoopOutput:
        opening = await asyncio.to_thread(episode.start, task=task)
        tools = episode.tools
        tokens = await self.ct_build_initial_tokens(list(opening), tools=tools)
        mask: list[int] = []
        logprobs: list[float] | None = None
        request_id, turns, metrics = uuid4().hex, 0, {"generate_sequences": 0.0, "tool_calls": 0.0}  # seconds
        verification = None
        while True:
            started = time.perf_counter()
            output = await self.server_manager.generate(request_id=request_id, prompt_ids=tokens, sampling_params=sampling_params)
            metrics["generate_sequences"] += time.perf_counter() - started
            merged, mask, logprobs = await self.ct_merge_assistant_token(
                tokens, output.token_ids, mask, logprobs if (logprobs or output.log_probs) else None,
                assistant_logprobs=output.log_probs or None,
            )  # fmt: skip
            tokens, turns = merged.token_ids, turns + 1
            text = self.tokenizer.decode(output.token_ids, skip_special_tokens=True)
            started = time.perf_counter()
            outcome = await asyncio.to_thread(episode.act, text)
            metrics["tool_calls"] += time.perf_counter() - started  # the world's turn: tools and the customer
            if outcome.done:
                verification = outcome.verification
                break
            if len(mask) >= self.response_length:
                break
            history = episode.messages()
            previous = history[: len(history) - len(outcome.messages)]
            merged, new_mask, new_logprobs = await self.ct_merge_context_msg(
                previous, history, tokens, mask, logprobs, tools=tools
            )
            if len(new_mask) >= self.response_length:
                break
            tokens, mask, logprobs = merged.token_ids, new_mask, new_logprobs or logprobs
        if verification is None:  # cut by the response budget: the score of the conversation so far
            verification = (await asyncio.to_thread(episode.grade)).to_dict()
        split = len(tokens) - len(mask)  # verl's builder may adjust junction tokens: the mask's length is the response
        response = tokens[split:]
        return AgentLoopOutput(
            prompt_ids=tokens[:split],
            response_ids=response[: self.response_length],
            response_mask=mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] if logprobs else None,
            reward_score=float(verification["score"]),
            num_turns=len(episode.messages()),
            metrics=metrics,
            extra_fields={
                "turn_scores": [],
                "tool_rewards": [],
                "reward_extra_info": {"passed": float(verification["passed"]), "score": float(verification["score"])},
                "toolgym_task_id": episode.task.id,
                "toolgym_assistant_turns": turns,
            },
        )


__all__ = ["AGENT_NAME", "ToolgymAgentLoop", "task_of"]
