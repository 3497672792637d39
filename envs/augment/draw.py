"""Drawing a task's ToolTransform from an AugmentConfig, seeded by the task and the config.

The same task and config always draw the same transform, in any process. Distractors come from
the domain's near misses and from other domains' agent tools; another domain's tool is offered
only when none of its words (name, allowed values) appears in what the user asks and it is not
a near twin of one of this domain's tools, so a distractor is never the tool the task needs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

from .config import AugmentConfig
from .naming import Renamer, usable
from .transform import ToolTransform
from .variants import domain_variants

if TYPE_CHECKING:
    from ..domain import Domain
    from ..task import Task

# Words too common in tool names to tell what a tool is about.
_GENERIC = frozenset(
    "get list set find search read check make add update change create cancel to by of the and my details info "
    "status from for between in on new id a an".split()
)
_WORD = re.compile(r"[a-z]+")


def draw_transform(task: Task, config: AugmentConfig, domain: Domain | None = None) -> ToolTransform:
    """The transform of `task`'s row under `config` (the identity for the `untouched` share)."""
    if domain is None:
        from ..registry import load_domain

        domain = load_domain(task.domain)
    seed = f"{task.domain}/{task.kind}/{task.seed}/{config.fingerprint()}"
    rng = random.Random(seed)
    if rng.random() < config.untouched:
        return ToolTransform.identity(domain.name, seed)
    conventions = sorted(config.names)
    convention = rng.choices(conventions, weights=[config.names[c] for c in conventions])[0]
    renamer = Renamer(convention, rng)
    variants = domain_variants(domain)
    picked = _distractors(domain, task, config, rng)

    agent = [t.name for t in domain.agent_tools]
    taken = set(domain.tools)  # a renamed tool never takes the real name of another tool
    names = _unique(renamer, [*agent, *(s["function"]["name"] for _, s in picked)], taken, renamer.tool, 7)
    real_params = [p for t in domain.agent_tools for p in t.params]
    real_params += [p for _, s in picked for p in s["function"]["parameters"]["properties"]]
    params = _unique(renamer, list(dict.fromkeys(real_params)), set(real_params), renamer.param, 5)
    shaped = ToolTransform(domain=domain.name, convention=convention, untouched=False,
                           names={t: names[t] for t in agent}, params=params, seed=seed)

    descriptions = {}
    for name in task.tools:
        written = variants.descriptions.get(name)
        if written and rng.random() < config.paraphrase:
            descriptions[name] = shaped.rename_text(rng.choice(written))
    distractors: list[dict[str, Any]] = [
        {"origin": origin, "schema": _offered_distractor(shaped, schema, names, rng, config)} for origin, schema in picked
    ]
    order = [names[t] for t in task.tools]
    for item in distractors:
        order.insert(rng.randint(0, len(order)), item["schema"]["function"]["name"])
    if config.shuffle:
        rng.shuffle(order)
    return ToolTransform(
        domain=domain.name, convention=convention, untouched=False, names=shaped.names, params=params,
        descriptions=descriptions, distractors=distractors, order=order, shuffled=config.shuffle, seed=seed,
    )


def _unique(renamer: Renamer, reals: list[str], taken: set[str], rename: Any, mask_length: int) -> dict[str, str]:
    """Offered names for `reals`, distinct and callable; none is the real name of another one in `taken`."""

    def candidates(real: str) -> Iterator[str]:  # lazily: a name that fits at once draws nothing more
        yield rename(real)
        yield rename(real, plain=True)
        for _ in range(50):
            yield renamer.masked(mask_length)

    used: set[str] = set()
    out: dict[str, str] = {}
    for real in reals:
        for candidate in candidates(real):
            if usable(candidate) and candidate not in used and (candidate == real or candidate not in taken):
                break
        out[real] = candidate
        used.add(candidate)
    return out


def _offered_distractor(shaped: ToolTransform, schema: dict[str, Any], names: dict[str, str], rng: random.Random,
                        config: AugmentConfig) -> dict[str, Any]:
    function = schema["function"]
    description = function["description"]
    origin_domain = function.get("x-domain")
    if origin_domain is not None:
        written = _variants_of(origin_domain).get(function["name"])
        if written and rng.random() < config.paraphrase:
            description = rng.choice(written)
    parameters = function["parameters"]
    properties = {shaped.offered_param(p): spec for p, spec in parameters["properties"].items()}
    return {
        "type": "function",
        "function": {
            "name": names[function["name"]],
            "description": description,
            "parameters": {**parameters, "properties": properties,
                           "required": [shaped.offered_param(p) for p in parameters.get("required") or ()]},
        },
    }


def _variants_of(domain_name: str) -> dict[str, tuple[str, ...]]:
    from ..registry import load_domain

    return domain_variants(load_domain(domain_name)).descriptions


# ---- choosing distractors ------------------------------------------------------------------------
def _distractors(domain: Domain, task: Task, config: AugmentConfig, rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """(origin, schema in its own domain's names) of the row's distractor tools."""
    plan = config.distractors
    if rng.random() >= plan.share:
        return []
    count = rng.randint(plan.min, plan.max)
    near = [(f"near_miss/{domain.name}/{s['function']['name']}", s) for s in domain_variants(domain).near_misses]
    asked = _request_words(task)
    other = [(origin, schema) for origin, schema, words in _other_tools(domain.name) if not words & asked]
    chosen = []
    for _ in range(count):
        use_near = bool(near) and (rng.random() < plan.near_miss or not other)
        pool = near if use_near else other
        if not pool:
            break
        chosen.append(pool.pop(rng.randrange(len(pool))))
    return chosen


@cache
def _other_tools(domain_name: str) -> tuple[tuple[str, dict[str, Any], frozenset[str]], ...]:
    """Other domains' agent tools that are no near twin of one of this domain's: (origin, schema, words)."""
    from ..registry import list_domains, load_domain

    home = load_domain(domain_name)
    own_words = [_name_words(t.name) for t in home.agent_tools]
    found = []
    for other in list_domains():
        if other == domain_name:
            continue
        for tool in load_domain(other).agent_tools:
            words = _name_words(tool.name)
            if tool.name in home.tools or any(_similar(words, mine) for mine in own_words):
                continue
            schema = tool.schema
            schema = {**schema, "function": {**schema["function"], "x-domain": other}}
            found.append((f"tool/{other}/{tool.name}", schema, words | _value_words(schema)))
    return tuple(sorted(found, key=lambda item: item[0]))


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a | b) and len(a & b) / len(a | b) >= 0.5


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _words(text: str) -> Iterable[str]:
    return (_singular(w) for w in _WORD.findall(text.lower()))


def _name_words(name: str) -> frozenset[str]:
    return frozenset(w for w in _words(name.replace("_", " ")) if w not in _GENERIC)


def _value_words(schema: dict[str, Any]) -> frozenset[str]:
    """Words of the values a tool's parameters allow (a place category 'restaurant' says what it finds)."""
    values = [str(v) for spec in schema["function"]["parameters"].get("properties", {}).values() for v in spec.get("enum") or ()]
    return frozenset(w for v in values for w in _words(v.replace("_", " ")) if w not in _GENERIC)


def _request_words(task: Task) -> frozenset[str]:
    return frozenset(_words(" ".join([*task.scenario.requests, task.scenario.goal])))
