"""What OpenAITeacher and LLMUser share: the connection, sampling, task metadata, one call.

The task travels as request metadata, never as prompt text. Its id goes in the HTTP header
`X-Toolgym-Task-Id` by default (every server accepts and ignores an unknown header), or with
task_id_via="metadata" in the body's `metadata.toolgym_task_id` (OpenAI itself accepts
`metadata` only with `store: true`; vLLM logs it as an ignored field), or not at all ("none").
With send_task=True the Task JSON goes in the extra body field `toolgym_task`: for the
reference server (serve_policy.py) only, as real servers reject or ignore it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from toolgym.envs.task import Task
from toolgym.errors import ConfigError

from .base import Message
from .http_client import EndpointSettings, dumps, endpoint, public_url, resolve_connection
from .usage import Usage

TASK_FIELD = "toolgym_task"
TASK_ID_KEY = "toolgym_task_id"
TASK_HEADER = "X-Toolgym-Task-Id"
ROLE_HEADER = "X-Toolgym-Role"  # serve-policy answers as `rewriter` or `user` when a request names the role here
TASK_ID_VIA = ("header", "metadata", "none")
SAMPLING = ("temperature", "top_p", "max_tokens", "seed")


class ChatClient:
    """What OpenAITeacher and LLMUser share: connection, sampling, metadata, one call."""

    role = "teacher"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
        task_id_via: str = "header",
        send_task: bool = False,
        concurrency: int = 64,
        timeout: float = 120.0,
        connect_timeout: float = 5.0,
        max_retries: int = 5,
        backoff: float = 0.25,
        backoff_max: float = 8.0,
        breaker_failures: int = 5,
        breaker_window: float = 10.0,
        transport: str = "aiohttp",
    ):
        if not model:
            raise ConfigError(f"{type(self).__name__} needs model= (the name the server serves)")
        self.model = model
        self.base_url, self._api_key = resolve_connection(base_url, api_key)
        self.sampling = {k: v for k, v in {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens,
                                           "seed": seed}.items() if v is not None}
        self.extra = dict(extra or {})
        if task_id_via not in TASK_ID_VIA:
            raise ConfigError(f"task_id_via {task_id_via!r} is not one of {TASK_ID_VIA}")
        self.task_id_via = task_id_via
        self.send_task = send_task
        self.settings = EndpointSettings(
            concurrency=concurrency, timeout=timeout, connect_timeout=connect_timeout, max_retries=max_retries,
            backoff=backoff, backoff_max=backoff_max, breaker_failures=breaker_failures,
            breaker_window=breaker_window, transport=transport,
        )
        self.usage = Usage()  # run totals, for the dataset card
        self._by_task: OrderedDict[str, Usage] = OrderedDict()  # since the last pop_usage(task_id)
        self._task_json: OrderedDict[str, bytes] = OrderedDict()
        self._tools_json: OrderedDict[int, tuple[list, bytes]] = OrderedDict()

    @classmethod
    def client_options(cls, config: Any) -> dict[str, Any]:
        """Constructor arguments from a job config entry (toolgym.config.EndpointConfig)."""
        key: Any = getattr(config, "api_key", None)
        sampling = dict(getattr(config, "sampling", None) or {})
        options: dict[str, Any] = {
            "base_url": getattr(config, "base_url", None),
            "api_key": key.get_secret_value() if callable(getattr(key, "get_secret_value", None)) else key,
            **{name: sampling.pop(name) for name in SAMPLING if name in sampling},
            "extra": sampling,  # any other sampling key goes into the request body as is
        }
        for name in ("concurrency", "timeout", "max_retries", "send_task", "task_id_via"):
            if getattr(config, name, None) is not None:
                options[name] = getattr(config, name)
        return options

    def pop_usage(self, task_id: str) -> dict[str, int] | None:
        """The usage row of the calls made for `task_id` since the last pop (None if there were none)."""
        found = self._by_task.pop(task_id, None)
        return found.to_row() if found is not None else None

    def __repr__(self) -> str:  # never the key
        return f"{type(self).__name__}(model={self.model!r}, base_url={public_url(self.base_url)!r})"

    def _describe(self) -> dict[str, Any]:
        return {"model": self.model, "base_url": public_url(self.base_url), "sampling": dict(self.sampling),
                "extra": sorted(self.extra)}

    def _body(self, messages: list[Message], task: Task | None, tools: list[dict[str, Any]] | None = None) -> bytes:
        """The request as JSON bytes. Tools and task are encoded once and spliced in: the
        tool schemas are most of a request's bytes and do not change within an episode."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.sampling}
        if task is not None and self.task_id_via == "metadata":
            body["metadata"] = {TASK_ID_KEY: task.id or task.content_id()}
        body.update(self.extra)
        data = dumps(body)
        splices = []
        if tools and "tools" not in self.extra:
            splices.append(b',"tools":' + self._tools_bytes(tools))
        if task is not None and self.send_task:
            splices.append(b',"' + TASK_FIELD.encode() + b'":' + self._task_bytes(task))
        return data[:-1] + b"".join(splices) + b"}" if splices else data

    def _tools_bytes(self, tools: list[dict[str, Any]]) -> bytes:
        """Keyed by the list object (the env's tools for the episode), kept alive by the cache."""
        found = self._tools_json.get(id(tools))
        if found is None or found[0] is not tools:
            found = self._tools_json[id(tools)] = (tools, dumps(tools))
            if len(self._tools_json) > 1024:  # one entry per episode in flight
                self._tools_json.popitem(last=False)
        return found[1]

    def _task_bytes(self, task: Task) -> bytes:
        key = task.id or task.content_id()
        found = self._task_json.get(key)
        if found is None:
            found = self._task_json[key] = task.model_dump_json().encode()
            if len(self._task_json) > 1024:
                self._task_json.popitem(last=False)
        return found

    async def _complete(self, body: bytes, task: Task | None = None) -> dict[str, Any]:
        point = endpoint(self.base_url, self.settings)
        per_task = None
        if task is not None:
            key = task.id or task.content_id()
            per_task = self._by_task.get(key)
            if per_task is None:
                per_task = self._by_task[key] = Usage()
                if len(self._by_task) > 65536:  # nobody pops: keep memory bounded
                    self._by_task.popitem(last=False)
        headers = {TASK_HEADER: task.id or task.content_id()} if task is not None and self.task_id_via == "header" else None
        return await point.post_json(body, api_key=self._api_key, role=self.role, totals=(self.usage, per_task),
                                     headers=headers)
