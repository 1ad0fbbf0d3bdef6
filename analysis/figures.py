"""The report's figures as PNG, PDF or SVG of a fixed size (the suffix names the format); same data, same file."""

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
from analysis.phase import ORIGIN, PARAM, param_label  # noqa: E402

#: Figure size in inches and the default resolution (print: 300 dpi): every PNG is 1920 x 1440 pixels at DPI.
FIGSIZE_IN = (6.4, 4.8)
#: Figures of two panels (randSet & randSet, the comparisons).
TALL_IN = (6.4, 8.0)
DPI = output.DPI
SIZE_PX = (round(FIGSIZE_IN[0] * DPI), round(FIGSIZE_IN[1] * DPI))
TALL_PX = (round(TALL_IN[0] * DPI), round(TALL_IN[1] * DPI))
#: The formats a figure can be written in (its path's suffix).
FORMATS = output.FIGURE_FORMATS
#: Styles of the paper's reference lines, one per kind of statement (ours: markers, solid lines).
PAPER_FIT_STYLE = {"color": "C3", "linestyle": ":", "linewidth": 1.5}
PAPER_STYLES = [
    {"colors": "C3", "linestyles": ":", "linewidth": 1.5},
    {"colors": "C1", "linestyles": "--", "linewidth": 1.5},
    {"colors": "C4", "linestyles": "-.", "linewidth": 1.5},
]
PAPER_POINT_STYLE = {"color": "C3", "marker": "D", "mfc": "none", "linestyle": "none"}
#: Markers of the groups of a comparison, in order.
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
#: The time histograms span these percentiles (outliers counted in the title, not squeezing the bins).
HIST_PERCENTILES = (0.5, 99.5)
#: Bin widths of the first-pass histogram, in whole queens.
_NICE_QUEENS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]


class NoData(ValueError):
    """A figure has nothing it can draw; raised before anything is written, naming the n and the files."""


def _figure(size=FIGSIZE_IN, dpi: float = DPI, panels: int = 0, **subplots) -> tuple[Figure, object]:
    """A figure and its axes (`panels` > 0: that many panels one under the other)."""
    fig = Figure(figsize=size, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(panels, 1, **subplots) if panels else fig.add_subplot()


def _save(fig: Figure, path, dpi: float = DPI) -> Path:
    """Writes the figure in the format of `path`'s suffix, whole or not at all (analysis.output)."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise AnalysisError(f"{path}: figures are written as {', '.join(FORMATS)} (by the file's suffix)")
    output.make_dir(path.parent)
    metadata = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None}, "svg": {"Date": None}}[fmt]
    rc = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none", "svg.hashsalt": "nqc"}

    def write(tmp: Path) -> None:
        with matplotlib.rc_context(rc):  # no bbox_inches="tight": keeps the size in pixels exactly
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


def _label(ax, xlabel, ylabel: str, title: str, size=None, title_size: float = 10, grid=None) -> None:
    """Axis labels (`size`: their font size), title, and a grid ("both": major and minor ticks)."""
    font = {"fontsize": size} if size else {}
    if xlabel:
        ax.set_xlabel(xlabel, **font)
    ax.set_ylabel(ylabel, **font)
    ax.set_title(title, fontsize=title_size)
    if grid:
        ax.grid(True, **({"which": "both"} if grid == "both" else {}), alpha=0.3)


def _finish(fig: Figure, ax, path, xlabel: str, ylabel: str, title: str, grid: bool = False, dpi: float = DPI) -> Path:
    """Labels (units in the label), title, optional log grid and legend below the axes, then _save."""
    _label(ax, xlabel, ylabel, title, grid="both" if grid else None)
    legend_below(ax)
    return _save(fig, path, dpi)


def _within(lo: float, hi: float, n) -> tuple[float, float] | None:
    """The part of lo..hi our board sizes span (None: disjoint): reference lines only where we have data."""
    n = np.asarray(n, dtype=float)
    a, b = max(lo, float(n.min())), min(hi, float(n.max()))
    return (a, b) if a <= b else None


def _errorbar(ax, x, y, lo, hi, **style):
    """y at x with bars to [lo, hi]; no bar where the interval (or y) is not finite."""
    x, y, lo, hi = (np.asarray(v, dtype=float) for v in (x, y, lo, hi))
    has = np.isfinite(lo) & np.isfinite(hi)
    yerr = np.vstack([np.where(has, y - lo, 0.0), np.where(has, hi - y, 0.0)])
    return ax.errorbar(x, y, yerr=np.maximum(yerr, 0.0), errorevery=np.isfinite(y), capsize=2.5, elinewidth=1, **style)


def _columns(frame: pd.DataFrame, *names: str, scale: float = 1.0) -> list[np.ndarray]:
    return [scale * frame[name].to_numpy(dtype=float) for name in names]


class _LogFloor:
    """Draws interval ends <= 0 on a log axis at half the smallest positive value, and cuts the axis there."""

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


def files_note(frame: pd.DataFrame) -> str:
    """The result files the rows of `frame` came from, for messages."""
    if "source" not in frame.columns or frame.empty:
        return ""
    names = sorted({str(v) for v in frame["source"].unique()})
    return " in " + ", ".join(names[:3]) + (f" and {len(names) - 3} more files" if len(names) > 3 else "")


def _log_bins(t: np.ndarray) -> tuple[np.ndarray, str]:
    """Log-spaced edges over HIST_PERCENTILES of t (2 sqrt(cases) bins, 10..80) and a note on the cases outside."""
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
    """The cases at n with a positive finite time, those times and a note on the rest; NoData when none."""
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
    """Mean and t90mean time vs n (log-log) with 95% intervals, our fit and the paper's ([Grigoryan]'s Figure 7).
    NoData when no time is positive."""
    n = table["n"].to_numpy(dtype=float)
    if n.size == 0 or not np.all(np.isfinite(n) & (n >= 1)):
        raise NoData(f"board sizes {n.tolist()} cannot be drawn on a log axis (expected n >= 1)")
    mean, t90 = _columns(table, "mean_s", "t90mean_s")
    shown_mean, shown_t90 = np.isfinite(mean) & (mean > 0), np.isfinite(t90) & (t90 > 0)
    if not (shown_mean.any() or shown_t90.any()):
        raise NoData(
            "the mean and t90mean time per case are 0, negative or not finite at every n "
            f"({output.ns_text(n)}){where}: nothing to draw on a log axis"
        )
    left_out = [int(v) for v in n[~(shown_mean & shown_t90)]]
    fig, ax = _figure(dpi=dpi)
    ax.set_xscale("log")
    ax.set_yscale("log")
    mean_lo, mean_hi, t90_lo, t90_hi = _columns(table, "mean_s_lo", "mean_s_hi", "t90mean_s_lo", "t90mean_s_hi")
    floor = _LogFloor([mean[shown_mean], t90[shown_t90]], [mean_lo[shown_mean], t90_lo[shown_t90]])
    m, s = shown_mean, shown_t90
    _errorbar(ax, n[m], mean[m], floor(mean_lo[m]), mean_hi[m], fmt="o", color="C0", label="mean, 95% CI")
    style = {"fmt": "s", "color": "C2", "mfc": "none", "label": "t90mean (fastest 90%), 95% CI"}
    _errorbar(ax, n[s] * 1.04, t90[s], floor(t90_lo[s]), t90_hi[s], **style)
    floor.apply(ax)
    if left_out:
        shown = ", ".join(map(str, left_out[:8])) + (", ..." if len(left_out) > 8 else "")
        ax.plot([], [], " ", label=f"not shown (time 0 or not finite): n = {shown}")
    grid = np.logspace(np.log10(n.min()), np.log10(n.max()), 100)
    if mean_fit is not None:
        inside = grid[(grid >= mean_fit.n_min) & (grid <= mean_fit.n_max)]
        few = f" ({mean_fit.points} points: too few)" if mean_fit.points < FEW_POINTS else ""
        ax.plot(
            inside,
            [mean_fit.predict_s(v) for v in inside],
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
    title = "Completion time vs n (fit: log10(1000 t) = a + b log10 n)"
    return _finish(fig, ax, path, "board size n", "completion time per case (s)", title, grid=True, dpi=dpi)


def _histogram(cases: pd.DataFrame, n: int, path, time: str, dpi: float, title: str, by_backtracks: bool) -> Path:
    at_n, t, dropped = _positive_times(cases, n, time)
    fig, ax = _figure(dpi=dpi)
    edges, note = _log_bins(t)
    note += dropped
    if by_backtracks:
        bt = at_n["backtracks"].to_numpy(dtype=np.int64)
        groups = [(str(b), t[bt == b]) for b in range(4)] + [("> 3", t[bt > 3])]  # as Table 1
        ax.hist(
            [g for _, g in groups],
            bins=edges,
            stacked=True,
            label=[f"{label} backtracks ({g.size})" for label, g in groups],
            color=[f"C{i}" for i in range(len(groups))],
        )
        ax.set_xscale("log")
    else:
        ax.hist(t, bins=edges, color="C0")
        ax.set_xscale("log")
        lo, hi = table_mod.mean_ci(t)
        if np.isfinite(lo) and np.isfinite(hi):
            label = f"mean's 95% CI {lo:.3g}..{hi:.3g} s"
            ax.axvspan(lo if lo > 0 else edges[0], hi, color="C3", alpha=0.15, lw=0, label=label)
        ax.axvline(t.mean(), color="C3", linestyle="-", label=f"mean {t.mean():.3g} s")
        ax.axvline(np.median(t), color="C1", linestyle="--", label=f"median {np.median(t):.3g} s")
        marks = [v for v in (lo, hi, t.mean(), np.median(t)) if np.isfinite(v) and v > 0]
        ax.set_xlim(min([edges[0], *marks]), max([edges[-1], *marks]))  # the bins, and every mark
    title = title.format(n=n, cases=t.size, note=note)
    return _finish(fig, ax, path, "completion time per case (s, log scale)", "cases", title, dpi=dpi)


def time_histogram(cases: pd.DataFrame, n: int, path, time: str = "wall_s", dpi: float = DPI) -> Path:
    """Time histogram at n: log bins, the mean with its 95% interval, the median ([Grigoryan]'s Figure 10)."""
    return _histogram(cases, n, path, time, dpi, "Completion time at n = {n} ({cases} cases{note})", False)


def time_histogram_by_backtracks(
    cases: pd.DataFrame, n: int, path, time: str = "wall_s", k_range: tuple[int, int] | None = None, dpi: float = DPI
) -> Path:
    """The time histogram at n stacked by backtracks 0..3, > 3 ([Grigoryan]'s Figure 11); `k_range` restricts k."""
    if k_range is not None:
        cases = cases[(cases["n"] != n) | ((cases["k"] >= k_range[0]) & (cases["k"] <= k_range[1]))]
        if not (cases["n"] == n).any():
            raise NoData(f"no cases at n = {n} with k in {k_range[0]}..{k_range[1]}")
    which = f", k = {k_range[0]}..{k_range[1]}" if k_range else ", all k"
    title = f"Completion time by backtrack count at n = {{n}}{which}\n({{cases}} cases{{note}})"
    return _histogram(cases, n, path, time, dpi, title, True)


def no_backtrack_share(table: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """Share without backtracking vs n, exact 95% intervals, the paper's statements ([Grigoryan]'s Fig. 9)."""
    fig, ax = _figure(dpi=dpi)
    ax.set_xscale("log")
    style = {"fmt": "o-", "color": "C0", "label": "ours, 95% interval (Clopper-Pearson)"}
    _errorbar(ax, table["n"], *_columns(table, "bt0", "bt0_lo", "bt0_hi", scale=100), **style)
    for (lo, hi, floor), style in zip(paper.NO_BACKTRACK_FLOORS, PAPER_STYLES):
        span = _within(lo, hi, table["n"])
        if span:
            ax.hlines(100 * floor, *span, **style, label=f"paper: > {100 * floor:.0f}% for n = {lo}..{hi}")
    pn = sorted(paper.BACKTRACK_SHARES)
    shares = [100 * paper.BACKTRACK_SHARES[v]["bt0"] for v in pn]
    ax.plot(pn, shares, **PAPER_POINT_STYLE, label="paper: n = " + output.ns_text(pn))
    ax.set_ylim(0, 102)  # a share of 100% stays visible
    title = "Share of cases solved without backtracking"
    return _finish(fig, ax, path, "board size n", "cases without backtracking (%)", title, grid=True, dpi=dpi)


def false_negative_share(table: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """False negative share vs n (log-log), exact 95% intervals (none seen: upper end), paper's bounds."""
    fig, ax = _figure(dpi=dpi)
    n, count, m = _columns(table, "n", "false_negatives", "cases")
    share = count / m
    lo, hi = table_mod.clopper_pearson(count, m)
    seen = count > 0
    if seen.any():
        style = {"fmt": "o", "color": "C0", "capsize": 3, "label": "ours: share, 95% interval"}
        ax.errorbar(n[seen], share[seen], yerr=[share[seen] - lo[seen], hi[seen] - share[seen]], **style)
    if (~seen).any():
        ax.plot(n[~seen], hi[~seen], "v", color="C0", mfc="none", label="ours: none seen, 95% upper bound")
    _bounds(ax, n)
    ax.set_xscale("log")
    ax.set_yscale("log")
    title = "False negatives: completable compositions not solved"
    return _finish(fig, ax, path, "board size n", "false negative share (of cases)", title, grid=True, dpi=dpi)


def _bounds(ax, n) -> None:
    """The paper's false negative bounds, each in its own style, where our n meet their ranges."""
    for (lo_n, hi_n, bound), style in zip(paper.FALSE_NEGATIVE_CLAIMS[:-1], PAPER_STYLES):
        span = _within(lo_n, hi_n - 1, n)
        if span:
            ax.hlines(bound, *span, **style, label=f"paper: < {bound:g} for n = {lo_n}..{hi_n - 1}")


def first_pass_bins(first_pass: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """Bin edges (half-integers) and width in queens for the first-pass counts: the least _NICE_QUEENS width giving
    at most sqrt(trials) bins (10..40)."""
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
    """randSet & randSet on the empty board: first-pass (top) and dead-end (bottom, [Grigoryan]'s Figure 2)
    histograms, a line per run."""
    if not runs:
        raise NoData("no randSet & randSet run to draw")
    fig, (top, bottom) = _figure(TALL_IN, dpi, panels=2)
    with_trials = [(i, r) for i, r in enumerate(runs) if r.per_trial is not None]
    without = output.ns_text(r.n for r in runs if r.per_trial is None)
    peak = 0.0
    for i, run in with_trials:
        counts = run.per_trial["first_pass"].to_numpy(dtype=float)
        edges, width = first_pass_bins(counts, run.n)
        hist, _ = np.histogram(counts, bins=edges)
        spread = f" \u00b1 {_pct(run.first_pass_se)}" if run.first_pass_se is not None else ""
        top.stairs(
            100 * hist / run.trials,
            100 * edges / run.n,
            color=f"C{i}",
            label=f"n = {run.n}: {_pct(run.first_pass_share)}%{spread}, " f"bins of {output.plural(width, 'queen')}",
        )
        peak = max(peak, 100 * hist.max() / run.trials)
    matched = [(i, r) for i, r in with_trials if r.n in paper.RANDSET_FIRST_PASS]
    for i, run in matched:
        theirs = 100 * paper.RANDSET_FIRST_PASS[run.n]
        top.axvline(theirs, color=f"C{i}", linestyle=":", label=f"paper, n = {run.n}: {theirs:.2f}%")
    if with_trials and not matched:
        top.axvline(60, color="C3", linestyle=":", label="paper: about 60% (60.05% at n = 100)")
    if with_trials:
        if without:
            top.plot([], [], " ", label=f"n = {without}: no per-trial data")
        sizes = "/".join(map(str, sorted({r.trials for _, r in with_trials})))
        top.set_ylim(0, 1.1 * peak)
        title = f"randSet & randSet on the empty board: first pass, mean \u00b1 SE ({sizes} trials per n)"
        _label(top, "queens placed by the first pass (% of n)", "trials (% per bin)", title, 8, 9, grid=True)
        legend_below(top, fontsize=7, ncol=1)
    else:
        top.set_axis_off()
        note = (
            f"First-pass histogram unavailable: the CSV(s) for n = {without}"
            "\nhold only the dead-end histogram (nqc randset --csv). Give the per-trial CSV\n"
            "of nqc randset --trials-csv, or --nqc BIN to run it."
        )
        top.text(0.5, 0.5, note, ha="center", va="center", fontsize=9, transform=top.transAxes)
        top.set_title("randSet & randSet on the empty board: first pass", fontsize=9)
    for i, run in enumerate(runs):
        label = f"n = {run.n}: mean {100 * run.mean_dead_end_share:.2f}% ({run.trials} trials)"
        k, share = _columns(run.histogram, "k", "share")
        bottom.step(100 * k / run.n, 100 * share, where="mid", color=f"C{i}", label=label)
    title = "randSet & randSet: repeated passes until a dead end"
    _label(bottom, "queens standing at the dead end, k (% of n)", "trials (% per k)", title, 8, 9, grid=True)
    bottom.set_ylim(0, 1.1 * 100 * max(float(r.histogram["share"].max()) for r in runs))
    legend_below(bottom, fontsize=7, ncol=1)
    for ax in (top, bottom):
        ax.tick_params(labelsize=8)
    return _save(fig, path, dpi)


def _comparison_panels(comp: pd.DataFrame, dpi: float):
    """A comparison's two-panel figure and (index, label, rows, style) per group, in order."""
    from analysis.compare import label_of

    keys = comp.attrs["keys"]
    labels = [label_of(r, keys) for _, r in comp.iterrows()]
    fig, (top, bottom) = _figure(TALL_IN, dpi, panels=2, sharex=True)
    groups = []
    for i, g in enumerate(comp.attrs["groups"]):
        style = {"color": f"C{i % 10}", "marker": MARKERS[i % len(MARKERS)], "linestyle": "-", "markersize": 5}
        groups.append((i, g, comp[[lab == g for lab in labels]], style))
    return fig, top, bottom, groups


def _dodge(n: np.ndarray, i: int, count: int) -> np.ndarray:
    """n shifted a little on a log axis so that the intervals of `count` groups do not overlap."""
    return n * 10 ** (0.02 * (i - (count - 1) / 2))


def _finish_panels(fig, top, bottom, path, dpi, titles, ylabels, legends=(8, 8), log_n: bool = True) -> Path:
    """n axes (`log_n`: log) with grids, labels and titles, legends below each panel; then _save."""
    for ax, ylabel, title, fontsize in zip((top, bottom), ylabels, titles, legends):
        if log_n:
            ax.set_xscale("log")
        _label(ax, "board size n" if ax is bottom else None, ylabel, title, 9, grid="both")
        ax.tick_params(labelsize=8)
        legend_below(ax, fontsize=fontsize)
    top.tick_params(labelbottom=True)
    return _save(fig, path, dpi)


def compare_time(comp: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """A comparison's mean time per case vs n (top) and ratio to the baseline (bottom), a line per group."""
    fig, top, bottom, groups = _comparison_panels(comp, dpi)
    base = comp.attrs["baseline"]
    drawn = False
    floor = _LogFloor([rows["mean_s"] for _, _, rows, _ in groups], [rows["mean_s_lo"] for _, _, rows, _ in groups])
    for i, label, rows, style in groups:
        n, mean, lo, hi = _columns(rows, "n", "mean_s", "mean_s_lo", "mean_s_hi")
        keep = np.isfinite(mean) & (mean > 0)
        if not keep.any():
            continue
        drawn = True
        x = _dodge(n[keep], i, len(groups))
        _errorbar(
            top, x, mean[keep], floor(lo[keep]), hi[keep], label=f"{label} ({int(rows['cases'].sum())} cases)", **style
        )
        if label != base:
            ratio, lo, hi = _columns(rows, "ratio", "ratio_lo", "ratio_hi")
            ok = np.isfinite(ratio) & (ratio > 0)
            if ok.any():
                x = _dodge(n[ok], i, len(groups))
                _errorbar(bottom, x, ratio[ok], lo[ok], hi[ok], label=f"{label} / {base}", **style)
    if not drawn:
        raise NoData("no group has a mean time a log axis can show (all 0, negative or not finite)")
    floor.apply(top)
    bottom.axhline(1.0, color="0.3", linestyle=":", linewidth=1.2, label=f"{base} (baseline) = 1")
    top.set_yscale("log")
    bottom.set_yscale("log")
    titles = ["Mean completion time per case, 95% CI", f"Ratio of mean times to {base}, 95% CI (below 1: faster)"]
    ylabels = ["mean completion time per case (s)", f"mean time / {base}'s"]
    return _finish_panels(fig, top, bottom, path, dpi, titles, ylabels)


def compare_shares(comp: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """A comparison's no-backtrack share (top) and false negative share (bottom, log) vs n, a line per group."""
    fig, top, bottom, groups = _comparison_panels(comp, dpi)
    for i, label, rows, style in groups:
        n = _dodge(rows["n"].to_numpy(dtype=float), i, len(groups))
        _errorbar(top, n, *_columns(rows, "bt0", "bt0_lo", "bt0_hi", scale=100), **style, label=label)
        names = ["false_negative_share", "false_negative_share_lo", "false_negative_share_hi"]
        share, lo, hi = _columns(rows, *names)
        seen = rows["false_negatives"].to_numpy() > 0
        style = {**style, "linestyle": "none"}
        if seen.any():
            _errorbar(bottom, n[seen], share[seen], lo[seen], hi[seen], **style, label=f"{label}: share, 95% interval")
        if (~seen).any():
            none_seen = f"{label}: none seen, 95% upper bound"
            bottom.plot(
                n[~seen], hi[~seen], linestyle="none", marker="v", mfc="none", color=style["color"], label=none_seen
            )
    _bounds(bottom, comp["n"])
    top.set_ylim(0, 102)  # a share of 100% stays visible
    bottom.set_yscale("log")
    titles = [
        "Share of cases solved without backtracking, 95% CI",
        "False negatives: completable compositions not solved, 95% CI",
    ]
    ylabels = ["cases without backtracking (%)", "false negative share"]
    return _finish_panels(fig, top, bottom, path, dpi, titles, ylabels, legends=(8, 7))


def phase_transition(table: pd.DataFrame, path, dpi: float = DPI) -> Path:
    """analysis.phase.points: share completable vs n (top, published shares beside) and median/p90 nodes (bottom,
    symlog), a line per group and parameter."""
    published = table.attrs.get("published")
    keys = list(table.columns[: list(table.columns).index(ORIGIN)])
    fig, (top, bottom) = _figure(TALL_IN, dpi, panels=2, sharex=True)
    lines = list(table.groupby([*keys, ORIGIN, PARAM], sort=False))
    if not lines:
        raise NoData("no random compositions or Excluded Diagonals instances")
    for i, (key, rows) in enumerate(lines):
        label = " / ".join([*map(str, key[:-2]), param_label(key[-2], key[-1])])
        style = {"color": f"C{i % 10}", "marker": MARKERS[i % len(MARKERS)], "markersize": 4}
        n = rows["n"].to_numpy(dtype=float)
        _errorbar(top, n, *_columns(rows, "share", "share_lo", "share_hi", scale=100), **style, label=label)
        if published is not None:
            mine = published.frame[(published.frame[ORIGIN] == key[-2]) & (published.frame[PARAM] == key[-1])]
            if not mine.empty:
                shown = {**style, "marker": "D", "mfc": "none", "linestyle": "none"}
                top.plot(mine["n"], 100 * mine["published_share"], **shown, label=f"{published.name}: {label}")
        bottom.plot(n, rows["median_nodes"], linestyle="-", **style, label=f"{label}: median")
        bottom.plot(n, rows["p90_nodes"], linestyle="--", **{**style, "mfc": "none"}, label=f"{label}: 90th percentile")
    top.set_ylim(-2, 102)  # shares of 0 and 100% stay visible
    bottom.set_yscale("symlog", linthresh=1)
    top_nodes = np.nanmax(table[["median_nodes", "p90_nodes"]].to_numpy(dtype=float))
    bottom.set_ylim(0, 3 * max(top_nodes, 1.0) if np.isfinite(top_nodes) else 10)
    titles = ["Share of compositions completable, exact 95% CI", "Search effort per case (nodes)"]
    ylabels = ["completable (% of decided cases)", "nodes per case"]
    return _finish_panels(fig, top, bottom, path, dpi, titles, ylabels, legends=(7, 7), log_n=False)
