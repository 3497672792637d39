"""A small HTTP/1.1 server on asyncio's Protocol API, for the reference policy server.

Why not `http.server` or an extra package: the reference server must answer hundreds of
keep-alive connections at once from one process with little CPU (it shares the machine with
the client it is measured against), and must be able to delay, fail or never answer a request.
A Protocol with a buffer does that in a few dozen lines, with no dependency.

A handler gets a `Request` and returns a `Reply` (or None to never answer: the connection
stays open until the client gives up or `Reply.close_after` passes).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 411: "Length Required",
            413: "Payload Too Large", 429: "Too Many Requests", 500: "Internal Server Error"}
MAX_BODY = 64 * 1024 * 1024


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    delay: float = 0.0  # seconds before the reply is written (added latency)
    hang: float | None = None  # never answer; close the connection after this many seconds
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, value: Any, **kwargs: Any) -> Reply:
        return cls(status, json.dumps(value, separators=(",", ":")).encode(), **kwargs)


Handler = Callable[[Request], Reply]


class _Connection(asyncio.Protocol):
    """One client connection: requests are answered in order, one at a time."""

    def __init__(self, handler: Handler, connections: set[_Connection]):
        self.handler = handler
        self.connections = connections
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.busy = False  # a request is being answered (delayed or hanging)
        self.continued = False  # "100 Continue" sent for the request being read
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.connections.add(self)

    def connection_lost(self, exc) -> None:
        self.connections.discard(self)
        if self.timer is not None:
            self.timer.cancel()
        self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.busy:
            self._next()

    def _next(self) -> None:
        """Answer the next complete request in the buffer, if there is one."""
        while self.transport is not None and not self.busy:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
            parts = head[0].split(" ")
            headers = {}
            for line in head[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            if len(parts) != 3:
                self._write(Reply.json(400, error_body(f"bad request line {head[0]!r}")), close=True)
                return
            if "chunked" in headers.get("transfer-encoding", ""):
                self._write(Reply.json(411, error_body("send a Content-Length body; chunked bodies are not read")), close=True)
                return
            length = int(headers.get("content-length") or 0)
            if length > MAX_BODY:
                self._write(Reply.json(413, error_body(f"body of {length} bytes is over {MAX_BODY}")), close=True)
                return
            if len(self.buffer) < end + 4 + length:
                if headers.get("expect", "").lower() == "100-continue" and not self.continued:
                    self.continued = True  # curl waits for this before sending a large body
                    self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                return
            self.continued = False
            body = bytes(self.buffer[end + 4 : end + 4 + length])
            del self.buffer[: end + 4 + length]
            request = Request(parts[0], parts[1], headers, body)
            try:
                reply = self.handler(request)
            except Exception as exc:  # a handler bug answers 500 rather than killing the connection
                reply = Reply.json(500, error_body(f"{type(exc).__name__}: {exc}"))
            close = headers.get("connection", "").lower() == "close"
            self._answer(reply, close)

    def _answer(self, reply: Reply, close: bool) -> None:
        loop = asyncio.get_running_loop()
        if reply.hang is not None:
            self.busy = True
            self.timer = loop.call_later(reply.hang, self._drop)
        elif reply.delay > 0:
            self.busy = True
            self.timer = loop.call_later(reply.delay, self._write_later, reply, close)
        else:
            self._write(reply, close)

    def _write_later(self, reply: Reply, close: bool) -> None:
        self.timer = None
        self.busy = False
        self._write(reply, close)
        if self.buffer:
            self._next()

    def _drop(self) -> None:
        self.timer = None
        if self.transport is not None:
            self.transport.close()

    def _write(self, reply: Reply, close: bool) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        extra = "".join(f"{k}: {v}\r\n" for k, v in reply.headers.items())
        head = (
            f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Unknown')}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(reply.body)}\r\n"
            f"{extra}{'connection: close' + chr(13) + chr(10) if close else ''}\r\n"
        )
        self.transport.write(head.encode() + reply.body)
        if close:
            self.transport.close()


def error_body(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """The OpenAI error shape, so clients show the message."""
    return {"error": {"message": message, "type": kind, "code": None}}


class HttpServer:
    """A running server: `port` is the bound port (useful with port 0); `close()` stops it."""

    def __init__(self, server: asyncio.Server, connections: set[_Connection]):
        self._server = server
        self._connections = connections
        self.host, self.port = server.sockets[0].getsockname()[:2]

    async def close(self) -> None:
        self._server.close()
        for connection in list(self._connections):
            if connection.transport is not None:
                connection.transport.close()
        await self._server.wait_closed()

    async def serve_forever(self) -> None:
        await self._server.serve_forever()


async def start_http(handler: Handler, host: str = "127.0.0.1", port: int = 0, backlog: int = 4096) -> HttpServer:
    connections: set[_Connection] = set()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Connection(handler, connections), host, port, backlog=backlog)
    return HttpServer(server, connections)

