"""A plain (non-editable) wheel carries every domain's template and policy files."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_SUFFIXES = {".j2", ".yaml", ".jinja"}


def test_wheel_holds_packages_and_template_files(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("toolgym-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = set()
    for folder, package in (("envs", "toolgym/envs"), ("domains", "toolgym/domains"), ("generators", "toolgym/generators"), ("verifiers", "toolgym/verifiers"), ("toolgym", "toolgym")):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and (path.suffix == ".py" or path.suffix in DATA_SUFFIXES) and "__pycache__" not in path.parts:
                expected.add(f"{package}/{path.relative_to(ROOT / folder).as_posix()}")
    missing = sorted(expected - names)
    assert not missing, f"missing from the wheel: {missing[:10]}"
    assert any(n.endswith("domains/retail/policy.md.j2") for n in names) or not (ROOT / "domains/retail").exists()
