"""serve-policy (aiohttp.web) against hostile clients: 400s, never 500s, and no connection held forever."""

from __future__ import annotations

import asyncio
import re

import pytest

from toolgym.generators.serve_policy import Faults, start


async def _exchange(port: int, raw: bytes, timeout: float = 5.0) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(65536), timeout)
    finally:
        writer.close()


def _post(body: bytes, length: str | None = None, extra: bytes = b"") -> bytes:
    size = str(len(body)) if length is None else length
    return (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + size.encode() + b"\r\n" + extra + b"\r\n" + body)


@pytest.mark.parametrize("body, words", [
    (b"[" * 100_000 + b"]" * 100_000, b"nested deeper"),
    (b'{"messages": [{"role": "user", "content": "hi"}], "seed": ' + b"9" * 5000 + b"}", b"not valid JSON"),
    (b'{"messages": ' + b"[" * 70 + b"]" * 70 + b"}", b"nested deeper than 64"),
    (b"\xff\xfe not text", b"not UTF-8"),
    (b"[1, 2]", b"must be a JSON object"),
])
async def test_bad_bodies_get_a_400_that_says_why(body, words):
    server = await start(port=0)
    try:
        answer = await _exchange(server.port, _post(body))
    finally:
        await server.close()
    assert re.match(rb"HTTP/1\.[01] 400 ", answer), answer[:200]
    assert words in answer


@pytest.mark.parametrize("length", ["abc", "-5", "99999999999999999999999"])
async def test_a_bad_content_length_is_a_400(length):
    server = await start(port=0)
    try:
        answer = await _exchange(server.port, _post(b"{}", length=length))
    finally:
        await server.close()
    assert re.match(rb"HTTP/1\.[01] 400 ", answer), answer[:200]


async def test_oversized_headers_are_refused():
    server = await start(port=0)
    try:
        huge = await _exchange(server.port, _post(b"{}", extra=b"X-Big: " + b"a" * 20_000 + b"\r\n"))
        many = await _exchange(server.port, _post(b"{}", extra=b"".join(b"X-%d: 1\r\n" % i for i in range(200))))
    finally:
        await server.close()
    assert huge.split(b" ")[1] in (b"400", b"431"), huge[:200]
    assert many.split(b" ")[1] in (b"400", b"431"), many[:200]


async def test_idle_and_half_sent_connections_are_closed():
    server = await start(port=0, faults=Faults(idle_timeout_s=0.5))
    try:
        held = []
        for partial in (b"", b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"):  # nothing, then half a request
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(partial)
            held.append((reader, writer))
        for reader, writer in held:
            await asyncio.wait_for(reader.read(), 5)  # returns only when the server hangs up
            assert reader.at_eof()
            writer.close()
    finally:
        await server.close()


async def test_closing_lets_a_hung_request_go_rather_than_waiting_out_its_hang():
    server = await start(port=0, faults=Faults(timeout_rate=1.0, hang_s=600))
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(_post(b'{"messages": [{"role": "user", "content": "hi"}]}'))
    await writer.drain()
    while server.policy.stats.hung == 0:  # the request is now inside its hang
        await asyncio.sleep(0.01)
    try:
        await asyncio.wait_for(server.close(), 30)  # aiohttp would wait out the hang for its 60 s shutdown
        assert await asyncio.wait_for(reader.read(65536), 5) == b"", "the hung request is never answered"
    finally:
        writer.close()
