"""Helpers for the served adapters' tests: a server on 127.0.0.1 in a thread, gold conversations."""

from __future__ import annotations

import importlib
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import toolgym
from tests.conftest import builtin_domains

DO_NOTHING = "OK."


def imported(name: str) -> Any:
    """The module `name`, imported when a test first needs it. Importing OpenEnv (and so gradio) or
    verifiers takes seconds, which every pytest worker would pay while collecting a module that
    imports them at its top (and a lazy module object held there is loaded by collection's own
    look at every attribute); only the worker that runs these tests (one xdist group) pays it now."""
    return importlib.import_module(name)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running(app: Any) -> Iterator[str]:
    """Serve an ASGI app with uvicorn on 127.0.0.1 in a thread; yields its base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=64 << 20))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@cache
def gold(domain: str, count: int, seed: int = 0) -> tuple[tuple[toolgym.Task, tuple[dict[str, Any], ...]], ...]:
    """`count` tasks of a domain (kinds in turn) with the assistant turns of their gold conversation."""
    env = toolgym.make(domain)
    played = []
    for task in toolgym.load_domain(domain).generate_tasks(count, seed=seed):
        trajectory = toolgym.rollout_sync(env, toolgym.OracleTeacher(), toolgym.ScriptedUser(), task)
        assert trajectory.verification.value == 1.0, (task.id, trajectory.verification.details)
        moves = tuple(
            {k: m[k] for k in ("role", "content", "tool_calls") if k in m} for m in trajectory.messages if m["role"] == "assistant"
        )
        played.append((task, moves))
    return tuple(played)


def all_gold(count: int) -> list[tuple[toolgym.Task, tuple[dict[str, Any], ...]]]:
    return [item for domain in builtin_domains() for item in gold(domain, count)]
