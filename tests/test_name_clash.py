"""The repository's verifiers/ folder does not shadow the PyPI `verifiers` package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run_at_root(code: str, extra_path: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if extra_path is not None:
        env["PYTHONPATH"] = str(extra_path)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)


def test_import_verifiers_gives_the_installed_package_and_toolgym_verifiers_still_works(tmp_path):
    package = tmp_path / "site" / "verifiers"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('ORIGIN = "pypi"\n')
    (package / "rubrics.py").write_text("WEIGHT = 3\n")
    code = (
        "import verifiers, verifiers.rubrics, toolgym.verifiers as tv\n"
        "print(verifiers.ORIGIN, verifiers.rubrics.WEIGHT, verifiers.__file__)\n"
        "print(tv.verify.__module__, tv.Score.__name__)\n"
    )
    result = _run_at_root(code, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.splitlines()
    assert first.startswith("pypi 3 ") and first.endswith(str(package / "__init__.py"))
    assert second == "toolgym.verifiers.regrade Score"


def test_import_verifiers_never_gives_the_repositorys_folder():
    """Whether or not the PyPI package is installed (the `verifiers` extra installs it), `import verifiers`
    at the repository's root is never toolgym's own folder: it is the package, or a missing module."""
    code = (
        "import pathlib\n"
        "try:\n    import verifiers\n    found = pathlib.Path(verifiers.__file__).resolve()\n"
        f"    print('repo' if found.is_relative_to({str(ROOT / 'verifiers')!r}) else 'package')\n"
        "except ModuleNotFoundError as e:\n    print('missing', e.name)\n"
        "import toolgym.verifiers\nprint(toolgym.verifiers.verify.__name__)\n"
    )
    result = _run_at_root(code)
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.splitlines()
    assert first in ("package", "missing verifiers") and second == "verify", result.stdout
