"""serve-policy in the user's role: the real LLMUser client plays telecom tasks through it, phone steps included."""

from __future__ import annotations

import asyncio

from toolgym.config import load_config
from toolgym.generators import load_split, serve_policy
from toolgym.generators.job import run_job_async


async def _job(out, **user):
    running = await serve_policy.start()
    try:
        config = load_config({
            "domains": ["telecom"], "world": {"seed": 0},
            "mix": {"kinds": {"multi_step": 6, "single": 2, "no_tool/missing_info": 2}},
            "user": {"type": "llm", "base_url": running.base_url, "model": "toolgym-user", "send_task": True,
                     "timeout": 5.0, "max_retries": 1, **user},
            "output": {"dir": str(out)}, "failures": {"max_rate": 0.0},
        })
        result = await run_job_async(config)
    finally:
        await running.close()
    return result, running.policy.user


def test_llm_user_answered_by_serve_policy_acts_on_the_phone_and_rows_verify(tmp_path):
    result, user = asyncio.run(_job(tmp_path / "out"))
    assert result["ok"], result
    rows = [*load_split(tmp_path / "out", "sft"), *load_split(tmp_path / "out", "no_tool")]
    assert len(rows) == 10 and user.answered > 0
    assert all(r["verification"]["passed"] and r["user_simulator"]["kind"] == "llm_user" for r in rows)
    acted = [m for r in rows for m in r["messages"] if m["role"] == "user" and m.get("user_tool_calls")]
    assert acted, "telecom multi_step tasks carry phone steps the LLM user must make"
    assert all(len(m["user_tool_results"]) == len(m["user_tool_calls"]) and m["content"] for m in acted)
