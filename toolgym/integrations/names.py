"""Environment names: a domain and the agent tools a task withholds, as in the `environment` column.

TRL renders one fixed tool list per environment name, so a task offered fewer tools (a
`no_tool/unavailable` task) runs in an environment named after what it withholds:
`retail` offers every agent tool, `retail-without-cancel_pending_order` all but one.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolgym.envs.registry import load_domain
from toolgym.envs.task import Task
from toolgym.errors import ConfigError

_WITHOUT = "-without-"


def environment_name(domain: str, withheld: Iterable[str] = ()) -> str:
    names = sorted(set(withheld))
    return domain + (_WITHOUT + "-".join(names) if names else "")


def task_environment(task: Task) -> str:
    """The environment a task runs in: its domain, less the agent tools it does not offer."""
    offered = set(task.tools)
    withheld = [t.name for t in load_domain(task.domain).agent_tools if t.name not in offered]
    return environment_name(task.domain, withheld)


def parse_environment(name: str) -> tuple[str, tuple[str, ...]]:
    """(domain, withheld tools) from an environment name; unknown domains and tools are refused."""
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
