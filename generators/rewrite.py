"""The rewrite stage: a served model rewrites a verified chat's text in the persona's voice.

    rewrite:                      # in the job config (toolgym.config.RewriteConfig)
      base_url: http://127.0.0.1:8000/v1
      model: Qwen/Qwen3-8B
      keep_original: false        # the verified rewrite replaces the original row

Only the `content` of user and assistant turns is sent and replaced; tool calls, their
arguments, tool results, reasoning and the system prompt are never touched. One request per
chat: the prompt (templates/rewrite.md.j2) lists the texts as JSON, the answer is
`{"texts": [...]}` in the same order. Each rewritten chat is verified again on a fresh world
(`toolgym.verify`: grounding, required outputs, consent, ...) and must pass the job's
selection; otherwise it is dropped and counted under the reason (the first failing check,
`unreadable` for an answer that is not the texts asked for, `unchanged` when nothing changed).

The client is the one OpenAITeacher uses (concurrency, retries, circuit breaker, usage): a
request that fails for good fails the task like a teacher error (no rows written, retried on
resume); an endpoint that is down stops the job.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolgym.config import JobConfig, RewriteConfig
from toolgym.envs.parsing import clean_text
from toolgym.envs.task import Task
from toolgym.verifiers.regrade import verify

from .chat_client import ChatClient
from .chat_format import read_choice, template
from .http_client import TeacherError, public_url
from .rows import selected, with_closer

ROW_SUFFIX = "-rw"  # a rewritten row's id: <task id>-<sample>-rw
TEMPLATE = "rewrite.md.j2"
# the order a failed check is named in when several fail: the facts first, then the conduct
REASON_ORDER = ("grounded", "required_outputs", "consent", "end_state", "tool_calls", "final_answer", "reply_content")


class Rewriter(ChatClient):
    """Rewrites the text of one chat through a served model; the calls stay as they were."""

    role = "rewriter"

    def __init__(self, model: str, *, roles: tuple[str, ...] = ("user", "assistant"), template_path: str | None = None,
                 **client: Any):
        super().__init__(model, **client)
        self.roles = tuple(roles)
        # a path of the user's own is read as a file (relative to the working directory), never as a built-in name
        self.template = template(str(Path(template_path).resolve()) if template_path else TEMPLATE)

    @classmethod
    def from_config(cls, config: RewriteConfig) -> Rewriter:
        return cls(config.model, roles=tuple(config.roles), template_path=config.template, **cls.client_options(config))

    def describe(self) -> dict[str, Any]:
        return {"kind": "openai-rewrite", "roles": list(self.roles), **self._describe()}

    def slots(self, messages: list[dict[str, Any]]) -> list[int]:
        """Indexes of the messages whose text is rewritten: user and assistant turns that say something."""
        return [i for i, m in enumerate(messages)
                if m.get("role") in self.roles and isinstance(m.get("content"), str) and m["content"].strip()]

    def prompt(self, task: Task, texts: list[dict[str, str]]) -> str:
        scenario = task.scenario
        return self.template.render(persona=scenario.persona, goal=scenario.goal, texts=texts, kind=task.kind)

    async def rewrite(self, task: Task, messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """The chat with its texts rewritten, or None when the answer is not the texts asked for.

        Raises TeacherError when the request fails for good (after retries), EndpointDown when
        the endpoint cannot be used at all.
        """
        slots = self.slots(messages)
        texts = [{"role": messages[i]["role"], "text": messages[i]["content"]} for i in slots]
        body = self._body([{"role": "user", "content": self.prompt(task, texts)}], task)
        data = await self._complete(body, task)
        try:
            answer, _finish = read_choice(data)
        except ValueError as exc:
            raise TeacherError(f"rewriter {public_url(self.base_url)}: {exc}", endpoint=public_url(self.base_url)) from None
        rewritten = read_texts(answer.get("content"), len(slots))
        if rewritten is None:
            return None
        out = [dict(m) for m in messages]
        for index, text in zip(slots, rewritten, strict=True):
            out[index]["content"] = text
        return out


def read_texts(content: Any, count: int) -> list[str] | None:
    """The rewritten texts of an answer (`{"texts": [...]}` or a bare list, fenced or not), or None."""
    if not isinstance(content, str):
        return None
    starts = [i for i in (content.find("{"), content.find("[")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    end = content.rfind("}" if content[start] == "{" else "]")
    try:
        value = json.loads(content[start:end + 1])
    except ValueError:
        return None
    texts = value.get("texts") if isinstance(value, dict) else value
    if not isinstance(texts, list) or len(texts) != count:
        return None
    if not all(isinstance(t, str) and t.strip() for t in texts):
        return None
    return [clean_text(t.strip())[0] for t in texts]  # decoded JSON may hold lone surrogates


def drop_reason(verification: dict[str, Any]) -> str:
    """The check a failed rewrite is counted under."""
    components = verification.get("components") or {}
    failed = [name for name, value in components.items() if value < 1.0]
    for name in REASON_ORDER:
        if name in failed:
            return name
    return sorted(failed)[0] if failed else "not_passed"


class RewriteStage:
    """What a job runs after each rollout: rewrite the chats that will be kept, verify, decide."""

    def __init__(self, config: JobConfig, rewriter: Rewriter | None = None):
        if config.rewrite is None:
            raise ValueError("RewriteStage needs a job config with a 'rewrite' section")
        self.job = config
        self.config = config.rewrite
        self.rewriter = rewriter or Rewriter.from_config(config.rewrite)

    def describe(self) -> dict[str, Any]:
        return self.rewriter.describe()

    def wants(self, task: Task, episode: dict[str, Any]) -> bool:
        kinds = self.config.kinds
        return (kinds is None or task.kind in kinds) and selected(task, episode, self.job)

    async def run(self, task: Task, episode: dict[str, Any]) -> None:
        """Rewrite one episode of `task` if it will be kept; the outcome goes in episode["rewrite"]."""
        if not self.wants(task, episode):
            return
        original = with_closer(task, episode["messages"])
        try:
            messages = await self.rewriter.rewrite(task, original)
        except TeacherError as exc:  # the task fails like a teacher error: no rows now, retried on resume
            raise TeacherError(f"rewrite request failed: {exc}", endpoint=exc.endpoint, status=exc.status,
                               attempts=exc.attempts) from None
        usage = self.rewriter.pop_usage(task.id)
        outcome: dict[str, Any] = {"status": "dropped", "usage": usage, "by": self.describe()}
        episode["rewrite"] = outcome
        if messages is None:
            outcome["reason"] = "unreadable"
            return
        if messages == original:
            outcome["reason"] = "unchanged"
            return
        verification = verify(task, messages, augment=episode.get("augment")).to_dict()
        candidate = {**episode, "messages": messages, "verification": verification}
        outcome.update(messages=messages, verification=verification)  # a dropped one may go to 'rejected'
        if not verification["passed"]:
            outcome["reason"] = drop_reason(verification)
        elif not selected(task, candidate, self.job):
            outcome["reason"] = "not_selected"
        else:
            outcome["status"] = "kept"


def _as_rewrite(episode: dict[str, Any], usage: dict[str, int] | None) -> dict[str, Any]:
    outcome = episode["rewrite"]
    return {
        **episode,
        "messages": outcome["messages"],
        "verification": outcome["verification"],
        "teacher": {**episode["teacher"], "rewritten_by": outcome.get("by")},
        "usage": usage,
        "id_suffix": ROW_SUFFIX,
    }


def rewritten_episodes(episode: dict[str, Any], keep_original: bool, on_drop: str) -> list[dict[str, Any]]:
    """The episodes a passing episode becomes in the dataset: its rewrite and/or itself.

    A rewrite that replaces its original carries the tokens of both (teacher and rewriter); one
    written beside it, only the rewriter's, so the card's totals count every call once.
    """
    outcome = episode.get("rewrite")
    if outcome is None:
        return [episode]
    if outcome["status"] != "kept":
        return [episode] if keep_original or on_drop == "original" else []
    if keep_original:
        return [episode, _as_rewrite(episode, outcome.get("usage"))]
    return [_as_rewrite(episode, _summed(episode.get("usage"), outcome.get("usage")))]


def dropped_rewrites(episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rewrites that were verified and dropped, as episodes for the 'rejected' split (output.keep_rejected)."""
    return [_as_rewrite(e, e["rewrite"].get("usage")) for e in episodes
            if (e.get("rewrite") or {}).get("status") == "dropped" and "verification" in e["rewrite"]]


def _summed(first: dict[str, int] | None, second: dict[str, int] | None) -> dict[str, int] | None:
    if first is None or second is None:
        return first or second
    return {key: first.get(key, 0) + second.get(key, 0) for key in first.keys() | second.keys()}


def rewrite_counts(result: dict[str, Any]) -> dict[str, Any]:
    """Counts of one task's rewrites for the job summary and the card: rewritten, kept, dropped by reason."""
    counts: dict[str, Any] = {}
    for episode in result.get("episodes", ()):
        outcome = episode.get("rewrite")
        if outcome is None:
            continue
        counts["rewritten"] = counts.get("rewritten", 0) + 1
        if outcome["status"] == "kept":
            counts["kept"] = counts.get("kept", 0) + 1
        else:
            dropped = counts.setdefault("dropped", {})
            dropped[outcome["reason"]] = dropped.get(outcome["reason"], 0) + 1
    return counts
