"""toolgym: stateful simulated worlds for training small tool-calling models.

The public API is small on purpose:

    toolgym.list_domains(), toolgym.load_domain(name), toolgym.make(name_or_id, **kw),
    Domain.generate_tasks(n, seed, kinds=None), toolgym.OracleTeacher, toolgym.ScriptedUser,
    toolgym.rollout(env, policy, user, task) / toolgym.rollout_sync(...),
    toolgym.verify(task, messages)

Importing it registers the Gymnasium ids (`toolgym/Retail-v1`, ...) without building a domain;
the engine, the domains and their phrasings load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolgym.envs.registration import register_all
from toolgym.envs.registry import list_domains, load_domain

from .errors import ConfigError, DomainError, GeneratorBug, ToolError, ToolgymError
from .lazy import lazy_names
from .version import SCHEMA_VERSION, __version__

if TYPE_CHECKING:
    from toolgym.envs.env import ToolEnv
    from toolgym.envs.task import Task
    from toolgym.generators import OracleTeacher, ScriptedUser, rollout, rollout_sync
    from toolgym.verifiers import Score, verify

_LAZY = {
    "ToolEnv": "toolgym.envs.env",
    "Task": "toolgym.envs.task",
    "OracleTeacher": "toolgym.generators",
    "ScriptedUser": "toolgym.generators",
    "rollout": "toolgym.generators",
    "rollout_sync": "toolgym.generators",
    "Score": "toolgym.verifiers",
    "verify": "toolgym.verifiers",
}


__getattr__ = lazy_names(__name__, _LAZY)


def make(name_or_id: str, **kwargs: Any) -> ToolEnv:
    """A ToolEnv for a domain name ('retail') or env id ('toolgym/Retail-v1')."""
    from toolgym.envs.env import ToolEnv

    return ToolEnv(load_domain(name_or_id), **kwargs)


register_all()

__all__ = [
    "SCHEMA_VERSION",
    "ConfigError",
    "DomainError",
    "GeneratorBug",
    "OracleTeacher",
    "Score",
    "ScriptedUser",
    "Task",
    "ToolEnv",
    "ToolError",
    "ToolgymError",
    "__version__",
    "list_domains",
    "load_domain",
    "make",
    "rollout",
    "rollout_sync",
    "verify",
]
