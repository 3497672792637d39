"""Packages whose names load on first use (PEP 562), so importing toolgym stays cheap.

    __getattr__ = lazy_names(__name__, {"ToolEnv": ".env", ...})

A name the same as one of the package's submodules (`compose` in toolgym.envs) stays the name:
importing the submodule would otherwise bind the module over it on the package.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import Any


class _LazyPackage(ModuleType):
    _shadowed: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._shadowed and isinstance(value, ModuleType):
            return  # the import system binding a submodule over the exported name of the same spelling
        super().__setattr__(name, value)


def lazy_names(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """The package's `__getattr__`: each name imported from its module (relative to the package) when first asked for."""
    module = sys.modules[package]
    shadowed = frozenset(name for name, source in where.items() if source.lstrip(".") == name)
    module.__class__ = type("LazyPackage", (_LazyPackage,), {"_shadowed": shadowed})

    def __getattr__(name: str) -> Any:
        source = where.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = import_module(source, package)
        value = loaded if name == source.lstrip(".") and not hasattr(loaded, name) else getattr(loaded, name)
        vars(module)[name] = value
        return value

    return __getattr__
