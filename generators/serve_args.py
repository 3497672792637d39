"""The command line of `toolgym serve-policy`, apart from the server so `toolgym --help` loads no aiohttp."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policy", default="oracle", choices=["oracle"], help="who answers (default: oracle)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port (printed)")
    parser.add_argument("--model", default="toolgym-oracle", help="model id listed by GET /v1/models")
    parser.add_argument("--tasks", help="JSONL file of tasks to know by id (else the client sends them)")
    parser.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                        help="import a module exporting DOMAIN and register it (e.g. tests.toy)")
    parser.add_argument("--reasoning", action="store_true", help="answers carry a short reasoning trace")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--error-rate", type=float, default=0.0, help="share of requests answered 500")
    parser.add_argument("--rate-limit-rate", type=float, default=0.0, help="share answered 429")
    parser.add_argument("--timeout-rate", type=float, default=0.0, help="share never answered")
    parser.add_argument("--malformed-rate", type=float, default=0.0, help="share of calls with broken JSON")
    parser.add_argument("--hang-s", type=float, default=600.0, help="how long an unanswered request hangs")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fault draws")
    parser.add_argument("--garbage-rate", type=float, default=0.0, help="share answered 200 with a non-JSON body")
    parser.add_argument("--drip-rate", type=float, default=0.0, help="share answered one byte at a time")
    parser.add_argument("--drip-s", type=float, default=0.5, help="seconds between two bytes of a dripped answer")
    parser.add_argument("--status", type=int, help="answer every chat request with this HTTP status")
    parser.add_argument("--rewrite-break-rate", type=float, default=0.0,
                        help="share of rewrite requests (model toolgym-rewrite) answered with a broken fact")
    parser.add_argument("--idle-timeout-s", type=float, default=15.0,
                        help="close a connection that sends no complete request for this long")
    parser.add_argument("--spoil-rate", type=float, default=0.0,
                        help="share of the policy's answers replaced by the lazy reply 'OK.' (seeded by --seed): "
                             "a worse model, for testing `toolgym eval`")
