"""One report for a results directory: report.md with Table 1, the fits, the comparison with
000_*'s published values and the figures, plus the tables as CSV, in one output directory.

OUT_DIR/report.md          the report (Markdown; figures linked relatively)
OUT_DIR/table1.csv, .md    Table 1 (analysis.table)
OUT_DIR/fits.csv           the fits (analysis.fit), one row each; residuals.csv per n
OUT_DIR/figures/*.png      the figures (analysis.figures), 640 x 480 px
OUT_DIR/randset-n*.csv     when the report ran ``nqc randset`` itself: the dead-end histogram,
                           randset-n*-trials.csv the per-trial values, .txt its output
"""

from __future__ import annotations

import json
import math
import os
import shlex
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis import figures, fit, output, paper
from analysis import randset as randset_mod
from analysis import table as table_mod
from analysis.errors import AnalysisError
from analysis.load import AnalysisWarning, load_cases

#: At most this many false negative / gave_up cases are listed in the report.
MAX_LISTED_FAILURES = 20


@dataclass
class ReportOptions:
    """What :func:`write_report` draws. Times are in seconds; n bounds are inclusive."""

    n_min: int | None = paper.FIT_N_MIN  #: fit range (None: no bound)
    n_max: int | None = None
    hist_n: int | None = None  #: n of Figures 10 and 11 (None: 1000 if present, else the n with most cases)
    hist_k: tuple[int, int] | None = None  #: k range of Figure 11 (None: all k)
    time: str = "wall_s"  #: per-case time column: wall_s or cpu_s
    randset_csvs: list[tuple[int, Path]] = field(default_factory=list)  #: (n, CSV of nqc randset: --trials-csv or --csv)
    nqc: Path | None = None  #: an nqc binary: run ``nqc randset`` when no CSV is given
    randset_n: list[int] = field(default_factory=lambda: [100, 1000])
    randset_trials: int = 20000
    allow_mixed: bool = False  #: pool result files of different configs (else refused, see analysis.load)
    command: str | None = None  #: the command line that made the report (printed in it)


def _shown(path: Path | str) -> str:
    """A path as the report shows it: relative to the working directory when inside it."""
    rel = os.path.relpath(Path(path).resolve(), Path.cwd())
    return rel if not rel.startswith("..") else str(Path(path).resolve())


def default_hist_n(table: pd.DataFrame) -> int:
    """The n of the completion-time histograms: 1000 (000_*'s Figure 10) when present, else the
    n with the most cases (the larger n on a tie)."""
    if (table["n"] == 1000).any():
        return 1000
    best = table.sort_values(["cases", "n"]).iloc[-1]
    return int(best["n"])


def _md(df: pd.DataFrame) -> str:
    return df.to_markdown(index=False, disable_numparse=True)


def _fmt(x, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.{digits}g}" if isinstance(x, float) else str(x)


def paper_comparison(table: pd.DataFrame, fits: list[fit.Fit], runs: list,
                     engines: list[str] | None = None) -> pd.DataFrame:
    """Our values next to 000_*'s published ones, for those our data covers. `engines` (the
    engines of the cases) adds a caveat to backtracks and false negatives unless it is the
    paper's algorithm alone (engine "grigoryan"): other engines count their own backtracks."""
    rows: list[dict] = []
    by_n = table.set_index("n")
    other = "" if engines is None or list(engines) == ["grigoryan"] else \
        f"engine {', '.join(engines)}: its own backtracks, not the paper's algorithm"

    def add(what: str, ours, theirs, note: str = "") -> None:
        rows.append({"quantity": what, "ours": ours, "paper (000_*)": theirs, "note": note})

    hw = "MATLAB on one desktop vs our engine and machine: compare shapes, not seconds"
    if 1000 in by_n.index:
        r = by_n.loc[1000]
        add("mean time at n = 1000", f"{r.mean_s:.4g} s", f"{paper.MEAN_S_AT_1000} s", hw)
        add("t90mean at n = 1000", f"{r.t90mean_s:.4g} s", f"{paper.T90MEAN_S_AT_1000} s", hw)
        ratio = f"{r.mean_s / r.t90mean_s:.3g}" if r.t90mean_s > 0 and math.isfinite(r.mean_s) else "n/a"
        add("mean / t90mean at n = 1000", ratio,
            f"{paper.MEAN_S_AT_1000 / paper.T90MEAN_S_AT_1000:.3g}", "weight of the slow 10% tail")
    mean_fit = next((f for f in fits if f.quantity == "mean_s"), None)
    if mean_fit is not None:
        ci = f" (95% CI {mean_fit.b_ci[0]:.3f}..{mean_fit.b_ci[1]:.3f})" if math.isfinite(mean_fit.b_ci[0]) else ""
        add("fit slope b (mean time)", f"{mean_fit.b:.4f}{ci}", f"{paper.B}",
            f"ours over n = {mean_fit.n_min}..{mean_fit.n_max}, paper over {paper.FIT_N_MIN}..10^8")
        add("fit intercept a (mean time)", f"{mean_fit.a:.4f}", f"{paper.A}", hw)
        add("fit R", f"{mean_fit.r:.4f}", f"{paper.R}", "")
        add("time the fit predicts at n = 1000", f"{mean_fit.predict_s(1000):.4g} s",
            f"{paper.predicted_time_s(1000):.3g} s", hw)
    for n, shares in paper.BACKTRACK_SHARES.items():
        if n in by_n.index:
            for key, label in [("bt0", "0"), ("bt1", "1"), ("bt2", "2"), ("bt3", "3"), ("bt_more", "> 3")]:
                if key in shares:
                    add(f"cases with {label} backtracks at n = {n}", f"{100 * by_n.loc[n, key]:.2f}%",
                        f"{100 * shares[key]:.2f}%", "; ".join(filter(None, [f"{int(by_n.loc[n, 'cases'])} cases here", other])))
    for lo, hi, floor in paper.NO_BACKTRACK_FLOORS:
        part = table[(table["n"] >= lo) & (table["n"] <= hi)]
        if not part.empty:
            worst = part.loc[part["bt0"].idxmin()]
            add(f"lowest share without backtracking, n = {lo}..{hi}",
                f"{100 * worst.bt0:.2f}% (n = {int(worst.n)})", f"> {100 * floor:.0f}%", other)
    for lo, hi, bound in [*paper.FALSE_NEGATIVE_BOUNDS, (paper.FALSE_NEGATIVE_NONE_FROM, None, None)]:
        part = table[(table["n"] >= lo) & ((table["n"] < hi) if hi is not None else True)]
        if not part.empty:
            fn, cases = int(part["false_negatives"].sum()), int(part["cases"].sum())
            low, high = (float(v) for v in table_mod.clopper_pearson(fn, cases))
            verdict = table_mod.false_negative_table(part).iloc[-1]["verdict"]
            add(f"false negative share, n = {lo}..{hi - 1}" if hi is not None else f"false negatives, n >= {lo}",
                f"{fn} of {cases} (95% interval {low:.2g}..{high:.2g}): {verdict}",
                f"< {bound:g}" if bound is not None else "none seen", other)
    for run in runs:
        if run.first_pass_share is not None and run.n in paper.RANDSET_FIRST_PASS:
            theirs = paper.RANDSET_FIRST_PASS[run.n]
            se = run.first_pass_se
            ours = f"{run.first_pass_share:.6f}" + (f" \u00b1 {se:.6f} (SE)" if se is not None else "")
            gap = f"; ours - paper = {(run.first_pass_share - theirs) / se:+.1f} SE" if se else ""
            add(f"randSet & randSet first pass share, n = {run.n}", ours, f"{theirs}", f"{run.trials} trials{gap}")
    return pd.DataFrame(rows, columns=["quantity", "ours", "paper (000_*)", "note"])


def randset_caption(runs: list) -> str:
    """The caption of randset.png."""
    first = ("Top: the first-pass histogram, the share of the trials by the share of the n queens that the "
             "first randSet & randSet pass places on the empty board (bins of whole queens, their width in "
             "the legend; the legend gives the mean \u00b1 its standard error in percentage points). The "
             "paper reports about 60% (0.605701 at n = 10, 60.05% at n = 100), dotted where our n matches.")
    if all(r.per_trial is None for r in runs):
        first = ("Top: the first-pass histogram is unavailable, because the CSVs given hold only the dead-end "
                 "histogram (`nqc randset --csv`); the per-trial CSV (`--trials-csv`) has it.")
    return ("randSet & randSet on the empty board (`nqc randset`), one trial = one empty board. " + first +
            " Bottom: the dead-end histogram, the share of the trials by the share k / n of the queens standing "
            "when repeated passes reach a dead end (000_*'s Figure 2, which shows n = 100).")


def randset_lines(runs: list, out_dir: Path) -> list[str]:
    """The report's table of the randSet & randSet runs: per n, the mean first-pass share with its
    standard error and standard deviation, the paper's value where it has one, the mean dead end
    and the CSVs."""
    def link(path):
        if path is None:
            return ""
        if path.resolve().is_relative_to(out_dir.resolve()):
            return f"[{path.name}]({os.path.relpath(path, out_dir)})"
        return f"`{_shown(path)}`"

    rows = []
    for r in runs:
        se, sd = r.first_pass_se, r.first_pass_sd
        theirs = paper.RANDSET_FIRST_PASS.get(r.n)
        rows.append({
            "n": str(r.n), "trials": str(r.trials),
            "first pass: mean share \u00b1 SE": "n/a (no per-trial CSV)" if r.first_pass_share is None else
            f"{r.first_pass_share:.6f}" + (f" \u00b1 {se:.6f}" if se is not None else " (nqc's output; no SE)"),
            "SD over trials": f"{sd:.4f}" if sd is not None else "n/a",
            "paper (000_*)": "not published" if theirs is None else (
                f"{theirs}" + (f" ({(r.first_pass_share - theirs) / se:+.1f} SE)" if se else "")),
            "dead end: mean k / n": f"{r.mean_dead_end_share:.4f}",
            "data": ", ".join(filter(None, [link(r.trials_csv), link(r.csv)])),
        })
    have = [r for r in runs if r.first_pass_share is not None]
    summary = ""
    if have:
        lo, hi = min(r.first_pass_share for r in have), max(r.first_pass_share for r in have)
        summary = (f" Over n = {', '.join(str(r.n) for r in have)} the first pass places "
                   f"{100 * lo:.2f}% to {100 * hi:.2f}% of the queens on average; the paper: about 60%, "
                   "0.605701 at n = 10, 0.6005 (60.05%) at n = 100, 0.599777 at n = 10^6.")
    return ["randSet & randSet per n: mean share of the n queens placed by the first pass with its standard "
            "error (SD / sqrt(trials)) and the spread over the trials (SD), beside the paper's mean where it "
            "gives one, with the gap ours - paper in our standard errors (the paper gives no error)." + summary, "",
            _md(pd.DataFrame(rows)), ""]


def _provenance(cases: pd.DataFrame) -> list[str]:
    lines = []
    for s in cases.attrs.get("sources", [])[:5]:
        a = s.attrs
        lines.append(f"- `{_shown(s.path)}`: {s.rows} cases, schema {a.get('schema_version', '?')}, "
                     f"nqc {a.get('nqc_version', '?')} (git {a.get('git_revision', '?')}), "
                     f"host {a.get('hostname', '?')}, world size {a.get('world_size', '?')}, "
                     f"{a.get('start_utc', '?')} .. {a.get('end_utc', '?')}, config hash {a.get('config_hash', '?')}")
    more = len(cases.attrs.get("sources", [])) - 5
    if more > 0:
        lines.append(f"- and {more} more files")
    return lines


#: Files a previous report in the same directory may have left that this one might not rewrite
#: (all are removed first, so a report that fails leaves no stale report.md behind), and
#: temporary files of an interrupted write (analysis.output).
_OUTPUTS = ["report.md", "table1.csv", "table1.md", "fits.csv", "residuals.csv", "figures/time_vs_n.png",
            "figures/fig10_time_histogram_n*.png", "figures/fig11_time_by_backtracks_n*.png",
            "figures/fig09_no_backtrack_share.png", "figures/false_negative_share.png", "figures/randset.png",
            ".*.part", "figures/.*.part"]


def _remove_previous_outputs(out_dir: Path) -> None:
    for pattern in _OUTPUTS:
        for path in out_dir.glob(pattern):
            try:
                path.unlink()
            except OSError as e:
                raise AnalysisError(f"{path}: cannot remove the previous report's file ({e.strerror or e})") from None


@dataclass
class FigureEntry:
    """One figure of the report: its file (None when it was not drawn, `reason` says why)."""

    name: str
    caption: str
    path: Path | None = None
    reason: str = ""


def _check_randset_options(options: ReportOptions) -> list[tuple[int, Path]]:
    specs = randset_mod.check_specs(options.randset_csvs)
    if not specs and options.nqc is not None:
        seen: set[int] = set()
        for n in options.randset_n:
            n = randset_mod.check_n(n, "--randset-n")
            if n in seen:
                raise AnalysisError(f"n = {n} given twice in --randset-n")
            seen.add(n)
    return specs


def write_report(paths, out_dir, options: ReportOptions | None = None) -> Path:
    """Writes OUT_DIR/report.md (and the files it links) for the results under `paths` (result
    files or results directories). Returns the path of report.md. Raises AnalysisError on bad
    input (see analysis.load) or options that select no cases, before anything is written, and
    when an output cannot be written; then the files this call wrote are removed again.

    A figure with nothing to draw (every time at its n 0 or not finite, say) is left out with a
    warning and a note in the report."""
    options = options or ReportOptions()
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise AnalysisError(f"{out_dir}: is not a directory")
    randset_csvs = _check_randset_options(options)
    cases = load_cases(paths, allow_mixed=options.allow_mixed)
    if options.time not in cases.columns:
        raise AnalysisError(f"no time column '{options.time}' in the result files (--time {options.time})")
    fig_dir = out_dir / "figures"

    table = table_mod.table1(cases, options.time)
    hist_n = options.hist_n if options.hist_n is not None else default_hist_n(table)
    if not (table["n"] == hist_n).any():
        raise AnalysisError(f"--hist-n {hist_n}: no cases at that n (the data has n = "
                            + ", ".join(str(v) for v in table["n"]) + ")")
    if options.hist_k is not None:
        lo, hi = options.hist_k
        k = cases.loc[cases["n"] == hist_n, "k"]
        if not ((k >= lo) & (k <= hi)).any():
            raise AnalysisError(f"--hist-k {lo}:{hi}: no case at n = {hist_n} has k in {lo}..{hi} "
                                f"(k ranges over {int(k.min())}..{int(k.max())})")
    runs = [randset_mod.read_csv(p, n) for n, p in randset_csvs]

    fit_error = None
    try:
        fits = fit.fits(table, cases, options.n_min, options.n_max, options.time)
    except AnalysisError as e:
        fits, fit_error = [], str(e)
        warnings.warn(f"no fit: {e}", AnalysisWarning, stacklevel=2)

    created = not out_dir.exists()
    output.make_dir(out_dir)
    written: list[Path] = []
    try:
        _remove_previous_outputs(out_dir)
        report = _write_outputs(out_dir, fig_dir, cases, table, hist_n, fits, fit_error, runs, options, written)
    except BaseException:
        output.remove(reversed(written))
        for d in ([fig_dir, out_dir] if created else [fig_dir]):
            try:
                d.rmdir()  # only when empty
            except OSError:
                pass
        raise
    return report


def _write_outputs(out_dir, fig_dir, cases, table, hist_n, fits, fit_error, runs, options, written) -> Path:
    def keep(path: Path) -> Path:
        written.append(path)
        return path

    table_mod.to_csv(table, keep(out_dir / "table1.csv"))
    table_md = table_mod.to_markdown(table)
    output.write_text(keep(out_dir / "table1.md"), table_md + "\n")
    if fits:
        output.write_csv(fit.fits_csv(fits), keep(out_dir / "fits.csv"), index=False, float_format="%.9g")
        output.write_csv(fit.residuals_table(fits), keep(out_dir / "residuals.csv"), index=False, float_format="%.9g")

    if not runs and options.nqc is not None:
        for n in options.randset_n:
            runs.append(randset_mod.run(options.nqc, n, options.randset_trials, out_dir))
            for name in (f"randset-n{n}.csv", f"randset-n{n}-trials.csv", f"randset-n{n}.txt"):
                keep(out_dir / name)

    figs: list[FigureEntry] = []

    def draw(name: str, caption: str, make) -> None:
        entry = FigureEntry(name, caption)
        try:
            entry.path = keep(make(fig_dir / name))
        except figures.NoData as e:
            entry.reason = str(e)
            warnings.warn(f"figure {name} not drawn: {e}", AnalysisWarning, stacklevel=3)
        figs.append(entry)

    mean_fit = next((f for f in fits if f.quantity == "mean_s"), None)
    where = figures.files_note(cases)
    draw("time_vs_n.png", "Mean and t90mean completion time per case vs n (log-log), our least-squares fit of "
         "log10(1000 t) on log10(n) for the mean, and the paper's line (000_*'s Figure 7).",
         lambda path: figures.time_vs_n(table, mean_fit, path, where))
    draw(f"fig10_time_histogram_n{hist_n}.png",
         f"Completion time histogram at n = {hist_n}, log-spaced bins (000_*'s Figure 10, n = 1000).",
         lambda path: figures.time_histogram(cases, hist_n, path, options.time))
    draw(f"fig11_time_by_backtracks_n{hist_n}.png",
         "The same histogram stacked by backtrack count (000_*'s Figure 11, which took the 998 "
         "compositions of size k = 800 at n = 1000; --hist-k LO:HI selects a k range).",
         lambda path: figures.time_histogram_by_backtracks(cases, hist_n, path, options.time, options.hist_k))
    draw("fig09_no_backtrack_share.png",
         "Share of cases solved without backtracking vs n, with the paper's statements (000_*'s Figure 9).",
         lambda path: figures.no_backtrack_share(table, path))
    draw("false_negative_share.png",
         "False negative share vs n with exact (Clopper-Pearson) 95% intervals; where none was seen, "
         "the interval's upper end. Dotted: the paper's bounds.",
         lambda path: figures.false_negative_share(table, path))
    if runs:
        draw("randset.png", randset_caption(runs), lambda path: figures.randset_histogram(runs, path))

    lines = _report_lines(cases, table_md, fits, fit_error, figs, runs, table, options, out_dir)
    return output.write_text(keep(out_dir / "report.md"), "\n".join(lines) + "\n")


def _report_lines(cases, table_md, fits, fit_error, figs, runs, table, options, out_dir) -> list[str]:
    sources = cases.attrs.get("sources", [])
    config = sources[0].config if sources else {}
    names = sorted({str(v) for v in cases["experiment"].unique() if str(v)})
    engines = sorted({str(v) for v in cases["engine"].unique()}) if "engine" in cases else []
    L = [f"# nqc results: {', '.join(names) or 'unnamed experiment'}", ""]
    if config.get("description"):
        L += [f"> {config['description']}", ""]
    L += [f"{len(cases)} cases, n = {', '.join(str(v) for v in table['n'])}; engine(s): {', '.join(engines) or '?'}; "
          f"time per case: `{options.time}` (seconds of the engine call only).", "", "Result files:", ""]
    L += _provenance(cases)
    L += ["", "## Table 1", "",
          "Per n: mean, median and maximum completion time per case; t90mean, the mean of the fastest 90% "
          "(000_*); shares of cases with 0, 1, 2, 3 and more than 3 backtracks; false negatives "
          "(completable compositions not solved: count and share of cases); cases stopped by a limit "
          "(gave up). Every column, with mean backtracks, infeasible counts and mean k: "
          "[table1.csv](table1.csv).", "", table_md, ""]
    L += ["## Time regression", "",
          "Least squares (statsmodels OLS) of log10(1000 t) = a + b log10(n), t in seconds, over the n "
          "range shown; 95% confidence intervals from the t distribution with points - 2 degrees of "
          "freedom; R = sign(b) sqrt(R^2). Per placed queen: t / (n - k) per case, averaged per n. "
          "The paper's fit (MATLAB, one desktop) is of the mean time per case; it published no "
          "intervals. The intercept a depends on the machine and language, the slope b on the algorithm.", ""]
    if fits:
        L += [_md(fit.fits_table(fits)), ""]
        L += ["Residuals (observed - fitted log10(1000 t)) per n ([residuals.csv](residuals.csv), "
              "all fits: [fits.csv](fits.csv)):", "",
              _md(fit.residuals_table(fits).apply(lambda c: c.map(lambda v: f"{v:.5f}" if isinstance(v, float) else str(v)))),
              ""]
    else:
        L += [f"No fit: {fit_error}", ""]
    L += ["## Compared with the paper", "",
          "000_*'s published values (../shared/paper-facts.md) beside ours, where our data has the n.", ""]
    comparison = paper_comparison(table, fits, runs, engines or None)
    L += [_md(comparison) if not comparison.empty else "(no n of ours matches a published value)", ""]
    L += ["## False negatives against the paper's bounds", "",
          "Per n and pooled per claim: the share with its exact (Clopper-Pearson) 95% interval; \"below\" when the "
          "interval lies below the paper's bound, \"cannot tell\" when it contains it (too few cases to test the "
          "claim: with none seen, the interval's upper end is about 3.7 / cases).", "",
          table_mod.false_negative_markdown(table_mod.false_negative_table(table)), ""]
    failed = cases[cases["false_negative"].astype(bool) | (cases["outcome"].astype(str) == "gave_up")]
    L += ["## False negatives and cases that gave up", ""]
    if failed.empty:
        L += ["None.", ""]
    else:
        cols = [c for c in ["case_id", "n", "k", "outcome", "false_negative", "backtracks", "nodes", "limit",
                            options.time] if c in failed.columns]
        L += [f"{len(failed)} cases" + (f"; the first {MAX_LISTED_FAILURES}" if len(failed) > MAX_LISTED_FAILURES else "")
              + ". `nqc export RESULTS --case ID` writes a stored composition, `nqc rerun RESULTS --case ID` runs it again.", "",
              _md(failed[cols].head(MAX_LISTED_FAILURES).astype(str)), ""]
    L += ["## Figures", ""]
    for entry in figs:
        if entry.path is None:
            L += [f"**Not drawn: `figures/{entry.name}`** ({entry.reason}).", "", entry.caption, ""]
            continue
        rel = os.path.relpath(entry.path, out_dir)
        L += [f"![{entry.path.stem}]({rel})", "", entry.caption, ""]
    if not runs:
        L += ["(No randSet & randSet figure: give `--randset N:CSV` with the per-trial CSV of "
              "`nqc randset N --trials-csv CSV`, or `--nqc BIN` to run it.)", ""]
    else:
        L += randset_lines(runs, out_dir)
    if options.command:
        L += ["## Reproduce", "", "```sh", options.command, "```", ""]
    if config:
        L += ["<details><summary>Config (resolved, from the result file)</summary>", "", "```json",
              json.dumps(config, indent=2), "```", "", "</details>"]
    return L


def command_line(argv: list[str]) -> str:
    """The shell command that reproduces a report (for its Reproduce section)."""
    return "/usr/bin/python3 -m analysis " + " ".join(shlex.quote(a) for a in argv)
