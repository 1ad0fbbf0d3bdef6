"""The figures of the report, as PNG (default), PDF or SVG files of a fixed size.

Each function draws one figure from the cases (analysis.load), Table 1 (analysis.table), the
fits (analysis.fit) or a comparison (analysis.compare), writes it to `path` in the format its
suffix names (.png, .pdf, .svg) and returns the path. PNGs are FIGSIZE_IN at `dpi` (DPI = 300,
print resolution: 1920 x 1440 px; 100 for the screen: 640 x 480 px); PDF and SVG are vector files with their text
kept as text (TrueType fonts in PDF) and no creation date, so a figure redrawn from the same
data is the same file. Times are in seconds. Every mean and share is drawn with its 95%
interval; reference lines from the paper each have their own colour and style, named in the
legend, which sits below the axes so that it hides no data. Titles say what is drawn, never a
file name. Matplotlib runs headless (Agg), through Figure objects, without pyplot's global state.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from analysis import output, paper  # noqa: E402
from analysis import table as table_mod  # noqa: E402
from analysis.errors import AnalysisError  # noqa: E402
from analysis.fit import FEW_POINTS, Fit  # noqa: E402

#: Figure size in inches and the default resolution (print: 300 dpi): every PNG is 1920 x 1440 pixels at DPI.
FIGSIZE_IN = (6.4, 4.8)
#: Figures of two panels (randSet & randSet, the comparisons).
TALL_IN = (6.4, 8.0)
DPI = output.DPI
SIZE_PX = (round(FIGSIZE_IN[0] * DPI), round(FIGSIZE_IN[1] * DPI))
TALL_PX = (round(TALL_IN[0] * DPI), round(TALL_IN[1] * DPI))
#: The formats a figure can be written in (its path's suffix).
FORMATS = output.FIGURE_FORMATS
#: Resolutions accepted for PNG (dots per inch).
DPI_RANGE = (50, 1200)

#: Backtrack groups of Table 1 and Figure 11: label and test on the backtrack count.
BACKTRACK_GROUPS = [
    ("0", lambda b: b == 0),
    ("1", lambda b: b == 1),
    ("2", lambda b: b == 2),
    ("3", lambda b: b == 3),
    ("> 3", lambda b: b > 3),
]

#: Styles of the paper's reference lines, one per kind of statement, so that no two look alike
#: (our data is drawn with markers and solid lines in the C0.. colours).
PAPER_FIT_STYLE = {"color": "C3", "linestyle": ":", "linewidth": 1.5}
PAPER_STYLES = [
    {"color": "C3", "linestyle": ":", "linewidth": 1.5},
    {"color": "C1", "linestyle": "--", "linewidth": 1.5},
    {"color": "C4", "linestyle": "-.", "linewidth": 1.5},
]
PAPER_POINT_STYLE = {"color": "C3", "marker": "D", "mfc": "none", "linestyle": "none"}
#: Markers of the groups of a comparison, in order.
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def _figure(size=FIGSIZE_IN, dpi: float = DPI) -> tuple[Figure, object]:
    fig = Figure(figsize=size, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def check_format(path) -> str:
    """The format of `path` from its suffix: one of FORMATS, else an AnalysisError."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise AnalysisError(f"{path}: figures are written as {', '.join(FORMATS)} (by the file's suffix)")
    return fmt


def _save(fig: Figure, path, dpi: float = DPI) -> Path:
    """Writes the figure in the format of `path`'s suffix, whole or not at all
    (analysis.output): a failure names `path`. No creation dates: the same data gives the same file."""
    path = Path(path)
    fmt = check_format(path)
    output.make_dir(path.parent)
    metadata = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None}, "svg": {"Date": None}}[fmt]
    rc = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none", "svg.hashsalt": "nqc"}

    def write(tmp: Path) -> None:
        with matplotlib.rc_context(rc):
            # no bbox_inches="tight": keeps the size in pixels exactly
            fig.savefig(tmp, dpi=dpi, format=fmt, metadata=metadata)

    return output.write_with(path, write)


def legend_below(ax, fontsize: float = 8, ncol: int | None = None) -> None:
    """The legend of `ax` below its axes (and x label), in one or two columns: it covers no data."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    ncol = ncol or (1 if len(handles) <= 2 or max(len(label) for label in labels) > 45 else 2)
    ax.legend(
        handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=ncol, fontsize=fontsize, frameon=False
    )


def _finish(fig: Figure, ax, path, xlabel: str, ylabel: str, title: str, grid: bool = False, dpi: float = DPI) -> Path:
    """Labels (units in the label), title, optional log grid and legend below the axes, then _save."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if grid:
        ax.grid(True, which="both", alpha=0.3)
    legend_below(ax)
    return _save(fig, path, dpi)


def _within(lo: float, hi: float, n) -> tuple[float, float] | None:
    """The part of the paper's n range lo..hi that our board sizes n span (None when they miss
    it): reference lines are drawn only where both the paper's statement and our data are."""
    n = np.asarray(n, dtype=float)
    a, b = max(lo, float(n.min())), min(hi, float(n.max()))
    return (a, b) if a <= b else None


def _errorbar(ax, x, y, lo, hi, **style):
    """y at x with error bars to [lo, hi] (a point without a finite interval plain)."""
    x, y, lo, hi = (np.asarray(v, dtype=float) for v in (x, y, lo, hi))
    has = np.isfinite(lo) & np.isfinite(hi)
    yerr = np.vstack([np.where(has, y - lo, 0.0), np.where(has, hi - y, 0.0)])
    return ax.errorbar(x, y, yerr=np.maximum(yerr, 0.0), capsize=2.5, elinewidth=1, **style)


class _LogFloor:
    """Lower interval ends on a log axis: a mean's interval can reach 0 or below, which a log
    axis cannot show. Such ends are drawn at a floor below every value shown (half the smallest
    positive value or interval end), and the axis is cut there (:meth:`apply`), so the bar
    runs to the bottom of the axis."""

    def __init__(self, values, lows):
        values = np.concatenate([np.asarray(v, dtype=float).ravel() for v in [*values, *lows]])
        positive = values[np.isfinite(values) & (values > 0)]
        self.floor = float(positive.min()) / 2 if positive.size else float("nan")
        self.used = False

    def __call__(self, lo) -> np.ndarray:
        lo = np.asarray(lo, dtype=float)
        cut = np.isfinite(lo) & (lo <= 0)
        self.used |= bool(cut.any())
        return np.where(cut, self.floor, lo)

    def apply(self, ax) -> None:
        if self.used:
            ax.set_ylim(bottom=self.floor)


class NoData(ValueError):
    """A figure has nothing it can draw (no cases at its n, or no time that a log axis can show).
    Raised before anything is written; the message names the n and the result files."""


def files_note(frame: pd.DataFrame) -> str:
    """The result files the rows of `frame` came from, for messages."""
    if "source" not in frame.columns or frame.empty:
        return ""
    names = sorted({str(v) for v in frame["source"].unique()})
    return " in " + ", ".join(names[:3]) + (f" and {len(names) - 3} more files" if len(names) > 3 else "")


#: The time histograms span these percentiles of the times, so that a few extreme cases do not
#: squeeze the bulk into a handful of bins; the cases outside are counted in the title.
HIST_PERCENTILES = (0.5, 99.5)


def _log_bins(t: np.ndarray) -> tuple[np.ndarray, str]:
    """Log-spaced bin edges over the HIST_PERCENTILES range of t (2 sqrt(cases) bins, 10 to
    80), and a note on the cases outside it ("" when none). t: positive finite times, not empty."""
    if t.size == 0 or not np.all(np.isfinite(t) & (t > 0)):
        raise ValueError("log bins need positive finite times")
    bins = int(np.clip(2 * np.sqrt(t.size), 10, 80))
    lo, hi = (float(v) for v in np.percentile(t, HIST_PERCENTILES))
    if hi <= lo:
        lo, hi = lo / 1.5, hi * 1.5
    below, above = int(np.sum(t < lo)), int(np.sum(t > hi))
    note = f"; not shown: {below} faster, {above} slower" if below or above else ""
    return np.logspace(np.log10(lo), np.log10(hi), bins + 1), note


def _positive_times(cases: pd.DataFrame, n: int, time: str) -> tuple[pd.DataFrame, np.ndarray, str]:
    """The cases at n whose time is positive and finite (what a log axis can show), their
    times, and a note on the cases left out ("" when none). NoData when no case is left."""
    at_n = cases[cases["n"] == n]
    if at_n.empty:
        raise NoData(f"no cases at n = {n}")
    t = at_n[time].to_numpy(dtype=float)
    keep = np.isfinite(t) & (t > 0)
    if not keep.any():
        raise NoData(
            f"all {t.size} times {time} at n = {n} are 0, negative or not finite{files_note(at_n)}: "
            "nothing to draw on a log axis"
        )
    dropped = int(t.size - keep.sum())
    note = f"; left out: {dropped} with {time} 0, negative or not finite" if dropped else ""
    return at_n[keep], t[keep], note


def time_vs_n(table: pd.DataFrame, mean_fit: Fit | None, path, where: str = "", dpi: float = DPI) -> Path:
    """Mean and t90mean completion time per case vs n, log-log, each with its 95% interval
    (table columns ``*_lo``, ``*_hi``), with our fit of the mean (over its n range) and the
    paper's line log10(1000 t) = -0.628927 + 0.781568 log10(n) over the paper's n range
    (50..10^8) where it meets ours ([Grigoryan]'s Figure 7). Times that are 0 or not finite are left
    out (and named in the legend); NoData when none is left (`where`, e.g. " in FILE", is added
    to its message)."""
    n = table["n"].to_numpy(dtype=float)
    if n.size == 0 or not np.all(np.isfinite(n) & (n >= 1)):
        raise NoData(f"board sizes {n.tolist()} cannot be drawn on a log axis (expected n >= 1)")
    mean = table["mean_s"].to_numpy(dtype=float)
    t90 = table["t90mean_s"].to_numpy(dtype=float)
    shown_mean, shown_t90 = np.isfinite(mean) & (mean > 0), np.isfinite(t90) & (t90 > 0)
    if not (shown_mean.any() or shown_t90.any()):
        raise NoData(
            "the mean and t90mean time per case are 0, negative or not finite at every n "
            f"({', '.join(str(int(v)) for v in n)}){where}: nothing to draw on a log axis"
        )
    left_out = [int(v) for v in n[~(shown_mean & shown_t90)]]
    fig, ax = _figure(dpi=dpi)
    ax.set_xscale("log")
    ax.set_yscale("log")

    mean_lo = table["mean_s_lo"].to_numpy(dtype=float)[shown_mean]
    t90_lo = table["t90mean_s_lo"].to_numpy(dtype=float)[shown_t90]
    floor = _LogFloor([mean[shown_mean], t90[shown_t90]], [mean_lo, t90_lo])
    _errorbar(
        ax,
        n[shown_mean],
        mean[shown_mean],
        floor(mean_lo),
        table["mean_s_hi"].to_numpy(dtype=float)[shown_mean],
        fmt="o",
        color="C0",
        label="mean, 95% CI",
    )
    _errorbar(
        ax,
        n[shown_t90] * 1.04,
        t90[shown_t90],
        floor(t90_lo),
        table["t90mean_s_hi"].to_numpy(dtype=float)[shown_t90],
        fmt="s",
        color="C2",
        mfc="none",
        label="t90mean (fastest 90%), 95% CI",
    )
    floor.apply(ax)
    if left_out:
        ax.plot(
            [],
            [],
            " ",
            label=f"not shown (time 0 or not finite): n = {', '.join(map(str, left_out[:8]))}"
            + (", ..." if len(left_out) > 8 else ""),
        )
    grid = np.logspace(np.log10(n.min()), np.log10(n.max()), 100)
    if mean_fit is not None:
        inside = (grid >= mean_fit.n_min) & (grid <= mean_fit.n_max)
        few = f" ({mean_fit.points} points: too few)" if mean_fit.points < FEW_POINTS else ""
        ax.plot(
            grid[inside],
            [mean_fit.predict_s(v) for v in grid[inside]],
            "-",
            color="C0",
            label=f"our fit of the mean, n = {mean_fit.n_min}..{mean_fit.n_max}: "
            f"a = {mean_fit.a:.3f}, b = {mean_fit.b:.3f}{few}",
        )
    lo_n, hi_n = max(n.min(), paper.FIT_N_MIN), min(n.max(), paper.FIT_N_MAX)
    if lo_n < hi_n:  # the paper's line only where its fit and our n meet
        theirs = np.logspace(np.log10(lo_n), np.log10(hi_n), 50)
        ax.plot(
            theirs,
            [paper.predicted_time_s(v) for v in theirs],
            **PAPER_FIT_STYLE,
            label=f"paper's fit (MATLAB; fitted over n = {paper.FIT_N_MIN}..10^8): a = {paper.A}, b = {paper.B}",
        )
    return _finish(
        fig,
        ax,
        path,
        "board size n",
        "completion time per case (s)",
        "Completion time vs n (fit: log10(1000 t) = a + b log10 n)",
        grid=True,
        dpi=dpi,
    )


def time_histogram(cases: pd.DataFrame, n: int, path, time: str = "wall_s", dpi: float = DPI) -> Path:
    """Histogram of the completion times at one n, log-spaced bins over the 0.5th to 99.5th
    percentile, the mean with its 95% interval (shaded) and the median ([Grigoryan]'s Figure 10)."""
    at_n, t, dropped = _positive_times(cases, n, time)
    fig, ax = _figure(dpi=dpi)
    edges, note = _log_bins(t)
    note += dropped
    ax.hist(t, bins=edges, color="C0")
    ax.set_xscale("log")
    lo, hi = table_mod.mean_ci(t)
    if np.isfinite(lo) and np.isfinite(hi):
        ax.axvspan(
            lo if lo > 0 else edges[0], hi, color="C3", alpha=0.15, lw=0, label=f"mean's 95% CI {lo:.3g}..{hi:.3g} s"
        )
    ax.axvline(t.mean(), color="C3", linestyle="-", label=f"mean {t.mean():.3g} s")
    ax.axvline(np.median(t), color="C1", linestyle="--", label=f"median {np.median(t):.3g} s")
    marks = [v for v in (lo, hi, t.mean(), np.median(t)) if np.isfinite(v) and v > 0]
    ax.set_xlim(min([edges[0], *marks]), max([edges[-1], *marks]))  # the bins, and every mark
    return _finish(
        fig,
        ax,
        path,
        "completion time per case (s, log scale)",
        "cases",
        f"Completion time at n = {n} ({len(t)} cases{note})",
        dpi=dpi,
    )


def time_histogram_by_backtracks(
    cases: pd.DataFrame, n: int, path, time: str = "wall_s", k_range: tuple[int, int] | None = None, dpi: float = DPI
) -> Path:
    """The completion time histogram at one n, stacked by backtrack count 0, 1, 2, 3, > 3
    ([Grigoryan]'s Figure 11, which took the compositions of one size k = 800 at n = 1000:
    `k_range` (inclusive) restricts the cases the same way)."""
    if k_range is not None:
        cases = cases[(cases["n"] != n) | ((cases["k"] >= k_range[0]) & (cases["k"] <= k_range[1]))]
        if not (cases["n"] == n).any():
            raise NoData(f"no cases at n = {n} with k in {k_range[0]}..{k_range[1]}")
    at_n, t, dropped = _positive_times(cases, n, time)
    bt = at_n["backtracks"].to_numpy(dtype=np.int64)
    groups = [(label, t[test(bt)]) for label, test in BACKTRACK_GROUPS]
    fig, ax = _figure(dpi=dpi)
    edges, note = _log_bins(t)
    note += dropped
    ax.hist(
        [g for _, g in groups],
        bins=edges,
        stacked=True,
        label=[f"{label} backtracks ({g.size})" for label, g in groups],
        color=[f"C{i}" for i in range(len(groups))],
    )
    ax.set_xscale("log")
    which = f", k = {k_range[0]}..{k_range[1]}" if k_range else ", all k"
    return _finish(
        fig,
        ax,
        path,
        "completion time per case (s, log scale)",
        "cases",
        f"Completion time by backtrack count at n = {n}{which}\n({t.size} cases{note})",
        dpi=dpi,
    )


def no_backtrack_share(table: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """Share of cases solved without any backtrack vs n with its exact (Clopper-Pearson) 95%
    interval, and the paper's statements, each in its own style: above 35% for n = 7..10^5,
    above 50% for n = 320..22500, 60.50% at n = 1000 and 61.92% at n = 5000 ([Grigoryan]'s Figure 9)."""
    fig, ax = _figure(dpi=dpi)
    ax.set_xscale("log")
    _errorbar(
        ax,
        table["n"],
        100 * table["bt0"],
        100 * table["bt0_lo"],
        100 * table["bt0_hi"],
        fmt="o-",
        color="C0",
        label="ours, 95% interval (Clopper-Pearson)",
    )
    for (lo, hi, floor), style in zip(paper.NO_BACKTRACK_FLOORS, PAPER_STYLES):
        span = _within(lo, hi, table["n"])
        if span:
            ax.hlines(
                100 * floor,
                *span,
                colors=style["color"],
                linestyles=style["linestyle"],
                linewidth=style["linewidth"],
                label=f"paper: > {100 * floor:.0f}% for n = {lo}..{hi}",
            )
    pn = sorted(paper.BACKTRACK_SHARES)
    ax.plot(
        pn,
        [100 * paper.BACKTRACK_SHARES[v]["bt0"] for v in pn],
        **PAPER_POINT_STYLE,
        label="paper: n = " + ", ".join(map(str, pn)),
    )
    ax.set_ylim(0, 102)  # a share of 100% stays visible
    return _finish(
        fig,
        ax,
        path,
        "board size n",
        "cases without backtracking (%)",
        "Share of cases solved without backtracking",
        grid=True,
        dpi=dpi,
    )


def false_negative_share(table: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """False negative share vs n (log-log) with its exact 95% interval, and the paper's bounds
    (below 1e-4 for n < 100, 1e-5 for 100 <= n < 800, none seen for n >= 800), each bound in
    its own style. Where none was seen the interval's upper end (about 3.7 / cases) is drawn as
    a downward triangle."""
    fig, ax = _figure(dpi=dpi)
    n = table["n"].to_numpy(dtype=float)
    count = table["false_negatives"].to_numpy(dtype=float)
    m = table["cases"].to_numpy(dtype=float)
    share = count / m
    lo, hi = table_mod.clopper_pearson(count, m)
    seen = count > 0
    if seen.any():
        ax.errorbar(
            n[seen],
            share[seen],
            yerr=[share[seen] - lo[seen], hi[seen] - share[seen]],
            fmt="o",
            color="C0",
            capsize=3,
            label="ours: share, 95% interval",
        )
    if (~seen).any():
        ax.plot(n[~seen], hi[~seen], "v", color="C0", mfc="none", label="ours: none seen, 95% upper bound")
    _bounds(ax, n)
    ax.set_xscale("log")
    ax.set_yscale("log")
    return _finish(
        fig,
        ax,
        path,
        "board size n",
        "false negative share (of cases)",
        "False negatives: completable compositions not solved",
        grid=True,
        dpi=dpi,
    )


def _bounds(ax, n) -> None:
    """The paper's false negative bounds, each in its own style, where our n meet their ranges."""
    for (lo_n, hi_n, bound), style in zip(paper.FALSE_NEGATIVE_BOUNDS, PAPER_STYLES):
        span = _within(lo_n, hi_n - 1, n)
        if span:
            ax.hlines(
                bound,
                *span,
                colors=style["color"],
                linestyles=style["linestyle"],
                linewidth=style["linewidth"],
                label=f"paper: < {bound:g} for n = {lo_n}..{hi_n - 1}",
            )


#: Bin widths of the first-pass histogram, in queens (whole numbers, so no bin holds more
#: possible counts than another).
_NICE_QUEENS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]


def first_pass_bins(first_pass: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """Bin edges (in queens, at half-integers) for the first-pass counts of one n, and the bin
    width in queens: the smallest of _NICE_QUEENS that spans the observed range in at most
    sqrt(trials) bins, 10 to 40."""
    lo, hi = int(first_pass.min()), int(first_pass.max())
    target = int(np.clip(np.sqrt(first_pass.size), 10, 40))
    width = next((q for q in _NICE_QUEENS if (hi - lo + 1) / q <= target), _NICE_QUEENS[-1])
    start = lo - (lo % width)
    edges = np.arange(start, hi + width + 1, width, dtype=float) - 0.5
    return edges, width


def _pct(x: float) -> str:
    """A share as a percentage with enough digits: 60.05%, 0.0232% (standard errors)."""
    return f"{100 * x:.2f}" if abs(100 * x) >= 0.1 else f"{100 * x:.2g}"


def randset_histogram(runs: list, path, dpi: float = DPI) -> Path:
    """randSet & randSet on the empty board, one PNG with two panels, for each run
    (analysis.randset.RandsetRun):

    top: the first-pass histogram, share of the trials vs the share of the n queens that the
    first pass places ([Grigoryan]: about 60%; 0.605701 at n = 10, 60.05% at n = 100, marked where
    an n matches), from the per-trial CSV; runs without it are named as unavailable;
    bottom: the dead-end histogram, share of the trials vs the share k / n of the queens
    standing when repeated passes reach a dead end ([Grigoryan]'s Figure 2, drawn there for n = 100).
    """
    if not runs:
        raise NoData("no randSet & randSet run to draw")
    fig = Figure(figsize=TALL_IN, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1)
    with_trials = [(i, r) for i, r in enumerate(runs) if r.per_trial is not None]
    without = [r.n for r in runs if r.per_trial is None]
    peak = 0.0
    for i, run in with_trials:
        counts = run.per_trial["first_pass"].to_numpy(dtype=float)
        edges, width = first_pass_bins(counts, run.n)
        hist, _ = np.histogram(counts, bins=edges)
        se = run.first_pass_se
        spread = f" \u00b1 {_pct(se)}" if se is not None else ""
        top.stairs(
            100 * hist / run.trials,
            100 * edges / run.n,
            color=f"C{i}",
            label=f"n = {run.n}: {_pct(run.first_pass_share)}%{spread}, "
            f"bins of {width} queen{'s' if width > 1 else ''}",
        )
        peak = max(peak, 100 * hist.max() / run.trials)
    matched = [(i, r) for i, r in with_trials if r.n in paper.RANDSET_FIRST_PASS]
    for i, run in matched:
        top.axvline(
            100 * paper.RANDSET_FIRST_PASS[run.n],
            color=f"C{i}",
            linestyle=":",
            label=f"paper, n = {run.n}: {100 * paper.RANDSET_FIRST_PASS[run.n]:.2f}%",
        )
    if with_trials and not matched:
        top.axvline(60, color="C3", linestyle=":", label="paper: about 60% (60.05% at n = 100)")
    if with_trials:
        if without:
            top.plot([], [], " ", label=f"n = {', '.join(map(str, without))}: no per-trial data")
        sizes = sorted({r.trials for _, r in with_trials})
        top.set_title(
            f"randSet & randSet on the empty board: first pass, mean \u00b1 SE "
            f"({'/'.join(map(str, sizes))} trials per n)",
            fontsize=9,
        )
        top.set_ylim(0, 1.1 * peak)
        top.set_xlabel("queens placed by the first pass (% of n)", fontsize=8)
        top.set_ylabel("trials (% per bin)", fontsize=8)
        top.grid(True, alpha=0.3)
        legend_below(top, fontsize=7, ncol=1)
    else:
        top.set_axis_off()
        top.text(
            0.5,
            0.5,
            f"First-pass histogram unavailable: the CSV(s) for n = {', '.join(map(str, without))}"
            "\nhold only the dead-end histogram (nqc randset --csv). Give the per-trial CSV\n"
            "of nqc randset --trials-csv, or --nqc BIN to run it.",
            ha="center",
            va="center",
            fontsize=9,
            transform=top.transAxes,
        )
        top.set_title("randSet & randSet on the empty board: first pass", fontsize=9)
    for i, run in enumerate(runs):
        x = 100 * run.histogram["k"].to_numpy(dtype=float) / run.n
        bottom.step(
            x,
            100 * run.histogram["share"].to_numpy(dtype=float),
            where="mid",
            color=f"C{i}",
            label=f"n = {run.n}: mean {100 * run.mean_dead_end_share:.2f}% ({run.trials} trials)",
        )
    bottom.set_xlabel("queens standing at the dead end, k (% of n)", fontsize=8)
    bottom.set_ylabel("trials (% per k)", fontsize=8)
    bottom.set_title("randSet & randSet: repeated passes until a dead end", fontsize=9)
    bottom.grid(True, alpha=0.3)
    bottom.set_ylim(0, 1.1 * 100 * max(float(r.histogram["share"].max()) for r in runs))
    legend_below(bottom, fontsize=7, ncol=1)
    for ax in (top, bottom):
        ax.tick_params(labelsize=8)
    return _save(fig, path, dpi)


def _comparison_groups(comp: pd.DataFrame) -> list[tuple[int, str, pd.DataFrame]]:
    """(index, label, rows) for each group of a comparison (analysis.compare), in order."""
    from analysis.compare import label_of

    keys = comp.attrs["keys"]
    labels = [label_of(r, keys) for _, r in comp.iterrows()]
    return [(i, g, comp[[lab == g for lab in labels]]) for i, g in enumerate(comp.attrs["groups"])]


def _dodge(n: np.ndarray, i: int, count: int) -> np.ndarray:
    """n shifted a little on a log axis so that the intervals of `count` groups do not overlap."""
    return n * 10 ** (0.02 * (i - (count - 1) / 2))


def compare_time(comp: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """Two panels from a comparison (analysis.compare.comparison), one line per group (run):
    top, the mean completion time per case vs n with its 95% interval (log-log); bottom, the
    mean time as a multiple of the baseline's with its 95% interval (log), 1 dotted."""
    groups = _comparison_groups(comp)
    base = comp.attrs["baseline"]
    fig = Figure(figsize=TALL_IN, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True)
    drawn = False
    floor = _LogFloor([rows["mean_s"] for _, _, rows in groups], [rows["mean_s_lo"] for _, _, rows in groups])
    for i, label, rows in groups:
        n = rows["n"].to_numpy(dtype=float)
        mean = rows["mean_s"].to_numpy(dtype=float)
        keep = np.isfinite(mean) & (mean > 0)
        if not keep.any():
            continue
        drawn = True
        lo = rows["mean_s_lo"].to_numpy(dtype=float)
        style = {"color": f"C{i % 10}", "marker": MARKERS[i % len(MARKERS)], "linestyle": "-", "markersize": 5}
        _errorbar(
            top,
            _dodge(n[keep], i, len(groups)),
            mean[keep],
            floor(lo[keep]),
            rows["mean_s_hi"].to_numpy(dtype=float)[keep],
            label=f"{label} ({int(rows['cases'].sum())} cases)",
            **style,
        )
        if label != base:
            ratio = rows["ratio"].to_numpy(dtype=float)
            ok = np.isfinite(ratio) & (ratio > 0)
            if ok.any():
                _errorbar(
                    bottom,
                    _dodge(n[ok], i, len(groups)),
                    ratio[ok],
                    rows["ratio_lo"].to_numpy(dtype=float)[ok],
                    rows["ratio_hi"].to_numpy(dtype=float)[ok],
                    label=f"{label} / {base}",
                    **style,
                )
    if not drawn:
        raise NoData("no group has a mean time a log axis can show (all 0, negative or not finite)")
    floor.apply(top)
    bottom.axhline(1.0, color="0.3", linestyle=":", linewidth=1.2, label=f"{base} (baseline) = 1")
    for ax in (top, bottom):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.tick_params(labelsize=8)
    top.set_ylabel("mean completion time per case (s)", fontsize=9)
    top.set_title("Mean completion time per case, 95% CI", fontsize=10)
    bottom.set_ylabel(f"mean time / {base}'s", fontsize=9)
    bottom.set_xlabel("board size n", fontsize=9)
    bottom.set_title(f"Ratio of mean times to {base}, 95% CI (below 1: faster)", fontsize=10)
    top.tick_params(labelbottom=True)
    legend_below(top, fontsize=8)
    legend_below(bottom, fontsize=8)
    return _save(fig, path, dpi)


def compare_shares(comp: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """Two panels from a comparison, one line per group, exact (Clopper-Pearson) 95% intervals:
    top, the share of cases without backtracking vs n (each engine counts its own backtracks);
    bottom, the false negative share vs n (log), none seen drawn at its interval's upper end
    (open triangle), with the paper's bounds in their own styles."""
    groups = _comparison_groups(comp)
    fig = Figure(figsize=TALL_IN, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True)
    for i, label, rows in groups:
        n = _dodge(rows["n"].to_numpy(dtype=float), i, len(groups))
        color, marker = f"C{i % 10}", MARKERS[i % len(MARKERS)]
        _errorbar(
            top,
            n,
            100 * rows["bt0"],
            100 * rows["bt0_lo"],
            100 * rows["bt0_hi"],
            color=color,
            marker=marker,
            linestyle="-",
            markersize=5,
            label=label,
        )
        share = rows["false_negative_share"].to_numpy(dtype=float)
        lo, hi = rows["false_negative_share_lo"].to_numpy(dtype=float), rows["false_negative_share_hi"].to_numpy(
            dtype=float
        )
        seen = rows["false_negatives"].to_numpy() > 0
        if seen.any():
            _errorbar(
                bottom,
                n[seen],
                share[seen],
                lo[seen],
                hi[seen],
                color=color,
                marker=marker,
                linestyle="none",
                markersize=5,
                label=f"{label}: share, 95% interval",
            )
        if (~seen).any():
            bottom.plot(
                n[~seen],
                hi[~seen],
                linestyle="none",
                marker="v",
                mfc="none",
                color=color,
                label=f"{label}: none seen, 95% upper bound",
            )
    _bounds(bottom, comp["n"])
    top.set_ylim(0, 102)  # a share of 100% stays visible
    for ax in (top, bottom):
        ax.set_xscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.tick_params(labelsize=8)
    bottom.set_yscale("log")
    top.set_ylabel("cases without backtracking (%)", fontsize=9)
    top.set_title("Share of cases solved without backtracking, 95% CI", fontsize=10)
    bottom.set_ylabel("false negative share", fontsize=9)
    bottom.set_xlabel("board size n", fontsize=9)
    bottom.set_title("False negatives: completable compositions not solved, 95% CI", fontsize=10)
    top.tick_params(labelbottom=True)
    legend_below(top, fontsize=8)
    legend_below(bottom, fontsize=7)
    return _save(fig, path, dpi)
