"""Teachers, user simulators, rollouts, executors and writers."""

from .base import Policy, UserSimulator
from .oracle import OracleTeacher
from .reading import iter_rows, load_split
from .rollout import rollout, rollout_sync
from .user import ScriptedUser

__all__ = ["OracleTeacher", "Policy", "ScriptedUser", "UserSimulator", "iter_rows", "load_split", "rollout", "rollout_sync"]
