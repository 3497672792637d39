"""Domain discovery: built-ins by package scan, outside domains by entry point."""

from __future__ import annotations

import pytest

import toolgym
from tests.conftest import rescan_domains
from toolgym.envs import registry
from toolgym.errors import DomainError, UnknownNameError


def test_builtins_are_found_by_scanning():
    assert {"retail", "telecom"} <= set(toolgym.list_domains())
    assert toolgym.load_domain("toolgym/Retail-v1").name == "retail"
    assert toolgym.load_domain("Telecom-v0").name == "telecom"


def _installed(tmp_path, monkeypatch, dist_name: str, entry_point: str) -> None:
    """What `pip install` leaves of a package declaring a domain entry point; then domains are found again."""
    dist = tmp_path / f"{dist_name}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[toolgym.domains]\n{entry_point}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rescan_domains(monkeypatch)


def test_an_installed_package_adds_a_domain_through_its_entry_point(tmp_path, monkeypatch):
    _installed(tmp_path, monkeypatch, "toydomain", "toy = tests.toy:DOMAIN")
    assert "toy" in toolgym.list_domains()
    assert toolgym.make("toolgym/Toy-v0", world_size="small").domain.name == "toy"


def test_unknown_domain_suggests_the_close_name():
    with pytest.raises(UnknownNameError, match="did you mean 'telecom'"):
        toolgym.load_domain("telcom")


def _modules_after(code: str) -> set[str]:
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_toolgym_registers_every_id_and_builds_no_domain():
    loaded = _modules_after(
        "import gymnasium, toolgym\n"
        "assert {'toolgym/Retail-v1', 'toolgym/Workplace-v4'} <= set(gymnasium.registry), 'ids registered'"
    )
    assert "toolgym.domains.retail" in loaded  # found: its NAME and VERSION were read
    assert not {m for m in loaded if m.endswith(".domain") and m.startswith("toolgym.domains.")}
    assert not {"sqlmodel", "jinja2", "pyarrow", "toolgym.envs.env"} & loaded


def test_the_cli_help_loads_no_engine_and_no_server():
    loaded = _modules_after("import sys; sys.argv = ['toolgym', '--help']\nfrom toolgym.cli import build_parser\nbuild_parser()")
    assert not {"sqlmodel", "aiohttp", "toolgym.generators.serve_policy", "toolgym.envs.env"} & loaded


def test_a_domain_is_built_on_first_use_and_must_be_what_its_package_declares(tmp_path, monkeypatch):
    package = tmp_path / "shiftdomain"
    package.mkdir()
    (package / "__init__.py").write_text('NAME = "toy"\nVERSION = 3\n')
    (package / "domain.py").write_text("from tests.toy import DOMAIN\n")  # version 0, not 3
    _installed(tmp_path, monkeypatch, "shiftdomain", "toy = shiftdomain")
    monkeypatch.setattr(registry, "_loaded", {})
    assert "toolgym/Toy-v3" in [entry.env_id for entry in registry.found().values()]
    with pytest.raises(DomainError, match=r"declares 'toy' version 3, but its domain.py builds 'toy' version 0"):
        toolgym.load_domain("toolgym/Toy-v3")


def test_a_rollout_worker_makes_and_finishes_tasks_without_datasets_or_pandas():
    """A Ray worker pays its imports once per process: `datasets` (and pandas) are for the writer and readers only."""
    loaded = _modules_after(
        "import asyncio, tempfile\n"
        "from toolgym.config import load_config\n"
        "from toolgym.generators.executors.ray_executor import encode_outcomes\n"
        "from toolgym.generators.worker import TaskWorker\n"
        "config = load_config({'domains': ['retail'], 'world': {'size': 'small'}, 'mix': {'tasks_per_domain': 10},\n"
        "                      'output': {'dir': tempfile.mkdtemp()}})\n"
        "worker = TaskWorker(config)\n"
        "made = worker.make([(n, 0, 0) for n in range(len(worker.streams))])\n"
        "finished = asyncio.run(worker.finish([o['draw'] for o in made]))\n"
        "assert all(o['rows'] for o in finished), finished\n"
        "encode_outcomes([finished, made])"
    )
    assert "toolgym.generators.worker" in loaded
    assert not {"datasets", "pandas", "datasketch", "scipy"} & loaded


def test_an_env_id_of_another_version_is_refused_naming_the_one_installed():
    """A pinned id names a world, tools and rewards: 'toolgym/Retail-v0' silently loaded v1's."""
    with pytest.raises(UnknownNameError, match=r"version of domain 'retail' 'toolgym/Retail-v0'.*toolgym/Retail-v1"):
        toolgym.load_domain("toolgym/Retail-v0")
    with pytest.raises(UnknownNameError, match="Telecom-v0"):
        toolgym.load_domain("Telecom-v7")
    assert toolgym.load_domain("Telecom-v0").name == "telecom"
