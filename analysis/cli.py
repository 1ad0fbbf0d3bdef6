"""``/usr/bin/python3 -m analysis {table,false-negatives,fit,compare,instances,report} PATH...``:
the command line of the analysis.

Result files of several runs (engines, configs) are grouped per run, or by ``--by COLUMN``
(analysis.groups): every table gets one block per group, ``compare`` and ``report`` put the
groups side by side.

Errors (bad input, refused files, impossible options, outputs and standard output that cannot
be written: "<stdout>: cannot write (REASON)") print one line ``nqc-analysis: error: MESSAGE``
on stderr and exit 1, without a traceback; a broken pipe on standard output exits 1 quietly;
warnings print ``nqc-analysis: warning: MESSAGE`` and the command goes on.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from pathlib import Path

import analysis
from analysis import fit, groups, output, paper, table
from analysis.schema import N_MAX
from analysis.errors import AnalysisError

PROG = "nqc-analysis"


class _Parser(argparse.ArgumentParser):
    """argparse with nqc's convention: a usage error is one line on stderr and exit 1."""

    def error(self, message: str):
        self.exit(1, f"{PROG}: error: {message} (see {self.prog} --help)\n")


#: Largest trial count (64 bits); the largest board size is nqc's (analysis.schema).
COUNT_MAX = 2**63 - 1


def _whole(text: str, what: str, lo: int, hi: int) -> int:
    """`text` as an integer in lo..hi (ASCII digits only: no '1_000', '1e3', spaces)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise argparse.ArgumentTypeError(f"expected {what}, an integer in {lo}..{hi}, got '{text}'")
    value = int(text)
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"expected {what} in {lo}..{hi}, got {value}")
    return value


def _n_bound(text: str) -> int:
    return _whole(text, "a board size", 1, N_MAX)


def _count(text: str) -> int:
    return _whole(text, "a number of trials", 1, COUNT_MAX)


def _k_range(text: str) -> tuple[int, int]:
    parts = text.split(":")
    if len(parts) != 2 or not all(re.fullmatch(r"[0-9]+", p) for p in parts):
        raise argparse.ArgumentTypeError(f"expected LO:HI (queens in the composition), got '{text}'")
    lo, hi = (int(v) for v in parts)
    if lo > hi or hi > N_MAX:
        raise argparse.ArgumentTypeError(f"expected 0 <= LO <= HI <= {N_MAX}, got '{text}'")
    return lo, hi


def _by(text: str) -> groups.By:
    try:
        return groups.parse_by(text)
    except AnalysisError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="results directory (its results.h5, else its shards/*.h5) or result file; several "
        "runs (other engines or configs) are kept apart, one group per run",
    )
    p.add_argument(
        "--time",
        choices=["wall_s", "cpu_s"],
        default="wall_s",
        help="per-case time column, seconds of the engine call (default: %(default)s)",
    )
    p.add_argument(
        "--by",
        type=_by,
        action="append",
        metavar="COLUMN[:BINS]",
        help="group the cases by COLUMN instead of by run (config and engine): e.g. --by engine; "
        "a numeric column in bins: --by k:4 (quartiles) or --by k:1,10,100 (edges), --by k/n:0.5; "
        "repeatable (--by run --by k:4)",
    )
    p.add_argument(
        "--allow-mixed",
        action="store_true",
        help="pool the cases of every run into one table (nqc's rule: runs of one engine and settings only)",
    )


def _add_csv(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--csv",
        metavar="FILE",
        help=f"also write {what} as CSV here; - for standard output (the " "tables then go to standard error)",
    )


def _add_range(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--n-min",
        type=_n_bound,
        default=paper.FIT_N_MIN,
        metavar="N",
        help="smallest n of the fit (default: %(default)s, as the paper)",
    )
    p.add_argument("--n-max", type=_n_bound, default=None, metavar="N", help="largest n of the fit (default: no bound)")


def _dpi(text: str) -> int:
    return _whole(text, "a resolution in dots per inch", 50, 1200)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=f"{PROG}",
        description="Table 1, time regression, comparisons of runs and figures of nqc "
        f"result files ({paper.REFERENCE}). Run as: /usr/bin/python3 -m analysis ...",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {analysis.__version__}")
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="{table,false-negatives,fit,compare,instances,report}",
        parser_class=_Parser,
    )

    p = sub.add_parser(
        "table",
        help="print Table 1 (Markdown) per n",
        description="Table 1 per n, as "
        "Markdown on stdout; --csv writes every column (shares as fractions, times in seconds).",
    )
    _add_common(p)
    _add_csv(p, "the table")

    p = sub.add_parser(
        "false-negatives",
        help="print the false negative shares beside the paper's bounds",
        description="Per n and pooled per claim of the paper: false negatives, their share with "
        "its exact (Clopper-Pearson) 95%% interval, the paper's claim (< 1e-4 for n < 100, < 1e-5 "
        "for 100 <= n < 800, none seen for n >= 800) and whether the interval lies below it.",
    )
    _add_common(p)
    _add_csv(p, "the table")

    p = sub.add_parser(
        "fit",
        help="print the regression fits beside the paper's",
        description="Least squares of log10(1000 t) on log10(n) (mean and t90mean per case, and per placed "
        "queen), with 95%% confidence intervals and residuals, beside the paper's a, b, R.",
    )
    _add_common(p)
    _add_range(p)
    _add_csv(p, "the fits (one row each)")

    p = sub.add_parser(
        "compare",
        help="print the runs side by side per n, with time ratios",
        description="Per n, the groups (runs: configs and engines; or --by) side by side: mean and t90mean "
        "times with 95%% confidence intervals, the share without backtracking and the false "
        "negatives with exact 95%% intervals, and the mean time as a multiple of the baseline's "
        "with its 95%% interval (paired when both ran the same compositions).",
    )
    _add_common(p)
    p.add_argument("--baseline", metavar="GROUP", help="the group the others are compared with (default: the first)")
    _add_csv(p, "the comparison (every column)")

    p = sub.add_parser(
        "instances",
        help="print the outcomes of instance runs by diags and by file",
        description="Instance runs (composition and CSPLib .param files): per diags, the cases solved, proved "
        "infeasible and given up with the times of each verdict; per file, its outcome and time "
        "(one column per group when there are several).",
    )
    _add_common(p)
    _add_csv(p, "the per-file table (every column)")

    p = sub.add_parser(
        "report",
        help="write report.md with tables, fits and figures",
        description="Writes OUT_DIR/report.md with Table 1, the fits, the comparison with the paper and "
        "the figures (OUT_DIR/figures/), and the tables as CSV. Several runs (or --by groups) "
        "give a comparison report: per n the groups side by side, time ratios and shares with "
        "intervals, figures with one line per group. Instance runs get their outcomes by diags "
        "and by file. Runs of schema 2.2 on get a timeline: when each rank ran its cases, by host, "
        "and how busy each rank and host was.",
    )
    _add_common(p)
    p.add_argument("--baseline", metavar="GROUP", help="the group the others are compared with (default: the first)")
    p.add_argument(
        "--format",
        nargs="+",
        default=["png"],
        metavar="FMT",
        choices=list(output.FIGURE_FORMATS),
        help="figure formats, one or more of png, pdf, svg (default: png; the report shows the PNG, "
        "else the SVG, and links the others)",
    )
    p.add_argument(
        "--dpi",
        type=_dpi,
        default=output.DPI,
        metavar="DPI",
        help=f"PNG resolution in dots per inch: {output.DPI} (default, print resolution), 100 for the " "screen",
    )
    p.add_argument(
        "-o",
        "--out",
        metavar="OUT_DIR",
        help="output directory (default: RESULTS_DIR/report for one "
        "directory, FILE's directory/report for one file; required for several paths)",
    )
    _add_range(p)
    p.add_argument(
        "--hist-n",
        type=_n_bound,
        metavar="N",
        help="n of the time histograms (default: 1000 if present, " "else the n with the most cases)",
    )
    p.add_argument(
        "--hist-k",
        type=_k_range,
        metavar="LO:HI",
        help="only compositions of LO..HI queens in the by-backtracks histogram (the paper: 800:800 at n = 1000)",
    )
    p.add_argument(
        "--randset",
        action="append",
        default=[],
        metavar="N:CSV",
        help="a CSV of `nqc randset N` for the randSet & randSet figure: the per-trial CSV of "
        "--trials-csv (first-pass and dead-end histograms) or the histogram of --csv (dead end "
        "only); N:- reads standard input; repeatable",
    )
    p.add_argument(
        "--nqc",
        type=Path,
        metavar="BIN",
        help="an nqc binary: run `nqc randset` for the figure when no --randset is given",
    )
    p.add_argument(
        "--randset-n",
        type=_n_bound,
        nargs="+",
        default=[100, 1000],
        metavar="N",
        help="board sizes for --nqc (default: 100 1000)",
    )
    p.add_argument(
        "--randset-trials",
        type=_count,
        default=20000,
        metavar="T",
        help="trials per size for --nqc (default: %(default)s)",
    )
    return parser


def _load(args):
    """The cases of args.paths: grouped per run (or pooled with --allow-mixed), and `by`."""
    from analysis.load import load_cases

    if args.allow_mixed and args.by:
        raise AnalysisError("--allow-mixed pools every case into one table: give it without --by")
    cases = load_cases(args.paths, mixed="pool" if args.allow_mixed else "group")
    return cases, () if args.allow_mixed else tuple(args.by or groups.DEFAULT)


def _generated(cases):
    from analysis.load import instance_cases

    return cases[~instance_cases(cases).to_numpy()]


def _instance_tables(cases, by, time: str) -> str:
    from analysis import instances

    per_diags = instances.by_diags(cases, by, time)
    return (
        ""
        if per_diags.empty
        else (
            "Instance runs: outcomes by diags (times in seconds; per file: "
            "`python3 -m analysis instances`)\n\n" + instances.by_diags_markdown(per_diags)
        )
    )


def _table(args) -> int:
    cases, by = _load(args)
    generated = _generated(cases)
    texts = []
    t = None
    if not generated.empty:
        t = table.table_by(generated, by, args.time)
        texts.append(table.to_markdown(t))
    inst = _instance_tables(cases, by, args.time)
    if inst:
        texts.append(inst)
    if args.csv:  # written before anything is printed: an error prints one line only
        if t is None:
            raise AnalysisError(
                "--csv: these results hold instance runs only, and Table 1 is of generated cases "
                "(python3 -m analysis instances --csv FILE writes the instance table)"
            )
        table.to_csv(t, args.csv)
    print("\n\n".join(texts), file=output.text_stream(args.csv))
    return 0


def _need_generated(cases, what: str):
    generated = _generated(cases)
    if generated.empty:
        raise AnalysisError(f"{what}: these results hold instance runs only (see python3 -m analysis instances)")
    return generated


def _false_negatives(args) -> int:
    cases, by = _load(args)
    generated = _need_generated(cases, "false-negatives")
    fn = table.false_negative_table(table.table_by(generated, by, args.time))
    if args.csv:  # written before anything is printed
        output.write_csv(fn, args.csv, index=False, float_format="%.9g")
    print(table.false_negative_markdown(fn), file=output.text_stream(args.csv))
    return 0


def _fit(args) -> int:
    from analysis.load import AnalysisWarning

    cases, by = _load(args)
    generated = _need_generated(cases, "fit")
    parts = list(groups.split(generated, by)) if groups.count(generated, by) > 1 else [({}, generated)]
    results = []
    for labels, part in parts:
        where = " / ".join(labels.values())
        try:
            fits = fit.fits(table.table1(part, args.time), part, args.n_min, args.n_max, args.time)
        except AnalysisError as e:
            raise AnalysisError(f"{where}: {e}" if where else str(e)) from None
        results.append((labels, where, fits))
    csv = []
    for labels, where, fits in results:
        frame = fit.fits_csv(fits)
        for i, (k, v) in enumerate(labels.items()):
            frame.insert(i, k, v)
        csv.append(frame)
    if args.csv:  # written before anything is printed
        import pandas as pd

        output.write_csv(pd.concat(csv, ignore_index=True), args.csv, index=False, float_format="%.9g")
    out = output.text_stream(args.csv)
    for i, (labels, where, fits) in enumerate(results):
        if where:
            print(("\n" if i else "") + f"## {where}\n", file=out)
        print(fit.fits_table(fits).to_markdown(index=False, disable_numparse=True), file=out)
        few = [f for f in fits if f.warning]
        if few:  # once per group: the fits per case share their n, those per queen nearly
            print(
                f"\nWarning: {few[0].warning}"
                + (f"; so do {len(few) - 1} more fits above" if len(few) > 1 else "")
                + ".",
                file=out,
            )
            warnings.warn(f"{where + ': ' if where else ''}{few[0].warning}", AnalysisWarning, stacklevel=2)
        print(file=out)
        print("Residuals (observed - fitted log10(1000 t)):", file=out)
        print(fit.residuals_table(fits).to_markdown(index=False, floatfmt=".5f"), file=out)
    return 0


def _compare(args) -> int:
    from analysis import compare

    cases, by = _load(args)
    if not by:
        raise AnalysisError("compare: --allow-mixed pools every case into one group: nothing to compare")
    comp = compare.comparison(_need_generated(cases, "compare"), by, args.time, args.baseline)
    if args.csv:  # written before anything is printed
        output.write_csv(comp, args.csv, index=False, float_format="%.9g")
    out = output.text_stream(args.csv)
    print(compare.to_markdown(comp), file=out)
    print(file=out)
    print("\n".join(compare.summary(comp)), file=out)
    return 0


def _instances(args) -> int:
    from analysis import instances

    cases, by = _load(args)
    per_file = instances.by_file(cases, by, args.time)
    if per_file.empty:
        raise AnalysisError(
            'instances: these results hold no instance runs (a config\'s "instances"); '
            "python3 -m analysis table shows generated cases"
        )
    if args.csv:  # written before anything is printed
        output.write_csv(per_file, args.csv, index=False, float_format="%.9g")
    files_md, common = instances.by_file_markdown(per_file, limit=None)
    out = output.text_stream(args.csv)
    print(_instance_tables(cases, by, args.time), file=out)
    print(file=out)
    print(f"Outcomes by file{f' (under {common})' if common else ''}:", file=out)
    print(file=out)
    print(files_md, file=out)
    conflicts = instances.disagreements(cases, by)
    if not conflicts.empty:
        print(file=out)
        print(
            f"Contradictions: {len(conflicts)} instances solved by one group and proved infeasible by another:",
            file=out,
        )
        print(conflicts.astype(str).to_markdown(index=False, disable_numparse=True), file=out)
    return 0


def _default_out(paths: list[str]) -> Path:
    if len(paths) != 1:
        raise AnalysisError("report: -o OUT_DIR is required with several paths")
    p = Path(paths[0])
    return (p if p.is_dir() else p.parent) / "report"


def _report(args, argv: list[str]) -> int:
    from analysis import randset
    from analysis.report import ReportOptions, command_line, write_report

    output.refuse_std_stream(
        "-o", args.out, "the report's directory (report.md, figures/ and the CSVs); give a directory"
    )
    out = args.out or _default_out(args.paths)
    if args.allow_mixed and args.by:
        raise AnalysisError("--allow-mixed pools every case into one table: give it without --by")
    options = ReportOptions(
        n_min=args.n_min,
        n_max=args.n_max,
        hist_n=args.hist_n,
        hist_k=args.hist_k,
        time=args.time,
        randset_csvs=randset.parse_specs(args.randset),
        nqc=args.nqc,
        randset_n=args.randset_n,
        randset_trials=args.randset_trials,
        allow_mixed=args.allow_mixed,
        command=command_line(argv),
        by=tuple(args.by or groups.DEFAULT),
        baseline=args.baseline,
        formats=tuple(args.format),
        dpi=args.dpi,
    )
    path = write_report(args.paths, out, options)
    print(f"report: {path}")
    return 0


_default_show_warning = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    from analysis.load import AnalysisWarning

    if issubclass(category, AnalysisWarning):
        _say(f"{PROG}: warning: {message}")
    else:
        _default_show_warning(message, category, filename, lineno, file, line)


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit code (0 success, 1 error). Warnings are printed
    when the command succeeds; a failed command prints its one error line alone.

    Every write to standard output is checked (output.CheckedStdout, for the command's text,
    ``-`` outputs and argparse's --help and --version alike) and flushed before the exit code
    is settled: a full disk or a closed standard output is the error "<stdout>: cannot write
    (REASON)", exit 1; a reader that went away (``... | head``, a broken pipe) ends the command
    quietly, exit 1."""
    stdout = sys.stdout
    sys.stdout = output.CheckedStdout(stdout)
    try:
        return _checked_main(argv)
    finally:
        sys.stdout = stdout


def _checked_main(argv: list[str] | None) -> int:
    from analysis.load import AnalysisWarning

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as e:  # --help, --version (0) and usage errors (1, on stderr)
            sys.stdout.flush()
            return e.code if isinstance(e.code, int) else int(e.code is not None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", AnalysisWarning)
            code = _run(args, argv)
        sys.stdout.flush()
    except AnalysisError as e:  # standard output failed outside a command (--help, the last flush)
        _say(f"{PROG}: error: {e}")
        return 1
    except output.StdoutClosed:  # its reader went away: stop quietly
        return 1
    if code == 0:
        for w in caught:
            _show_warning(w.message, w.category, w.filename, w.lineno)
    return code


def _say(line: str) -> None:
    """Prints `line` on stderr; a standard error that cannot be written is left at that."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _run(args, argv: list[str]) -> int:
    try:
        for path in args.paths:  # HDF5 files and results directories are read by name
            output.refuse_std_stream(
                "PATH", path, "a result file or results directory (they are read by name); " "give a path", reading=True
            )
        if args.command == "table":
            return _table(args)
        if args.command == "false-negatives":
            return _false_negatives(args)
        if args.command == "fit":
            return _fit(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "instances":
            return _instances(args)
        return _report(args, argv)
    except AnalysisError as e:
        _say(f"{PROG}: error: {e}")
        return 1
    except OSError as e:  # writing outputs: full disk, permissions (analysis.output names the file)
        where = f"{e.filename}: " if e.filename else ""
        _say(f"{PROG}: error: {where}{e.strerror or e}")
        return 1
