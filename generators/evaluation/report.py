"""An eval run's report: summary.json, report.md (tables) and report.html (the same tables and plots).

The tables are built once (`tables`) and rendered twice: as markdown, and by the HTML template
`templates/eval_report.html.j2`, whose plots are base64 PNGs drawn like `toolgym inspect`'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from .. import manifest
from .metrics import summarize
from .results import RUN_FILE, read_results

SUMMARY_FILE = "summary.json"
MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
PASS_HAT_NOTE = ("pass^k: the chance that all k trials of a task pass, C(c, k) / C(n, k) for c passing trials of n, "
                 "averaged over tasks (τ²-bench); pass@1 = pass^1, the mean pass rate of a task.")


@dataclass
class Table:
    title: str
    head: list[str]
    rows: list[list[str]]
    note: str = ""

    def markdown(self) -> str:
        lines = [f"## {self.title}", ""]
        if self.note:
            lines += [self.note, ""]
        if not self.rows:
            return "\n".join(lines).rstrip()
        lines += ["| " + " | ".join(self.head) + " |", "|" + "---|" * len(self.head)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in self.rows]
        return "\n".join(lines)


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _groups(figures: dict[str, Any], groupings: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    """("all", ...), then ("domain: retail", ...), ... in the order asked."""
    found = [("all", figures["all"])]
    for grouping in groupings:
        found += [(f"{grouping}: {key}", group) for key, group in figures.get(grouping, {}).items()]
    return found


def _top_level(figures: dict[str, Any]) -> list[str]:
    """Verifier components by name, without their sub-parts (`tool_calls`, not `tool_calls.name`)."""
    return [name for name in figures["all"].get("components", {}) if "." not in name]


def tables(summary: dict[str, Any]) -> list[Table]:
    figures, max_k = summary["figures"], summary["trials_per_task"]
    if not figures["all"].get("tasks"):
        return [Table("Pass rates", ["group", "tasks"], [["all", "0"]], "No task has finished its trials yet.")]
    ks = [str(k) for k in range(2, max_k + 1)]
    passing = Table(
        "Pass rates", ["group", "tasks", "pass@1", *(f"pass^{k}" for k in ks), "mean score"],
        [[name, str(g["tasks"]), _num(g["pass@1"]), *(_num(g["pass^k"].get(k)) for k in ks), _num(g["score"])]
         for name, g in _groups(figures, ("domain", "kind", "difficulty"))],
        PASS_HAT_NOTE,
    )
    last = f"pass^{max_k}"
    cells = Table(
        "Per domain and kind", ["domain/kind", "tasks", "pass@1", last, "mean score", "most common first failure"],
        [[name, str(g["tasks"]), _num(g["pass@1"]), _num(g["pass^k"].get(str(max_k))), _num(g["score"]),
          next(iter(g["first_failures"]), "-")] for name, g in figures["domain/kind"].items()],
    )
    domains = list(figures["domain"])
    components = Table(
        "Verifier components", ["component", "all", *domains],
        [[name, _num(figures["all"]["components"][name]),
          *(_num(figures["domain"][d]["components"].get(name)) for d in domains)] for name in _top_level(figures)],
        "Mean value over the trials graded by the component (-: none was); 1.0 is full credit. "
        "Sub-parts are in summary.json.",
    )
    cost = Table(
        "Cost per task", ["group", "turns", "tool calls", "prompt tokens", "completion tokens", "requests", "truncated"],
        [[name, _num(g["turns"], 1), _num(g["calls"], 1), _num(g["tokens"]["prompt_tokens"], 0),
          _num(g["tokens"]["completion_tokens"], 0), _num(g["tokens"]["requests"], 1), str(g["truncated"])]
         for name, g in _groups(figures, ("domain", "kind"))],
        "Means over trials: assistant turns, tool calls, and the policy's tokens and requests as the server counted "
        "them; truncated: trials cut at max_turns.",
    )
    failing = sum(figures["all"]["first_failures"].values())
    kinds = list(figures["kind"])
    failures = Table(
        "Failures by first failing component", ["component", "failed trials", "share", *kinds],
        [[name, str(n), _num(n / failing, 3), *(str(figures["kind"][k]["first_failures"].get(name, 0)) for k in kinds)]
         for name, n in figures["all"]["first_failures"].items()],
        "A failed trial counts once: under its first conduct violation, else its first required, multiplier or "
        "outcome component below full credit." if failing else "No trial failed.",
    )
    return [passing, cells, components, cost, failures]


def headline(summary: dict[str, Any]) -> list[str]:
    run = summary["run"]
    lines = [
        f"Model: {run['policy_label']}; eval set {run['eval_set']['set_id']} (content hash "
        f"{run['eval_set']['content_hash'][:12]}); {summary['trials_per_task']} trials per task.",
        f"Tasks: {summary['tasks_complete']} of {summary['tasks_planned']} have all their trials.",
    ]
    if summary["tasks_failed"]:
        causes = ", ".join(f"{n} x {cause}" for cause, n in summary["failure_causes"].items())
        lines.append(f"{summary['tasks_failed']} tasks have no trials (their requests failed: {causes}); they are "
                     "left out of every figure; run the same command again to retry them.")
    return lines


def build_summary(run: dict[str, Any], trials: list[dict[str, Any]], failed: dict[str, dict[str, Any]],
                  endpoints: dict[str, Any] | None = None) -> dict[str, Any]:
    max_k = run["fingerprint"]["trials"]
    causes: dict[str, int] = {}
    for failure in failed.values():
        cause = str(failure.get("error", "")).split(":")[0][:60]
        causes[cause] = causes.get(cause, 0) + 1
    complete = len({r["task_id"] for r in trials})
    return {
        "run": {key: run[key] for key in ("policy_label", "eval_set", "toolgym_version", "started") if key in run},
        "trials_per_task": max_k,
        "tasks_planned": run.get("tasks_planned", complete + len(failed)),
        "tasks_complete": complete,
        "tasks_failed": len(failed),
        "failure_causes": dict(sorted(causes.items(), key=lambda item: -item[1])),
        "endpoints": endpoints or {},
        "figures": summarize(trials, max_k),
    }


def render_markdown(summary: dict[str, Any]) -> str:
    title = f"# toolgym eval: {summary['run']['policy_label']} on {summary['run']['eval_set']['set_id']}"
    parts = [title, "\n".join(f"- {line}" for line in headline(summary)), *(t.markdown() for t in tables(summary))]
    return "\n\n".join(parts) + "\n"


def render_template(name: str, **values: Any) -> str:
    """One of the package's HTML templates, escaped."""
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                                     undefined=jinja2.StrictUndefined)
    return environment.get_template(name).render(**values)


def render_html(summary: dict[str, Any]) -> str:
    from .plots import all_plots

    return render_template("eval_report.html.j2", summary=summary, headline=headline(summary), tables=tables(summary),
                           plots=all_plots(summary))


def write_reports(out: Path, trials: list[dict[str, Any]], failed: dict[str, dict[str, Any]],
                  endpoints: dict[str, Any] | None = None) -> dict[str, Any]:
    """summary.json, report.md and report.html of a results folder; returns the summary."""
    out = Path(out)
    run = json.loads((out / RUN_FILE).read_text())
    summary = build_summary(run, trials, failed, endpoints)
    manifest.write_atomic(out / SUMMARY_FILE, (json.dumps(summary, indent=2) + "\n").encode())
    manifest.write_atomic(out / MARKDOWN_FILE, render_markdown(summary).encode())
    manifest.write_atomic(out / HTML_FILE, render_html(summary).encode())
    return summary


def report_folder(out: str | Path) -> dict[str, Any]:
    """Write the reports of a results folder again from its trial records (`toolgym eval --report DIR`)."""
    run, trials, failed = read_results(out)
    previous = Path(out) / SUMMARY_FILE  # the endpoints' counts are known only to the run itself
    endpoints = json.loads(previous.read_text()).get("endpoints") if previous.is_file() else None
    return write_reports(Path(out), trials, failed, endpoints)
