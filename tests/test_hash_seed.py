"""Tasks do not depend on Python's per-process string hashing: a Ray worker, a resumed job and the
local executor each run in their own process, and must make the same tasks."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .conftest import builtin_domains

_SCRIPT = """
import hashlib, json, sys
import toolgym
out = {}
for name in sys.argv[1:]:
    tasks = toolgym.load_domain(name).generate_tasks(60, seed=1, size="small")
    out[name] = hashlib.sha256("".join(t.model_dump_json() for t in tasks).encode()).hexdigest()
print(json.dumps(out))
"""


def _digests(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", _SCRIPT, *builtin_domains()], env=env, capture_output=True, text=True, timeout=600, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_domain_makes_the_same_tasks_whatever_the_hash_seed():
    first, second = _digests("1"), _digests("2")
    assert set(first) == set(builtin_domains())
    assert first == second, sorted(name for name in first if first[name] != second[name])
