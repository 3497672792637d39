"""What a domain author trips on: the install step, a broken sibling package, a world that reads the clock.

Packages are written by `toolgym new-domain --package` and installed by pip itself (into a target
folder put on sys.path, without the network), then found through their entry points.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import toolgym
from tests.conftest import rescan_domains
from toolgym.cli import main
from toolgym.envs import registry
from toolgym.errors import DomainError


def _pip_install(package: Path, target: Path) -> None:
    """pip install of the package (the hint's step, into `target` rather than the shared venv)."""
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                           "--no-deps", "--target", str(target), str(package)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def _rescan(monkeypatch, target: Path) -> None:
    monkeypatch.syspath_prepend(str(target))
    rescan_domains(monkeypatch)


def test_the_hint_installs_a_package_that_passes_check_beside_a_broken_sibling(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new-domain", "clinic", "--package", "pkgs/clinic"]) == 0
    out = capsys.readouterr().out
    assert "next: pip install -e pkgs/clinic" in out and "then: toolgym check clinic" in out
    assert main(["check", "clinic"]) == 2  # not installed yet: the error says how
    err = capsys.readouterr().err
    assert "unknown domain 'clinic'" in err and "run `pip install -e pkgs/clinic`" in err, err

    assert main(["new-domain", "dental", "--package", "pkgs/dental"]) == 0
    target = tmp_path / "site"
    _pip_install(tmp_path / "pkgs" / "clinic", target)
    _pip_install(tmp_path / "pkgs" / "dental", target)
    with (target / "toolgym_dental" / "tools.py").open("a") as handle:
        handle.write("\ndef half_edited(:\n")  # a sibling left half-edited
    _rescan(monkeypatch, target)
    assert {"clinic", "dental", "retail"} <= set(toolgym.list_domains())  # found by NAME and VERSION, none built
    with pytest.warns(registry.DomainImportWarning, match=r"skipping domain 'dental'.*SyntaxError.*tools\.py"):
        built = registry.domains()  # what `domains: all` builds: every domain but the broken one
    assert "clinic" in built and "retail" in built and "dental" not in built
    assert "dental" not in toolgym.list_domains()
    with pytest.raises(DomainError, match=r"domain 'dental' cannot be loaded: entry point 'dental'.*SyntaxError.*tools\.py"):
        toolgym.load_domain("dental")

    (target / "toolgym_dental" / "__init__.py").write_text("NAME = 'dental\n")  # a broken declaration
    monkeypatch.delitem(sys.modules, "toolgym_dental")  # imported by the first scan
    _rescan(monkeypatch, target)
    with pytest.warns(registry.DomainImportWarning, match=r"skipping domain 'dental'.*SyntaxError.*__init__\.py"):
        names = toolgym.list_domains()
    assert "clinic" in names and "dental" not in names
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", registry.DomainImportWarning)
        code = main(["check", "clinic", "--tasks-per-kind", "8", "--random-steps", "300"])
    out = capsys.readouterr().out
    assert code == 0 and "PASSED" in out and "FAIL" not in out, out


def test_a_world_that_reads_the_wall_clock_fails_check(tmp_path, monkeypatch, capsys):
    package = tmp_path / "pkgs" / "clocky"
    assert main(["new-domain", "clocky", "--package", str(package)]) == 0
    world = package / "toolgym_clocky" / "world.py"
    text = world.read_text()
    assert 'email=f"{first}.{last}{number}@example.com".lower(),' in text
    # Faker's date_of_birth counts back from today: the world changes from one day to the next
    world.write_text(text.replace('email=f"{first}.{last}{number}@example.com".lower(),',
                                  'email=f"{first}.{last}{fake.date_of_birth().isoformat()}@example.com".lower(),'))
    target = tmp_path / "site"
    _pip_install(package, target)
    _rescan(monkeypatch, target)
    capsys.readouterr()
    assert main(["check", "clocky", "--checks", "determinism"]) == 1
    out = capsys.readouterr().out
    assert "days later holds other rows: it reads the wall clock" in out and "date_of_birth" in out, out


def test_the_guide_documents_every_field_of_the_building_blocks_and_its_config_loads():
    import dataclasses
    import re

    import yaml

    from toolgym.config import load_config
    from toolgym.envs import Fact, Identity, Piece, Step

    guide = (Path(__file__).resolve().parents[1] / "docs" / "domains.md").read_text()
    section = guide.split("### The building blocks, field by field", 1)[1].split("### Recipes", 1)[0]
    for fields in (Fact.model_fields, Step.model_fields, [f.name for f in dataclasses.fields(Identity)],
                   [f.name for f in dataclasses.fields(Piece)]):
        missing = [name for name in fields if f"`{name}`" not in section]
        assert not missing, f"docs/domains.md does not describe {missing}"
    example = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))
    config = load_config({**example, "domains": ["retail"]})  # the example's domain, swapped for a built-in
    assert config.mix.kinds and sum(config.mix.kinds.values()) == 750
