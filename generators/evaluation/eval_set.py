"""Frozen eval sets: tasks written once, with everything that made them, and checked every time they are read.

A set is a directory:

- `tasks.jsonl`: one Task JSON per line, in plan order (domain, kind, world);
- `eval_set.json`: the spec that drew them (domains, kinds, world and task seeds, size), each
  domain's version, the toolgym version, counts per domain and kind, and `content_hash`, the
  sha256 of `tasks.jsonl`.

The tasks are drawn by the generation job's own planner (`planning.iter_planned`) from a job config
made of the spec, so the same spec gives the same bytes. Reading a set checks the hash (an edited
task is an error, not a silent change of the benchmark) and that each domain is still at the
version the tasks were made for; `check_eval_set` also replays every gold plan and compares the
end state the task recorded (a world that changed without a version bump).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgym.config import JobConfig, MixConfig, OutputConfig, WorldConfig
from toolgym.envs.task import ALL_KINDS, Task
from toolgym.errors import ConfigError
from toolgym.eval_config import EvalSetSpec
from toolgym.version import __version__

from ..manifest import write_atomic

META_FILE = "eval_set.json"
TASKS_FILE = "tasks.jsonl"
FORMAT = 1


@dataclass(frozen=True)
class EvalSet:
    path: Path
    meta: dict[str, Any]
    tasks: list[Task]

    @property
    def set_id(self) -> str:
        return str(self.meta["set_id"])

    @property
    def content_hash(self) -> str:
        return str(self.meta["content_hash"])


def difficulty_of(task: Task) -> str:
    """The task's own `difficulty` when tasks carry one; else easy / medium / hard from its gold plan.

    The fallback counts what an agent must get right: gold calls (both sides), conversation segments
    after the first, confirmations before writes, and facts the user gives only when asked.
    0-1: easy, 2-4: medium, 5 or more: hard.
    """
    own = getattr(task, "difficulty", None)
    if own is not None:
        return str(own)
    plan = [s for s in task.plan if not s.declined]
    effort = (sum(len(s.calls) for s in plan) + task.segments - 1 + sum(1 for s in task.plan if s.confirm)
              + len(task.scenario.withheld))
    return "easy" if effort <= 1 else "medium" if effort <= 4 else "hard"


def plan_config(spec: EvalSetSpec) -> JobConfig:
    """The generation plan that draws the set: every kind asked, lessons deduplicated, nothing held out."""
    kinds = spec.kinds or list(ALL_KINDS)
    return JobConfig(
        run_name=spec.set_id, seed=spec.seed, domains=spec.domains,
        world=WorldConfig(seeds=list(spec.world_seeds), size=spec.size),
        mix=MixConfig(kinds={kind: spec.tasks_per_kind for kind in kinds}),
        output=OutputConfig(dedup=True),
    )


def build_eval_set(spec: EvalSetSpec, out: Path | None = None) -> EvalSet:
    """Draw the set's tasks and write them; an existing set is kept only if it is the same set, byte for byte."""
    from toolgym.envs.registry import load_domain

    from ..planning import iter_planned

    out = Path(out) if out is not None else spec.default_dir()
    config = plan_config(spec)
    tasks = list(iter_planned(config))
    if not tasks:
        raise ConfigError(f"eval set {spec.set_id}: no task was drawn (domains {spec.domains}, kinds {spec.kinds})")
    body = "".join(task.model_dump_json() + "\n" for task in tasks).encode()
    counts = Counter(f"{t.domain}/{t.kind}" for t in tasks)
    digest = hashlib.sha256(body).hexdigest()
    meta: dict[str, Any] = {
        "format": FORMAT,
        "set_id": spec.set_id,
        "spec": spec.model_dump(mode="json"),
        "toolgym_version": __version__,
        "domains": {t.domain: {"version": t.domain_version, "env_id": load_domain(t.domain).env_id} for t in tasks},
        "tasks": len(tasks),
        "counts": dict(sorted(counts.items())),
        "short": {key: spec.tasks_per_kind - n for key, n in sorted(counts.items()) if n < spec.tasks_per_kind},
        "difficulty": dict(sorted(Counter(difficulty_of(t) for t in tasks).items())),
        "content_hash": digest,
    }
    existing = out / META_FILE
    if existing.exists():
        found = json.loads(existing.read_text())
        if found.get("content_hash") != digest:
            raise ConfigError(
                f"{out} already holds eval set {found.get('set_id')!r} with other tasks (content hash "
                f"{str(found.get('content_hash'))[:12]}, this spec gives {digest[:12]}); an eval set is "
                "never overwritten: bump --version or choose another --out"
            )
        return load_eval_set(out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / TASKS_FILE, body)
    write_atomic(out / META_FILE, (json.dumps(meta, indent=2) + "\n").encode())  # last: a set without it is unfinished
    return EvalSet(out, meta, tasks)


def load_eval_set(path: str | Path, *, check_versions: bool = True) -> EvalSet:
    """Read a set, checking its content hash and (unless asked not to) that its domains are at the recorded versions."""
    from toolgym.envs.registry import load_domain

    path = Path(path)
    meta_path, tasks_path = path / META_FILE, path / TASKS_FILE
    if not meta_path.is_file():
        raise ConfigError(f"{path} is not an eval set (no {META_FILE}); make one with `toolgym eval-set NAME --out {path}`")
    meta = json.loads(meta_path.read_text())
    if meta.get("format") != FORMAT:
        raise ConfigError(f"{meta_path}: format {meta.get('format')!r} is not one this toolgym reads ({FORMAT})")
    body = tasks_path.read_bytes() if tasks_path.is_file() else b""
    digest = hashlib.sha256(body).hexdigest()
    if digest != meta.get("content_hash"):
        raise ConfigError(
            f"{tasks_path} does not match the eval set's content hash (found {digest[:12]}, recorded "
            f"{str(meta.get('content_hash'))[:12]}): the tasks were changed after the set was made. Restore the "
            "file, or make a new set (toolgym eval-set NAME --version N)"
        )
    tasks = [Task.model_validate_json(line) for line in body.decode().splitlines() if line.strip()]
    if check_versions:
        for name, recorded in meta.get("domains", {}).items():
            current = load_domain(name).version
            if current != recorded["version"]:
                raise ConfigError(
                    f"eval set {meta.get('set_id')} was made with {name} v{recorded['version']}; {name} is now "
                    f"v{current}, so its tasks may no longer fit the world or the tools. Make a new set "
                    f"(toolgym eval-set NAME --version N) to evaluate on v{current}"
                )
    return EvalSet(path, meta, tasks)


def check_eval_set(path: str | Path) -> list[str]:
    """Problems of a set beyond its hash and versions: a task id that is not its content's hash, a gold
    plan that no longer replays, or one that ends in another state than the task recorded."""
    from toolgym.envs.registry import load_domain
    from toolgym.envs.replay import replay_plan
    from toolgym.errors import GeneratorBug

    found = load_eval_set(path)
    problems = []
    for task in found.tasks:
        if task.id != task.content_id():
            problems.append(f"task {task.id}: its id is not the hash of its content ({task.content_id()})")
            continue
        try:
            world = replay_plan(load_domain(task.domain), task)
        except GeneratorBug as exc:
            problems.append(f"task {task.id}: {exc}")
            continue
        try:
            if world.state_hash() != task.expected_state_hash:
                problems.append(f"task {task.id} ({task.domain}/{task.kind}): the gold plan now ends in another "
                                "world state than the one recorded; the domain changed without a version bump")
        finally:
            world.close()
    return problems
