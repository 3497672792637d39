"""The verifiers as reward functions in the shapes RL trainers call.

Every function takes TRL's keyword arguments as they come (`prompts`, `completions`,
`completion_ids`, the dataset's columns as lists, `trainer_state`, `log_extra`, `log_metric`,
`environments`) and returns one value per completion. A value is None where the row gives the
function nothing to score (TRL leaves it out of the sum): the call rewards abstain on episode
rows (no `target`), `episode_reward` abstains on next-action rows.

A completion is raw model text (read with the `hermes` parser), an assistant message dict, or a
list of messages as TRL gives conversational completions (the assistant messages are used).
`target` is the gold assistant message of a next-action item (the `target` column of the
`rl_tasks` split, as a dict or JSON text); `task` is the Task JSON of the row.
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
from .score import Score

_TOOLRL_FORMAT = re.compile(r"^\s*<think>.+?</think>\s*(<tool_call>.+?</tool_call>\s*)+$", re.DOTALL)
_LEFTOVER_MARKUP = re.compile(r"</?tool_call>|</?tool_response>")

Reward = float | None
_SHAPES = "raw text, an assistant message dict, or a list of messages"


def _shape_error(what: str, value: Any) -> ValueError:
    try:
        shown = repr(str(value)[:80])
    except ValueError:  # an int past Python's 4,300-digit limit cannot even be printed
        shown = "(too large to show)"
    return ValueError(f"a completion must be {_SHAPES}; {what} is {type(value).__name__}: {shown}")


def _assistant_messages(completion: Any) -> list[Any]:
    """The assistant turns of a completion, each as text or a message dict."""
    if isinstance(completion, str | dict):
        return [completion]
    if isinstance(completion, list):
        for item in completion:
            if not isinstance(item, dict):
                raise _shape_error("an item of the message list", item)
        return [m for m in completion if m.get("role", "assistant") == "assistant"]
    raise _shape_error("this completion", completion)


def _calls(completion: Any) -> list[tuple[str, dict[str, Any]]]:
    calls = []
    for turn in _assistant_messages(completion):
        message = parse_action(turn).message
        calls += [(str(c["function"].get("name")), arguments_of(c["function"].get("arguments")))
                  for c in message.get("tool_calls") or []]
    return calls


def _column(values: Any, count: int, name: str) -> list[Any]:
    """A dataset column as TRL passes it (one value per completion); a single value is repeated."""
    if isinstance(values, str | dict) or values is None or not isinstance(values, Sequence):
        return [values] * count
    if len(values) != count:
        raise ValueError(f"{count} completions but {len(values)} {name} values: pass one per completion")
    return list(values)


def _targets(completions: Sequence[Any], target: Any, missing: bool) -> list[tuple[Any, Any]]:
    if missing:
        raise ValueError("this reward needs the `target` column of the rl_tasks split (next-action items)")
    targets = _column(target, len(completions), "target")
    return list(zip(completions, targets, strict=True))


def _target_calls(target: Any) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(target, str):
        try:
            target = json.loads(target)
        except json.JSONDecodeError as exc:
            raise ValueError(f"a target must be an assistant message (dict or JSON text), got {target[:80]!r}") from exc
    if not isinstance(target, dict):
        raise ValueError(f"a target must be an assistant message (dict or JSON text), got {type(target).__name__}")
    return _calls(target)


_NO_TARGET = object()


def tool_call_reward(completions: Sequence[Any], target: Any = _NO_TARGET, **_: Any) -> list[Reward]:
    """Partial credit for tool names, parameter names and values (calls paired without order)."""
    return [
        None if t is None else match_calls(_target_calls(t), _calls(c))[0]
        for c, t in _targets(completions, target, target is _NO_TARGET)
    ]


def exact_match_reward(completions: Sequence[Any], target: Any = _NO_TARGET, **_: Any) -> list[Reward]:
    """1.0 when the multiset of calls equals the target's, else 0.0."""
    def same(c: Any, t: Any) -> bool:
        return Counter(canonical_call(*x) for x in _calls(c)) == Counter(canonical_call(*x) for x in _target_calls(t))

    return [None if t is None else float(same(c, t)) for c, t in _targets(completions, target, target is _NO_TARGET)]


def _f1(completion: Any, target: Any) -> float:
    made = Counter(canonical_call(*x) for x in _calls(completion))
    gold = Counter(canonical_call(*x) for x in _target_calls(target))
    if not made and not gold:  # a target that says "no call", matched by making none
        return 1.0
    hits = sum((made & gold).values())
    if not hits:
        return 0.0
    precision, recall = hits / sum(made.values()), hits / sum(gold.values())
    return 2 * precision * recall / (precision + recall)


def f1_reward(completions: Sequence[Any], target: Any = _NO_TARGET, **_: Any) -> list[Reward]:
    """F1 of the predicted call set against the target set (exact calls)."""
    return [None if t is None else _f1(c, t) for c, t in _targets(completions, target, target is _NO_TARGET)]


def _text_format(text: str) -> float:
    return 1.0 if _TOOLRL_FORMAT.match(text) and parse_action(text).well_formed else 0.0


def _message_format(turns: list[Any]) -> float:
    """Messages a trainer parsed: every turn well formed, no call markup left unparsed, something said or called."""
    if not turns:
        return 0.0
    for turn in turns:
        if isinstance(turn, str):
            if not parse_action(turn).well_formed or not turn.strip():
                return 0.0
            continue
        parsed = parse_action(turn)
        if not parsed.well_formed or _LEFTOVER_MARKUP.search(turn.get("content") or ""):
            return 0.0
        if not (parsed.message.get("content") or "").strip() and not parsed.message.get("tool_calls"):
            return 0.0
    return 1.0


def format_reward(completions: Sequence[Any], **_: Any) -> list[Reward]:
    """Raw text: 1.0 when shaped `<think>...</think>` then well-formed `<tool_call>` JSON blocks.

    Messages (as TRL parses them): 1.0 when every assistant turn is well formed (calls with a
    name and object arguments, no `<tool_call>` markup left in the text) and says or calls something.
    """
    scores: list[Reward] = []
    for completion in completions:
        if isinstance(completion, str):
            scores.append(_text_format(completion))
        else:
            scores.append(_message_format(_assistant_messages(completion)))
    return scores


def load_task(item: Any) -> Task:
    """A Task from itself, its dict or its JSON text (a `task` column's value)."""
    if isinstance(item, Task):
        return item
    if isinstance(item, str):
        return Task.model_validate_json(item)
    if isinstance(item, dict):
        return Task.model_validate(item)
    raise ValueError(f"a task must be a Task, its dict or its JSON text, got {type(item).__name__}")


def _chat(prompt: Any, completion: Any) -> list[dict[str, Any]]:
    """The whole conversation: the prompt's messages, then the completion's."""
    head = [] if prompt is None else ([{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt))
    if isinstance(completion, str):
        tail = [parse_action(completion).message]
    elif isinstance(completion, dict):
        tail = [completion]
    elif isinstance(completion, list):
        tail = list(completion)
    else:
        raise _shape_error("this completion", completion)
    for message in tail:
        if not isinstance(message, dict):
            raise _shape_error("an item of the message list", message)
    if head and tail and tail[0].get("role") == "system":  # a completion that already holds the whole chat
        return tail
    return [*head, *tail]


def log_verifications(scores: Sequence[Score | None], log_metric: Any = None, log_extra: Any = None) -> None:
    """Hand the verifications behind a batch's rewards to TRL's loggers (`log_metric`, `log_extra`).

    Metrics (batch means): `toolgym/passed`, `toolgym/violation` (the share with a conduct
    violation) and `toolgym/<component>` for each top-level component; completion-table columns:
    `toolgym_passed` and `toolgym_violations`.
    """
    graded = [s for s in scores if s is not None]
    if not graded:
        return
    if callable(log_metric):
        log_metric("toolgym/passed", sum(s.passed for s in graded) / len(graded))
        log_metric("toolgym/violation", sum(bool(s.details.get("violations")) for s in graded) / len(graded))
        names = sorted({n for s in graded for n in s.components if "." not in n})
        for name in names:
            values = [s.components[name] for s in graded if name in s.components]
            log_metric(f"toolgym/{name}", sum(values) / len(values))
    if callable(log_extra):
        log_extra("toolgym_passed", [None if s is None else s.passed for s in scores])
        log_extra("toolgym_violations", [None if s is None else ",".join(s.details.get("violations", [])) for s in scores])


def episode_reward(
    completions: Sequence[Any],
    task: Any = None,
    prompts: Any = None,
    item_type: Any = None,
    log_metric: Any = None,
    log_extra: Any = None,
    **_: Any,
) -> list[Reward]:
    """The task's full verifier score for whole conversations, replayed on a fresh world.

    The chat graded is the prompt followed by the completion. Abstains on next-action rows and
    rows without a task.
    """
    if task is None:
        raise ValueError("episode_reward needs the `task` column of the rl_tasks split")
    tasks = _column(task, len(completions), "task")
    prompt_list = _column(prompts, len(completions), "prompt")
    kinds = _column(item_type, len(completions), "item_type")
    graded: list[Score | None] = []
    for completion, item, prompt, kind in zip(completions, tasks, prompt_list, kinds, strict=True):
        if item is None or kind == "next_action":
            graded.append(None)
            continue
        graded.append(verify(load_task(item), _chat(prompt, completion)))
    log_verifications(graded, log_metric, log_extra)
    return [None if s is None else s.value for s in graded]


def environment_reward(
    environments: Sequence[Any] | None = None, log_metric: Any = None, log_extra: Any = None, **_: Any
) -> list[Reward]:
    """The score each rollout's environment gives (`get_reward()`), for trainers that pass `environments`;
    the verifications behind them go to TRL's loggers (see `log_verifications`)."""
    if environments is None:
        raise ValueError("environment_reward needs `environments`: train with environment_factory=environment_class(...)")
    rewards = [e.get_reward() if callable(getattr(e, "get_reward", None)) else None for e in environments]
    log_verifications([getattr(e, "last_verification", None) for e in environments], log_metric, log_extra)
    return rewards


REWARDS = {
    "tool_calls": tool_call_reward,
    "exact_match": exact_match_reward,
    "f1": f1_reward,
    "format": format_reward,
    "episode": episode_reward,
    "environment": environment_reward,
}
