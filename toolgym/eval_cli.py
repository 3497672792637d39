"""The `toolgym eval-set` and `toolgym eval` commands (their parsers and what they run)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolgym.errors import ToolgymError
from toolgym.generators.redaction import scrub


def add_eval_set_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("eval-set", help="write a frozen eval set (tasks per domain and kind), or check one")
    parser.add_argument("name", nargs="?", help="the set's name, such as heldout")
    parser.add_argument("--version", type=int, default=1, help="the set's version (bump it to remake a set)")
    parser.add_argument("--domains", nargs="+", metavar="DOMAIN", help="default: every domain")
    parser.add_argument("--kinds", nargs="+", metavar="KIND", help="default: every kind of each domain")
    parser.add_argument("--tasks-per-kind", type=int, default=10, help="tasks per kind of each domain (default 10)")
    parser.add_argument("--world-seeds", nargs="+", type=int, metavar="SEED", help="worlds the tasks are spread over")
    parser.add_argument("--seed", type=int, help="the first task seed")
    parser.add_argument("--size", default="default", help="world size (default: default)")
    parser.add_argument("--out", help="where to write it (default: datasets_out/eval_sets/NAME-vVERSION)")
    parser.add_argument("--check", metavar="DIR", help="check a set instead: its hash, domain versions, and every gold plan")
    parser.set_defaults(run=_eval_set)


def _eval_set(args: argparse.Namespace) -> int:
    from toolgym.eval_config import EvalSetSpec
    from toolgym.generators.evaluation.eval_set import build_eval_set, check_eval_set, load_eval_set

    if args.check:
        problems = check_eval_set(args.check)
        found = load_eval_set(args.check)
        for problem in problems:
            print(f"  - {problem}")
        print(f"{found.set_id}: {len(found.tasks)} tasks, content hash {found.content_hash[:12]}: "
              + (f"{len(problems)} problems" if problems else "ok"))
        return 1 if problems else 0
    if not args.name:
        raise ToolgymError("give the new set's NAME (toolgym eval-set heldout), or --check DIR to check one")
    values = {"name": args.name, "version": args.version, "domains": args.domains or "all", "kinds": args.kinds,
              "tasks_per_kind": args.tasks_per_kind, "size": args.size}
    if args.world_seeds:
        values["world_seeds"] = args.world_seeds
    if args.seed is not None:
        values["seed"] = args.seed
    from pydantic import ValidationError

    from toolgym.config import describe_validation_error

    try:
        spec = EvalSetSpec.model_validate(values)
    except ValidationError as exc:
        raise ToolgymError(describe_validation_error(exc, "of toolgym eval-set", EvalSetSpec)) from None
    built = build_eval_set(spec, Path(args.out) if args.out else None)
    print(f"{built.path}: eval set {built.set_id}, {len(built.tasks)} tasks, content hash {built.content_hash[:12]}")
    for key, n in built.meta["counts"].items():
        print(f"  {key:32s} {n}")
    for key, missing in built.meta.get("short", {}).items():
        print(f"  {key}: {missing} short of {spec.tasks_per_kind} (its generator gave no more distinct tasks)")
    print(f"keep it out of training: held_out: {{eval_sets: [{built.path}]}} in a generation config")
    return 0


def add_eval_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("eval", help="run a served model k times on every task of an eval set, and report")
    parser.add_argument("config", nargs="?", help="a YAML eval config, such as configs/eval.yaml (or give flags)")
    parser.add_argument("--eval-set", help="an eval-set directory (config: eval_set)")
    parser.add_argument("--base-url", help="the model's OpenAI-compatible server, such as http://127.0.0.1:8000/v1")
    parser.add_argument("--model", help="the model name the server serves")
    parser.add_argument("--mode", choices=["native", "text"], help="tools in the request, or in the prompt")
    parser.add_argument("-k", "--trials", type=int, help="trials per task (default 3)")
    parser.add_argument("--user", choices=["scripted", "llm"], help="the user simulator (default: scripted)")
    parser.add_argument("--concurrency", type=int, help="tasks in flight (default 16)")
    parser.add_argument("--send-task", action="store_true", help="send each Task in the request (toolgym serve-policy only)")
    parser.add_argument("--out", help="results folder (default: datasets_out/eval/RUN_NAME)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a config key (repeatable)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no live progress; one summary line")
    parser.add_argument("--report", metavar="DIR", help="write the reports of a results folder again, and print them")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two results folders side by side (B - A)")
    parser.add_argument("--samples", type=int, default=2000, help="--compare: bootstrap resamples (default 2000)")
    parser.add_argument("--confidence", type=float, default=0.95, help="--compare: interval coverage (default 0.95)")
    parser.add_argument("--html", help="--compare: also write the comparison as an HTML page with a plot here")
    parser.set_defaults(run=_eval)


def _overrides(args: argparse.Namespace) -> list[str]:
    """The flags as config overrides (values as JSON strings, so YAML reads `1.5` as the text a model name is)."""
    found = []
    served = args.base_url is not None or args.model is not None
    for key, value in (("eval_set", args.eval_set), ("policy.base_url", args.base_url), ("policy.model", args.model),
                       ("policy.mode", args.mode), ("user.type", args.user)):
        if value is not None:
            found.append(f"{key}={json.dumps(value)}")
    for key, number in (("trials", args.trials), ("concurrency", args.concurrency)):
        if number is not None:
            found.append(f"{key}={number}")
    if served:
        found.append("policy.type=openai")
    if args.send_task:
        found.append("policy.send_task=true")
    return found + list(args.set or [])


def _eval(args: argparse.Namespace) -> int:
    if args.compare:
        return _compare(args)
    from toolgym.generators.evaluation.report import MARKDOWN_FILE, report_folder

    if args.report:
        report_folder(args.report)
        print((Path(args.report) / MARKDOWN_FILE).read_text())
        return 0
    from toolgym.eval_config import load_eval_config
    from toolgym.generators.evaluation.runner import run_eval

    config = load_eval_config(args.config, _overrides(args))
    result = run_eval(config, Path(args.out) if args.out else None, progress=False if args.quiet else None)
    out = Path(result["out_dir"])
    figures = result["summary"]["figures"]["all"]
    if args.quiet:
        passes = ", ".join(f"pass^{k} {v:.3f}" for k, v in figures.get("pass^k", {}).items())
        print(f"{out}: {figures.get('tasks', 0)} tasks, {passes}")
    else:
        text = (out / MARKDOWN_FILE).read_text()
        print(text.split("\n## ", 2)[0] + "\n## " + text.split("\n## ", 2)[1])  # the headline and the pass-rate table
        print(f"\nreports: {out / MARKDOWN_FILE}, {out / 'report.html'}; every trial: {out / 'trials.jsonl'}")
    if not result["ok"]:
        print(f"toolgym: eval incomplete: {scrub(result['verdict'])}", file=sys.stderr)
        return 1
    return 0


def _compare(args: argparse.Namespace) -> int:
    from toolgym.generators.evaluation.compare import compare, render_html, render_markdown

    comparison = compare(args.compare[0], args.compare[1], samples=args.samples, confidence=args.confidence)
    print(render_markdown(comparison))
    if args.html:
        path = Path(args.html)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_html(comparison))
        print(f"HTML: {path}")
    return 0
