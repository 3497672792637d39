"""Domain discovery: built-ins by package scan, outside domains by entry point."""

from __future__ import annotations

import pytest

import toolgym
from toolgym.envs import registry
from toolgym.errors import UnknownNameError


def test_builtins_are_found_by_scanning():
    assert {"retail", "telecom"} <= set(toolgym.list_domains())
    assert toolgym.load_domain("toolgym/Retail-v0").name == "retail"
    assert toolgym.load_domain("Telecom-v0").name == "telecom"


def test_an_installed_package_adds_a_domain_through_its_entry_point(tmp_path, monkeypatch):
    dist = tmp_path / "toydomain-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toydomain\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[toolgym.domains]\ntoy = tests.toy:DOMAIN\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_found", None)  # scan again, as a new process would (restored after)
    assert "toy" in toolgym.list_domains()
    assert toolgym.make("toolgym/Toy-v0", world_size="small").domain.name == "toy"


def test_unknown_domain_suggests_the_close_name():
    with pytest.raises(UnknownNameError, match="did you mean 'telecom'"):
        toolgym.load_domain("telcom")
