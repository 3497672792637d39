"""toolgym's worlds in `verifiers` (v1: Env / Taskset / Harness) through its own OpenEnv taskset.

verifiers v1 ships `OpenEnvTaskset` and `OpenEnvEnv`: the engine opens a session on an OpenEnv
server, resets it with one set of arguments per task, hands the model each observation (as JSON in
a user turn, beside the action schema) and sends the model's reply back as the action. Pointed at
`toolgym serve-env`, that needs no glue: the reply is the raw assistant text (toolgym's action has
one required field, `message`, so verifiers sends the text as it is and the hermes parser reads its
`<tool_call>` blocks), and the per-step rewards verifiers sums are 0 until the step that ends the
episode, which carries the verifier's score: `openenv_reward` is the task's score.

What this module adds is the taskset's reset list built from toolgym's own task sources, so a run
over an `rl_tasks` split is one call:

    config = openenv_taskset("http://127.0.0.1:8000", load_split("out", "rl_tasks"))
    # vf-eval openenv --env.taskset.base_url http://127.0.0.1:8000 --env.taskset.resets '[...]'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from verifiers.v1.tasksets.openenv import OpenEnvConfig, OpenEnvEnv, OpenEnvEnvConfig

from toolgym.envs.task import Task
from toolgym.errors import ConfigError

TASKSET_ID = "openenv"


def reset_arguments(tasks: Iterable[Task | Mapping[str, Any] | str]) -> list[dict[str, Any]]:
    """One OpenEnv `reset` per task: a Task or an rl_tasks row travels whole (`task=`), a string is a task id
    the server knows (`toolgym serve-env --tasks DIR`). A split's rows of one task (several prompts) reset once."""
    resets: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in _rows(tasks):
        if isinstance(item, Task):
            key, reset = item.id, {"task": item.model_dump(mode="json")}
        elif isinstance(item, str):
            key, reset = item, {"task_id": item}
        elif isinstance(item, Mapping) and item.get("task") is not None:
            key, reset = str(item["task"]), {"task": item["task"]}
        else:
            raise ConfigError(
                f"a verifiers task must be a toolgym Task, an rl_tasks row (with its `task` column) or a task id; "
                f"got {type(item).__name__}{' with columns ' + str(sorted(item)) if isinstance(item, Mapping) else ''}"
            )
        if key not in seen:
            seen.add(key)
            resets.append(reset)
    if not resets:
        raise ConfigError("no tasks given: pass toolgym Tasks, rl_tasks rows or task ids")
    return resets


def _rows(tasks: Any) -> Iterable[Any]:
    """Rows of a Hugging Face `Dataset` (a mapping per row) or the items of any other iterable."""
    if hasattr(tasks, "column_names") and hasattr(tasks, "to_list"):
        return tasks.to_list()
    return tasks


def openenv_taskset(base_url: str, tasks: Iterable[Task | Mapping[str, Any] | str], **options: Any) -> OpenEnvConfig:
    """verifiers' OpenEnv taskset config over a running `toolgym serve-env`, one task per reset."""
    return OpenEnvConfig(id=TASKSET_ID, base_url=base_url, resets=reset_arguments(tasks), **options)


def openenv_env(base_url: str, tasks: Iterable[Task | Mapping[str, Any] | str], **options: Any) -> OpenEnvEnv:
    """verifiers' `OpenEnvEnv` over those tasks: what `vf-eval openenv` builds from the same config."""
    return OpenEnvEnv(OpenEnvEnvConfig(taskset=openenv_taskset(base_url, tasks), **options))


__all__ = ["TASKSET_ID", "openenv_env", "openenv_taskset", "reset_arguments"]
