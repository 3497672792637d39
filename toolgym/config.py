"""Job configs: YAML validated by pydantic, with errors that name the key, the value and the fix."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from toolgym.envs.augment.config import AugmentConfig
from toolgym.envs.task import ALL_KINDS
from toolgym.errors import ConfigError
from toolgym.yaml_input import check_size, load_yaml


def _known_kinds(kinds: list[str] | None) -> list[str] | None:
    for kind in kinds or ():
        _check_kind(kind)
    return kinds


KnownKinds = Annotated[list[str] | None, AfterValidator(_known_kinds)]
# Bounds far past any real job, so a slip of the keyboard (99999999999999999999999 tasks) is an
# error naming the key rather than a job that starts and never ends; seeds fit the rows' int64.
MAX_TASKS = 10_000_000  # tasks per domain (and per kind), rows per shard
MAX_SAMPLES = 1_000
MAX_TURNS = 1_000
MAX_IN_FLIGHT = 100_000
MAX_WORKERS = 10_000
MAX_RETRIES = 1_000
Seed = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
_Config = TypeVar("_Config", bound=BaseModel)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class EndpointConfig(_Strict):
    """An OpenAI-compatible server (vLLM, SGLang, llama.cpp, OpenAI, `toolgym serve-policy`)."""

    base_url: str | None = Field(default=None, description="default: $OPENAI_BASE_URL")
    model: str = "default"
    api_key: SecretStr | None = Field(default=None, description="default: $OPENAI_API_KEY; never written anywhere")
    concurrency: int = Field(default=64, ge=1, le=MAX_IN_FLIGHT, description="requests in flight to this endpoint")
    timeout: float = Field(default=60.0, gt=0, le=86_400, description="seconds per request")
    max_retries: int = Field(default=5, ge=0, le=MAX_RETRIES)
    sampling: dict[str, Any] = Field(default_factory=dict, description="temperature, top_p, max_tokens, seed, ...")
    send_task: bool = Field(default=False, description="send the Task JSON in a `toolgym_task` body field (serve-policy only)")
    task_id_via: Literal["header", "metadata", "none"] = Field(
        default="header", description="how requests name their task: X-Toolgym-Task-Id header, request metadata, or not at all"
    )


class TeacherConfig(EndpointConfig):
    name: str = "oracle"
    type: Literal["oracle", "openai"] = "oracle"
    reasoning: bool = Field(default=False, description="oracle: add a short reasoning trace")
    mode: Literal["native", "text"] = Field(default="native", description="openai: tools in the request, or in the prompt")
    domains: list[str] | None = Field(default=None, description="route: only these domains (default: all)")
    kinds: list[str] | None = Field(default=None, description="route: only these task kinds (default: all)")

    @field_validator("kinds")
    @classmethod
    def _known_kinds(cls, kinds: list[str] | None) -> list[str] | None:
        for kind in kinds or ():
            _check_kind(kind)
        return kinds


class UserConfig(EndpointConfig):
    type: Literal["scripted", "llm"] = "scripted"
    max_turns: int = Field(default=20, ge=1, le=MAX_TURNS, description="llm: user turns before it must stop")
    device_tools: bool = Field(default=True, description="llm: offer the user-side tools (a phone) and run its calls")


class RewriteConfig(EndpointConfig):
    """A served model rewrites the user and assistant text of verified chats; calls stay as they were."""

    model: str = Field(default="toolgym-rewrite", description="the rewriting model the server serves")
    roles: list[Literal["user", "assistant"]] = Field(
        default=["user", "assistant"], description="whose text is rewritten"
    )
    kinds: KnownKinds = Field(default=None, description="only chats of these task kinds (default: all)")
    keep_original: bool = Field(
        default=False, description="write the original row beside its verified rewrite (false: the rewrite replaces it)"
    )
    on_drop: Literal["original", "nothing"] = Field(
        default="original", description="when a rewrite fails verification: write the original row, or nothing"
    )
    template: str | None = Field(default=None, description="a Jinja2 prompt file instead of the built-in rewrite.md.j2")

    @field_validator("roles")
    @classmethod
    def _some_roles(cls, roles: list[str]) -> list[str]:
        if not roles:
            raise ValueError("give at least one of 'user', 'assistant', or leave the rewrite section out")
        return roles

    @field_validator("template")
    @classmethod
    def _template_exists(cls, template: str | None) -> str | None:
        if template is not None and not Path(template).is_file():
            raise ValueError(f"rewrite template {template!r} is not a file; give a Jinja2 file or leave it out")
        return template


class ExecutorConfig(_Strict):
    type: Literal["local", "ray"] = "local"
    concurrency: int = Field(default=32, ge=1, le=MAX_IN_FLIGHT, description="episodes in flight per process")
    workers: int = Field(default=2, ge=1, le=MAX_WORKERS, description="ray: rollout actors")
    address: str | None = Field(
        default=None, description="ray: cluster address (ray://host:10001 or host:6379); default starts Ray on this machine"
    )
    runtime_env: dict[str, Any] | None = Field(
        default=None, description="ray: the workers' runtime environment (pip, working_dir, env_vars), as ray.init takes it"
    )
    batch_size: int = Field(default=32, ge=1, le=MAX_IN_FLIGHT, description="ray: tasks per actor call")
    max_restarts: int = Field(default=3, ge=0, le=MAX_RETRIES, description="ray: restarts of a dead actor")
    max_task_retries: int = Field(default=2, ge=0, le=MAX_RETRIES, description="ray: retries of a batch whose actor died")


class MixConfig(_Strict):
    tasks_per_domain: int = Field(default=100, ge=0, le=MAX_TASKS)
    no_tool_share: float = Field(default=0.25, ge=0.0, le=1.0, description="share of no_tool tasks per domain")
    kinds: dict[str, int] | None = Field(default=None, description="explicit tasks per kind per domain (overrides the two above)")
    difficulty: dict[int, float] | None = Field(
        default=None,
        description=(
            "shares of difficulty levels 1-5 within each kind's tasks, such as {1: 0.2, 3: 0.5, 5: 0.3} "
            "(levels left out get none; shares are normalised); a level a kind cannot reach is filled from the nearest"
        ),
    )

    @field_validator("difficulty")
    @classmethod
    def _known_levels(cls, shares: dict[int, float] | None) -> dict[int, float] | None:
        if shares is None:
            return None
        from toolgym.envs.difficulty import LEVELS

        for level, share in shares.items():
            if level not in LEVELS:
                raise ValueError(f"difficulty level {level!r} is not one of {list(LEVELS)}")
            if share < 0:
                raise ValueError(f"the share of difficulty level {level} must be 0 or more, got {share}")
        if sum(shares.values()) <= 0:
            raise ValueError(f"give at least one difficulty level a share above 0, such as {{3: 1.0}}; got {shares}")
        return shares

    @field_validator("kinds")
    @classmethod
    def _known_kinds(cls, kinds: dict[str, int] | None) -> dict[str, int] | None:
        for kind, count in (kinds or {}).items():
            _check_kind(kind)
            if not 0 <= count <= MAX_TASKS:
                raise ValueError(f"count for kind {kind!r} must be between 0 and {MAX_TASKS:,}, got {count}")
        return kinds


class CachesConfig(_Strict):
    """Sizes of the per-process caches: memory stays flat however many episodes run."""

    world_templates: int = Field(default=16, ge=1, le=100_000, description="built worlds (SQLite images) kept per process")
    env_tasks: int = Field(default=1024, ge=1, le=MAX_TASKS, description="tasks an env remembers by id (drawn by seed or passed)")
    world_dir: str | None = Field(
        default=None,
        description="folder of built worlds kept on disk and shared by processes ('off': none); "
        "default $TOOLGYM_WORLD_CACHE, else ~/.cache/toolgym/worlds",
    )


class WorldConfig(_Strict):
    seed: Seed = 0
    seeds: list[Seed] | None = Field(
        default=None, description="several worlds: each kind's tasks are spread evenly across these seeds (overrides seed)"
    )
    size: str = "default"

    @field_validator("seeds")
    @classmethod
    def _distinct_seeds(cls, seeds: list[int] | None) -> list[int] | None:
        if seeds is not None:
            if not seeds:
                raise ValueError("give at least one seed, such as [0, 1, 2], or leave 'seeds' out and use 'seed'")
            if len(set(seeds)) != len(seeds):
                raise ValueError(f"world seeds must be distinct, got {seeds}")
        return seeds

    def all_seeds(self) -> list[int]:
        return list(self.seeds) if self.seeds is not None else [self.seed]


class OutputConfig(_Strict):
    dir: str | None = Field(default=None, description="default: datasets_out/<run_name>")
    shard_rows: int = Field(default=2000, ge=1, le=MAX_TASKS)
    keep_rejected: bool = Field(default=False, description="write failed rollouts to a 'rejected' split")
    dedup: bool = Field(default=True, description="drop tasks whose user turns and gold calls repeat an earlier task")
    reasoning: Literal["field", "think", "drop"] = Field(
        default="field",
        description=(
            "where chat rows keep an assistant turn's reasoning trace: 'field' (`reasoning_content`, for chat templates "
            "that read a reasoning field), 'think' (inside `content` as <think>...</think>, for templates without one, "
            "such as Qwen2.5 and Hermes), 'drop' (not written)"
        ),
    )


class SFTSelectionConfig(_Strict):
    """Which verified chats become SFT / no-tool rows (the rest go to 'rejected' if kept)."""

    min_score: float = Field(default=1.0, ge=0.0, le=1.0, description="lowest verifier score a row may have")
    allow_recovery: bool = Field(
        default=False,
        description="keep chats with a failed tool call that the agent then corrected (recovery data); off: no failed call",
    )


class FailuresConfig(_Strict):
    retry: bool = Field(default=True, description="run tasks that failed (no rows written) again when the job resumes")
    max_attempts: int = Field(default=3, ge=1, le=MAX_RETRIES, description="attempts of a task, over all runs, before its failure is final")
    max_rate: float = Field(default=0.05, ge=0.0, le=1.0,
                            description="share of planned tasks that may end failed before the job exits non-zero")
    generator_bugs: Literal["stop", "skip"] = Field(
        default="stop",
        description="a draw whose task generator raises: stop the job with its error, or skip it (recorded in "
                    "generator_bugs.jsonl, counted against max_rate) and draw another; for long jobs",
    )


class RolloutConfig(_Strict):
    """How episodes are played once a task is made."""

    reuse_gold: bool = Field(
        default=True,
        description="oracle teacher with the scripted user: the episode is the gold chat proven when the task was made "
                    "(the teacher's reasoning added), not a second play of it; served teachers always play",
    )
    reverify: bool = Field(default=False, description="grade each reused gold chat again on a fresh world")


class HeldOutConfig(_Strict):
    """Eval sets a corpus must never contain (`toolgym eval-set`): a task whose id or lesson is in one
    is left out of the plan (its world draws on, and the summary counts it) or stops the job."""

    eval_sets: list[str] = Field(default_factory=list, description="directories written by `toolgym eval-set`")
    on_overlap: Literal["drop", "refuse"] = Field(
        default="drop", description="drop: leave the task out and draw another; refuse: stop the job, naming the task"
    )

    @field_validator("eval_sets")
    @classmethod
    def _eval_sets_exist(cls, paths: list[str]) -> list[str]:
        for path in paths:
            if not (Path(path) / "eval_set.json").is_file():
                raise ValueError(f"{path!r} is not an eval set (no eval_set.json in it); "
                                 "give a directory written by `toolgym eval-set NAME`")
        return paths


class RLTasksConfig(_Strict):
    enabled: bool = True
    next_action_items: bool = Field(default=True, description="one item per tool step of verified multi-step chats")


class JobConfig(_Strict):
    run_name: str = "run"
    seed: Seed = 0
    domains: list[str] | Literal["all"] = "all"
    world: WorldConfig = Field(default_factory=WorldConfig)
    mix: MixConfig = Field(default_factory=MixConfig)
    teachers: list[TeacherConfig] = Field(default_factory=lambda: [TeacherConfig()])
    user: UserConfig = Field(default_factory=UserConfig)
    executor: ExecutorConfig = Field(default_factory=ExecutorConfig)
    samples_per_task: int = Field(default=1, ge=1, le=MAX_SAMPLES)
    keep: Literal["all_distinct", "best"] = Field(default="all_distinct", description="which passing samples of a task to keep")
    max_turns: int = Field(default=30, ge=1, le=MAX_TURNS, description="assistant turns before an episode is truncated")
    rollout: RolloutConfig = Field(default_factory=RolloutConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)
    selection: SFTSelectionConfig = Field(default_factory=SFTSelectionConfig)
    rl_tasks: RLTasksConfig = Field(default_factory=RLTasksConfig)
    failures: FailuresConfig = Field(default_factory=FailuresConfig)
    caches: CachesConfig = Field(default_factory=CachesConfig)
    rewrite: RewriteConfig | None = Field(default=None, description="LLM rewrite of verified chats (off when absent)")
    held_out: HeldOutConfig = Field(default_factory=HeldOutConfig, description="eval sets kept out of the corpus")
    augment: AugmentConfig | None = Field(
        default=None, description="tool-set augmentation per task: renamed tools, description variants, distractors (off when absent)"
    )

    @model_validator(mode="before")
    @classmethod
    def _single_teacher(cls, data: Any) -> Any:
        if isinstance(data, dict) and "teacher" in data:
            if "teachers" in data:
                raise ValueError("give either 'teacher' or 'teachers', not both")
            data = {**data, "teachers": [data["teacher"]]}
            del data["teacher"]
        return data

    @field_validator("teachers")
    @classmethod
    def _distinct_names(cls, teachers: list[TeacherConfig]) -> list[TeacherConfig]:
        if not teachers:
            raise ValueError("at least one teacher is needed")
        names = [t.name for t in teachers]
        if len(set(names)) != len(names):
            raise ValueError(f"teacher names must be distinct, got {names}")
        return teachers

    @model_validator(mode="after")
    def _augment_needs_a_teacher_that_reads_schemas(self) -> JobConfig:
        served_oracle = [t.name for t in self.teachers if t.type == "openai" and t.send_task]
        if self.augment is not None and served_oracle:
            raise ValueError(
                f"teacher {served_oracle[0]!r} sends its task to `toolgym serve-policy`, whose oracle answers in the "
                "real tool names: on an augmented tool set every call it makes would fail. Use the oracle teacher "
                "(type: oracle) or a served model for an augmented job, or leave out `augment`"
            )
        return self

    def output_dir(self) -> Path:
        return Path(self.output.dir or f"datasets_out/{self.run_name}")

    def public_dict(self) -> dict[str, Any]:
        """The config as recorded in a dataset card: secrets removed (keys, credentials inside URLs)."""
        from toolgym.generators.redaction import scrub_value

        data = self.model_dump(mode="json", exclude={"teachers": {"__all__": {"api_key"}}, "user": {"api_key"}, "rewrite": {"api_key"}})
        return scrub_value(data)


def _check_kind(kind: str) -> None:
    if kind not in ALL_KINDS:
        close = difflib.get_close_matches(kind, ALL_KINDS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown task kind {kind!r}{hint} Kinds: {', '.join(ALL_KINDS)}")


def _allowed_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    """The field names allowed at a config location (for 'did you mean')."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return []
        annotation = field.annotation
        for candidate in (annotation, *getattr(annotation, "__args__", ())):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                current = candidate
                break
    return sorted(getattr(current, "model_fields", {}))


def describe_validation_error(exc: ValidationError, source: str, model: type[BaseModel] | None = None) -> str:
    lines = [f"invalid config {source}:"]
    for error in exc.errors():
        loc = tuple(error.get("loc") or ())
        key = ".".join(str(p) for p in loc) or "(top level)"
        if error["type"] == "extra_forbidden":
            allowed = _allowed_keys(model or JobConfig, loc)
            close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
            hint = f" did you mean {close[0]!r}?" if close else ""
            lines.append(f"  - unknown key {key!r}.{hint} Allowed here: {', '.join(allowed)}")
        elif error["type"] == "missing":
            lines.append(f"  - missing key {key!r}: give it in the config or with --set {key}=...")
        else:
            from toolgym.generators.redaction import MASK, is_secret_name, mask_value

            secret = any(is_secret_name(part) for part in loc)
            shown = MASK if secret else _shorten(repr(mask_value(error.get("input"))))
            lines.append(f"  - {key} = {shown}: {error['msg']}")
    return "\n".join(lines)


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _apply_override(data: dict[str, Any], assignment: str) -> None:
    if "=" not in assignment:
        raise ConfigError(f"--set takes key=value (such as executor.type=ray), got {assignment!r}")
    path, raw = assignment.split("=", 1)
    value = load_yaml(raw, f"the value of --set {assignment!r}") if raw else ""
    node: Any = data
    parts = path.strip().split(".")
    if parts[0] == "teacher" and "teacher" not in data and isinstance(data.get("teachers"), list):
        parts[0] = "teachers"  # `teacher` in a file is the one-item form of `teachers`
    if parts[0] == "teachers" and "teacher" in data and "teachers" not in data:
        data["teachers"] = [data.pop("teacher")]
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                where = ".".join(parts[:depth]) or "(top level)"
                raise ConfigError(f"--set {assignment!r}: {where} is a list of {len(node)}; "
                                  f"use an index 0..{len(node) - 1} after it, such as {where}.0.{'.'.join(parts[depth + 1:])}")
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
            continue
        if not isinstance(node, dict):
            raise ConfigError(f"--set {assignment!r}: {'.'.join(parts[:depth])!r} is not a section")
        if last:
            node[part] = value
        else:
            node = node.setdefault(part, {})


def load_config(source: str | Path | dict[str, Any] | None = None, overrides: Sequence[str] = ()) -> JobConfig:
    """Read and validate a job config from a YAML file or a dict, with `key=value` overrides."""
    return load_model(JobConfig, source, overrides)


def load_model(model: type[_Config], source: str | Path | dict[str, Any] | None = None,
               overrides: Sequence[str] = ()) -> _Config:
    """A config of this model (a job, an eval) from a YAML file or a dict, with `key=value` overrides."""
    if source is None:
        data: Any = {}
        name = "(defaults)"
    elif isinstance(source, dict):
        data, name = dict(source), "(dict)"
    else:
        path = Path(source)
        if not path.exists():
            raise ConfigError(f"config file {str(path)!r} does not exist (configs/ holds quickstart.yaml, full.yaml, ...)")
        data = load_yaml(path.read_text(), f"config file {str(path)!r}") or {}
        name = str(path)
    if not isinstance(data, dict):
        raise ConfigError(f"config {name} must be a mapping of keys to values, got {type(data).__name__}")
    for assignment in overrides:
        _apply_override(data, assignment)
    check_size(data, f"config {name}")  # a dict given directly, or --set values that share aliases
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, name, model)) from None
