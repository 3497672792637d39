"""Building the teachers and the user simulator a config names, and routing tasks to teachers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolgym.config import JobConfig, TeacherConfig, UserConfig
from toolgym.envs.augment import AugmentConfig
from toolgym.envs.task import Task
from toolgym.errors import ConfigError

from .base import Policy, UserSimulator
from .oracle import OracleTeacher
from .user import ScriptedUser

if TYPE_CHECKING:
    from .rewrite import RewriteStage


def make_teacher(config: TeacherConfig) -> Policy:
    if config.type == "oracle":
        return OracleTeacher(reasoning=config.reasoning)
    from .openai_teacher import OpenAITeacher

    return OpenAITeacher.from_config(config)


def make_user(config: UserConfig) -> UserSimulator:
    if config.type == "scripted":
        return ScriptedUser()
    from .llm_user import LLMUser

    return LLMUser.from_config(config)


@dataclass
class Roles:
    """The policies of a job and the rule that picks one per task."""

    teachers: list[tuple[TeacherConfig, Policy]]
    user: UserSimulator
    rewriter: RewriteStage | None = None  # the job's rewrite stage, when its config has one
    reuse_gold: bool = False  # the oracle with the scripted user copies the proven gold chat (episodes.gold_copy)
    reverify: bool = False  # and grades that copy again
    augment: AugmentConfig | None = None  # the job's tool-set augmentation: each task's transform is drawn from it

    @classmethod
    def from_config(cls, config: JobConfig) -> Roles:
        rewriter = None
        if config.rewrite is not None:
            from .rewrite import RewriteStage

            rewriter = RewriteStage(config)
        return cls([(t, make_teacher(t)) for t in config.teachers], make_user(config.user), rewriter,
                   reuse_gold=config.rollout.reuse_gold, reverify=config.rollout.reverify, augment=config.augment)

    def teacher_for(self, task: Task) -> tuple[str, Policy]:
        """The first teacher whose routes (domains, kinds) admit the task."""
        for config, policy in self.teachers:
            if (config.domains is None or task.domain in config.domains) and (
                config.kinds is None or task.kind in config.kinds
            ):
                return config.name, policy
        routes = [(c.name, c.domains, c.kinds) for c, _ in self.teachers]
        raise ConfigError(f"no teacher routes domain {task.domain!r} kind {task.kind!r}; routes: {routes}")
