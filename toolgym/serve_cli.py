"""`toolgym serve-env` (an OpenEnv environment server) and `toolgym serve-mcp` (an MCP server)."""

from __future__ import annotations

import argparse
import importlib.util

from toolgym.errors import ConfigError, ToolgymError


def _need(module: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ToolgymError(f"this command needs the {module!r} package: pip install 'toolgym[{extra}]'")


def _common(args: argparse.Namespace) -> dict:
    if args.max_turns < 1:
        raise ConfigError(f"--max-turns must be at least 1, got {args.max_turns}")
    if args.violation_cap is not None and not 0.0 <= args.violation_cap <= 1.0:
        raise ConfigError(f"--violation-cap must lie in [0, 1], got {args.violation_cap}")
    pool = None
    if args.tasks:
        from toolgym.integrations.episode import TaskPool

        pool = TaskPool.from_dir(args.tasks)
    return {"max_turns": args.max_turns, "violation_cap": args.violation_cap, "pool": pool}


def _serve_env(args: argparse.Namespace) -> int:
    _need("openenv", "openenv")
    if args.max_sessions < 1:
        raise ConfigError(f"--max-sessions must be at least 1, got {args.max_sessions}")
    from toolgym.integrations.openenv import serve

    print(f"toolgym OpenEnv server on ws://{args.host}:{args.port}/ws (health: http://{args.host}:{args.port}/health)",
          flush=True)
    serve(args.host, args.port, max_sessions=args.max_sessions, idle_seconds=args.idle_timeout or None, **_common(args))
    return 0


def _serve_mcp(args: argparse.Namespace) -> int:
    _need("mcp", "mcp")
    import anyio

    from toolgym.integrations.mcp_server import EpisodeServer, http_app, serve_stdio

    episodes = EpisodeServer(args.domain, kind=args.kind, seed=args.seed, **_common(args))
    if args.transport == "stdio":
        anyio.run(serve_stdio, episodes)
        return 0
    import uvicorn

    print(f"toolgym MCP server on http://{args.host}:{args.port}/mcp", flush=True)
    if args.idle_timeout < 0:
        raise ConfigError(f"--idle-timeout must be 0 (never) or a number of seconds, got {args.idle_timeout}")
    app = http_app(episodes, args.host, idle_seconds=args.idle_timeout or None)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-turns", type=int, default=60, help="actions per episode before it is truncated (default 60)")
    parser.add_argument("--violation-cap", type=float, help="the most a conduct violation may score (default 0)")
    parser.add_argument("--tasks", metavar="DIR", help="an output directory with an rl_tasks split: tasks to start by id")


def add_commands(commands) -> None:
    env = commands.add_parser(
        "serve-env", help="the worlds as an OpenEnv environment server (WebSocket sessions, MCP tools) on 127.0.0.1"
    )
    env.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    env.add_argument("--port", type=int, default=8000)
    env.add_argument("--max-sessions", type=int, default=256, help="concurrent sessions; more are refused (default 256)")
    env.add_argument("--idle-timeout", type=float, default=600.0, help="close a session idle this long, in seconds (0: never)")
    _options(env)
    env.set_defaults(run=_serve_env)

    mcp = commands.add_parser("serve-mcp", help="the worlds as an MCP server (stdio or streamable HTTP), one world per client")
    mcp.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="with --transport http: address to bind (default 127.0.0.1)")
    mcp.add_argument("--port", type=int, default=8001)
    mcp.add_argument("--idle-timeout", type=float, default=600.0,
                     help="with --transport http: close a session idle this long, in seconds (0: never)")
    mcp.add_argument("--domain", default="retail", help="the default episode's domain (default retail)")
    mcp.add_argument("--kind", help="the default episode's kind (default: by seed)")
    mcp.add_argument("--seed", type=int, default=0, help="the first default episode's seed; each session takes the next")
    _options(mcp)
    mcp.set_defaults(run=_serve_mcp)
