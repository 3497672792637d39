"""toolgym domains as TRL environments: `GRPOTrainer(environment_factory=environment_class("retail"))`.

An environment class wraps one ToolEnv episode per instance. Its public methods are the
domain's agent tools (signature and docstring built from each tool, so transformers'
`get_json_schema` gives the tool's own schema) plus `send_message_to_user`, the one channel
to the simulated user: TRL's loop has no user turn, so every question, confirmation,
instruction and answer goes through it and the user's reply (with what they did on their
phone) comes back as its result. `reset(**row)` starts the task of an `rl_tasks` row;
`get_reward()` grades the conversation so far with the task's verifier and keeps the whole
verification (`passed`, components) in `last_verification`.

TRL renders one fixed tool list per environment, so a task offered fewer tools runs in an
environment named after what it withholds (the `environment` column of `rl_tasks`);
`environment_classes()` gives the mapping TRL takes for several domains in one run.

Augmented tool sets: `environment_class(domain, augment=transform)` names its tool methods as the
transform offers them (renamed tools and parameters, written descriptions, distractors); the
episode maps every call back to the real tools. Rows of an augmented job carry their transform
(`augment` column) and name its environment (`retail+aug-<id>`);
`environment_classes(rows=dataset)` builds one class per environment the rows name.

Instances and classes pickle: a class is found again by its name in this module, an instance
is rebuilt by replaying its episode (the worlds and the scripted user are deterministic).
Nothing here imports TRL; every call is synchronous and starts no event loop.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from toolgym.envs.augment import ToolTransform
from toolgym.envs.env import ToolEnv
from toolgym.envs.registry import list_domains, load_domain
from toolgym.envs.task import Task
from toolgym.errors import ConfigError
from toolgym.generators.chat_format import USER_CHANNEL
from toolgym.verifiers.rewards import load_task
from toolgym.verifiers.score import Score

from .methods import distractor_methods, tool_method
from .names import augment_id_of, environment_name, parse_environment, split_augmented

_WITHOUT = "__without__"
_AUGMENTED = "__aug_"
_MAX_STEPS = 200  # actions in one episode (each call and each message counts one); TRL bounds its own loop too
_CLASSES: dict[tuple[str, tuple[str, ...], str | None], type] = {}


class ToolgymEnvironment:
    """One episode of a domain's task, driven by a trainer's tool calls (see the module's docstring)."""

    domain: str = ""
    withheld: tuple[str, ...] = ()
    user: Any = None  # a UserSimulator; None: the scripted user
    violation_cap: float | None = None  # the most a conduct violation may score; None: the preset's (0)
    augment: dict[str, Any] | None = None  # the tool transform the methods are named by (None: the real tools)

    def __init__(self) -> None:
        self._env: ToolEnv | None = None
        self._task: Task | None = None
        self._actions: list[dict[str, Any]] = []
        self.last_verification: Score | None = None  # set by get_reward()

    # ---- what TRL calls ----------------------------------------------------------------------
    def reset(self, **row: Any) -> str | None:
        """Start the episode of an `rl_tasks` row (its `task` column); returns the opening if the row has no prompt."""
        task = _row_task(row)
        offered = {t.name for t in load_domain(task.domain).agent_tools if t.name not in self.withheld}
        mine = augment_id_of(self.augment)
        if task.domain != self.domain or set(task.tools) != offered or augment_id_of(row.get("augment")) != mine:
            wanted = row.get("environment") or environment_name(task.domain, _withheld_of(task), augment_id_of(row.get("augment")))
            raise ConfigError(
                f"task {task.id} ({task.domain}, {task.kind}) needs the environment {wanted!r}, but this is "
                f"{environment_name(self.domain, self.withheld, mine)!r}: pass environment_classes(rows=dataset) "
                "(or environment_classes() for rows with no `augment`) to environment_factory and keep the dataset's "
                "`environment` column"
            )
        if self._env is None:
            self._env = ToolEnv(
                self.domain, user=self.user, max_turns=_MAX_STEPS, world_size=task.world_size, violation_cap=self.violation_cap
            )
        observation, _ = self._env.reset(options={"task": task, "augment": self.augment})
        self._task, self._actions, self.last_verification = task, [], None
        if row.get("prompt"):
            return None
        return observation[-1].get("content") or None

    def send_message_to_user(self, message: str) -> str:
        """Send a message to the customer and return their reply.

        Everything meant for the customer goes through this tool: questions, requests to confirm,
        instructions for their device, answers and the closing words.

        Args:
            message: The text the customer reads.
        """
        return self._act({"role": "assistant", "content": str(message)})

    def get_reward(self) -> float:
        """The task's verifier score for the conversation so far (the final one once it has ended).

        The whole verification is kept in `last_verification`: `passed`, and the named components
        behind the score (outcome, multipliers, conduct violations), for a trainer to log.
        """
        self.last_verification = self._require().grade()
        return self.last_verification.value

    # ---- the episode -------------------------------------------------------------------------
    def _require(self) -> ToolEnv:
        if self._env is None or self._env.task is None:
            raise ConfigError("call reset(**row) with an rl_tasks row before using the environment")
        return self._env

    def _call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        call = {"id": f"call_{len(self._actions)}", "type": "function", "function": {"name": name, "arguments": arguments}}
        return self._act({"role": "assistant", "content": None, "tool_calls": [call]})

    def _act(self, action: dict[str, Any]) -> str:
        env = self._require()
        if env.verification is not None:
            return json.dumps({"error": "the conversation has ended: nothing more can be done or said"})
        self._actions.append(action)
        observation, _, terminated, truncated, _ = env.step(action)
        reply = observation[-1].get("content") or ""
        if observation[-1].get("role") == "user" and (terminated or truncated):
            reply = f"{reply}\n(The customer has left the conversation.)".strip()
        return reply

    @property
    def trajectory(self):
        """The episode (messages as the model saw them, end state, verification); on an augmented tool
        set, `.in_real_names()` gives it as the verifier reads it."""
        return self._require().trajectory()

    # ---- pickling: the class by name, the episode by replay ------------------------------------
    def __reduce__(self):
        state = {"task": self._task.model_dump(mode="json") if self._task else None, "actions": self._actions}
        return _restore, (self.domain, self.withheld, self.user, state, self.violation_cap, self.augment)


def _restore(
    domain: str, withheld: tuple[str, ...], user: Any, state: dict[str, Any], violation_cap: float | None = None,
    augment: dict[str, Any] | None = None,
) -> ToolgymEnvironment:
    instance = environment_class(domain, user=user, withheld=withheld, violation_cap=violation_cap, augment=augment)()
    if state["task"] is not None:
        instance.reset(task=state["task"], prompt=True, augment=augment)
        for action in state["actions"]:
            instance._act(action)
    return instance


def _row_task(row: dict[str, Any]) -> Task:
    if row.get("task") is None:
        raise ConfigError(f"reset needs an rl_tasks row with a `task` column (Task JSON); got columns {sorted(row)}")
    return load_task(row["task"])


def _withheld_of(task: Task) -> list[str]:
    return [t.name for t in load_domain(task.domain).agent_tools if t.name not in set(task.tools)]


# ---- classes -----------------------------------------------------------------------------------
def _camel(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in text.replace("-", "_").split("_"))


def _class_name(domain: str, withheld: tuple[str, ...], augment_id: str | None = None) -> str:
    return (f"{_camel(domain)}Environment" + (_WITHOUT + "__".join(withheld) if withheld else "")
            + (_AUGMENTED + augment_id if augment_id else ""))


def _call(self: ToolgymEnvironment, name: str, arguments: dict[str, Any]) -> str:
    return self._call_tool(name, arguments)


def environment_class(
    domain: str, user: Any = "tool", *, withheld: Iterable[str] = (), violation_cap: float | None = None,
    augment: ToolTransform | dict[str, Any] | None = None,
) -> type:
    """A class TRL takes as `environment_factory`: one episode of `domain` per instance.

    `user`: "tool" (the scripted user answers through `send_message_to_user`) or a
    UserSimulator to answer there instead. `withheld`: agent tools this environment does not
    offer (tasks that withhold them run in it; see `environment_classes`). `violation_cap`: the
    most a conduct violation (false claim, write without consent, ...) may score; default 0.
    `augment`: a tool transform (a row's `augment` value): the methods carry its names,
    descriptions and distractors, and the class runs the rows recorded with that transform.
    """
    name = load_domain(domain).name
    withheld_tools = tuple(sorted(set(withheld)))
    parse_environment(environment_name(name, withheld_tools))  # refuses unknown tools
    transform = ToolTransform.from_dict(augment) if augment is not None else None
    if transform is not None and transform.domain != name:
        raise ConfigError(f"the tool transform given is for domain {transform.domain!r}, not {name!r}")
    if transform is not None and transform.untouched:
        transform = None  # an untouched row runs with the real tools
    if isinstance(user, str):
        if user != "tool":
            raise ConfigError(f"user must be 'tool' or a UserSimulator, got {user!r}")
        user = None
    if violation_cap is not None and not 0.0 <= violation_cap <= 1.0:
        raise ConfigError(f"violation_cap must lie in [0, 1], got {violation_cap}")
    augment_id = transform.id if transform is not None else None
    key = (name, withheld_tools, augment_id)
    shared = user is None and violation_cap is None  # such classes are found again by name (pickle)
    if shared and key in _CLASSES:
        return _CLASSES[key]
    class_name = _class_name(name, withheld_tools, augment_id)
    members: dict[str, Any] = {
        "domain": name, "withheld": withheld_tools, "user": user, "violation_cap": violation_cap, "__module__": __name__,
        "augment": transform.to_dict() if transform is not None else None,
    }
    members["__qualname__"] = class_name
    methods = [tool_method(t, class_name, _call, transform) for t in load_domain(name).agent_tools if t.name not in withheld_tools]
    if transform is not None:
        methods += distractor_methods(transform, class_name, _call)
    for method in methods:
        if hasattr(ToolgymEnvironment, method.__name__):
            raise ConfigError(f"domain {name!r} offers a tool named {method.__name__!r}, which the environment itself uses")
        members[method.__name__] = method
    members["__doc__"] = f"The {name!r} domain as a TRL environment" + (
        f", without {', '.join(withheld_tools)}." if withheld_tools else "."
    )
    cls = type(class_name, (ToolgymEnvironment,), members)
    if shared:
        _CLASSES[key] = cls
    return cls


def environment_classes(
    domains: Iterable[str] | None = None,
    *,
    names: Iterable[str] | None = None,
    rows: Iterable[Mapping[str, Any]] | None = None,
    user: Any = "tool",
    violation_cap: float | None = None,
) -> dict[str, type]:
    """{environment name: class} for TRL's dict `environment_factory`, keyed like the `environment` column.

    By default every domain's full tool set and each set with one agent tool withheld (what
    `no_tool/unavailable` tasks offer); pass `names` (such as `set(dataset["environment"])`) to
    get exactly those, or `rows` (an `rl_tasks` dataset, or dicts with its `environment` and
    `augment` columns) for the environments its rows name, augmented tool sets included.
    """
    if rows is not None:
        found: dict[str, type] = {}
        for row in rows:
            name = row["environment"]
            if name not in found:
                domain, withheld = parse_environment(name)
                found[name] = environment_class(domain, user, withheld=withheld, violation_cap=violation_cap,
                                                augment=row.get("augment"))
        return found
    if names is not None:
        names = list(names)
        augmented = [n for n in names if split_augmented(n)[1]]
        if augmented:
            raise ConfigError(
                f"environment {augmented[0]!r} runs an augmented tool set, which is rebuilt from its rows' `augment` "
                "column: pass environment_classes(rows=dataset)"
            )
        parsed = [parse_environment(n) for n in names]
        return {environment_name(d, w): environment_class(d, user, withheld=w, violation_cap=violation_cap) for d, w in parsed}
    found = {}
    for domain in domains if domains is not None else list_domains():
        loaded = load_domain(domain)
        for withheld in [(), *((t.name,) for t in loaded.agent_tools)]:
            found[environment_name(loaded.name, withheld)] = environment_class(
                loaded.name, user, withheld=withheld, violation_cap=violation_cap
            )
    return found


def __getattr__(name: str) -> type:
    """Classes made by `environment_class` are found here by name, so pickle finds them in any process
    (an augmented one in the process that made it: elsewhere its instances pickle with their transform)."""
    made = next((cls for cls in _CLASSES.values() if cls.__name__ == name), None)
    if made is not None:
        return made
    base, _, rest = name.partition(_WITHOUT)
    for domain in list_domains():
        if _class_name(domain, ()) == base:
            return environment_class(domain, withheld=tuple(rest.split("__")) if rest else ())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["USER_CHANNEL", "ToolgymEnvironment", "environment_class", "environment_classes"]
