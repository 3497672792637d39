"""Gymnasium ids: every discovered domain is `toolgym/<Name>-v<version>`, registered without building it."""

from __future__ import annotations

import gymnasium

from .registry import env_ids


def register_all() -> list[str]:
    """Register every domain found or added (idempotent); returns the ids. No domain is built."""
    ids = env_ids()
    for name, env_id in ids.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="toolgym.envs.env:ToolEnv",
                kwargs={"domain": name},
                disable_env_checker=True,
                order_enforce=False,
            )
    return list(ids.values())
