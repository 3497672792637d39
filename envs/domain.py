"""Domain: one simulated world's tables, builder, tools, policy, phrasings and task generators."""

from __future__ import annotations

import datetime as dt
import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlmodel import SQLModel

from toolgym.errors import DomainError, UnknownNameError

from . import world_cache
from .authz import ActingUser, Authorization
from .caches import SIZES, Bounded
from .phrasebook import ENGINE_STRUCTURES, ENGINE_UTTERANCES, Phrasebook, render_file
from .prompt import PROMPT_VARIANTS, draw_variant, reorder_sections, with_tone
from .task import ALL_KINDS, Task
from .tools import Tool
from .world import World, WorldTemplate

if TYPE_CHECKING:
    from .generation import GenContext

BuildWorld = Callable[[int, str], Iterable[Any]]
TaskGenerator = Callable[["GenContext"], Task]


class Domain:
    """Everything of one domain. A domain folder exports one of these as `DOMAIN`."""

    def __init__(
        self,
        *,
        name: str,
        version: int,
        description: str,
        scope: str,
        folder: Path,
        tables: Sequence[type[SQLModel]],
        build_world: BuildWorld,
        tools: Sequence[Tool],
        generators: dict[str, TaskGenerator],
        now: dt.datetime | Callable[[int], dt.datetime],
        sizes: Sequence[str] = ("small", "default"),
        world_seed: int = 0,
        default_size: str = "default",
        policy_values: dict[str, Any] | None = None,
        enforce_ground_truth: bool = True,
        value_words: dict[Any, Sequence[str]] | None = None,
        acting_user: ActingUser | None = None,
        full_text: dict[str, Sequence[str]] | None = None,
        handoff: str | None = None,
        handoff_for_unavailable: bool = False,
    ):
        self.name = name
        self.version = version
        self.description = description
        self.scope = scope  # what the agent helps with, in a few words (used when declining)
        self.folder = Path(folder)
        self.tables = list(tables)
        # Text columns searched with SQLite FTS5 (envs/full_text.py): {"page": ("title", "body")}.
        self.full_text = {table: tuple(columns) for table, columns in (full_text or {}).items()}
        self.build_world = build_world
        # The world's fixed clock: one datetime, or a function of the world seed (so several
        # world seeds give several dates; build_world must count back from the same clock).
        self.clock: Callable[[int], dt.datetime] = now if callable(now) else (lambda _seed: now)
        self.now = self.clock(world_seed)
        self.sizes = tuple(sizes)
        self.world_seed = world_seed
        self.default_size = default_size
        self.policy_values = dict(policy_values or {})  # extra names for policy.md.j2 (limits, windows)
        # Generation plays every task's gold conversation and raises GeneratorBug unless it passes its
        # own verifier (grounded, consent, diagnosis, final answer). Off only while a domain is fixed.
        self.enforce_ground_truth = enforce_ground_truth
        # Words users say for enum values, for every parameter that takes the value (argument
        # provenance, envs/provenance.py): {"fuel_station": ["petrol station", "gas station"]}.
        self.value_words = {str(v): tuple(w) for v, w in (value_words or {}).items()}
        self.tools: dict[str, Tool] = {}
        for t in tools:
            if not isinstance(t, Tool):
                raise DomainError(f"domain {name!r}: {t!r} is not a @tool")
            if t.name in self.tools:
                raise DomainError(f"domain {name!r}: two tools are named {t.name!r}")
            self.tools[t.name] = t
        # Who takes over what the agent cannot do, in the words that follow "pass you to" ("a human
        # agent"); None: nobody (an in-car assistant has no one to call).
        self.handoff = handoff
        # Whether the policy sends what a withheld tool would have done to `handoff`. Most policies
        # list the cases a transfer is for, and a missing tool is not one: then no refusal offers it.
        if handoff_for_unavailable and not handoff:
            raise DomainError(f"domain {name!r}: handoff_for_unavailable=True needs handoff= (who takes over)")
        self.handoff_for_unavailable = handoff_for_unavailable
        # Who the user is and whose record each write acts on (declared, or inferred from names).
        self.authz = Authorization.of(self, acting_user)
        self.generators = dict(generators)
        unknown = set(self.generators) - set(ALL_KINDS)
        if unknown:
            raise DomainError(f"domain {name!r}: generators for unknown kinds {sorted(unknown)}; kinds: {ALL_KINDS}")
        self.policy_path = self.folder / "policy.md.j2"
        if not self.policy_path.exists():
            raise DomainError(f"domain {name!r}: missing {self.policy_path}")
        self._phrasebook: Phrasebook | None = None  # built on first use: loading a domain stays cheap
        self._templates: Bounded[tuple[int, str], WorldTemplate] = Bounded("world_templates")
        # Every prompt variant of every kept world (a policy is 3-5 KB: ~2 MB a world): a job draws
        # variants at random, and a smaller cache re-rendered most of them (~80 µs each).
        self._policies: Bounded[tuple[int, str, int | None], str] = Bounded(
            lambda: (PROMPT_VARIANTS + 1) * SIZES["world_templates"]
        )
        # The policy template rendered, by its names (before a variant's tone line and section order)
        self._rendered: Bounded[tuple[Any, ...], str] = Bounded(lambda: 64 * SIZES["world_templates"])
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<Domain {self.env_id}: {len(self.tools)} tools, {len(self.tables)} tables>"

    @property
    def phrasebook(self) -> Phrasebook:
        """The domain's phrasings with the engine's, read and checked on first use."""
        found = self._phrasebook
        if found is None:
            with self._lock:
                found = self._phrasebook
                if found is None:
                    # the domain's phrasings: utterances.yaml, then any `<topic>.utterances.yaml` beside it (sorted)
                    extra = sorted(self.folder.glob("*.utterances.yaml"))
                    found = self._phrasebook = Phrasebook(
                        ENGINE_UTTERANCES, ENGINE_STRUCTURES, self.folder / "utterances.yaml", *extra
                    )
        return found

    @property
    def env_id(self) -> str:
        from .registry import env_id_for

        return env_id_for(self.name, self.version)

    @property
    def refusal_handoff(self) -> str:
        """Who a refusal may offer to pass the user to: the hand-off when the policy sends withheld
        tools' work there (`handoff_for_unavailable`), else nobody ("")."""
        return (self.handoff or "") if self.handoff_for_unavailable else ""

    @property
    def kinds(self) -> list[str]:
        return [k for k in ALL_KINDS if k in self.generators]

    # ---- tools ---------------------------------------------------------------------------
    def tool(self, name: str) -> Tool:
        try:
            return self.tools[name]
        except KeyError:
            raise UnknownNameError(f"tool of domain {self.name!r}", name, self.tools) from None

    @functools.cached_property
    def write_tools(self) -> frozenset[str]:
        """The names of the tools that change the world (read by the verifiers, spoils and traces)."""
        return frozenset(name for name, t in self.tools.items() if t.writes)

    @property
    def agent_tools(self) -> list[Tool]:
        return [t for t in self.tools.values() if t.caller == "agent"]

    @property
    def user_tools(self) -> list[Tool]:
        return [t for t in self.tools.values() if t.caller == "user"]

    def schemas(self, names: Iterable[str]) -> list[dict[str, Any]]:
        return [self.tool(n).schema for n in names]

    # ---- worlds --------------------------------------------------------------------------
    def template(self, seed: int | None = None, size: str | None = None) -> WorldTemplate:
        """The built world for (seed, size); built (or read from the disk cache, envs/world_cache.py) on
        first use, then kept (the last `caches.world_templates`)."""
        seed = self.world_seed if seed is None else seed
        size = size or self.default_size
        if size not in self.sizes:
            raise UnknownNameError(f"world size of domain {self.name!r}", size, self.sizes)
        key = (seed, size)
        found = self._templates.get(key)
        if found is None:
            with self._lock:
                found = self._templates.get(key)
                if found is None:
                    found = self._templates[key] = world_cache.load_or_build(
                        self, seed, size, lambda: self.build_template(seed, size)
                    )
        return found

    def build_template(self, seed: int, size: str) -> WorldTemplate:
        """The world for (seed, size), built now and not kept (`template` keeps what it builds)."""
        return WorldTemplate.build(
            domain=self.name, seed=seed, size=size, now=self.clock(seed), tables=self.tables,
            rows=self.build_world(seed, size), full_text=self.full_text,
        )

    def new_world(self, task: Task | None = None, *, seed: int | None = None, size: str | None = None) -> World:
        """A fresh episode world: the task's world with its setup applied, or a plain one."""
        if task is not None:
            seed, size = task.world_seed, task.world_size
        world = World(self.template(seed, size))
        if task is not None and task.setup:
            for edit in task.setup:
                info = world.info(edit.table)
                if edit.insert is not None:
                    world.insert(info.model, edit.insert)
                else:
                    world.update(info.model, edit.key if not isinstance(edit.key, list) else tuple(edit.key), **edit.set)
            world.mark_baseline()
        return world

    def policy(self, seed: int | None = None, size: str | None = None, variant: int | None = None) -> str:
        """The agent's policy for a world; with `variant` (a task's seed), one of its prompt variants.

        A variant changes the brand, how the date is written, the tone line and the order of the
        `## ` sections (see envs/prompt.py); the rules are the same words in every variant.
        """
        template = self.template(seed, size)
        folded = None if variant is None else variant % PROMPT_VARIANTS
        key = (template.seed, template.size, folded)
        text = self._policies.get(key)
        if text is None:
            text = self._policies[key] = self._render_policy(template.now, folded)
        return text

    def _render_policy(self, now: dt.datetime, variant: int | None) -> str:
        brands = self.policy_values.get("brands")
        drawn = draw_variant(variant or 0, list(brands) if brands else None, len(self.phrasebook.variants("system_tone")))
        names = drawn.names(now)
        # Many variants share their names (a few brands, date and time formats): rendered once for them
        key = (now, *names.values())
        text = self._rendered.get(key)
        if text is None:
            values = {**self.policy_values, **names, "domain": self, "now": now, "today": now.date()}
            text = self._rendered[key] = render_file(self.policy_path, **values)
        if variant is None:
            return text
        text = with_tone(text, self.phrasebook.render("system_tone", drawn.tone))
        return reorder_sections(text, drawn.order_seed)

    # ---- tasks ---------------------------------------------------------------------------
    def generate_tasks(
        self,
        n: int,
        seed: int = 0,
        kinds: Sequence[str] | None = None,
        *,
        world_seed: int | None = None,
        size: str | None = None,
    ) -> list[Task]:
        """`n` replay-proven tasks, kinds taken in turn; the same arguments give the same tasks."""
        return list(self.iter_tasks(n, seed, kinds, world_seed=world_seed, size=size))

    def iter_tasks(
        self,
        n: int,
        seed: int = 0,
        kinds: Sequence[str] | None = None,
        *,
        world_seed: int | None = None,
        size: str | None = None,
    ) -> Iterator[Task]:
        """`generate_tasks` as a stream: the same tasks, one at a time."""
        from .generation import iter_tasks

        return iter_tasks(self, n, seed, kinds, world_seed=world_seed, size=size)
