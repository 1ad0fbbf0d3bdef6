"""The figures of the report, as PNG files of a fixed size (FIGSIZE_IN at DPI: 640 x 480 px).

Each function draws one figure from the cases (analysis.load), Table 1 (analysis.table) or
the fits (analysis.fit), writes it to `path` and returns the path. Times are in seconds; the
paper's counterparts (000_*'s Figures 2, 7, 9, 10, 11) are named in each docstring.
Matplotlib runs headless (Agg), through Figure objects, without pyplot's global state.
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
from analysis.fit import Fit  # noqa: E402

#: Figure size in inches and resolution: every PNG is 640 x 480 pixels.
FIGSIZE_IN = (6.4, 4.8)
DPI = 100
SIZE_PX = (round(FIGSIZE_IN[0] * DPI), round(FIGSIZE_IN[1] * DPI))

#: Backtrack groups of Table 1 and Figure 11: label and test on the backtrack count.
BACKTRACK_GROUPS = [("0", lambda b: b == 0), ("1", lambda b: b == 1), ("2", lambda b: b == 2),
                    ("3", lambda b: b == 3), ("> 3", lambda b: b > 3)]


def _figure() -> tuple[Figure, object]:
    fig = Figure(figsize=FIGSIZE_IN, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _save(fig: Figure, path) -> Path:
    """Writes the figure as a PNG, whole or not at all (analysis.output): a failure names `path`."""
    path = Path(path)
    output.make_dir(path.parent)
    # no bbox_inches="tight": keeps SIZE_PX exactly
    return output.write_with(path, lambda tmp: fig.savefig(tmp, dpi=DPI, format="png"))


def _finish(fig: Figure, ax, path, xlabel: str, ylabel: str, title: str, grid: bool = False) -> Path:
    """Labels (units in the label), title, optional log grid and legend, then _save."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if grid:
        ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


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
        raise NoData(f"all {t.size} times {time} at n = {n} are 0, negative or not finite{files_note(at_n)}: "
                     "nothing to draw on a log axis")
    dropped = int(t.size - keep.sum())
    note = f"; left out: {dropped} with {time} 0, negative or not finite" if dropped else ""
    return at_n[keep], t[keep], note


def time_vs_n(table: pd.DataFrame, mean_fit: Fit | None, path, where: str = "") -> Path:
    """Mean and t90mean completion time per case vs n, log-log, with our fit of the mean and
    the paper's line log10(1000 t) = -0.628927 + 0.781568 log10(n) (000_*'s Figure 7).
    Times that are 0 or not finite are left out (and named in the legend); NoData when none is
    left (`where`, e.g. " in FILE", is added to its message)."""
    n = table["n"].to_numpy(dtype=float)
    if n.size == 0 or not np.all(np.isfinite(n) & (n >= 1)):
        raise NoData(f"board sizes {n.tolist()} cannot be drawn on a log axis (expected n >= 1)")
    mean = table["mean_s"].to_numpy(dtype=float)
    t90 = table["t90mean_s"].to_numpy(dtype=float)
    shown_mean, shown_t90 = np.isfinite(mean) & (mean > 0), np.isfinite(t90) & (t90 > 0)
    if not (shown_mean.any() or shown_t90.any()):
        raise NoData("the mean and t90mean time per case are 0, negative or not finite at every n "
                     f"({', '.join(str(int(v)) for v in n)}){where}: nothing to draw on a log axis")
    left_out = [int(v) for v in n[~(shown_mean & shown_t90)]]
    fig, ax = _figure()
    ax.loglog(n[shown_mean], mean[shown_mean], "o", color="C0", label="mean (ours)")
    ax.loglog(n[shown_t90], t90[shown_t90], "s", color="C2", mfc="none", label="t90mean (ours)")
    if left_out:
        ax.plot([], [], " ", label=f"not shown (time 0 or not finite): n = {', '.join(map(str, left_out[:8]))}"
                                   + (", ..." if len(left_out) > 8 else ""))
    grid = np.logspace(np.log10(n.min()), np.log10(n.max()), 100)
    if mean_fit is not None:
        inside = (grid >= mean_fit.n_min) & (grid <= mean_fit.n_max)
        ax.loglog(grid[inside], [mean_fit.predict_s(v) for v in grid[inside]], "-", color="C0",
                  label=f"our fit, n = {mean_fit.n_min}..{mean_fit.n_max}: "
                        f"a = {mean_fit.a:.3f}, b = {mean_fit.b:.3f}")
    ax.loglog(grid, [paper.predicted_time_s(v) for v in grid], ":", color="C3",
              label=f"paper (MATLAB): a = {paper.A}, b = {paper.B}")
    return _finish(fig, ax, path, "board size n", "completion time per case (s)",
                   "Completion time vs n (fit: log10(1000 t) = a + b log10 n)", grid=True)


def time_histogram(cases: pd.DataFrame, n: int, path, time: str = "wall_s") -> Path:
    """Histogram of the completion times at one n, log-spaced bins over the 0.5th to 99.5th
    percentile (000_*'s Figure 10)."""
    at_n, t, dropped = _positive_times(cases, n, time)
    fig, ax = _figure()
    edges, note = _log_bins(t)
    note += dropped
    ax.hist(t, bins=edges, color="C0")
    ax.set_xscale("log")
    for value, name, style in [(t.mean(), "mean", "-"), (np.median(t), "median", "--")]:
        ax.axvline(value, color="C3", linestyle=style, label=f"{name} {value:.3g} s")
    return _finish(fig, ax, path, "completion time per case (s, log scale)", "cases",
                   f"Completion time at n = {n} ({len(t)} cases{note})")


def time_histogram_by_backtracks(cases: pd.DataFrame, n: int, path, time: str = "wall_s",
                                 k_range: tuple[int, int] | None = None) -> Path:
    """The completion time histogram at one n, stacked by backtrack count 0, 1, 2, 3, > 3
    (000_*'s Figure 11, which took the compositions of one size k = 800 at n = 1000:
    `k_range` (inclusive) restricts the cases the same way)."""
    if k_range is not None:
        cases = cases[(cases["n"] != n) | ((cases["k"] >= k_range[0]) & (cases["k"] <= k_range[1]))]
        if not (cases["n"] == n).any():
            raise NoData(f"no cases at n = {n} with k in {k_range[0]}..{k_range[1]}")
    at_n, t, dropped = _positive_times(cases, n, time)
    bt = at_n["backtracks"].to_numpy(dtype=np.int64)
    groups = [(label, t[test(bt)]) for label, test in BACKTRACK_GROUPS]
    fig, ax = _figure()
    edges, note = _log_bins(t)
    note += dropped
    ax.hist([g for _, g in groups], bins=edges, stacked=True,
            label=[f"{label} backtracks ({g.size})" for label, g in groups],
            color=[f"C{i}" for i in range(len(groups))])
    ax.set_xscale("log")
    which = f", k = {k_range[0]}..{k_range[1]}" if k_range else ", all k"
    return _finish(fig, ax, path, "completion time per case (s, log scale)", "cases",
                   f"Completion time by backtrack count at n = {n}{which}\n({t.size} cases{note})")


def no_backtrack_share(table: pd.DataFrame, path) -> Path:
    """Share of cases solved without any backtrack vs n, with the paper's statements: above
    35% for n = 7..10^5, above 50% for n = 320..22500, 60.50% at n = 1000, 61.92% at n = 5000
    (000_*'s Figure 9)."""
    fig, ax = _figure()
    ax.semilogx(table["n"], 100 * table["bt0"], "o-", color="C0", label="ours")
    for lo, hi, floor in paper.NO_BACKTRACK_FLOORS:
        ax.hlines(100 * floor, lo, hi, colors="C3", linestyles=":",
                  label=f"paper: > {100 * floor:.0f}% for n = {lo}..{hi}")
    pn = sorted(paper.BACKTRACK_SHARES)
    ax.semilogx(pn, [100 * paper.BACKTRACK_SHARES[v]["bt0"] for v in pn], "D", color="C3",
                mfc="none", label="paper: n = 1000, 5000")
    ax.set_ylim(0, 100)
    return _finish(fig, ax, path, "board size n", "cases without backtracking (%)",
                   "Share of cases solved without backtracking", grid=True)


def false_negative_share(table: pd.DataFrame, path) -> Path:
    """False negative share vs n (log-log) with its exact 95% interval, and the paper's bounds
    (below 1e-4 for n < 100, 1e-5 for 100 <= n < 800, none seen for n >= 800). Where none was
    seen the interval's upper end (about 3.7 / cases) is drawn as a downward triangle."""
    fig, ax = _figure()
    n = table["n"].to_numpy(dtype=float)
    count = table["false_negatives"].to_numpy(dtype=float)
    m = table["cases"].to_numpy(dtype=float)
    share = count / m
    lo, hi = table_mod.clopper_pearson(count, m)
    seen = count > 0
    if seen.any():
        ax.errorbar(n[seen], share[seen], yerr=[share[seen] - lo[seen], hi[seen] - share[seen]],
                    fmt="o", color="C0", capsize=3, label="ours: share, 95% interval")
    if (~seen).any():
        ax.plot(n[~seen], hi[~seen], "v", color="C0", mfc="none",
                label="ours: none seen, 95% upper bound")
    for lo_n, hi_n, bound in paper.FALSE_NEGATIVE_BOUNDS:
        ax.hlines(bound, lo_n, hi_n, colors="C3", linestyles=":", label=f"paper: < {bound:g} for n = {lo_n}..{hi_n - 1}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    return _finish(fig, ax, path, "board size n", "false negative share (of cases)",
                   "False negatives: completable compositions not solved", grid=True)


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


def randset_histogram(runs: list, path) -> Path:
    """randSet & randSet on the empty board, one PNG with two panels, for each run
    (analysis.randset.RandsetRun):

    top: the first-pass histogram, share of the trials vs the share of the n queens that the
    first pass places (000_*: about 60%; 0.605701 at n = 10, 60.05% at n = 100, marked where
    an n matches), from the per-trial CSV; runs without it are named as unavailable;
    bottom: the dead-end histogram, share of the trials vs the share k / n of the queens
    standing when repeated passes reach a dead end (000_*'s Figure 2, drawn there for n = 100).
    """
    if not runs:
        raise NoData("no randSet & randSet run to draw")
    fig = Figure(figsize=FIGSIZE_IN, dpi=DPI, layout="constrained")
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
        top.stairs(100 * hist / run.trials, 100 * edges / run.n, color=f"C{i}",
                   label=f"n = {run.n}: {_pct(run.first_pass_share)}%{spread}, "
                         f"bins of {width} queen{'s' if width > 1 else ''}")
        peak = max(peak, 100 * hist.max() / run.trials)
    matched = [(i, r) for i, r in with_trials if r.n in paper.RANDSET_FIRST_PASS]
    for i, run in matched:
        top.axvline(100 * paper.RANDSET_FIRST_PASS[run.n], color=f"C{i}", linestyle=":",
                    label=f"paper, n = {run.n}: {100 * paper.RANDSET_FIRST_PASS[run.n]:.2f}%")
    if with_trials and not matched:
        top.axvline(60, color="C3", linestyle=":", label="paper: about 60% (60.05% at n = 100)")
    if with_trials:
        if without:
            top.plot([], [], " ", label=f"n = {', '.join(map(str, without))}: no per-trial data")
        sizes = sorted({r.trials for _, r in with_trials})
        top.set_title(f"randSet & randSet on the empty board: first pass, mean \u00b1 SE "
                      f"({'/'.join(map(str, sizes))} trials per n)", fontsize=9)
        top.set_ylim(0, 1.5 * peak)  # room for the legend
        top.set_xlabel("queens placed by the first pass (% of n)", fontsize=8)
        top.set_ylabel("trials (% per bin)", fontsize=8)
        top.grid(True, alpha=0.3)
        top.legend(fontsize=7, loc="upper left")
    else:
        top.set_axis_off()
        top.text(0.5, 0.5, f"First-pass histogram unavailable: the CSV(s) for n = {', '.join(map(str, without))}"
                 "\nhold only the dead-end histogram (nqc randset --csv). Give the per-trial CSV\n"
                 "of nqc randset --trials-csv, or --nqc BIN to run it.",
                 ha="center", va="center", fontsize=9, transform=top.transAxes)
        top.set_title("randSet & randSet on the empty board: first pass", fontsize=9)
    for i, run in enumerate(runs):
        x = 100 * run.histogram["k"].to_numpy(dtype=float) / run.n
        bottom.step(x, 100 * run.histogram["share"].to_numpy(dtype=float), where="mid", color=f"C{i}",
                    label=f"n = {run.n}: mean {100 * run.mean_dead_end_share:.2f}% ({run.trials} trials)")
    bottom.set_xlabel("queens standing at the dead end, k (% of n)", fontsize=8)
    bottom.set_ylabel("trials (% per k)", fontsize=8)
    bottom.set_title("Repeated passes until a dead end (000_*'s Figure 2, there n = 100)", fontsize=9)
    bottom.grid(True, alpha=0.3)
    bottom.set_ylim(0, 1.3 * 100 * max(float(r.histogram["share"].max()) for r in runs))
    bottom.legend(fontsize=7, loc="best")
    for ax in (top, bottom):
        ax.tick_params(labelsize=8)
    return _save(fig, path)
