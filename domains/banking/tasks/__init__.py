"""Task generators of the banking domain, one per kind."""

from toolgym.envs import irrelevant_task, unavailable_task_from

from .injection import injection
from .kinds import multi_step, multi_turn, parallel, single
from .no_tool import invalid_value, missing_info, policy_refusal

GENERATORS = {
    "single": single,
    "parallel": parallel,
    "multi_step": multi_step,
    "multi_turn": multi_turn,
    "injection": injection,
    "no_tool/irrelevant": irrelevant_task,
    "no_tool/missing_info": missing_info,
    "no_tool/unavailable": unavailable_task_from("multi_step"),
    "no_tool/invalid_value": invalid_value,
    "no_tool/policy_refusal": policy_refusal,
}
