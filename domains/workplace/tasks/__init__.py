"""Workplace task generators, one per kind (the engine provides irrelevant and unavailable)."""

from __future__ import annotations

from toolgym.envs import irrelevant_task

from .kinds import injection, multi_step, multi_turn, parallel, single, unavailable
from .no_tool import invalid_value, missing_info, policy_refusal

GENERATORS = {
    "single": single,
    "parallel": parallel,
    "multi_step": multi_step,
    "multi_turn": multi_turn,
    "no_tool/irrelevant": irrelevant_task,
    "no_tool/missing_info": missing_info,
    "no_tool/unavailable": unavailable,
    "no_tool/invalid_value": invalid_value,
    "no_tool/policy_refusal": policy_refusal,
    "injection": injection,
}
