"""The `augment:` section of a job config (also what `ToolEnv(augment=...)` takes)."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from toolgym.errors import ConfigError

from .naming import CONVENTIONS

DEFAULT_NAMES = {"snake": 1.0, "camel": 1.0, "verb_first": 1.0, "object_first": 1.0, "abbreviated": 1.0, "masked": 1.0}


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DistractorConfig(_Section):
    share: float = Field(default=0.5, ge=0.0, le=1.0, description="share of augmented rows offered distractor tools")
    min: int = Field(default=1, ge=1, le=20, description="fewest distractors in a row that has some")
    max: int = Field(default=3, ge=1, le=20, description="most distractors in a row")
    near_miss: float = Field(
        default=0.5, ge=0.0, le=1.0,
        description="chance that a distractor is a near miss of the same domain (else another domain's tool)",
    )

    @model_validator(mode="after")
    def _ordered(self) -> DistractorConfig:
        if self.min > self.max:
            raise ValueError(f"distractors.min ({self.min}) must not exceed distractors.max ({self.max})")
        return self


class AugmentConfig(_Section):
    """How a row's tool set is changed; every draw is seeded by the task and this config."""

    untouched: float = Field(default=0.1, ge=0.0, le=1.0, description="share of rows whose tools are left exactly as they are")
    names: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_NAMES),
        description=f"naming conventions and their weights; known: {', '.join(CONVENTIONS)}",
    )
    paraphrase: float = Field(
        default=0.5, ge=0.0, le=1.0, description="chance that a tool of an augmented row gets a written variant of its description"
    )
    distractors: DistractorConfig = Field(default_factory=DistractorConfig)
    shuffle: bool = Field(default=True, description="shuffle the order of the offered tools")

    @field_validator("names")
    @classmethod
    def _known_conventions(cls, names: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(names) - set(CONVENTIONS))
        if unknown:
            raise ValueError(f"unknown naming convention(s) {unknown}; known: {', '.join(CONVENTIONS)}")
        if any(w < 0 for w in names.values()) or sum(names.values()) <= 0:
            raise ValueError(f"naming weights must be non-negative and not all zero, got {names}")
        return names

    def fingerprint(self) -> str:
        """What seeds every draw together with the task: a changed config draws other transforms."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]


def augment_config(value: AugmentConfig | dict[str, Any] | bool | None) -> AugmentConfig | None:
    """An AugmentConfig from what a caller passes (a config, its dict, True for the defaults, or None)."""
    if value is None or value is False:
        return None
    if value is True:
        return AugmentConfig()
    if isinstance(value, AugmentConfig):
        return value
    try:
        return AugmentConfig.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'augment'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"augment: {problems} (allowed keys: {', '.join(AugmentConfig.model_fields)})") from None
