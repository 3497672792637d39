"""Gymnasium ids: every discovered domain is `toolgym/<Name>-v<version>`."""

from __future__ import annotations

import gymnasium

from .registry import domains


def register_all() -> list[str]:
    """Register every domain found (idempotent); returns the ids."""
    ids = []
    for name, domain in domains().items():
        if domain.env_id not in gymnasium.registry:
            gymnasium.register(
                id=domain.env_id,
                entry_point="toolgym.envs.env:ToolEnv",
                kwargs={"domain": name},
                disable_env_checker=True,
                order_enforce=False,
            )
        ids.append(domain.env_id)
    return ids
