"""`toolgym inspect`: the figures in the terminal (rich tables) and as one HTML file with plots."""

from __future__ import annotations

from pathlib import Path

import jinja2
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .augmentation import summary_lines as augment_lines
from .figures import Inspection

_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def _pct(part: float, whole: float = 1.0) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def short_kind_lines(inspection: Inspection) -> list[str]:
    """One line per kind that did not reach the asked count, or why that cannot be told."""
    if inspection.short_kinds is None:
        return ["asked counts unknown: the directory records no config this build can read"]
    return [f"{s.domain}/{s.kind}: {s.written} of {s.asked} tasks asked for" for s in inspection.short_kinds]


WIDE = 1_000  # columns of a report that is not going to a terminal: a file or a pipe gets whole lines


def _names(table: Table, header: str, names: list[str]) -> None:
    """A column of names (domain/kind, tool, class): as wide as its longest name, never cut with '…'."""
    table.add_column(header, no_wrap=True, overflow="fold", min_width=min(max(map(len, names), default=0), 60))


def _values(table: Table, header: str, justify: str = "right") -> None:
    table.add_column(header, justify=justify, overflow="fold")  # type: ignore[arg-type]


def report_console() -> Console:
    """The terminal's console, or one wide enough that nothing is squeezed when output goes to a file."""
    console = Console()
    return console if console.is_terminal else Console(width=WIDE)


def print_report(inspection: Inspection, console: Console | None = None) -> None:
    console = console or report_console()
    splits = ", ".join(f"{k}: {v}" for k, v in sorted(inspection.split_rows.items())) or "none"
    console.print(f"[bold]toolgym inspect[/bold] {inspection.out_dir}  (rows read: {splits})")

    shape = Table(title="Rows, turns and calls per domain and kind")
    _names(shape, "domain/kind", [f"{d}/{k}" for d, k in inspection.shapes])
    for column in ("rows", "turns/row", "calls/row", "user calls", "distinct openings", "near-dup openings", "grounded"):
        _values(shape, column)
    for group, figures in inspection.shapes.items():
        opening = inspection.openings.get(group)
        grounded = "n/a"
        if inspection.grounding is not None:
            grounded = _pct(*inspection.grounding.get(group, (0, 0)))
        shape.add_row(
            f"{group[0]}/{group[1]}", str(figures.rows), f"{figures.turns_per_row:.1f}", f"{figures.calls_per_row:.2f}",
            str(figures.user_calls),
            f"{opening.distinct} ({_pct(opening.distinct_share)})" if opening else "-",
            _pct(opening.near_duplicate_rate) if opening else "-", grounded,
        )
    console.print(shape)

    tools = Table(title="Tools used against tools offered")
    _names(tools, "domain", list(inspection.tools))
    _values(tools, "used")
    _values(tools, "offered")
    _values(tools, "never called", "left")
    for domain, (used, unused) in inspection.tools.items():
        tools.add_row(domain, str(len(used)), str(len(used) + len(unused)), ", ".join(unused) or "-")
    console.print(tools)

    sentences = inspection.sentences
    top = Table(title=f"Top {len(sentences.top)} assistant sentences: {_pct(sentences.top_share)} of {sentences.total}")
    _values(top, "count")
    _values(top, "share")
    _values(top, "sentence", "left")
    for text, count in sentences.top:
        top.add_row(str(count), _pct(count, sentences.total), escape(text))
    console.print(top)

    grammar = Table(title="Grammar findings (turns)")
    _names(grammar, "class", list(inspection.grammar))
    _values(grammar, "turns")
    _values(grammar, "example", "left")
    for name, tally in inspection.grammar.items():
        grammar.add_row(name, str(tally.turns), escape(tally.examples[0]) if tally.examples else "")
    console.print(grammar)

    coherence = Table(title="Coherence findings (rows)")
    _names(coherence, "class", list(inspection.coherence))
    _values(coherence, "rows")
    _values(coherence, "example", "left")
    for name, found in inspection.coherence.items():
        shown = escape(found.examples[0]) if found.examples else ""
        coherence.add_row(name, str(found.rows) if found.measured else "not measured", shown)
    console.print(coherence)

    console.print("[bold]Summary[/bold]")
    for line in summary_lines(inspection):
        console.print(f"  {escape(line)}")


def summary_lines(inspection: Inspection) -> list[str]:
    distinct = inspection.reasoning_distinct_share
    lines = [
        f"top-20 assistant sentences: {_pct(inspection.sentences.top_share)} of assistant sentences "
        f"(largest single sentence {_pct(inspection.sentences.max_share)})",
        f"assistant turns repeated 10+ times: {_pct(inspection.repeated_turn_share)} "
        f"({inspection.repeated_turns[0]} of {inspection.repeated_turns[1]})",
        "reasoning traces: none" if distinct is None
        else f"reasoning traces: {inspection.reasoning[0]} distinct of {inspection.reasoning[1]} ({_pct(distinct)})",
    ]
    patterns = inspection.trace_patterns
    if patterns.traces:
        lines.append(f"reasoning wordings: {patterns.patterns} distinct; the top 50 cover {_pct(patterns.top_share)} of traces")
    low = inspection.acting_openings_low()
    if low:
        lines.append("acting kinds under 80% distinct openings: " + ", ".join(f"{d}/{k}" for d, k in low))
    if inspection.grounding is None:
        lines.append("grounding: unavailable in this build (toolgym.envs.grounding not installed)")
    else:
        grounded = sum(g for g, _ in inspection.grounding.values())
        total = sum(n for _, n in inspection.grounding.values())
        lines.append(f"grounding: {grounded} of {total} rows state only facts seen before ({_pct(grounded, total)})")
    lines += augment_lines(inspection.augment)
    if inspection.short_kinds == []:
        lines.append("every kind reached the count the config asked for")
    lines += [f"short of the asked count: {line}" for line in short_kind_lines(inspection)]
    return lines


def render_html(inspection: Inspection, plots: dict[str, str]) -> str:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
    )
    return environment.get_template("inspect_report.html.j2").render(
        inspection=inspection,
        plots=plots,
        summary=summary_lines(inspection),
        pct=_pct,
    )


def write_html(inspection: Inspection, path: Path) -> Path:
    from .plots import all_plots

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(inspection, all_plots(inspection)))
    return path
