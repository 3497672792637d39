"""Teachers, user simulators, rollouts, executors and writers."""

from .base import Policy, UserSimulator
from .oracle import OracleTeacher
from .rollout import rollout, rollout_sync
from .user import ScriptedUser

__all__ = ["OracleTeacher", "Policy", "ScriptedUser", "UserSimulator", "rollout", "rollout_sync"]
