"""The report's plots as base64 PNG text, so the HTML report is one self-contained file."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from .figures import Inspection  # noqa: E402

_BLUE, _ORANGE, _GREY = "#3b6ea5", "#e08a2c", "#9a9a9a"


def png(draw: Callable[[Axes], None], width: float, height: float) -> str:
    figure, axes = plt.subplots(figsize=(width, height), dpi=90)
    try:
        draw(axes)
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
    finally:
        plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _label(group: tuple[str, str]) -> str:
    return f"{group[0]}/{group[1]}"


def rows_per_group(inspection: Inspection) -> str:
    groups = list(inspection.shapes)

    def draw(ax: Axes) -> None:
        ax.barh([_label(g) for g in groups], [inspection.shapes[g].rows for g in groups], color=_BLUE)
        ax.invert_yaxis()
        ax.set_xlabel("rows")
        ax.set_title("Rows per domain and kind")

    return png(draw, 8, 0.3 * len(groups) + 1.2)


def top_sentences(inspection: Inspection) -> str:
    figures = inspection.sentences
    top = figures.top

    def draw(ax: Axes) -> None:
        shares = [100 * c / figures.total for _, c in top]
        ax.barh([s if len(s) <= 60 else s[:57] + "..." for s, _ in top], shares, color=_ORANGE)
        ax.axvline(1.0, color=_GREY, linestyle="--", linewidth=1, label="1% (issue #9's bar per sentence)")
        ax.invert_yaxis()
        ax.set_xlabel("% of assistant sentences")
        ax.set_title(f"Top {len(top)} assistant sentences: {100 * figures.top_share:.1f}% of {figures.total}")
        ax.legend(loc="lower right", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)

    return png(draw, 9, 0.28 * len(top) + 1.4)


def opening_variety(inspection: Inspection) -> str:
    groups = list(inspection.openings)

    def draw(ax: Axes) -> None:
        positions = range(len(groups))
        ax.barh([p - 0.2 for p in positions], [100 * inspection.openings[g].distinct_share for g in groups],
                height=0.4, color=_BLUE, label="distinct normalized openings")
        ax.barh([p + 0.2 for p in positions], [100 * inspection.openings[g].near_duplicate_rate for g in groups],
                height=0.4, color=_ORANGE, label="near-duplicate openings (5-gram Jaccard >= 0.8)")
        ax.set_yticks(list(positions), [_label(g) for g in groups], fontsize=7)
        ax.axvline(80, color=_GREY, linestyle="--", linewidth=1)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of rows")
        ax.set_title("First user messages per domain and kind")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.06 - 1.5 / (len(groups) + 4)), ncol=2, fontsize=7)

    return png(draw, 9, 0.34 * len(groups) + 1.4)


def calls_per_row(inspection: Inspection) -> str:
    by_domain: dict[str, dict[int, int]] = {}
    for (domain, _), shape in inspection.shapes.items():
        counts = by_domain.setdefault(domain, {})
        for calls, rows in shape.calls_histogram.items():
            counts[calls] = counts.get(calls, 0) + rows

    def draw(ax: Axes) -> None:
        width = 0.8 / max(len(by_domain), 1)
        for index, (domain, counts) in enumerate(sorted(by_domain.items())):
            xs = sorted(counts)
            ax.bar([x + index * width for x in xs], [counts[x] for x in xs], width=width, label=domain)
        ax.set_xlabel("tool calls in the row")
        ax.set_ylabel("rows")
        ax.set_title("Rows by number of tool calls")
        ax.legend(fontsize=8)

    return png(draw, 7, 3.2)


def grammar(inspection: Inspection) -> str:
    names = list(inspection.grammar)

    def draw(ax: Axes) -> None:
        ax.barh(names, [inspection.grammar[n].turns for n in names], color=_ORANGE)
        ax.invert_yaxis()
        ax.set_xlabel("turns with the slip")
        ax.set_title("Grammar findings")

    return png(draw, 7, 0.32 * len(names) + 1.2)


def all_plots(inspection: Inspection) -> dict[str, str]:
    return {
        "rows": rows_per_group(inspection),
        "sentences": top_sentences(inspection),
        "openings": opening_variety(inspection),
        "calls": calls_per_row(inspection),
        "grammar": grammar(inspection),
    }
