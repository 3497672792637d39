"""The named verifiers. Each is a pure function (task, trajectory) -> Score."""

from __future__ import annotations

from collections import Counter
from typing import Any

from toolgym.envs.conversation import is_request, mentions
from toolgym.envs.replay import message_calls
from toolgym.envs.task import Task
from toolgym.envs.trajectory import Trajectory

from .attribution import Attribution
from .authorized import authorized
from .choices import chosen, looked_up
from .citations import cited_sources
from .claims import claims
from .conduct import consent, diagnosis, final_answer, grounded, repeats
from .figure_fields import figure_fields
from .hedges import Hedges
from .matching import (
    arguments_of,
    canonical_call,
    in_order_matches,
    match_calls,
    normalize_text,
    normalize_value,
    output_stated,
    subset_matches,
)
from .provenance import arguments_grounded, requested
from .recital import Recitals
from .replies import reply_content
from .reply_acts import no_echo, reply_acts
from .score import Score, binary, vacuous
from .states import current_states


def agent_calls(trajectory: Trajectory) -> list[tuple[str, dict[str, Any]]]:
    found = trajectory.derived.get("agent_calls")
    if found is None:
        found = trajectory.derived["agent_calls"] = [
            (str(name), arguments_of(args)) for caller, name, args in message_calls(trajectory.messages) if caller == "agent"
        ]
    return found


def gold_calls(task: Task) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, dict(c.arguments)) for c in task.gold_calls("agent")]


def canonical_agent_calls(trajectory: Trajectory) -> list[str]:
    found = trajectory.derived.get("canonical_calls")
    if found is None:
        found = trajectory.derived["canonical_calls"] = [canonical_call(n, a) for n, a in agent_calls(trajectory)]
    return found


def canonical_gold_calls(task: Task, trajectory: Trajectory) -> list[str]:
    key = ("canonical_gold", task.id or task.content_id())  # kept with the trajectory: a Task is frozen and shared
    found = trajectory.derived.get(key)
    if found is None:
        found = trajectory.derived[key] = [canonical_call(n, a) for n, a in gold_calls(task)]
    return found


def agent_text(trajectory: Trajectory) -> str:
    return "\n".join(m.get("content") or "" for m in trajectory.agent_messages)


def end_state(task: Task, trajectory: Trajectory) -> Score:
    """The world ends where the gold plan left it (order-independent content hash).

    Vacuous when the task changes nothing and nothing was changed: leaving a world alone is no work.
    """
    ok = trajectory.state_hash == task.expected_state_hash
    if ok and not task.expected_writes and not trajectory.diff:
        return vacuous()
    return binary(ok, **({} if ok else {"diff": trajectory.diff.to_dict()}))


def required_outputs(task: Task, trajectory: Trajectory) -> Score:
    """Every fact the reply must state appears in the agent's text (a date in any format: "3 May 2019",
    "2019-05-03"), singled out: a message that states it among half or more of the other values of the
    list it came from (every variant's price, for the cheapest) does not count (verifiers/recital.py),
    nor a figure said only beside another record's name ("312-397-4468: 1.89 GB used" for the other
    line's use; verifiers/attribution.py), nor one only offered beside alternatives of its kind
    ("$372.48 (or $173.01 or $468.10)", "on the Travel 20 or Basic 5 plan"; verifiers/hedges.py)."""
    if not task.required_outputs:
        return vacuous()
    said = agent_text(trajectory)
    text = normalize_text(said)
    missing = [o for o in task.required_outputs if not output_stated(o, said, text)]
    recited: list[str] = []
    misattributed: list[str] = []
    hedged_outputs: list[str] = []
    stated = [o for o in task.required_outputs if o not in missing]
    if stated:
        results = [m["content"] for m in trajectory.messages if m.get("role") == "tool" and isinstance(m.get("content"), str)]
        recitals, attribution = Recitals(task.required_outputs, results), Attribution(task.required_outputs, results)
        hedges = Hedges(task.required_outputs, results)
        replies = [m.get("content") or "" for m in trajectory.agent_messages]
        recited = [o for o in stated if o in recitals.siblings
                   and not any(output_stated(o, r) and not recitals.recited(o, r) for r in replies)]
        misattributed = [o for o in stated if o not in recited and o in attribution.names
                         and not any(output_stated(o, r) and not attribution.misattributed(o, r) for r in replies)]
        hedged_outputs = [o for o in stated if o not in recited and o not in misattributed
                          and not any(output_stated(o, r) and not hedges.hedged(o, r) for r in replies)]
    found = len(task.required_outputs) - len(missing) - len(recited) - len(misattributed) - len(hedged_outputs)
    details = {**({"missing": missing} if missing else {}), **({"recited": recited} if recited else {}),
               **({"misattributed": misattributed} if misattributed else {}), **({"hedged": hedged_outputs} if hedged_outputs else {})}
    return Score(found / len(task.required_outputs), not (missing or recited or misattributed or hedged_outputs), details=details)


def tool_calls(task: Task, trajectory: Trajectory) -> Score:
    """Partial credit: tool names, parameter names and values; calls paired regardless of order."""
    if not task.gold_calls("agent") and not agent_calls(trajectory):
        return vacuous()
    credit, parts, _ = match_calls(gold_calls(task), agent_calls(trajectory))
    return Score(credit, credit == 1.0, components=parts)


def exact_set(task: Task, trajectory: Trajectory) -> Score:
    """Binary: the multiset of calls equals the gold multiset."""
    return binary(Counter(canonical_gold_calls(task, trajectory)) == Counter(canonical_agent_calls(trajectory)))


def milestones(task: Task, trajectory: Trajectory) -> Score:
    """The gold calls reached in order (longest in-order match over the gold count)."""
    gold = canonical_gold_calls(task, trajectory)
    if not gold:
        return vacuous()
    reached = in_order_matches(gold, canonical_agent_calls(trajectory))
    return Score(reached / len(gold), reached == len(gold), details={"reached": reached, "of": len(gold)})


def format_ok(task: Task, trajectory: Trajectory) -> Score:
    """Every assistant message was well formed (raw text: <think> then <tool_call> JSON)."""
    if not trajectory.format_problems:
        return binary(True)
    bad = [p for p in trajectory.format_problems if p]
    value = 1.0 - len(bad) / len(trajectory.format_problems)
    return Score(value, not bad, details={"problems": bad[:5]} if bad else {})


def minefield(task: Task, trajectory: Trajectory) -> Score:
    """0 if any forbidden call was made or any forbidden row changed."""
    calls = agent_calls(trajectory)
    touched = {(e["table"], tuple(e["key"])) for group in trajectory.diff.to_dict().values() for e in group}
    tables = {t for t, _ in touched}
    hit = []
    for declined in task.declined_calls():  # the user said no to these
        if any(n == declined.name and subset_matches(declined.arguments, a) for n, a in calls):
            hit.append(f"{declined.name} was made after the user declined it")
    for rule in task.forbidden:
        if rule.tool and any(n == rule.tool and subset_matches(rule.arguments, a) for n, a in calls):
            hit.append(rule.reason)
        elif rule.table and (
            (rule.key is None and rule.table in tables)
            or (rule.key is not None and (rule.table, tuple(rule.key)) in touched)
        ):
            hit.append(rule.reason)
    return binary(not hit, **({"violated": hit} if hit else {}))


def no_tool(task: Task, trajectory: Trajectory) -> Score:
    """The right behaviour when no call should act: decline, ask, or point out, without acting."""
    spec = task.no_tool
    if spec is None:
        return binary(True)
    calls = agent_calls(trajectory)
    texts = [m.get("content") or "" for m in trajectory.agent_messages]
    said = " ".join(texts)
    problems = []
    if trajectory.diff:
        problems.append("the world was changed")
    if task.kind == "no_tool/irrelevant" and calls:
        problems.append("a tool was called for a request no tool serves")
    if task.kind == "no_tool/unavailable":
        used = [n for n, _ in calls if n in spec.withheld_tools or n not in task.tools]
        if used:
            problems.append(f"called unavailable tool(s) {used}")
    if task.kind == "no_tool/missing_info":
        first_question = next((i for i, m in enumerate(trajectory.agent_messages) if is_request(m.get("content") or "")), None)
        first_call = next((i for i, m in enumerate(trajectory.agent_messages) if m.get("tool_calls")), None)
        gold_reads = len(gold_calls(task))
        if first_question is None or not mentions(said, spec.missing):
            problems.append(f"did not ask for {spec.missing}")
        elif first_call is not None and first_call < first_question and len(calls) > gold_reads:
            problems.append("called tools before asking for the missing information")
    if task.kind == "no_tool/invalid_value":
        bad = {k: normalize_value(v) for k, v in spec.invalid.items()}
        if any(k in a and normalize_value(a[k]) == v for _, a in calls for k, v in bad.items()):
            problems.append("used the invalid value in a call")
    if not said.strip():
        problems.append("the agent never replied in words")
    return binary(not problems, **({"problems": problems} if problems else {}))


CHECKS = {
    "end_state": end_state,
    "required_outputs": required_outputs,
    "tool_calls": tool_calls,
    "exact_set": exact_set,
    "milestones": milestones,
    "format": format_ok,
    "minefield": minefield,
    "no_tool": no_tool,
    "grounded": grounded,
    "consent": consent,
    "diagnosis": diagnosis,
    "final_answer": final_answer,
    "repeats": repeats,
    "reply_content": reply_content,
    "reply_acts": reply_acts,
    "no_echo": no_echo,
    "claims": claims,
    "arguments_grounded": arguments_grounded,
    "requested": requested,
    "authorized": authorized,
    "cited_sources": cited_sources,
    "chosen": chosen,
    "looked_up": looked_up,
    "current_states": current_states,
    "figure_fields": figure_fields,
}
