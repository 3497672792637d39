"""toolgym's worlds as SkyRL environments: `skyrl_gym.make("toolgym", extras=row)` with an `rl_tasks` row.

`ToolgymTextEnv` is a skyrl-gym `BaseTextEnv`. Its extras are the dataset row (SkyRL passes the
row's columns): the task comes from `task` (the `rl_tasks` column) or `extra_info["task"]`.
`init(prompt)` returns the world's own opening, with the task's tools rendered into the system
message (Hermes format), so a row's prompt can never drift from the world it runs in. Each
`step(text)` takes the model's raw text: `<tool_call>` blocks run on the world, text goes to the
simulated user; the observations are the new messages (role and content, as SkyRL's chat takes
them). The reward is 0 until the episode ends, then the verifier's score, with the whole
verification in `metadata["verification"]`.
"""

from __future__ import annotations

from typing import Any

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

from toolgym.errors import ConfigError
from toolgym.generators.chat_format import with_tools_prompt

from .episode import MAX_TURNS, Episode

ENV_ID = "toolgym"


class ToolgymTextEnv(BaseTextEnv):
    """One episode of the task in `extras` (an rl_tasks row); see the module's docstring."""

    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None):
        super().__init__()
        extras = dict(extras or {})
        config = dict(env_config or {})
        task = extras.get("task") or (extras.get("extra_info") or {}).get("task")
        if task is None:
            raise ConfigError(
                f"a toolgym SkyRL env needs the row's `task` column (Task JSON) in its extras; got {sorted(extras)}"
            )
        # SkyRL's generator puts its `generator.max_turns` into the extras: the episode keeps the same budget
        self.max_turns = int(config.get("max_turns") or extras.get("max_turns") or MAX_TURNS)
        self.episode = Episode(max_turns=self.max_turns, violation_cap=config.get("violation_cap"))
        self._task = task

    def init(self, prompt: Any = None) -> tuple[list[dict[str, str]], dict[str, Any]]:
        opening = self.episode.start(task=self._task)
        task = self.episode.task
        return _plain(with_tools_prompt(opening, self.episode.tools)), {"task_id": task.id, "kind": task.kind}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        outcome = self.episode.act(action)
        self.turns += 1
        metadata: dict[str, Any] = {"truncated": outcome.truncated}
        if outcome.verification is not None:
            metadata["verification"] = outcome.verification
        return BaseTextEnvStepOutput(
            observations=_plain(outcome.messages), reward=outcome.reward, done=outcome.done, metadata=metadata
        )

    def get_metrics(self) -> dict[str, Any]:
        if not self.episode.started:
            return {}
        score = self.episode.grade()
        return {"passed": float(score.passed), "score": score.value, **score.components}

    def close(self) -> None:
        self.episode.close()


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"role": str(m["role"]), "content": str(m.get("content") or "")} for m in messages]


def register() -> None:
    """Register `toolgym` with skyrl-gym (once), so `env_class: toolgym` in a SkyRL dataset finds it."""
    import skyrl_gym

    if ENV_ID not in skyrl_gym.envs.registration.registry:
        skyrl_gym.register(id=ENV_ID, entry_point=f"{__name__}:ToolgymTextEnv")


__all__ = ["ENV_ID", "ToolgymTextEnv", "register"]

register()  # importing this module is what makes `env_class: toolgym` known to skyrl-gym
