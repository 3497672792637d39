"""Retail task generators, one per kind."""

from __future__ import annotations

from .acting import injection, irrelevant, multi_step, multi_turn, parallel, single
from .asking import invalid_value, missing_info, unavailable
from .refusals import policy_refusal

GENERATORS = {
    "single": single,
    "parallel": parallel,
    "multi_step": multi_step,
    "multi_turn": multi_turn,
    "no_tool/irrelevant": irrelevant,
    "no_tool/missing_info": missing_info,
    "no_tool/unavailable": unavailable,
    "no_tool/invalid_value": invalid_value,
    "no_tool/policy_refusal": policy_refusal,
    "injection": injection,
}
