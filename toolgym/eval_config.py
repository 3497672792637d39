"""Configs of evaluation: what an eval set holds (`toolgym eval-set`) and how a model is run on it (`toolgym eval`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from toolgym.config import (
    MAX_SAMPLES,
    MAX_TASKS,
    MAX_TURNS,
    FailuresConfig,
    KnownKinds,
    Seed,
    TeacherConfig,
    UserConfig,
    _Strict,
    load_model,
)

# Far from a generation job's defaults (world seed 0, task seeds 0 + i * 1,000,003), so a job left at
# its defaults does not draw the set's tasks; the held-out check catches the rest (generators/evaluation).
EVAL_WORLD_SEED = 9001
EVAL_TASK_SEED = 7_000_000_001
NAME_CHARACTERS = "letters, digits, '.', '_' and '-'"


class EvalSetSpec(_Strict):
    """What an eval set holds: tasks per kind of each domain, drawn from fixed world and task seeds."""

    name: str = Field(description="the set's name, such as heldout (letters, digits, '.', '_', '-')")
    version: int = Field(default=1, ge=1, le=1_000_000, description="bumped by hand when the set is remade")
    domains: list[str] | Literal["all"] = "all"
    kinds: KnownKinds = Field(default=None, description="only these kinds (default: every kind of each domain)")
    tasks_per_kind: int = Field(default=10, ge=1, le=MAX_TASKS)
    world_seeds: list[Seed] = Field(default_factory=lambda: [EVAL_WORLD_SEED],
                                    description="worlds the tasks are spread over (each kind evenly)")
    seed: Seed = Field(default=EVAL_TASK_SEED, description="the first task seed")
    size: str = "default"

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        if not name or len(name) > 100 or not all(c.isalnum() or c in "._-" for c in name) or name[0] in ".-":
            raise ValueError(f"eval set name {name!r} must be 1-100 of {NAME_CHARACTERS}, not starting with '.' or '-'")
        return name

    @field_validator("world_seeds")
    @classmethod
    def _distinct_seeds(cls, seeds: list[int]) -> list[int]:
        if not seeds or len(set(seeds)) != len(seeds):
            raise ValueError(f"world_seeds must be one or more distinct seeds, got {seeds}")
        return seeds

    @property
    def set_id(self) -> str:
        return f"{self.name}-v{self.version}"

    def default_dir(self) -> Path:
        return Path("datasets_out/eval_sets") / self.set_id


class EvalOutputConfig(_Strict):
    dir: str | None = Field(default=None, description="default: datasets_out/eval/<run_name>")


class EvalConfig(_Strict):
    """One model on one eval set: k trials of every task, each verified, then a report."""

    run_name: str = "eval"
    eval_set: str = Field(description="an eval-set directory written by `toolgym eval-set`")
    trials: int = Field(default=3, ge=1, le=MAX_SAMPLES, description="k: trials per task; pass^k is reported for 1..k")
    policy: TeacherConfig = Field(default_factory=TeacherConfig,
                                  description="the model under test (type: openai); the oracle gives the ceiling")
    user: UserConfig = Field(default_factory=UserConfig)
    concurrency: int = Field(default=16, ge=1, le=100_000, description="tasks in flight (each runs its trials in turn)")
    max_turns: int = Field(default=30, ge=1, le=MAX_TURNS, description="assistant turns before an episode is truncated")
    domains: list[str] | None = Field(default=None, description="only these domains of the set (default: all)")
    kinds: KnownKinds = Field(default=None, description="only these kinds of the set (default: all)")
    output: EvalOutputConfig = Field(default_factory=EvalOutputConfig)
    failures: FailuresConfig = Field(default_factory=FailuresConfig)

    def output_dir(self) -> Path:
        return Path(self.output.dir or f"datasets_out/eval/{self.run_name}")

    def public_dict(self) -> dict[str, Any]:
        """The config as written beside the results: keys left out, credentials in URLs masked."""
        from toolgym.generators.redaction import scrub_value

        return scrub_value(self.model_dump(mode="json", exclude={"policy": {"api_key"}, "user": {"api_key"}}))

    def fingerprint(self) -> dict[str, Any]:
        """What must be the same for a rerun to continue these results: who answers, how, how many times.

        Connection settings (base_url, concurrency, timeouts, retries) and the run name may change between runs.
        """
        connection = {"base_url", "concurrency", "timeout", "max_retries", "api_key", "task_id_via", "send_task"}
        data = self.public_dict()
        return {
            "trials": data["trials"], "max_turns": data["max_turns"], "domains": data["domains"], "kinds": data["kinds"],
            "policy": {k: v for k, v in data["policy"].items() if k not in connection},
            "user": {k: v for k, v in data["user"].items() if k not in connection},
        }

    def policy_label(self) -> str:
        """How reports name the model: the served model's name, or the oracle."""
        if self.policy.type == "openai":
            return self.policy.model
        return "oracle" if self.policy.name == "oracle" else f"oracle ({self.policy.name})"


def load_eval_config(source: str | Path | dict[str, Any] | None, overrides: Sequence[str] = ()) -> EvalConfig:
    """An eval config from a YAML file or a dict, with `key=value` overrides (as `toolgym generate --set`)."""
    return load_model(EvalConfig, source if source is not None else {}, overrides)
