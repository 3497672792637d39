"""An optional LLM judge of free-text no-tool replies, through the project's OpenAI path.

Off by default: the rule-based `reply_content` check always runs; a judge is added only on
request, e.g. to grade a served teacher's free wording:

    judge = LLMJudge(model="Qwen/Qwen3-8B", base_url="http://127.0.0.1:8000/v1")
    register_judge(judge)                       # CHECKS["llm_judge"], usable in a Composite
    composite = Composite(weights={**NO_TOOL_PRESET.weights, "llm_judge": 0.2}, required=("llm_judge",))

The judge is asked (templates/judge.md.j2) whether the reply does what the task's kind requires;
its answer must start with YES or NO. An answer that is neither fails the check, with the text in
the details, so a confused judge never pays.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from toolgym.envs.task import Task
from toolgym.envs.trajectory import Trajectory
from toolgym.generators.chat_client import ChatClient
from toolgym.generators.chat_format import read_choice, template

from .checks import CHECKS
from .replies import _var
from .score import Score, binary

_VERDICT = re.compile(r"^\W*(yes|no)\b", re.I)


def requirement(task: Task) -> str:
    """What the reply must do, in words, from the task's spec."""
    spec = task.no_tool
    assert spec is not None
    if task.kind == "no_tool/irrelevant":
        return f"decline and say what the service does ({spec.scope or _var(task, 'scope')})"
    if task.kind == "no_tool/missing_info":
        who = f" about {spec.about}" if spec.about else ""
        return f"ask for the missing {', '.join(spec.missing)}{who}"
    if task.kind == "no_tool/unavailable":
        return f"say that it cannot {spec.action or _var(task, 'action')}"
    if task.kind == "no_tool/invalid_value":
        values = ", ".join(str(v) for v in spec.invalid.values()) or str(_var(task, "value"))
        return f"name the invalid value {values} and say why it is invalid ({spec.problem or _var(task, 'problem')})"
    return f"decline and state the rule: {spec.rule or _var(task, 'rule') or spec.reason}"


class LLMJudge(ChatClient):
    """Asks a served model whether a no-tool reply says what its kind requires."""

    role = "judge"

    def __init__(self, model: str, *, prompt_template: str = "judge.md.j2", **client: Any):
        super().__init__(model, **client)
        self._template = template(prompt_template)

    def prompt(self, task: Task, trajectory: Trajectory) -> str:
        reply = "\n".join(m.get("content") or "" for m in trajectory.agent_messages) or "(no reply)"
        return self._template.render(
            request=task.scenario.requests[0], kind=task.kind, requirement=requirement(task), reply=reply
        ).strip()

    async def ajudge(self, task: Task, trajectory: Trajectory) -> Score:
        if task.no_tool is None:
            return binary(True)
        body = self._body([{"role": "user", "content": self.prompt(task, trajectory)}], None)
        message, _ = read_choice(await self._complete(body))
        answer = (message.get("content") or "").strip()
        verdict = _VERDICT.match(answer)
        if verdict is None:
            return binary(False, judge=f"no YES/NO verdict: {answer[:200]!r}")
        return binary(verdict.group(1).lower() == "yes", judge=answer[:200])

    def __call__(self, task: Task, trajectory: Trajectory) -> Score:
        """The check as verifiers call it (synchronously, from code without a running event loop)."""
        return asyncio.run(self.ajudge(task, trajectory))


def register_judge(judge: LLMJudge, name: str = "llm_judge") -> None:
    """Make the judge a named check, for a Composite that asks for it."""
    CHECKS[name] = judge
