"""The verifiers as reward functions in the shapes RL trainers call.

Batch form, as TRL's GRPOTrainer passes dataset columns: `reward(completions, target=..., **columns)
-> list[float]`. A completion is raw model text (read with the `hermes` parser), an assistant
message dict, or a list of messages (the assistant's part is used). `target` is the gold
assistant message of a next-action item (the `target` column of the `rl_tasks` split, as a
dict or JSON text); `task` is the Task JSON of an episode item.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from toolgym.envs.parsing import parse_action
from toolgym.envs.task import Task

from .matching import arguments_of, canonical_call, match_calls
from .regrade import verify

_TOOLRL_FORMAT = re.compile(r"^\s*<think>.+?</think>\s*(<tool_call>.+?</tool_call>\s*)+$", re.DOTALL)


def _calls(completion: Any) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(completion, list):  # conversational: take the assistant messages
        return [c for m in completion if isinstance(m, dict) and m.get("role") == "assistant" for c in _calls(m)]
    message = parse_action(completion).message
    return [
        (str(c["function"].get("name")), arguments_of(c["function"].get("arguments")))
        for c in message.get("tool_calls") or []
    ]


def _target_calls(target: Any) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(target, str):
        target = json.loads(target)
    return _calls(target)


def _batch(completions: Sequence[Any], targets: Any) -> list[tuple[Any, Any]]:
    if targets is None:
        raise ValueError("this reward needs the `target` column of the rl_tasks split")
    if isinstance(targets, str | dict) or not isinstance(targets, Sequence):
        targets = [targets] * len(completions)
    if len(targets) != len(completions):
        raise ValueError(f"{len(completions)} completions but {len(targets)} targets")
    return list(zip(completions, targets, strict=True))


def tool_call_reward(completions: Sequence[Any], target: Any = None, **_: Any) -> list[float]:
    """Partial credit for tool names, parameter names and values (calls paired without order)."""
    return [match_calls(_target_calls(t), _calls(c))[0] for c, t in _batch(completions, target)]


def exact_match_reward(completions: Sequence[Any], target: Any = None, **_: Any) -> list[float]:
    """1.0 when the multiset of calls equals the target's, else 0.0."""
    def same(c: Any, t: Any) -> bool:
        return Counter(canonical_call(*x) for x in _calls(c)) == Counter(canonical_call(*x) for x in _target_calls(t))

    return [1.0 if same(c, t) else 0.0 for c, t in _batch(completions, target)]


def f1_reward(completions: Sequence[Any], target: Any = None, **_: Any) -> list[float]:
    """F1 of the predicted call set against the target set (exact calls)."""
    scores = []
    for c, t in _batch(completions, target):
        made = Counter(canonical_call(*x) for x in _calls(c))
        gold = Counter(canonical_call(*x) for x in _target_calls(t))
        hits = sum((made & gold).values())
        if not made and not gold:
            scores.append(1.0)
            continue
        precision = hits / sum(made.values()) if made else 0.0
        recall = hits / sum(gold.values()) if gold else 0.0
        scores.append(2 * precision * recall / (precision + recall) if hits else 0.0)
    return scores


def format_reward(completions: Sequence[Any], **_: Any) -> list[float]:
    """1.0 for raw text shaped `<think>...</think>` then well-formed `<tool_call>` JSON blocks."""
    scores = []
    for completion in completions:
        text = completion if isinstance(completion, str) else ""
        scores.append(1.0 if _TOOLRL_FORMAT.match(text) and parse_action(text).well_formed else 0.0)
    return scores


def episode_reward(completions: Sequence[Any], task: Any = None, **_: Any) -> list[float]:
    """The task's full verifier score for whole conversations (messages after the prompt included)."""
    tasks = task if isinstance(task, list) else [task] * len(completions)
    scores = []
    for messages, item in zip(completions, tasks, strict=True):
        loaded = item if isinstance(item, Task) else Task.model_validate(json.loads(item) if isinstance(item, str) else item)
        scores.append(verify(loaded, list(messages)).value)
    return scores


REWARDS = {
    "tool_calls": tool_call_reward,
    "exact_match": exact_match_reward,
    "f1": f1_reward,
    "format": format_reward,
    "episode": episode_reward,
}
