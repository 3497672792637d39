"""Teachers, user simulators, rollouts, executors and writers.

Names that need heavy packages (pyarrow and datasets for the readers, openai for served
teachers) are imported on first use, so `import toolgym` stays light for env users.
"""

from importlib import import_module
from typing import Any

from .base import Policy, UserSimulator
from .oracle import OracleTeacher
from .rollout import rollout, rollout_sync
from .user import ScriptedUser

_LAZY = {
    "EndpointDown": ".http_client",
    "TeacherError": ".http_client",
    "LLMUser": ".llm_user",
    "OpenAITeacher": ".openai_teacher",
    "usage_scope": ".usage",
    "iter_rows": ".reading",
    "load_split": ".reading",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
