"""YAML from users (a config file, a `--set` value): plain values only, one-line errors.

PyYAML's safe loader runs nothing, but its errors are several lines with a caret, a tag such as
`!!python/name:...` is reported as a missing constructor, and anchors and aliases (`&a` / `*a`)
let a few lines stand for millions of values that validation would then walk. Here every problem
is one `ConfigError` line naming where it is and what to write instead, and a value that expands
past `MAX_VALUES` is refused before anything reads it.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from toolgym.errors import ConfigError

MAX_VALUES = 100_000  # a job config holds hundreds; this is room for any real one
_TAG = re.compile(r"tag '(?:tag:yaml\.org,2002:)?([^']+)'")


def load_yaml(text: str, where: str) -> Any:
    """The plain value `text` holds; `where` names it in errors ("config file 'job.yaml'", "--set 'x=[1'")."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where} is not valid YAML{_position(exc)}: {_problem(exc)}") from None
    check_size(value, where)
    return value


def _position(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""


def _problem(exc: yaml.YAMLError) -> str:
    problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
    if isinstance(exc, yaml.constructor.ConstructorError):
        tag = _TAG.search(problem)
        shown = ("!!" + tag.group(1) if "yaml.org" in problem else tag.group(1)) if tag else "a tag"
        return (f"{shown} is a YAML tag, and a config holds only plain values (text, numbers, true/false, "
                "lists, mappings); remove the tag, or quote the text")
    context = getattr(exc, "context", None)
    hint = "; quote a value that holds [ ] { } : # or a leading ! & * to pass it as text"
    return f"{context + ': ' if context else ''}{problem}{hint}"


def check_size(value: Any, where: str, limit: int = MAX_VALUES) -> None:
    """Refuse a value of more than `limit` items once aliases are expanded (a self-referring one too)."""
    seen = 0
    stack = [value]
    while stack:
        item = stack.pop()
        seen += 1
        if seen > limit:
            raise ConfigError(
                f"{where} expands to more than {limit:,} values: YAML aliases (*name) repeat the value an anchor "
                "(&name) marks wherever they appear, or refer to themselves; a job config needs far fewer, so "
                "write the values out or remove the aliases"
            )
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
