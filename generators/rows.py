"""Dataset rows from finished tasks: SFT and no-tool chats, rejected ones, and RL task items."""

from __future__ import annotations

import json
from typing import Any

from toolgym.config import JobConfig
from toolgym.envs.augment import ToolTransform
from toolgym.envs.conversation import agent_changed, closer_intent, in_the_evening, pending_on
from toolgym.envs.phrasing import apologies, register_of
from toolgym.envs.registry import load_domain
from toolgym.envs.task import NO_TOOL_KINDS, Task
from toolgym.envs.user_turns import thanked_last
from toolgym.integrations.names import task_environment
from toolgym.verifiers.compose import preset_for
from toolgym.verifiers.conduct import failed_calls, repeated_calls
from toolgym.version import SCHEMA_VERSION, __version__

from .chat_format import reasoning_placed, with_tools_prompt
from .episodes import messages_key
from .reasoning import close_trace

_VERSIONS = {"toolgym_version": __version__, "schema_version": SCHEMA_VERSION}


def difficulty_columns(task: Task) -> dict[str, Any]:
    """The task's difficulty level and score as top-level columns (sortable, filterable), or nulls."""
    rated = task.difficulty
    return {"difficulty": rated.level if rated else None, "difficulty_score": rated.score if rated else None}


def with_closer(task: Task, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chat ending on the assistant's turn: a closing line that fits how it ended, after the user's last words."""
    if not messages or messages[-1].get("role") != "user":
        return messages
    phrases, seed = load_domain(task.domain).phrasebook, task.seed + len(messages)
    intent = phrases.voiced(closer_intent(task), register_of(task.scenario.persona))
    closer: dict[str, Any] = {"role": "assistant", "content": phrases.say(intent, seed, thanked=thanked_last(messages),
                                                                       pending=pending_on(task), evening=in_the_evening(task),
                                                                       ours=agent_changed(task),
                                                                       apologised=apologies(m.get("content") or "" for m in messages
                                                                                            if m.get("role") == "assistant"))}
    if any(m.get("reasoning_content") for m in messages if m.get("role") == "assistant"):  # reason like the rest
        closer["reasoning_content"] = close_trace(task, phrases, seed, messages)
    return [*messages, closer]


def chat_row(task: Task, episode: dict[str, Any], tools: list[dict[str, Any]], reasoning: str = "field") -> dict[str, Any]:
    """One chat row; `tools` are the tools the chat was played with (its transform's, when augmented);
    `reasoning` is where its traces go (`output.reasoning`, see chat_format.reasoning_placed)."""
    domain = load_domain(task.domain)
    return {
        "id": f"{task.id}-{episode['sample']}{episode.get('id_suffix', '')}",
        "domain": task.domain,
        "domain_version": task.domain_version,
        "kind": task.kind,
        "messages": reasoning_placed(with_closer(task, episode["messages"]), reasoning),
        "tools": tools,
        "user_tools": [t.schema for t in domain.user_tools],
        "task_id": task.id,
        "seeds": {"task_seed": task.seed, "world_seed": task.world_seed, "sample": episode["sample"]},
        "teacher": episode["teacher"],
        "user_simulator": episode["user"],
        "verification": episode["verification"],
        "usage": episode.get("usage"),
        "augment": episode.get("augment"),
        **difficulty_columns(task),
        **_VERSIONS,
    }


def _rl_item(task: Task, dumped: dict[str, Any], item_id: str, prompt, tools, verifier, preset: str, item_type: str,
             target, augment: dict[str, Any] | None, names: tuple[str, str]) -> dict[str, Any]:
    env_id, environment = names
    return {
        "id": item_id,
        "env_id": env_id,
        "environment": environment,  # the name environment_classes() keys TRL's environments by
        "domain": task.domain,
        "kind": task.kind,
        "task": dumped,
        "prompt": prompt,
        "tools": tools,
        "verifier": verifier,
        "reward_preset": preset,
        "item_type": item_type,
        "target": target,
        "augment": augment,
        **difficulty_columns(task),
        **_VERSIONS,
    }


def rl_rows(task: Task, kept: list[dict[str, Any]], tools: list[dict[str, Any]], next_actions: bool,
            augment: dict[str, Any] | None = None) -> list[dict]:
    """The task itself (to run again with reset(options={"task": ..., "augment": ...})), plus next-action items.

    A next-action item's prompt has the tools rendered into its system message, so a trainer
    that ignores the `tools` column (GRPO without an environment) still shows them. `augment`:
    the task's tool transform (recorded on every item, so the same tool set is rebuilt).
    """
    composite = preset_for(task)
    preset = "no_tool" if task.kind in NO_TOOL_KINDS else "action"
    first = kept[0]["messages"] if kept else None
    prompt = first[:2] if first else []
    # The task as JSON values, made once for all its items (pydantic's JSON dump and a parse cost a
    # fifth of model_dump(mode="json")); the rows share it, nothing changes it.
    dumped = json.loads(task.model_dump_json())
    names = (load_domain(task.domain).env_id, task_environment(task, augment))  # the same for every item
    rows = [_rl_item(task, dumped, f"{task.id}-rl", prompt, tools, composite.spec(), preset, "episode", None,
                      augment, names)]
    if next_actions and first:
        tool_steps = [i for i, m in enumerate(first) if m.get("role") == "assistant" and m.get("tool_calls")]
        if len(tool_steps) >= 2:  # a multi-step chat: each tool step is an item
            # The system text with the tools is made once and shared: each item's prompt is a prefix of
            # the whole chat's (a system message added, if it had none, shifts the prefix by one)
            shown = with_tools_prompt(first, tools)
            added = len(shown) - len(first)
            for number, index in enumerate(tool_steps):
                rows.append(
                    _rl_item(
                        task,
                        dumped,
                        f"{task.id}-na{number}",
                        shown[: index + added],
                        tools,
                        {"type": "next_action", "check": "tool_calls"},
                        "next_action",
                        "next_action",
                        first[index],
                        augment,
                        names,
                    )
                )
    return rows


def selected(task: Task, episode: dict[str, Any], config: JobConfig) -> bool:
    """Whether a chat may be trained on: it passed, scored at least `selection.min_score`, repeated no call,
    and made no failed call (unless `selection.allow_recovery`: a failed call the agent then corrected)."""
    verification = episode["verification"]
    if not verification["passed"] or verification["score"] < config.selection.min_score:
        return False
    messages = episode["messages"]
    if episode.get("augment") is not None:  # repeats are judged on the real tools
        messages = ToolTransform.from_dict(episode["augment"]).real_messages(messages)
    if repeated_calls(task, messages):
        return False
    return config.selection.allow_recovery or failed_calls(messages) == 0


def rows_for(task: Task, result: dict[str, Any], config: JobConfig) -> dict[str, list[dict[str, Any]]]:
    """Split one task's episodes into the dataset's splits."""
    tools = load_domain(task.domain).schemas(task.tools)
    augment = result["episodes"][0].get("augment") if result["episodes"] else None
    if augment is not None:  # the samples of a task share its transform: the tools its chats were played with
        tools = ToolTransform.from_dict(augment).apply(tools)
    passing, failing, seen = [], [], set()
    for episode in result["episodes"]:
        if not selected(task, episode, config):
            failing.append(episode)
            continue
        if len(result["episodes"]) == 1:  # one sample: nothing to tell apart
            passing.append(episode)
            continue
        key = messages_key(episode["messages"])
        if key not in seen:  # only distinct passing chats
            seen.add(key)
            passing.append(episode)
    if config.keep == "best" and passing:
        passing = [max(passing, key=lambda e: (e["verification"]["score"], -e["sample"]))]
    split = "no_tool" if task.kind in NO_TOOL_KINDS else "sft"
    written = passing
    if config.rewrite is not None:  # each passing chat becomes its verified rewrite and/or itself
        from .rewrite import dropped_rewrites, rewritten_episodes

        written = [r for e in passing for r in rewritten_episodes(e, config.rewrite.keep_original, config.rewrite.on_drop)]
        failing = [*failing, *dropped_rewrites(passing)]
    place = config.output.reasoning
    rows: dict[str, list[dict[str, Any]]] = {split: [chat_row(task, e, tools, place) for e in written]}
    if config.output.keep_rejected and failing:
        rows["rejected"] = [chat_row(task, e, tools, place) for e in failing]
    if config.rl_tasks.enabled:
        rows["rl_tasks"] = rl_rows(task, passing, tools, config.rl_tasks.next_action_items, augment)
    return rows
