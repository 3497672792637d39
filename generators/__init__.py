"""Teachers, user simulators, rollouts, executors and writers."""

from .base import Policy, UserSimulator
from .http_client import EndpointDown, TeacherError
from .llm_user import LLMUser
from .openai_teacher import OpenAITeacher
from .oracle import OracleTeacher
from .reading import iter_rows, load_split
from .rollout import rollout, rollout_sync
from .usage import usage_scope
from .user import ScriptedUser

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
