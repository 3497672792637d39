"""Helpers for job tests: a small config over the toy domain, and a runner for subprocesses."""

from __future__ import annotations

import sys
from pathlib import Path

from toolgym.config import load_config


def toy_config(out: Path, **overrides):
    data = {
        "run_name": "toy",
        "domains": ["toy"],
        "world": {"seed": 0, "size": "default"},
        "mix": {"tasks_per_domain": 40, "no_tool_share": 0.4},
        "executor": {"type": "local", "concurrency": 8},
        "output": {"dir": str(out), "shard_rows": 7, "keep_rejected": True},
    }
    for key, value in overrides.items():
        data[key] = value
    return load_config(data)


if __name__ == "__main__":  # python -m tests.jobs OUT [SLOW]: run the toy job (for kill tests)
    import time

    import toolgym.generators.job as job
    import toolgym.generators.worker as worker
    from tests.toy import DOMAIN
    from toolgym.envs import registry

    registry.add(DOMAIN)
    if len(sys.argv) > 2:  # slow every task down so a kill lands mid-run
        original = worker.rows_for

        def slow_rows(*args, **kwargs):
            time.sleep(float(sys.argv[2]))
            return original(*args, **kwargs)

        worker.rows_for = slow_rows
    job.run_job(toy_config(Path(sys.argv[1])), progress=False)
