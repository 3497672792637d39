"""The two roles a rollout needs: a Policy (the teacher) and a UserSimulator.

Both are async so the same rollout runs in a test, a local asyncio loop and inside Ray.
A simulator that needs no I/O may override the `_sync` method instead; the async one calls it.
"""

from __future__ import annotations

from typing import Any

from toolgym.envs.task import Task

Message = dict[str, Any]


class Policy:
    """Writes the next assistant message."""

    name = "policy"
    # True for a policy that writes the gold plan's calls in the real tool names (the oracle): on an
    # augmented tool set, rollout writes its messages in the row's names, as a model would.
    speaks_gold_names = False

    async def act(self, messages: list[Message], tools: list[dict[str, Any]], task: Task | None = None) -> Message:
        return self.act_sync(messages, tools, task)

    def act_sync(self, messages: list[Message], tools: list[dict[str, Any]], task: Task | None = None) -> Message:
        raise NotImplementedError(f"{type(self).__name__} implements neither act nor act_sync")

    def describe(self) -> dict[str, Any]:
        """What a dataset row records about who wrote it."""
        return {"name": self.name}


class UserSimulator:
    """Writes the next user message; the first call (no user message yet) opens the chat.

    A reply may carry `user_tool_calls` (tools with caller="user", such as a phone's
    settings); the env runs them and attaches their results. A reply containing the stop
    marker ends the episode.
    """

    name = "user"

    async def reply(self, messages: list[Message], task: Task) -> Message:
        return self.reply_sync(messages, task)

    def reply_sync(self, messages: list[Message], task: Task) -> Message:
        raise NotImplementedError(f"{type(self).__name__} implements neither reply nor reply_sync")

    @property
    def is_sync(self) -> bool:
        return type(self).reply_sync is not UserSimulator.reply_sync

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}
