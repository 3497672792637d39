"""Which tasks a job runs: counts per domain and kind from the config's mix, deduplicated."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass

from toolgym.config import JobConfig
from toolgym.envs.registry import domains, list_domains, load_domain
from toolgym.envs.task import ACTION_KINDS, NO_TOOL_KINDS, Task
from toolgym.errors import ConfigError

from .evaluation.held_out import HeldOut

_log = logging.getLogger(__name__)


def kind_counts(config: JobConfig, available: list[str]) -> dict[str, int]:
    """Tasks per kind for one domain: explicit counts, or the total split by the no-tool share."""
    if config.mix.kinds is not None:
        return {k: n for k, n in config.mix.kinds.items() if k in available and n > 0}
    total = config.mix.tasks_per_domain
    no_tool = [k for k in NO_TOOL_KINDS if k in available]
    acting = [k for k in ACTION_KINDS if k in available]
    budget = {"no_tool": round(total * config.mix.no_tool_share) if no_tool else 0}
    budget["acting"] = total - budget["no_tool"] if acting else 0
    counts: dict[str, int] = {}
    for group, kinds in (("acting", acting), ("no_tool", no_tool)):
        for index, kind in enumerate(kinds):
            share = budget[group] // len(kinds) + (1 if index < budget[group] % len(kinds) else 0)
            if share:
                counts[kind] = share
    return counts


def selected_domains(config: JobConfig) -> list[str]:
    """The job's domains; with `all`, every domain that builds (a broken one is skipped with a warning)."""
    names = sorted(domains()) if config.domains == "all" else list(config.domains)
    known = list_domains()
    for name in names:
        load_domain(name)  # raises, naming the known domains, for a wrong name
    if not names:
        raise ConfigError(f"no domains selected; known domains: {known}")
    return [load_domain(n).name for n in names]


def asked_counts(config: JobConfig) -> dict[tuple[str, str], int]:
    """Tasks asked for per (domain, kind), before duplicates are dropped; checks the plan's names."""
    asked: dict[tuple[str, str], int] = {}
    for name in selected_domains(config):
        domain = load_domain(name)
        if config.world.size not in domain.sizes:
            raise ConfigError(f"world.size {config.world.size!r} is not a size of {name!r}; sizes: {list(domain.sizes)}")
        asked.update({(name, kind): n for kind, n in kind_counts(config, domain.kinds).items()})
    return asked


def planned_count(config: JobConfig) -> int:
    """How many tasks the job asks for (before duplicates are dropped); checks the plan's names."""
    return sum(asked_counts(config).values())


@dataclass(frozen=True)
class Stream:
    """One world's share of a kind: its tasks are draws 0, 1, ... of (domain, kind, seed, world).

    `share` is what the plan takes from it; up to `cap` draws may be made, the extra ones
    replacing lessons another stream gave first (only with `output.dedup`), tasks of an eval set,
    or, with `mix.difficulty`, tasks of a level whose `quotas` (level, tasks) are full.
    """

    domain: str
    kind: str
    world_seed: int
    size: str
    seed: int
    share: int
    cap: int
    quotas: tuple[tuple[int, int], ...] | None = None


_SEED_STRIDE = 1_000_003  # task seeds of two worlds never meet


def plan_streams(config: JobConfig) -> list[Stream]:
    """The job's streams in plan order: domains, then kinds, then worlds (a kind spread evenly across worlds)."""
    streams = []
    seeds = config.world.all_seeds()
    # a stream draws past its share to replace lessons another world gave, tasks of an eval set, or
    # draws whose generator raised (when the job skips them)
    redraws = config.output.dedup or bool(config.held_out.eval_sets) or config.failures.generator_bugs == "skip"
    for name in selected_domains(config):
        domain = load_domain(name)
        for kind, count in kind_counts(config, domain.kinds).items():
            for index, world_seed in enumerate(seeds):
                share = count // len(seeds) + (1 if index < count % len(seeds) else 0)
                if not share:
                    continue
                # A task's draw depends only on its index, so asking for more keeps the first `share` as they
                # were; the extra draws replace lessons another world gave, and are made only when needed.
                extra = max(10, share) if redraws else 0  # up to twice the share: off-topic pools repeat often
                quotas = None
                if config.mix.difficulty is not None:  # levels are found by drawing: several draws per task wanted
                    quotas = tuple(sorted(level_quotas(config.mix.difficulty, share).items()))
                    extra = share * (_MIX_DRAWS - 1)
                streams.append(Stream(name, kind, world_seed, config.world.size, config.seed + index * _SEED_STRIDE,
                                      share, share + extra, quotas))
    return streams


_MIX_DRAWS = 6  # tasks drawn per task wanted when a difficulty mix is asked for


def level_quotas(shares: dict[int, float], count: int) -> dict[int, int]:
    """`count` split over the levels by their shares (largest remainders get the leftovers)."""
    total = sum(shares.values())
    exact = {level: count * share / total for level, share in shares.items()}
    quotas = {level: int(value) for level, value in exact.items()}
    for level in sorted(exact, key=lambda lv: (quotas[lv] - exact[lv], lv))[: count - sum(quotas.values())]:
        quotas[level] += 1
    return quotas


def task_level(task: Task) -> int:
    return task.difficulty.level if task.difficulty is not None else 1


def nearest_fill(stream: Stream, quotas: dict[int, int], spare: list, level_of) -> Iterator:
    """A level the stream did not reach in its draws is filled with the spare draws nearest to it,
    and a warning says so (`spare`: draws of full levels, in draw order; taken from it)."""
    missing = {level: n for level, n in quotas.items() if n > 0}
    if not missing:
        return
    _log.warning(
        "%s %s (world %s): %s of %s tasks asked at difficulty levels %s were not found in %s draws; "
        "filled with the nearest levels drawn", stream.domain, stream.kind, stream.world_seed, sum(missing.values()),
        stream.share, sorted(missing), stream.cap,
    )
    for level in sorted(missing):
        for _ in range(missing[level]):
            if not spare:
                return
            nearest = min(spare, key=lambda item: abs(level_of(item) - level))
            spare.remove(nearest)
            yield nearest


def iter_planned(config: JobConfig, held_out: HeldOut | None = None) -> Iterator[Task]:
    """Every task of the job in a fixed order, generated in this process as it is consumed.

    With `output.dedup`, a lesson another world already gave (the same request and calls) is
    dropped and that world draws on, a little past its share, so the kind still reaches its count.
    A task of an eval set in `held_out` (default: the config's `held_out` section) is dropped the
    same way, or stops the plan (`held_out.on_overlap: refuse`).
    Jobs make the same tasks on their workers (`generators/worker.py`); this is the reference order.
    """
    seen: set[str] | None = set() if config.output.dedup else None
    if held_out is None:
        held_out = HeldOut.from_config(config.held_out)
    for stream in plan_streams(config):
        domain = load_domain(stream.domain)
        drawn = domain.iter_tasks(stream.cap, seed=stream.seed, kinds=[stream.kind], world_seed=stream.world_seed,
                                  size=stream.size)
        given = 0
        with closing(drawn):  # closes the world copy when the share is reached early
            quotas = dict(stream.quotas) if stream.quotas is not None else None
            spare: list[Task] = []
            for task in drawn:
                if held_out is not None and held_out.excludes(task):  # an eval set's task never trains
                    continue
                key = task.lesson_key()  # the same lesson in other words is dropped
                if seen is not None and key in seen:
                    continue
                if quotas is not None:  # a task of a level with no room left is kept aside
                    level = task_level(task)
                    if quotas.get(level, 0) <= 0:
                        if len(spare) < stream.share:
                            spare.append(task)
                        continue
                    quotas[level] -= 1
                if seen is not None:
                    seen.add(key)
                yield task
                given += 1
                if given == stream.share:
                    break
            if quotas is not None and given < stream.share:
                for task in nearest_fill(stream, quotas, spare, task_level):
                    if seen is not None:
                        seen.add(task.lesson_key())
                    yield task


def plan_tasks(config: JobConfig) -> list[Task]:
    """`iter_planned` as a list."""
    return list(iter_planned(config))
