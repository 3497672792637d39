"""Teachers, user simulators, rollouts, executors and writers.

Every name is imported on first use (the engine for the oracle, pyarrow and datasets for the
readers, openai for served teachers), so `import toolgym` and the CLI's start stay light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolgym.lazy import lazy_names

if TYPE_CHECKING:
    from .base import Policy, UserSimulator
    from .http_client import EndpointDown, TeacherError
    from .llm_user import LLMUser
    from .openai_teacher import OpenAITeacher
    from .oracle import OracleTeacher
    from .reading import iter_rows, load_split
    from .rollout import rollout, rollout_sync
    from .usage import usage_scope
    from .user import ScriptedUser

_LAZY = {
    "Policy": ".base",
    "UserSimulator": ".base",
    "OracleTeacher": ".oracle",
    "rollout": ".rollout",
    "rollout_sync": ".rollout",
    "ScriptedUser": ".user",
    "EndpointDown": ".http_client",
    "TeacherError": ".http_client",
    "LLMUser": ".llm_user",
    "OpenAITeacher": ".openai_teacher",
    "usage_scope": ".usage",
    "iter_rows": ".reading",
    "load_split": ".reading",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "EndpointDown",
    "LLMUser",
    "OpenAITeacher",
    "OracleTeacher",
    "Policy",
    "ScriptedUser",
    "TeacherError",
    "UserSimulator",
    "iter_rows",
    "load_split",
    "rollout",
    "rollout_sync",
    "usage_scope",
]
