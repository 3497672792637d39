"""The `toolgym` command."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from toolgym.errors import ToolgymError, describe_os_error


def _demo(args: argparse.Namespace) -> int:
    import toolgym

    names = [args.domain] if args.domain else toolgym.list_domains()
    teacher, user = toolgym.OracleTeacher(), toolgym.ScriptedUser()
    failures = 0
    for name in names:
        domain = toolgym.load_domain(name)
        started = time.perf_counter()
        tasks = domain.generate_tasks(args.n, seed=args.seed)
        env = toolgym.make(name)
        passed: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for task in tasks:
            trajectory = toolgym.rollout_sync(env, teacher, user, task)
            total[task.kind] += 1
            passed[task.kind] += trajectory.verification.passed
        elapsed = time.perf_counter() - started
        print(f"{domain.env_id}: {len(tasks)} tasks generated, rolled out and verified in {elapsed:.2f}s")
        for kind in sorted(total):
            print(f"  {kind:24s} {passed[kind]:4d}/{total[kind]:<4d} passed")
        failures += sum(total.values()) - sum(passed.values())
    return 1 if failures else 0


def scrub(text: str) -> str:
    """The text with keys and credentials masked (imported when there is something to print)."""
    from toolgym.generators.redaction import scrub as masked

    return masked(text)


def _generate(args: argparse.Namespace) -> int:
    from toolgym.config import load_config
    from toolgym.generators.job import run_job

    overrides = list(args.set or [])
    if args.retry_failures is not None:
        overrides.append(f"failures.retry={str(args.retry_failures).lower()}")
    config = load_config(args.config, overrides)
    result = run_job(
        config, Path(args.out) if args.out else None, progress=False if args.quiet else None, summary=not args.quiet,
        repair=args.repair,
    )
    stats = result["stats"]
    if args.quiet:
        print(f"{result['out_dir']}: {stats['tasks_run']} tasks run, pass rate {stats['pass_rate']:.1%}, rows {stats['rows']}")
    if not result["ok"]:
        print(f"toolgym: job failed: {scrub(result['verdict'])}", file=sys.stderr)
        return 1
    return 0


def _serve_policy(args: argparse.Namespace) -> int:
    from toolgym.generators import serve_policy

    return serve_policy.run_args(args)


def _check(args: argparse.Namespace) -> int:
    from toolgym import conformance

    options = conformance.Options(
        tasks_per_kind=args.tasks_per_kind,
        kinds=tuple(args.kinds) if args.kinds else None,
        random_steps=args.random_steps,
        spoil_tasks_per_kind=args.spoil_tasks_per_kind,
    )
    findings = conformance.run(args.name, options, only=args.checks)
    return 0 if conformance.report(args.name, findings) else 1


def _new_domain(args: argparse.Namespace) -> int:
    import subprocess

    from toolgym.envs.domain_search import install_command
    from toolgym.scaffold import scaffold

    if args.install and not args.package:
        raise ToolgymError("--install installs a package: give --package DIR too (a domain in domains/ needs no install)")
    written = scaffold(args.name, package_dir=Path(args.package) if args.package else None)
    print(f"wrote {written}")
    if args.package and args.install:
        command = [sys.executable, "-m", "pip", "install", "-e", str(written)]
        print(f"installing: {' '.join(command)}", flush=True)
        if subprocess.run(command).returncode != 0:
            raise ToolgymError(f"installing {written} failed (see pip's output above); fix it, then run "
                               f"`{install_command(written)}` and `toolgym check {args.name}`")
    elif args.package:  # an entry point is found only once the package is installed
        print(f"next: {install_command(written)}")
    print(f"{'then' if args.package and not args.install else 'next'}: toolgym check {args.name}")
    return 0


def _inspect(args: argparse.Namespace) -> int:
    from toolgym.generators.inspection.figures import inspect_dir
    from toolgym.generators.inspection.report import print_report, write_html

    try:
        inspection = inspect_dir(args.dir, top=args.top)
    except FileNotFoundError as exc:
        raise ToolgymError(str(exc)) from None
    print_report(inspection)
    if not args.no_html:
        html = Path(args.html) if args.html else Path(args.dir) / "inspect.html"
        print(f"HTML report: {write_html(inspection, html)}")
    if args.gate:
        failures = inspection.gate_failures()
        for failure in failures:
            print(f"GATE: {failure}")
        print("GATE FAILED" if failures else "GATE PASSED: every figure within its bar, no slip or incoherence found")
        return 1 if failures else 0
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolgym", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("generate", help="run a generation job from a YAML config")
    generate.add_argument("config", help="a YAML job config, such as configs/quickstart.yaml")
    generate.add_argument("--out", help="output directory (default: the config's output.dir)")
    generate.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a config key (repeatable)")
    generate.add_argument("-q", "--quiet", action="store_true", help="no live progress; one summary line")
    generate.add_argument("--retry-failures", action=argparse.BooleanOptionalAction, default=None,
                          help="run tasks that failed before again (default: on; config failures.retry)")
    generate.add_argument("--repair", action="store_true",
                          help="a shard whose checksum does not match: drop its flush and redo those tasks")
    generate.set_defaults(run=_generate)

    from toolgym.generators import serve_args

    serve = commands.add_parser(
        "serve-policy", help="an OpenAI-compatible server on 127.0.0.1 answering as the oracle teacher (for testing)"
    )
    serve_args.add_arguments(serve)
    serve.set_defaults(run=_serve_policy)

    from toolgym import serve_cli

    serve_cli.add_commands(commands)

    inspect = commands.add_parser(
        "inspect", help="what a data engineer reads before training: shape, stock sentences, openings, grammar"
    )
    inspect.add_argument("dir", help="an output directory of `toolgym generate`")
    inspect.add_argument("--html", help="where to write the HTML report (default: DIR/inspect.html)")
    inspect.add_argument("--no-html", action="store_true", help="print the tables only")
    inspect.add_argument("--top", type=int, default=20, help="how many of the most frequent sentences to show")
    inspect.add_argument("--gate", action="store_true",
                         help="exit 1 unless every language figure is within its bar and no grammar or coherence class is found")
    inspect.set_defaults(run=_inspect)

    from toolgym.eval_cli import add_eval_parser, add_eval_set_parser

    add_eval_set_parser(commands)
    add_eval_parser(commands)

    demo = commands.add_parser("demo", help="generate tasks offline, roll each out with the oracle, print results")
    demo.add_argument("--domain", help="one domain (default: all)")
    demo.add_argument("-n", type=int, default=100, help="tasks per domain")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(run=_demo)

    check = commands.add_parser("check", help="run the conformance suite on one domain; exit 1 on any failure")
    check.add_argument("name", help="the domain, such as retail or toolgym/Retail-v1")
    check.add_argument("--tasks-per-kind", type=int, default=200, help="tasks replayed per kind (default 200)")
    check.add_argument("--kinds", nargs="+", metavar="KIND", help="only these kinds (default: all)")
    check.add_argument("--checks", nargs="+", metavar="CHECK", help="only these checks (default: all)")
    check.add_argument("--random-steps", type=int, default=10_000, help="random actions to try (default 10000)")
    check.add_argument(
        "--spoil-tasks-per-kind", type=int, metavar="N", help="tasks per kind each spoil is tried on (default: a tenth of --tasks-per-kind)"
    )
    check.set_defaults(run=_check)

    new_domain = commands.add_parser("new-domain", help="write a working domain to start from (domains/NAME)")
    new_domain.add_argument("name", help="the domain's name: a Python identifier, such as library")
    new_domain.add_argument("--package", metavar="DIR", help="write an installable package in DIR instead")
    new_domain.add_argument("--install", action="store_true",
                            help="with --package: install it into this Python (pip install -e DIR)")
    new_domain.set_defaults(run=_new_domain)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ToolgymError as exc:
        print(f"toolgym: error: {scrub(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:  # disk full, read-only, permission: one line naming the path and the cause
        print(f"toolgym: error: {scrub(describe_os_error(exc))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
