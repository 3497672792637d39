"""Task generators of the telecom domain, one per kind."""

from toolgym.envs import irrelevant_task

from .injection import injection
from .kinds import multi_step, multi_turn, parallel, single
from .missing import missing_info
from .no_tool import invalid_value, policy_refusal, unavailable

GENERATORS = {
    "single": single,
    "parallel": parallel,
    "multi_step": multi_step,
    "multi_turn": multi_turn,
    "injection": injection,
    "no_tool/irrelevant": irrelevant_task,
    "no_tool/missing_info": missing_info,
    "no_tool/unavailable": unavailable,
    "no_tool/invalid_value": invalid_value,
    "no_tool/policy_refusal": policy_refusal,
}
