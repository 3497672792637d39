"""The client side shared by OpenAITeacher and LLMUser: one endpoint, used well.

An `Endpoint` is one OpenAI-compatible server (one base_url) as seen from one event loop. All
teachers and user simulators pointed at the same base_url share it: one `openai.AsyncOpenAI`
client per API key, one concurrency limit, one circuit breaker, one set of counters.

HTTP is the `openai` package's own: its aiohttp transport (`openai.DefaultAioHttpClient`, the
`openai[aiohttp]` extra) by default, or its httpx client (`transport="httpx"`). What is done
here to keep a call's client CPU low (benchmarks/teacher.py measures it):

- `chat.completions.create` converts the whole request recursively against its TypedDicts,
  O(messages). Avoided: the body is built here as JSON bytes (json.dumps in C; tool schemas
  encoded once per episode and spliced in) and sent with the client's lower-level
  `post(content=...)`.
- Parsing the answer into a pydantic `ChatCompletion` is avoided too: `cast_to=Response`
  returns the response and the JSON is read as plain dicts.
- The connection pool is sized to the concurrency (the client's default keep-alive limit
  would reconnect above it).

Every call has an overall deadline (`timeout`), so a server that hangs or drips its answer
byte by byte fails the call like any other error. Retries are done here, not in the client
(`max_retries=0` there), so they are counted, back off exponentially with jitter (or as
Retry-After says), and stop at once when the circuit opens. Token usage is added to the usage
scope of the running episode (see `usage.py`). Error texts pass through `redaction.scrub`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import random
import sys
import time
import weakref
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from toolgym.errors import ConfigError, ToolgymError

from .redaction import remember, scrub, url_secrets
from .usage import Usage, record_usage

log = logging.getLogger(__name__)

TRANSPORTS = ("aiohttp", "httpx")
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
    transport: str = "aiohttp"  # aiohttp (openai.DefaultAioHttpClient) | httpx (the client's default)

    def __post_init__(self) -> None:
        checks = {"concurrency": self.concurrency >= 1, "timeout": self.timeout > 0,
                  "connect_timeout": self.connect_timeout > 0, "max_retries": self.max_retries >= 0,
                  "backoff": self.backoff >= 0, "breaker_failures": self.breaker_failures >= 1}
        for name, ok in checks.items():
            if not ok:
                raise ConfigError(f"endpoint setting {name}={getattr(self, name)!r} is out of range")
        if self.transport not in TRANSPORTS:
            raise ConfigError(f"transport {self.transport!r} is not one of {', '.join(TRANSPORTS)}")


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

    def _make_client(self, api_key: str):
        import openai

        s = self.settings
        HTTP = http_library()
        timeout = HTTP.Timeout(s.timeout, connect=s.connect_timeout)
        # keep-alive sized to the concurrency: the default (100, 20 kept) reconnects above it
        limits = HTTP.Limits(max_connections=s.concurrency, max_keepalive_connections=s.concurrency)
        if s.transport == "aiohttp":
            http = openai.DefaultAioHttpClient(timeout=timeout, limits=limits)
        else:
            http = openai.DefaultAsyncHttpxClient(timeout=timeout, limits=limits)
        if not api_key:  # http://user:key@host: the password is the key
            api_key = urlsplit(self.base_url).password or ""
        return openai.AsyncOpenAI(base_url=client_url(self.base_url), api_key=api_key or "EMPTY", max_retries=0,
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

        s = self.settings
        HTTP = http_library()
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
                    async with asyncio.timeout(s.timeout):  # the whole call, however the server drips it
                        response = await client.post(path, cast_to=HTTP.Response, content=body,
                                                     options={"headers": headers} if headers else {})
                        content = response.content
                    data = _decode(content)
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
                except TimeoutError:
                    error = f"ReadTimeout: no complete answer within {s.timeout:g}s"
                except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                    cause = exc.__cause__
                    error = scrub(f"{type(cause or exc).__name__}: {cause or exc}")
                    if isinstance(cause, (HTTP.ConnectError, HTTP.ConnectTimeout)):
                        if self._breaker.failure(str(cause)):
                            log.info("%s", self._down())  # raised below; the caller reports it once
                        if self._breaker.is_open():
                            raise self._down() from None
                except _NotJSON as exc:  # 200 with a body that is not JSON
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


class _NotJSON(Exception):
    pass


def _decode(content: bytes) -> Any:
    try:
        return json.loads(content)
    except (ValueError, RecursionError) as exc:  # not JSON, too deep, or a 4,300-digit integer
        raise _NotJSON(str(exc)[:100]) from None


def client_url(url: str) -> str:
    """The URL without user:password (sent as the key instead; aiohttp refuses both at once)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


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


@functools.cache
def http_library() -> ModuleType:
    """The HTTP package under the installed `openai`: httpx2 (openai 3.x) or httpx (1.x, 2.x).

    Both have the same API; response and error types must come from the one the client uses.
    """
    import importlib

    import openai

    client_type = openai.DefaultAsyncHttpxClient
    for name in ("httpx2", "httpx"):
        try:
            module = sys.modules.get(name) or importlib.import_module(name)
        except ImportError:
            continue
        if isinstance(client_type, type) and issubclass(client_type, module.AsyncClient):
            return module
    raise ImportError(f"openai {openai.__version__} uses neither httpx2 nor httpx; toolgym cannot drive it")



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
