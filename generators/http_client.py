"""The client side shared by OpenAITeacher and LLMUser: one endpoint, used well.

An `Endpoint` is one OpenAI-compatible server (one base_url) as seen from one event loop. All
teachers and user simulators pointed at the same base_url share it: one `openai.AsyncOpenAI`
client per API key, one concurrency limit, one circuit breaker, one set of counters.

Where a call's CPU goes, and what is done about it. openai 3.57 sends through httpx2 2.16
(httpcore2 on anyio, h11); 2 cores shared with the server, 200 ms server latency, 256 calls in
flight, client CPU per call and throughput as a share of the ideal (256 / 0.2 s):

    small requests (8 messages, 4 tools, ~3 KB)
      chat.completions.create (stock client, pool 1000/100)     3.9 ms
      .post(cast_to=ChatCompletion), body as a dict             2.1 ms
      .post(cast_to=httpx2.Response, content=bytes)             1.9 ms
      bare httpx2 AsyncClient.post                              1.4 ms
      bare httpx2, 32 pools of 8 connections                    0.6 ms
      .post(content=bytes) on FastTransport                     0.42 ms   93%
    retail chat states (16 KB: 11 KB tool schemas, 4 KB policy; benchmarks/teacher.py)
      chat.completions.create                                   3.6 ms    20%
      OpenAITeacher on httpx2's transport (pool sized to 256)   1.3 ms    55%
      OpenAITeacher (FastTransport, the default for http://)    0.55 ms   97%

- `create` converts the whole request recursively against its TypedDicts (`async_maybe_transform`),
  O(messages): 2.6 ms at 8 messages, 8 ms at 42. Avoided: the body is built here as JSON bytes
  (json.dumps in C; tool schemas encoded once per episode and spliced in) and sent with the
  client's lower-level `post(content=...)`.
- Parsing the answer into a pydantic `ChatCompletion` (construct_type, recursive) is avoided
  too: `cast_to=httpx2.Response` returns the response and the JSON is read as plain dicts.
- The largest cost was below the client: httpcore2's pool walks every connection on each
  request and each release, and probes every idle socket through anyio (`has_expired` ->
  `extra_attributes`); at 256 connections that is ~1 ms a call, growing with concurrency.
  The client's default keep-alive limit (100) also closes connections above 100 after every
  call. `FastTransport` (fast_transport.py) replaces only that socket layer; the client, its
  headers, auth, error types and response handling stay. On https (hosted APIs, proxies)
  httpx2's transport is kept, with its pool sized to the concurrency.
- What remains is the client's own request building (~0.2 ms: URL parsed three times,
  headers rebuilt, request options copied) and httpx2's Request/Response objects (~0.1 ms).

Retries are done here, not in the client (`max_retries=0` there), so they are counted, back
off exponentially with jitter (or as Retry-After says), and stop at once when the circuit opens. Token usage is added to the usage scope
of the running episode (see `usage.py`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
import urllib.request
import weakref
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from toolgym.errors import ConfigError, ToolgymError

from .redaction import remember, scrub, url_secrets
from .usage import Usage, record_usage

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
FATAL_STATUSES = {401: "check api_key / OPENAI_API_KEY", 403: "check api_key / OPENAI_API_KEY and its permissions",
                  404: "check base_url (it usually ends in /v1) and the model name"}


class TeacherError(ToolgymError):
    """One request failed for good (retries used up, or a 4xx): the episode fails, the job goes on."""

    def __init__(self, message: str, *, endpoint: str, status: int | None = None, attempts: int = 1):
        super().__init__(message)
        self.endpoint, self.status, self.attempts = endpoint, status, attempts


class EndpointDown(ToolgymError):
    """The endpoint cannot be used at all (not reachable, or rejects every request): stop the job."""

    def __init__(self, message: str, *, endpoint: str):
        super().__init__(message)
        self.endpoint = endpoint


def public_url(url: str) -> str:
    """The URL without user:password or query, fit for logs and dataset cards."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


@dataclass(frozen=True)
class EndpointSettings:
    """How calls to one server behave; the first teacher to use a base_url sets them."""

    concurrency: int = 64
    timeout: float = 120.0  # seconds to wait for an answer
    connect_timeout: float = 5.0
    max_retries: int = 5
    backoff: float = 0.25  # first retry waits up to this long; doubles each time
    backoff_max: float = 8.0
    breaker_failures: int = 5  # consecutive connection failures (or 502s) that open the circuit ...
    breaker_window: float = 10.0  # ... when they happen within this many seconds
    breaker_cooldown: float = 30.0  # an open circuit lets a probe through after this long
    transport: str = "auto"  # auto | fast | httpx

    def __post_init__(self) -> None:
        checks = {"concurrency": self.concurrency >= 1, "timeout": self.timeout > 0,
                  "connect_timeout": self.connect_timeout > 0, "max_retries": self.max_retries >= 0,
                  "backoff": self.backoff >= 0, "breaker_failures": self.breaker_failures >= 1}
        for name, ok in checks.items():
            if not ok:
                raise ConfigError(f"endpoint setting {name}={getattr(self, name)!r} is out of range")
        if self.transport not in ("auto", "fast", "httpx"):
            raise ConfigError(f"transport {self.transport!r} is not one of auto, fast, httpx")


@dataclass
class _Breaker:
    """Counts consecutive connection failures; opens after too many in a short time."""

    settings: EndpointSettings
    failures: int = 0
    first_failure: float = 0.0
    opened_at: float | None = None
    reason: str = ""
    rejected: bool = False  # opened by an answer that no retry can change (401, 403, 404)

    def failure(self, reason: str) -> bool:
        """Count one; True when this failure opened the circuit."""
        now = time.monotonic()
        if self.failures == 0 or now - self.first_failure > self.settings.breaker_window:
            self.failures, self.first_failure = 0, now
        self.failures += 1
        self.reason, self.rejected = reason, False
        if self.failures >= self.settings.breaker_failures and not self.is_open():
            self.opened_at = now
            return True
        return False

    def trip(self, reason: str) -> None:
        self.opened_at, self.reason, self.rejected = time.monotonic(), reason, True

    def success(self) -> None:
        self.failures = 0
        self.opened_at = None

    def is_open(self) -> bool:
        return self.opened_at is not None and time.monotonic() - self.opened_at < self.settings.breaker_cooldown


@dataclass
class EndpointStats:
    calls: int = 0
    retries: int = 0
    failures: int = 0
    by_error: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "retries": self.retries, "failures": self.failures, "by_error": dict(self.by_error)}


class Endpoint:
    """One server as used from one event loop. Get it with `endpoint(base_url, settings)`."""

    def __init__(self, base_url: str, settings: EndpointSettings):
        self.base_url = base_url
        self.public_url = public_url(base_url)
        self.settings = settings
        self.stats = EndpointStats()
        self._limit = asyncio.Semaphore(settings.concurrency)
        self._breaker = _Breaker(settings)
        self._clients: dict[str, Any] = {}

    # ---- the client ----------------------------------------------------------------------
    def _client(self, api_key: str):
        client = self._clients.get(api_key)
        if client is None:
            client = self._clients[api_key] = self._make_client(api_key)
        return client

    def _uses_fast_transport(self) -> bool:
        mode = self.settings.transport
        if mode != "auto":
            return mode == "fast"
        parts = urlsplit(self.base_url)
        proxied = bool(urllib.request.getproxies().get(parts.scheme)) and not urllib.request.proxy_bypass(
            parts.hostname or "")
        return parts.scheme == "http" and not proxied

    def _make_client(self, api_key: str):
        import openai

        from .fast_transport import HTTP

        s = self.settings
        timeout = HTTP.Timeout(s.timeout, connect=s.connect_timeout)
        if self._uses_fast_transport():
            from .fast_transport import FastTransport

            http = HTTP.AsyncClient(transport=FastTransport(max_idle=s.concurrency), timeout=timeout)
        else:  # keep-alive sized to the concurrency: the default (100) reconnects above it
            limits = HTTP.Limits(max_connections=s.concurrency, max_keepalive_connections=s.concurrency)
            http = HTTP.AsyncClient(limits=limits, timeout=timeout, follow_redirects=True)
        return openai.AsyncOpenAI(base_url=self.base_url, api_key=api_key or "EMPTY", max_retries=0,
                                  timeout=timeout, http_client=http)

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()

    # ---- one call ------------------------------------------------------------------------
    def _down(self) -> EndpointDown:
        breaker = self._breaker
        if breaker.rejected:
            return EndpointDown(f"endpoint {self.public_url} rejects requests: {breaker.reason}",
                                endpoint=self.public_url)
        return EndpointDown(
            f"endpoint {self.public_url} is down: {breaker.reason}. Start the server or fix base_url; "
            f"the circuit opened after {self.settings.breaker_failures} failed connections in a row",
            endpoint=self.public_url,
        )

    async def post_json(
        self, body: bytes, *, api_key: str, role: str, totals: tuple[Usage | None, ...] = (),
        headers: dict[str, str] | None = None, path: str = "/chat/completions",
    ) -> dict:
        """POST a JSON body; the decoded answer, after retries.

        Tokens and retries go to the episode's usage scope under `role`, and to each of `totals`.
        """
        import openai

        from .fast_transport import HTTP

        s = self.settings
        client = self._client(api_key)
        attempt = 0
        while True:
            if self._breaker.is_open():
                raise self._down()
            error: str
            status: int | None = None
            wait: float | None = None
            async with self._limit:
                if self._breaker.is_open():
                    raise self._down()
                self.stats.calls += 1
                try:
                    response = await client.post(path, cast_to=HTTP.Response, content=body,
                                                 options={"headers": headers} if headers else {})
                    data = json.loads(response.content)
                except openai.APIStatusError as exc:
                    status = exc.status_code
                    error = f"HTTP {status}: {_server_message(exc)}"
                    if status in FATAL_STATUSES:
                        self._breaker.trip(f"{error} ({FATAL_STATUSES[status]})")
                        raise self._down() from None
                    if status == 502:  # a gateway that cannot reach the server counts as no connection
                        self._breaker.failure(error)
                        if self._breaker.is_open():
                            raise self._down() from None
                    wait = _retry_after(exc.response.headers)
                except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                    cause = exc.__cause__
                    error = f"{type(cause or exc).__name__}: {cause or exc}"
                    if isinstance(cause, (HTTP.ConnectError, HTTP.ConnectTimeout)):
                        if self._breaker.failure(str(cause)):
                            log.info("%s", self._down())  # raised below; the caller reports it once
                        if self._breaker.is_open():
                            raise self._down() from None
                except ValueError as exc:  # 200 with a body that is not JSON
                    error = f"the answer is not JSON ({exc})"
                else:
                    self._breaker.success()
                    usage = data.get("usage") if isinstance(data, dict) else None
                    record_usage(role, usage)
                    for total in totals:
                        if total is not None:
                            total.add(usage)
                    return data
            kind = error.split(":")[0]
            self.stats.by_error[kind] = self.stats.by_error.get(kind, 0) + 1
            retryable = status is None or status in RETRY_STATUSES or status >= 500
            if not retryable or attempt >= s.max_retries:
                self.stats.failures += 1
                raise TeacherError(
                    f"{self.public_url}: request failed after {attempt + 1} attempt(s): {error}",
                    endpoint=self.public_url, status=status, attempts=attempt + 1,
                )
            attempt += 1
            self.stats.retries += 1
            record_usage(role, None, retries=1)
            for total in totals:
                if total is not None:
                    total.add(None, retries=1)
            delay = min(s.backoff_max, s.backoff * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
            log.debug("%s: retry %d in %.2fs after %s", self.public_url, attempt, delay, error)
            await asyncio.sleep(min(wait, s.backoff_max * 4) if wait is not None else delay)


def _server_message(exc: Any) -> str:
    """The server's own words about an error, secrets masked (servers echo headers back)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return scrub(str(inner["message"]))[:300]
    return scrub(str(body or exc))[:300]


def _retry_after(headers: Any) -> float | None:
    try:
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


# ---- sharing: one Endpoint per (event loop, base_url) --------------------------------------
_ENDPOINTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Endpoint]] = weakref.WeakKeyDictionary()


def endpoint(base_url: str, settings: EndpointSettings) -> Endpoint:
    """The shared Endpoint for `base_url` on the running loop (created on first use)."""
    loop = asyncio.get_running_loop()
    per_loop = _ENDPOINTS.setdefault(loop, {})
    found = per_loop.get(base_url)
    if found is None:
        found = per_loop[base_url] = Endpoint(base_url, settings)
    elif found.settings != settings:
        log.debug("%s is shared; keeping the settings of its first user", found.public_url)
    return found


async def close_endpoints() -> None:
    """Close every endpoint's connections on the running loop (call once when a job ends)."""
    for found in _ENDPOINTS.pop(asyncio.get_running_loop(), {}).values():
        await found.aclose()


def endpoint_stats() -> dict[str, dict[str, Any]]:
    """Calls, retries and failures per endpoint on the running loop, for logs and the dataset card."""
    per_loop = _ENDPOINTS.get(asyncio.get_running_loop(), {})
    return {found.public_url: found.stats.to_dict() for found in per_loop.values()}


def resolve_connection(base_url: str | None, api_key: str | None) -> tuple[str, str]:
    """base_url and key from the arguments, else OPENAI_BASE_URL / OPENAI_API_KEY."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or ""
    if not url:
        raise ConfigError("no base_url: pass base_url= (e.g. http://127.0.0.1:8000/v1) or set OPENAI_BASE_URL")
    if urlsplit(url).scheme not in ("http", "https"):
        raise ConfigError(f"base_url {public_url(url)!r} must start with http:// or https://")
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
    remember(key, *url_secrets(url))  # masked in every error, log line and file from now on
    return url.rstrip("/"), key


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


__all__ = ["Endpoint", "EndpointDown", "EndpointSettings", "TeacherError", "Usage", "close_endpoints", "endpoint",
           "endpoint_stats", "resolve_connection"]
