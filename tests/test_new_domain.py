"""The walk-through of docs/domains.md: `toolgym new-domain`, install, `toolgym check` passes."""

from __future__ import annotations

import tomllib

import pytest

from tests.conftest import rescan_domains
from toolgym.cli import main
from toolgym.scaffold import ScaffoldError, domain_files, scaffold


def _install(tmp_path, monkeypatch, package_dir):
    """What `pip install DIR` gives: the package importable and its entry point declared."""
    dist = tmp_path / "toolgym_library-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toolgym-library\nVersion: 0.1.0\n")
    project = tomllib.loads((package_dir / "pyproject.toml").read_text())["project"]
    lines = [f"{name} = {target}" for name, target in project["entry-points"]["toolgym.domains"].items()]
    (dist / "entry_points.txt").write_text("[toolgym.domains]\n" + "\n".join(lines) + "\n")
    monkeypatch.syspath_prepend(str(package_dir))
    monkeypatch.syspath_prepend(str(tmp_path))
    rescan_domains(monkeypatch)


def test_a_scaffolded_package_passes_toolgym_check(tmp_path, monkeypatch, capsys):
    package_dir = tmp_path / "toolgym-library"
    assert main(["new-domain", "library", "--package", str(package_dir)]) == 0
    assert (package_dir / "toolgym_library" / "policy.md.j2").exists()
    _install(tmp_path, monkeypatch, package_dir)
    capsys.readouterr()
    code = main(["check", "library", "--tasks-per-kind", "40", "--random-steps", "1000"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "FAIL" not in out and "PASSED" in out
    for kind in ("single", "parallel", "multi_step", "multi_turn", "injection", "no_tool/policy_refusal"):
        assert f"gold [{kind}]" in out


def test_a_built_in_scaffold_writes_every_file(tmp_path):
    folder = scaffold("garden_shop", domains_dir=tmp_path)
    written = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert written == domain_files()
    text = (folder / "tables.py").read_text()
    assert "class GardenShopTable(SQLModel" in text
    assert "{{ today }}" in (folder / "policy.md.j2").read_text()  # the domain's own template syntax survives
    with pytest.raises(ScaffoldError, match="exists already"):
        scaffold("garden_shop", domains_dir=tmp_path)


@pytest.mark.parametrize("bad", ["my-domain", "9lives", "Library", "class", ""])
def test_a_name_that_is_not_an_identifier_is_refused(bad, tmp_path):
    with pytest.raises(ScaffoldError, match="not a valid domain name.*lower-case Python identifier"):
        scaffold(bad, domains_dir=tmp_path)


def test_a_taken_name_is_refused_with_a_message(tmp_path, capsys):
    assert main(["new-domain", "retail", "--package", str(tmp_path / "p")]) == 2
    assert "a domain named 'retail' exists already" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()
