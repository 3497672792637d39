"""Which tasks a job runs: counts per domain and kind from the config's mix, deduplicated."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import closing

from toolgym.config import JobConfig
from toolgym.envs.registry import list_domains, load_domain
from toolgym.envs.task import ACTION_KINDS, NO_TOOL_KINDS, Task
from toolgym.errors import ConfigError

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
    names = list_domains() if config.domains == "all" else list(config.domains)
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


def iter_planned(config: JobConfig) -> Iterator[Task]:
    """Every task of the job in a fixed order, generated as it is consumed (memory stays flat).

    With `output.dedup`, a lesson another world already gave (the same request and calls) is
    dropped and that world draws on, a little past its share, so the kind still reaches its count.
    """
    seen: set[str] | None = set() if config.output.dedup else None
    for name in selected_domains(config):
        domain = load_domain(name)
        for kind, count in kind_counts(config, domain.kinds).items():
            yield from _across_worlds(domain, kind, count, config, seen)


_SEED_STRIDE = 1_000_003  # task seeds of two worlds never meet


def _across_worlds(domain, kind: str, count: int, config: JobConfig, seen: set[str] | None) -> Iterator[Task]:
    """A kind's tasks spread evenly across the job's world seeds, so no world dominates."""
    seeds = config.world.all_seeds()
    for index, world_seed in enumerate(seeds):
        share = count // len(seeds) + (1 if index < count % len(seeds) else 0)
        if not share:
            continue
        task_seed = config.seed + index * _SEED_STRIDE
        if config.mix.difficulty is not None:
            yield from _by_difficulty(domain, kind, share, config, task_seed, world_seed, seen)
            continue
        # A task's draw depends only on its index, so asking for more keeps the first `share` as they
        # were; the extra draws replace lessons another world gave, and are made only when needed.
        extra = 0 if seen is None else max(10, share)  # up to twice the share: a shared pool (off-topic requests) repeats often
        drawn = domain.iter_tasks(share + extra, seed=task_seed, kinds=[kind], world_seed=world_seed, size=config.world.size)
        given = 0
        with closing(drawn):  # closes the world copy when the share is reached early
            for task in drawn:
                if seen is not None:
                    key = task.lesson_key()  # the same lesson in other words is dropped
                    if key in seen:
                        continue
                    seen.add(key)
                yield task
                given += 1
                if given == share:
                    break


def plan_tasks(config: JobConfig) -> list[Task]:
    """`iter_planned` as a list."""
    return list(iter_planned(config))


_MIX_DRAWS = 6  # tasks drawn per task wanted when a difficulty mix is asked for


def level_quotas(shares: dict[int, float], count: int) -> dict[int, int]:
    """`count` split over the levels by their shares (largest remainders get the leftovers)."""
    total = sum(shares.values())
    exact = {level: count * share / total for level, share in shares.items()}
    quotas = {level: int(value) for level, value in exact.items()}
    for level in sorted(exact, key=lambda lv: (quotas[lv] - exact[lv], lv))[: count - sum(quotas.values())]:
        quotas[level] += 1
    return quotas


def _by_difficulty(domain, kind: str, share: int, config: JobConfig, task_seed: int, world_seed: int, seen: set[str] | None) -> Iterator[Task]:
    """`share` tasks of one world whose levels follow `mix.difficulty`: tasks are drawn (up to
    `_MIX_DRAWS` per task wanted) and kept while their level has room; a level the kind does not reach
    in that many draws is filled with the drawn tasks nearest to it, and a warning says so."""
    assert config.mix.difficulty is not None
    quotas = level_quotas(config.mix.difficulty, share)
    spare: list[Task] = []
    given = 0
    drawn = domain.iter_tasks(share * _MIX_DRAWS, seed=task_seed, kinds=[kind], world_seed=world_seed, size=config.world.size)
    with closing(drawn):
        for task in drawn:
            key = task.lesson_key()
            if seen is not None and key in seen:
                continue
            level = task.difficulty.level if task.difficulty is not None else 1
            if quotas.get(level, 0) <= 0:
                if len(spare) < share:
                    spare.append(task)
                continue
            quotas[level] -= 1
            if seen is not None:
                seen.add(key)
            yield task
            given += 1
            if given == share:
                return
    missing = {level: n for level, n in quotas.items() if n > 0}
    _log.warning(
        "%s %s (world %s): %s of %s tasks asked at difficulty levels %s were not found in %s draws; "
        "filled with the nearest levels drawn", domain.name, kind, world_seed, sum(missing.values()), share,
        sorted(missing), share * _MIX_DRAWS,
    )
    for level in sorted(missing):
        for _ in range(missing[level]):
            if not spare:
                return
            nearest = min(spare, key=lambda t: abs((t.difficulty.level if t.difficulty else 1) - level))
            spare.remove(nearest)
            if seen is not None:
                seen.add(nearest.lesson_key())
            yield nearest
