"""Environment names: a domain and the agent tools a task withholds, as in the `environment` column.

TRL renders one fixed tool list per environment name, so a task offered fewer tools (a
`no_tool/unavailable` task) runs in an environment named after what it withholds:
`retail` offers every agent tool, `retail-without-cancel_pending_order` all but one. A task
played on an augmented tool set runs in an environment named after its transform too:
`retail+aug-3f9a1c2b4d5e` (rebuilt from the row's `augment` column).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.errors import ConfigError

_WITHOUT = "-without-"
_AUGMENTED = "+aug-"


def environment_name(domain: str, withheld: Iterable[str] = (), augment_id: str | None = None) -> str:
    names = sorted(set(withheld))
    return domain + (_WITHOUT + "-".join(names) if names else "") + (_AUGMENTED + augment_id if augment_id else "")


def augment_id_of(augment: Any) -> str | None:
    """The id naming a row's transform in its environment's name (None for real or untouched tools)."""
    if augment is None:
        return None
    from toolgym.envs.augment import ToolTransform

    transform = ToolTransform.from_dict(augment)
    return None if transform.untouched else transform.id


def task_environment(task: Task, augment: Any = None) -> str:
    """The environment a task runs in: its domain, less the agent tools it does not offer, under its transform."""
    offered = set(task.tools)
    withheld = [t.name for t in load_domain(task.domain).agent_tools if t.name not in offered]
    return environment_name(task.domain, withheld, augment_id_of(augment))


def split_augmented(name: str) -> tuple[str, str | None]:
    """An environment name without its transform part, and the transform's id (None if it has none)."""
    base, _, augment_id = name.partition(_AUGMENTED)
    return base, augment_id or None


def parse_environment(name: str) -> tuple[str, tuple[str, ...]]:
    """(domain, withheld tools) from an environment name (its transform part left out); unknown
    domains and tools are refused."""
    name = split_augmented(name)[0]
    domain, _, rest = name.partition(_WITHOUT)
    loaded = load_domain(domain)
    withheld = tuple(rest.split("-")) if rest else ()
    known = {t.name for t in loaded.agent_tools}
    unknown = [t for t in withheld if t not in known]
    if unknown:
        raise ConfigError(
            f"environment {name!r} withholds {unknown}, which are not agent tools of {domain!r}; "
            f"its agent tools are {sorted(known)}"
        )
    return loaded.name, withheld
