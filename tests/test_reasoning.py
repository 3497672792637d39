"""The oracle's reasoning traces cite what they rest on and say what they decide, in varied words."""

from __future__ import annotations

from toolgym.envs.gold import _env
from toolgym.generators.oracle import OracleTeacher
from toolgym.generators.user import ScriptedUser


def _played(domain, tasks):
    env = _env(domain)
    env.user = ScriptedUser()
    teacher = OracleTeacher(reasoning=True)
    for task in tasks:
        _, info = env.reset(options={"task": task})
        done = env.verification is not None
        while not done:
            _, _, terminated, truncated, _ = env.step(teacher.act_sync(env.messages, info["tools"], task))
            done = terminated or truncated
        yield task, env.trajectory()


def test_a_call_trace_names_the_tool_and_where_its_arguments_came_from(toy_domain):
    tasks = toy_domain.generate_tasks(40, seed=0, kinds=["single", "multi_turn", "no_tool/irrelevant"], size="small")
    traces, cited = [], 0
    for task, trajectory in _played(toy_domain, tasks):
        assert trajectory.verification.passed
        messages = trajectory.messages
        for index, message in enumerate(messages):
            if message.get("role") != "assistant":
                continue
            trace = message["reasoning_content"]
            traces.append(trace)
            for call in message.get("tool_calls") or ():
                name = call["function"]["name"]
                assert name in trace, trace
                for value in call["function"]["arguments"].values():
                    seen = any(str(value) in (m.get("content") or "") for m in messages[:index] if m.get("role") == "user")
                    if seen and isinstance(value, str) and len(value) >= 3:
                        assert f'the user gave "{value}"' in trace.lower(), trace  # quoted, as said
                        cited += 1
            if task.kind == "no_tool/irrelevant" and not message.get("tool_calls"):
                assert toy_domain.scope in trace or "no call" in trace.lower() or "without one" in trace, trace
    assert cited > 10
    assert len(set(traces)) >= 0.5 * len(traces)
