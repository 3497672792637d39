"""The eval report's plots, as base64 PNGs (drawn like `toolgym inspect`'s: one self-contained HTML file)."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes

from ..inspection.plots import png

_BLUE, _ORANGE, _GREY = "#3b6ea5", "#e08a2c", "#9a9a9a"


def pass_hat_curves(summary: dict[str, Any]) -> str:
    """pass^k against k: the whole run, and each domain."""
    figures = summary["figures"]
    lines = {"all": figures["all"], **figures["domain"]}

    def draw(ax: Axes) -> None:
        for name, group in lines.items():
            ks = sorted(int(k) for k in group["pass^k"])
            ax.plot(ks, [group["pass^k"][str(k)] for k in ks], marker="o",
                    linewidth=2.5 if name == "all" else 1.2, color="black" if name == "all" else None, label=name)
        ax.set_xlabel("k (trials that must all pass)")
        ax.set_ylabel("pass^k")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xticks(range(1, summary["trials_per_task"] + 1))
        ax.set_title("Reliability: pass^k")
        ax.legend(fontsize=8)

    return png(draw, 7, 3.6)


def kinds(summary: dict[str, Any]) -> str:
    """pass@1 and pass^k (the largest k) per task kind."""
    groups = summary["figures"]["kind"]
    names, last = list(groups), str(summary["trials_per_task"])

    def draw(ax: Axes) -> None:
        positions = range(len(names))
        ax.barh([p - 0.2 for p in positions], [groups[n]["pass@1"] for n in names], height=0.4, color=_BLUE,
                label="pass@1")
        ax.barh([p + 0.2 for p in positions], [groups[n]["pass^k"].get(last, 0.0) for n in names], height=0.4,
                color=_ORANGE, label=f"pass^{last}")
        ax.set_yticks(list(positions), names, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_title("Per task kind")
        ax.legend(fontsize=8, loc="lower right")

    return png(draw, 8, 0.4 * len(names) + 1.4)


def components(summary: dict[str, Any]) -> str:
    """Each verifier component's mean value over the trials it graded."""
    means = {n: v for n, v in summary["figures"]["all"]["components"].items() if "." not in n}
    names = list(means)

    def draw(ax: Axes) -> None:
        ax.barh(names, [means[n] for n in names], color=_BLUE)
        ax.axvline(1.0, color=_GREY, linestyle="--", linewidth=1)
        ax.invert_yaxis()
        ax.set_xlim(0, 1.05)
        ax.set_xlabel("mean value (1.0: full credit)")
        ax.set_title("Verifier components")

    return png(draw, 8, 0.3 * len(names) + 1.2)


def first_failures(summary: dict[str, Any]) -> str:
    counts = summary["figures"]["all"]["first_failures"]
    names = list(counts) or ["(no failed trial)"]

    def draw(ax: Axes) -> None:
        ax.barh(names, [counts.get(n, 0) for n in names], color=_ORANGE)
        ax.invert_yaxis()
        ax.set_xlabel("failed trials")
        ax.set_title("Failures by first failing component")

    return png(draw, 8, 0.3 * len(names) + 1.2)


def all_plots(summary: dict[str, Any]) -> dict[str, str]:
    if not summary["figures"]["all"].get("tasks"):
        return {}
    return {"pass_hat": pass_hat_curves(summary), "kinds": kinds(summary), "components": components(summary),
            "failures": first_failures(summary)}


def comparison_plot(comparison: Any) -> str:
    """B - A with its bootstrap interval, for pass@1 and the largest pass^k, per group."""
    metrics = [m for m in dict.fromkeys(r.metric for r in comparison.rows) if m != "score"]
    shown = [metrics[0], metrics[-1]] if len(metrics) > 1 else metrics
    groups = list(dict.fromkeys(r.group for r in comparison.rows))
    rows = {(r.group, r.metric): r for r in comparison.rows}

    def draw(ax: Axes) -> None:
        for metric, color, offset in zip(shown, (_BLUE, _ORANGE), (-0.15, 0.15), strict=False):
            found = [rows[(g, metric)] for g in groups]
            ax.errorbar([r.difference for r in found], [i + offset for i in range(len(groups))],
                        xerr=[[r.difference - r.low for r in found], [r.high - r.difference for r in found]],
                        fmt="o", color=color, capsize=3, label=f"{metric}: B - A")
        ax.axvline(0.0, color=_GREY, linestyle="--", linewidth=1)
        ax.set_yticks(range(len(groups)), groups, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(f"difference, with its {round(100 * comparison.confidence)}% bootstrap interval")
        ax.set_title("B against A")
        ax.legend(fontsize=8)

    return png(draw, 8, 0.35 * len(groups) + 1.6)
