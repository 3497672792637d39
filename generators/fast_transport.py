"""An httpx2 (or httpx) transport for HTTP/1.1 on asyncio Protocols, with an O(1) keep-alive pool.

The `openai` client (3.x) sends through `httpx2`, whose default transport (httpcore2 on anyio,
h11 parsing) costs most of a teacher call's CPU at high concurrency: its pool walks every
connection on each request and release, probing each idle socket (~1.4 ms per call at 256
connections, measured). This transport keeps the client, its request building, auth, error
types and response handling, and replaces only the socket layer: one Protocol per connection,
idle connections on a stack, a hand-written HTTP/1.1 reader (Content-Length, chunked, or read
to close). Timeouts map to httpx2's exception types so the client's error mapping still holds
(ConnectError and ConnectTimeout for a dead endpoint, ReadTimeout for a server that hangs).

Not handled here, so `http_client.Endpoint` uses httpx2's own transport for them: proxies,
HTTP/2. TLS works (asyncio's ssl) but `auto` mode keeps https on httpx2.
"""

from __future__ import annotations

import asyncio
import ssl
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

_DEFAULT_PORTS = {"http": 80, "https": 443}


def http_library() -> ModuleType:
    """The HTTP package under the installed `openai`: httpx2 (openai 3.x) or httpx (1.x, 2.x).

    Both have the same API; the transport and the error types must come from the one the client
    uses, or its error mapping (timeouts, connection errors) would not recognise them.
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


if TYPE_CHECKING:
    import httpx2 as HTTP
else:
    HTTP = http_library()


class _Connection(asyncio.Protocol):
    """One keep-alive connection; at most one request in flight."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.used = 0  # requests answered on this connection
        self.waiter: asyncio.Future | None = None
        self.timer: asyncio.TimerHandle | None = None
        self._reset()

    def _reset(self) -> None:
        self.buffer = bytearray()
        self.status = 0
        self.reason = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.length: int | None = None  # body length, -1 chunked, None read-to-close
        self.keep_alive = True
        self.body = bytearray()
        self.chunk_left = 0  # bytes of the current chunk still to read (chunked mode)
        self.in_trailers = False
        self.got_bytes = False

    # ---- protocol callbacks --------------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        if self.status and self.length is None:  # body delimited by the close
            self._finish(keep_alive=False)
            return
        self._fail(HTTP.RemoteProtocolError if self.got_bytes else HTTP.ReadError,
                   "the server closed the connection before a full response"
                   + (f" ({exc})" if exc else ""))

    def data_received(self, data: bytes) -> None:
        if self.waiter is None or self.waiter.done():  # bytes nobody asked for: unusable
            self.close()
            return
        self.got_bytes = True
        self.buffer += data
        try:
            self._parse()
        except ValueError as exc:
            self._fail(HTTP.RemoteProtocolError, f"malformed HTTP response: {exc}")
            self.close()

    # ---- parsing -------------------------------------------------------------------------
    def _parse(self) -> None:
        while not self.status:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = bytes(self.buffer[:end]).split(b"\r\n")
            del self.buffer[: end + 4]
            version, _, rest = lines[0].partition(b" ")
            code, _, reason = rest.partition(b" ")
            status = int(code)
            if 100 <= status < 200:  # interim response: the real one follows
                continue
            self.status, self.reason = status, reason
            chunked = False
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                name, value = name.strip(), value.strip()
                self.headers.append((name, value))
                lowered = name.lower()
                if lowered == b"content-length":
                    self.length = int(value)
                elif lowered == b"transfer-encoding" and b"chunked" in value.lower():
                    chunked = True
                elif lowered == b"connection":
                    self.keep_alive = b"close" not in value.lower()
            if chunked:  # it wins over a Content-Length (RFC 9112 6.3)
                self.length = -1
            if version == b"HTTP/1.0":
                self.keep_alive = False
            if status in (204, 304) or self._method_is_head:
                self.length = 0
        if self.length is None:
            return  # read to close
        if self.length >= 0:
            if len(self.buffer) >= self.length:
                self.body = self.buffer[: self.length]
                self._finish(self.keep_alive and len(self.buffer) == self.length)
            return
        self._parse_chunks()

    def _parse_chunks(self) -> None:
        buffer = self.buffer
        while True:
            if self.in_trailers:
                end = buffer.find(b"\r\n")
                if end < 0:
                    return
                del buffer[: end + 2]
                if end == 0:
                    self._finish(self.keep_alive and not buffer)
                    return
                continue
            if self.chunk_left:
                if len(buffer) < self.chunk_left + 2:
                    return
                self.body += buffer[: self.chunk_left]
                del buffer[: self.chunk_left + 2]
                self.chunk_left = 0
                continue
            end = buffer.find(b"\r\n")
            if end < 0:
                return
            size = int(bytes(buffer[:end]).split(b";")[0].strip(), 16)
            del buffer[: end + 2]
            if size == 0:
                self.in_trailers = True
            else:
                self.chunk_left = size

    # ---- request lifecycle ---------------------------------------------------------------
    _method_is_head = False

    def start(self, payload: bytes, head_only: bool, timeout: float | None) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        self._reset()
        self._method_is_head = head_only
        self.waiter = waiter = loop.create_future()
        if timeout is not None:
            self.timer = loop.call_later(timeout, self._timed_out, timeout)
        assert self.transport is not None
        self.transport.write(payload)
        return waiter

    def _timed_out(self, timeout: float) -> None:
        self.timer = None
        self._fail(HTTP.ReadTimeout, f"no response within {timeout:g}s")
        self.close()

    def _finish(self, keep_alive: bool) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.keep_alive = keep_alive
        self.used += 1
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def _fail(self, kind: type[Exception], message: str) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(kind(message))

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class FastTransport(HTTP.AsyncBaseTransport):
    """HTTP/1.1 keep-alive connections on asyncio; pass as `HTTP.AsyncClient(transport=...)`."""

    def __init__(self, *, max_idle: int = 1024, ssl_context: ssl.SSLContext | None = None):
        self.max_idle = max_idle
        self._ssl = ssl_context
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._closed = False

    async def handle_async_request(self, request: HTTP.Request) -> HTTP.Response:
        url = request.url
        origin = (url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme, 80))
        timeouts: dict[str, Any] = request.extensions.get("timeout") or {}
        body = await request.aread()
        headers = request.headers.raw
        if "content-length" not in request.headers:  # a streamed body, now read whole
            headers = [(k, v) for k, v in headers if k.lower() != b"transfer-encoding"]
            if body or request.method not in ("GET", "HEAD"):
                headers.append((b"Content-Length", str(len(body)).encode()))
        lines = [request.method.encode(), b" ", url.raw_path, b" HTTP/1.1\r\n"]
        for name, value in headers:
            lines += (name, b": ", value, b"\r\n")
        lines.append(b"\r\n")
        payload = b"".join(lines) + body
        head_only = request.method == "HEAD"
        connection = await self._exchange(origin, payload, head_only, timeouts, request)
        response = HTTP.Response(
            connection.status,
            headers=connection.headers,
            stream=HTTP.ByteStream(bytes(connection.body)),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": connection.reason},
        )
        connection.waiter = None
        if connection.keep_alive and not connection.closed:
            self._give_back(origin, connection)
        else:
            connection.close()
        return response

    async def _exchange(self, origin: tuple[str, str, int], payload: bytes, head_only: bool,
                        timeouts: dict[str, Any], request: HTTP.Request) -> _Connection:
        """Send on a kept-alive connection (or a new one) and wait for the whole response."""
        for attempt in range(2):
            connection = self._take(origin)
            reused = connection is not None
            if connection is None:
                connection = await self._connect(origin, timeouts.get("connect"), request)
            waiter = connection.start(payload, head_only, timeouts.get("read"))
            try:
                await waiter
            except HTTP.ReadError as exc:
                connection.close()
                if reused and attempt == 0:  # a kept-alive socket the server had just closed
                    continue
                raise type(exc)(str(exc), request=request) from None
            except HTTP.TransportError as exc:
                connection.close()
                raise type(exc)(str(exc), request=request) from None
            except BaseException:  # cancelled mid-request: the connection's state is unknown
                connection.close()
                raise
            return connection
        raise AssertionError("unreachable: the second attempt returns or raises")

    def _take(self, origin: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if not connection.closed:
                return connection
        return None

    def _give_back(self, origin: tuple[str, str, int], connection: _Connection) -> None:
        idle = self._idle.setdefault(origin, [])
        if len(idle) < self.max_idle and not self._closed:
            idle.append(connection)
        else:
            connection.close()

    async def _connect(self, origin: tuple[str, str, int], timeout: float | None, request: HTTP.Request) -> _Connection:
        scheme, host, port = origin
        if scheme not in _DEFAULT_PORTS:
            raise HTTP.UnsupportedProtocol(f"scheme {scheme!r} is not http or https", request=request)
        context = None
        if scheme == "https":
            if self._ssl is None:
                self._ssl = ssl.create_default_context()
                self._ssl.set_alpn_protocols(["http/1.1"])
            context = self._ssl
        loop = asyncio.get_running_loop()
        opening = loop.create_connection(_Connection, host, port, ssl=context,
                                         server_hostname=host if context else None)
        try:
            _, connection = await asyncio.wait_for(opening, timeout)
        except TimeoutError:
            raise HTTP.ConnectTimeout(f"no connection to {host}:{port} within {timeout}s", request=request) from None
        except OSError as exc:
            why = "connection refused" if isinstance(exc, ConnectionRefusedError) else str(exc.strerror or exc)
            raise HTTP.ConnectError(f"cannot connect to {host}:{port} ({why})", request=request) from None
        return connection

    async def aclose(self) -> None:
        self._closed = True
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle.clear()
