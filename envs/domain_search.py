"""Finding a domain package that is on disk but not installed, to say how to install it.

`toolgym new-domain NAME --package DIR` writes a package whose `pyproject.toml` declares the entry
point `toolgym.domains: NAME`; until it is installed, no scan can find the domain. An unknown
domain name is looked for in such files under the working directory (a few levels down), so the
error can say `pip install -e DIR` instead of only listing the known names.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

_DEPTH = 3  # the working directory and three levels below it
_MAX_DIRS = 2_000  # a big tree is searched only this far: the hint is a courtesy, never slow
_SKIP = {"node_modules", "__pycache__", "site-packages", "datasets_out", "build", "dist"}


def install_command(package_dir: Path) -> str:
    return f"pip install -e {package_dir}"


def packages_declaring(name: str, root: Path | None = None) -> list[Path]:
    """Folders under `root` (default: the working directory) whose pyproject.toml declares domain `name`."""
    root = Path.cwd() if root is None else root
    found: list[Path] = []
    visited = 0
    for folder, subfolders, files in os.walk(root):
        visited += 1
        depth = len(Path(folder).relative_to(root).parts)
        subfolders[:] = [] if depth >= _DEPTH or visited > _MAX_DIRS else sorted(
            s for s in subfolders if not s.startswith(".") and s not in _SKIP)
        if "pyproject.toml" in files and name in _declared(Path(folder) / "pyproject.toml"):
            found.append(Path(folder))
    return found


def _declared(path: Path) -> dict[str, str]:
    try:
        project = tomllib.loads(path.read_text()).get("project", {})
    except (OSError, ValueError):
        return {}
    declared = project.get("entry-points", {}).get("toolgym.domains", {})
    return declared if isinstance(declared, dict) else {}


def not_installed_hint(name: str) -> str | None:
    """How to install the package on disk that declares `name`, or None when there is none."""
    found = packages_declaring(name)
    if not found:
        return None
    shown = os.path.relpath(found[0])
    return (f"The package in {shown} declares domain {name!r} but is not installed in this Python: "
            f"run `{install_command(Path(shown))}`, then run this command again")
