"""The reference server: an OpenAI-compatible chat-completions endpoint that answers as a policy.

    toolgym serve-policy --policy oracle --port 8000 [--latency-ms 200 --error-rate 0.1 ...]
    python -m toolgym.generators.serve_policy --port 8000

It answers `POST /v1/chat/completions` as the OracleTeacher would, and `GET /v1/models`. The
task of a request comes from request metadata that toolgym's client sends, never from prompt
text: the header `X-Toolgym-Task-Id` (or the body's `metadata.toolgym_task_id`) names a task
the server knows, from `--tasks FILE.jsonl` or from an earlier request that carried the Task JSON in the
body field `toolgym_task` (OpenAITeacher(send_task=True)).

A request with `tools` is answered with native `tool_calls`; one without is answered in text,
the calls as Hermes `<tool_call>` blocks. Faults can be injected: added latency, a share of
500s, of 429s, of requests never answered (the connection is closed after --hang-s), and of
answers whose tool-call JSON is broken. Users test their harness against it; toolgym's tests
use it to drive the real client over real HTTP.

Requests for a model named `toolgym-rewrite...` (or with the header `X-Toolgym-Role: rewriter`)
are answered by the deterministic rewrite mode (rewrite_server.py), so one server answers both
as the teacher and as the job's rewriter; --rewrite-break-rate makes a share of rewrites break
a fact, to test that the job drops them. --spoil-rate makes a share of the policy's answers a lazy
"OK." (seeded), so the server plays a worse model whose trials pass only sometimes: what
`toolgym eval`'s pass^k is tested against. Requests for `toolgym-user...` (or `X-Toolgym-Role:
user`) are answered in the customer's role as the ScriptedUser would (user_server.py), with
device tool calls, for LLMUser.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from toolgym.envs.parsing import json_problem

from .chat_format import arguments_text, hermes_text
from .rewrite_server import BadRewriteRequest, RewriteResponder, is_rewrite_request
from .serve_args import add_arguments
from .user_server import UserResponder, is_user_request

TASK_FIELD = "toolgym_task"
TASK_ID_KEY = "toolgym_task_id"
TASK_HEADER = "x-toolgym-task-id"
Responder = Callable[[dict[str, Any], dict[str, str]], dict[str, Any]]  # (body, headers) -> assistant message
MAX_BODY = 64 << 20  # bytes of a request body (413 above)
MAX_JSON_DEPTH = 64  # nesting of a request body (400 above, never a RecursionError)
MAX_HEADER_LINE = 8190  # bytes of the request line or one header (400 above, aiohttp's parser)
MAX_HEADERS = 64
SPOIL_REPLY = "OK."  # the lazy answer of --spoil-rate: it does nothing (verifiers/spoil.py: `lazy`)


def error_body(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """The OpenAI error shape, so clients show the message."""
    return {"error": {"message": message, "type": kind, "code": None}}


class BadRequest(Exception):
    """The request cannot be answered; the message says what to send instead (HTTP 400)."""


@dataclass(frozen=True)
class Faults:
    latency_ms: float = 0.0  # added before every answer
    error_rate: float = 0.0  # share answered 500
    rate_limit_rate: float = 0.0  # share answered 429
    timeout_rate: float = 0.0  # share never answered; the connection closes after hang_s
    malformed_rate: float = 0.0  # share of tool-call answers with broken argument JSON
    hang_s: float = 600.0
    seed: int = 0
    idle_timeout_s: float = 15.0  # a connection that sends no complete request for this long is closed
    garbage_rate: float = 0.0  # share answered 200 with a body that is not JSON
    drip_rate: float = 0.0  # share answered one byte every drip_s seconds (a stalled stream)
    drip_s: float = 0.5
    status: int | None = None  # answer every chat request with this HTTP status (401, 502, ...)
    spoil_rate: float = 0.0  # share of the policy's answers replaced by a lazy reply (SPOIL_REPLY): a worse model

    def __post_init__(self) -> None:
        shares = {"error_rate": self.error_rate, "rate_limit_rate": self.rate_limit_rate,
                  "timeout_rate": self.timeout_rate, "malformed_rate": self.malformed_rate,
                  "garbage_rate": self.garbage_rate, "drip_rate": self.drip_rate, "spoil_rate": self.spoil_rate}
        for name, value in shares.items():
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name}={value} must be a share between 0 and 1")
        if self.error_rate + self.rate_limit_rate + self.timeout_rate + self.garbage_rate + self.drip_rate > 1.0:
            raise ValueError("error_rate + rate_limit_rate + timeout_rate + garbage_rate + drip_rate must not exceed 1")
        if self.status is not None and not 100 <= self.status <= 599:
            raise ValueError(f"status={self.status} is not an HTTP status")
        if self.latency_ms < 0 or self.hang_s <= 0 or self.idle_timeout_s <= 0:
            raise ValueError(f"latency_ms={self.latency_ms} must be >= 0, hang_s={self.hang_s} and "
                             f"idle_timeout_s={self.idle_timeout_s} > 0")


@dataclass
class ServerStats:
    requests: int = 0
    answered: int = 0
    errors: int = 0
    rate_limited: int = 0
    hung: int = 0
    malformed: int = 0
    spoiled: int = 0
    bad_requests: int = 0
    by_path: dict[str, int] = field(default_factory=dict)


class OracleResponder:
    """Answers a request as the OracleTeacher would, for the task its metadata names."""

    def __init__(self, tasks: Iterable[Any] = (), reasoning: bool = False, cache_size: int = 65536):
        from toolgym.envs.task import Task  # lazy: importing this module stays light
        from toolgym.generators.oracle import OracleTeacher

        self._task_type = Task
        self.teacher = OracleTeacher(reasoning=reasoning)
        self.cache_size = cache_size
        self.tasks: OrderedDict[str, Any] = OrderedDict()
        for task in tasks:
            self._remember(task if isinstance(task, Task) else Task.model_validate(task))

    def _remember(self, task: Any) -> Any:
        key = task.id or task.content_id()
        self.tasks[key] = task
        if len(self.tasks) > self.cache_size:
            self.tasks.popitem(last=False)
        return task

    def task_for(self, request: dict[str, Any], headers: dict[str, str]) -> Any:
        metadata = request.get("metadata")
        task_id = (metadata.get(TASK_ID_KEY) if isinstance(metadata, dict) else None) or headers.get(TASK_HEADER)
        if task_id and task_id in self.tasks:
            return self.tasks[task_id]
        sent = request.get(TASK_FIELD)
        if sent is not None:
            try:
                task = (self._task_type.model_validate_json(sent) if isinstance(sent, str)
                        else self._task_type.model_validate(sent))
            except ValueError as exc:
                raise BadRequest(f"the {TASK_FIELD!r} body field is not a valid Task: {str(exc)[:300]}") from None
            return self._remember(task)
        known = (f"task id {task_id!r} is not known here" if task_id
                 else f"no task id was sent (header {TASK_HEADER} or metadata.{TASK_ID_KEY})")
        raise BadRequest(
            f"{known}: send the task itself in the body field {TASK_FIELD!r} "
            f"(OpenAITeacher(send_task=True)) or start the server with --tasks FILE.jsonl"
        )

    def __call__(self, request: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
        messages = request.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("'messages' must be a non-empty list of chat messages")
        task = self.task_for(request, headers or {})
        return self.teacher.act_sync(messages, request.get("tools") or [], task)


class PolicyServer:
    """Routes, faults and the chat-completion wire format around a responder."""

    def __init__(self, responder: Responder, faults: Faults | None = None, model: str = "toolgym-oracle",
                 rewriter: RewriteResponder | None = None, user: Responder | None = None):
        self.responder = responder
        self.faults = faults or Faults()
        self.rewriter = rewriter or RewriteResponder(self.faults.seed)  # answers model toolgym-rewrite*
        self.user = user  # answers model toolgym-user* (LLMUser's requests)
        self.model = model
        self.stats = ServerStats()
        self._rng = random.Random(self.faults.seed)
        self._spoil_rng = random.Random(f"spoil-{self.faults.seed}")  # its own stream: the fault draws stay as they were
        self._count = 0
        self.closing = asyncio.Event()  # set on close: a hung request is let go, not waited out

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.stats.requests += 1
        path = request.path.rstrip("/")
        self.stats.by_path[path] = self.stats.by_path.get(path, 0) + 1
        if path in ("/v1/models", "/models") and request.method == "GET":
            return web.json_response({"object": "list", "data": [
                {"id": self.model, "object": "model", "created": 0, "owned_by": "toolgym"}]})
        if path in ("/health", "/v1/health"):
            return web.json_response({"status": "ok"})
        if path not in ("/v1/chat/completions", "/chat/completions"):
            return web.json_response(error_body(f"no route {request.method} {path}; use POST /v1/chat/completions"),
                                     status=404)
        if request.method != "POST":
            return web.json_response(error_body("use POST for /v1/chat/completions"), status=405)
        return await self._chat(request)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        faults = self.faults
        delay = faults.latency_ms / 1000.0
        if faults.status is not None:
            return await _later(delay, faults.status, error_body(f"injected fault: HTTP {faults.status}"))
        draw = self._rng.random()
        if draw < faults.error_rate:
            self.stats.errors += 1
            return await _later(delay, 500, error_body("injected fault: internal error", "server_error"))
        draw -= faults.error_rate
        if draw < faults.rate_limit_rate:
            self.stats.rate_limited += 1
            return await _later(delay, 429, error_body("injected fault: rate limited", "rate_limit_error"))
        draw -= faults.rate_limit_rate
        if draw < faults.timeout_rate:
            self.stats.hung += 1
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.closing.wait(), faults.hang_s)
            if request.transport is not None:
                request.transport.close()  # never answered
            return web.Response(status=500)
        draw -= faults.timeout_rate
        if draw < faults.garbage_rate:
            self.stats.errors += 1
            return web.Response(status=200, body=b"<html>not json", content_type="application/json")
        draw -= faults.garbage_rate
        if draw < faults.drip_rate:
            self.stats.hung += 1
            return await _drip(request, faults.drip_s)
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            self.stats.bad_requests += 1
            return web.json_response(error_body(f"the body is over {MAX_BODY} bytes"), status=413)
        try:
            body = read_body(raw)
            message = self._respond(body, {k.lower(): v for k, v in request.headers.items()})
        except BadRequest as exc:
            self.stats.bad_requests += 1
            return await _later(delay, 400, error_body(str(exc)))
        malformed = bool(message.get("tool_calls")) and self._rng.random() < faults.malformed_rate
        self.stats.malformed += malformed
        self.stats.answered += 1
        return await _later(delay, 200, self._completion(body, message, len(raw), malformed))

    def _respond(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        if is_rewrite_request(body, headers):
            try:
                return self.rewriter(body)
            except BadRewriteRequest as exc:
                raise BadRequest(str(exc)) from None
        if self.user is not None and is_user_request(body, headers):
            return self.user(body, headers)
        message = self.responder(body, headers)
        if self.faults.spoil_rate and self._spoil_rng.random() < self.faults.spoil_rate:
            self.stats.spoiled += 1
            return {"role": "assistant", "content": SPOIL_REPLY}
        return message

    def _completion(self, body: dict[str, Any], message: dict[str, Any], size: int, malformed: bool) -> dict[str, Any]:
        calls = message.get("tool_calls") or []
        reasoning = message.get("reasoning_content")
        native = bool(body.get("tools"))
        out: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if native:
            if calls:
                out["tool_calls"] = [_wire_call(c, malformed and i == 0) for i, c in enumerate(calls)]
            if reasoning:
                out["reasoning_content"] = reasoning
        else:
            if malformed and calls:
                calls = [_wire_call(c, i == 0) for i, c in enumerate(calls)]
            out["content"] = hermes_text(message.get("content"), calls, reasoning)
        self._count += 1
        written = len(json.dumps(out)) // 4
        return {
            "id": f"chatcmpl-toolgym-{self._count}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [{"index": 0, "message": out, "finish_reason": "tool_calls" if out.get("tool_calls") else "stop"}],
            "usage": {
                "prompt_tokens": size // 4,
                "completion_tokens": written,
                "total_tokens": size // 4 + written,
                "completion_tokens_details": {"reasoning_tokens": len(reasoning or "") // 4},
            },
        }


def read_body(raw: bytes) -> dict[str, Any]:
    """The request body as a JSON object; anything else (deep, huge numbers, not JSON) is a BadRequest."""
    try:
        body = json.loads(raw)
    except RecursionError:
        raise BadRequest(f"the body is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except UnicodeDecodeError:
        raise BadRequest("the body is not UTF-8 text") from None
    except ValueError as exc:  # not JSON, or an integer over 4,300 digits
        raise BadRequest(f"the body is not valid JSON: {str(exc).split(';')[0][:200]}") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    problem = json_problem(body, max_depth=MAX_JSON_DEPTH)
    if problem:
        raise BadRequest(f"the body holds {problem}")
    return body


async def _drip(request: web.Request, every: float) -> web.StreamResponse:
    """A 200 whose body comes one byte at a time and never ends before the client gives up."""
    response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
    response.content_length = 1 << 20
    await response.prepare(request)
    for _ in range(1 << 20):
        await response.write(b" ")
        await asyncio.sleep(every)
    return response


async def _later(delay: float, status: int, body: dict[str, Any]) -> web.Response:
    if delay > 0:
        await asyncio.sleep(delay)
    return web.json_response(body, status=status, dumps=_compact)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _wire_call(call: dict[str, Any], broken: bool) -> dict[str, Any]:
    function = call.get("function", call)
    text = arguments_text(function.get("arguments", {}))
    if broken:  # a model that stopped mid-object
        text = text[:-1] if text.endswith("}") else text + "{"
    return {"id": call.get("id") or "call_0", "type": "function",
            "function": {"name": function.get("name"), "arguments": text}}


# ---- running it ----------------------------------------------------------------------------
@dataclass
class RunningServer:
    runner: web.AppRunner
    site: web.TCPSite
    policy: PolicyServer
    host: str
    port: int

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    async def serve_forever(self) -> None:
        await asyncio.Event().wait()

    async def close(self) -> None:
        self.policy.closing.set()
        await self.runner.cleanup()


def make_responder(policy: str | Responder, tasks: Iterable[Any] = (), reasoning: bool = False) -> Any:
    if callable(policy):
        return policy
    if policy == "oracle":
        return OracleResponder(tasks, reasoning=reasoning)
    raise ValueError(f"unknown policy {policy!r}; serve-policy knows: oracle (or pass a callable)")


async def start(host: str = "127.0.0.1", port: int = 0, policy: str | Responder = "oracle",
                faults: Faults | None = None, *, tasks: Iterable[Any] = (), reasoning: bool = False,
                model: str = "toolgym-oracle", rewrite_break_rate: float = 0.0) -> RunningServer:
    """Start serving on the running loop; port 0 picks a free port (see `.port`, `.base_url`).

    Requests for model `toolgym-rewrite*` get the deterministic rewrite (rewrite_server.py); a
    `rewrite_break_rate` share of them break a fact on purpose.
    """
    rewriter = RewriteResponder((faults or Faults()).seed, rewrite_break_rate)
    responder = make_responder(policy, tasks, reasoning)
    known = responder if isinstance(responder, OracleResponder) else OracleResponder(tasks)  # tasks by id, for the user
    handler = PolicyServer(responder, faults, model, rewriter, UserResponder(known.task_for))
    app = web.Application(client_max_size=MAX_BODY)
    app.router.add_route("*", "/{tail:.*}", handler.handle)
    runner = web.AppRunner(app, access_log=None, handle_signals=False,
                           keepalive_timeout=handler.faults.idle_timeout_s, max_line_size=MAX_HEADER_LINE,
                           max_field_size=MAX_HEADER_LINE, max_headers=MAX_HEADERS)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=4096)
    await site.start()
    bound = site._server.sockets[0].getsockname()  # type: ignore[union-attr]  # the port chosen for port 0
    return RunningServer(runner, site, handler, bound[0], bound[1])


def serve(host: str = "127.0.0.1", port: int = 8000, policy: str | Responder = "oracle",
          faults: Faults | None = None, *, tasks: Iterable[Any] = (), reasoning: bool = False,
          model: str = "toolgym-oracle", ready: Callable[[RunningServer], None] | None = None,
          rewrite_break_rate: float = 0.0) -> None:
    """Serve until interrupted (blocking)."""

    async def run() -> None:
        running = await start(host, port, policy, faults, tasks=tasks, reasoning=reasoning, model=model,
                              rewrite_break_rate=rewrite_break_rate)
        if ready is not None:
            ready(running)
        try:
            await running.serve_forever()
        finally:
            await running.close()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass


def read_tasks(path: str | Path) -> list[dict[str, Any]]:
    lines = Path(path).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="toolgym serve-policy", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return parser


def run_args(args: argparse.Namespace) -> int:
    """The `toolgym serve-policy` command, from parsed arguments."""
    for module in args.imports:
        register_domain_module(module)
    try:
        faults = Faults(args.latency_ms, args.error_rate, args.rate_limit_rate, args.timeout_rate,
                        args.malformed_rate, args.hang_s, args.seed, args.idle_timeout_s, args.garbage_rate,
                        args.drip_rate, args.drip_s, status=args.status, spoil_rate=args.spoil_rate)
        if not 0.0 <= args.rewrite_break_rate <= 1.0:
            raise ValueError(f"--rewrite-break-rate={args.rewrite_break_rate} must be a share between 0 and 1")
    except ValueError as exc:
        print(f"serve-policy: error: {exc}", file=sys.stderr)
        return 2
    tasks = read_tasks(args.tasks) if args.tasks else []

    def ready(running: RunningServer) -> None:
        print(f"serving policy {args.policy!r} on {running.base_url}", flush=True)

    serve(args.host, args.port, args.policy, faults, tasks=tasks, reasoning=args.reasoning, model=args.model,
          ready=ready, rewrite_break_rate=args.rewrite_break_rate)
    return 0


def register_domain_module(name: str) -> None:
    """Import a module that exports DOMAIN and make it loadable by name (domains outside the package)."""
    import importlib

    from toolgym.envs import registry

    module = importlib.import_module(name)
    domain = getattr(module, "DOMAIN", None)
    if domain is None:
        raise SystemExit(f"serve-policy: module {name!r} exports no DOMAIN")
    registry.add(domain)


def main(argv: list[str] | None = None) -> int:
    return run_args(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
