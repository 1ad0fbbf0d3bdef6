"""``/usr/bin/python3 -m analysis {table,fit,report} PATH...``: the command line of the analysis.

Errors (bad input, refused files, impossible options) print one line
``nqc-analysis: error: MESSAGE`` on stderr and exit 1, without a traceback; warnings print
``nqc-analysis: warning: MESSAGE`` and the command goes on.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings
from pathlib import Path

import analysis
from analysis import fit, output, paper, table
from analysis.errors import AnalysisError

PROG = "nqc-analysis"


class _Parser(argparse.ArgumentParser):
    """argparse with nqc's convention: a usage error is one line on stderr and exit 1."""

    def error(self, message: str):
        self.exit(1, f"{PROG}: error: {message} (see {self.prog} --help)\n")


#: Largest board size (nqc's Index is a 32-bit int) and largest trial count (64 bits).
N_MAX = 2**31 - 1
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


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="results directory (its results.h5, else its shards/*.h5) or result file")
    p.add_argument("--time", choices=["wall_s", "cpu_s"], default="wall_s",
                   help="per-case time column, seconds of the engine call (default: %(default)s)")
    p.add_argument("--allow-mixed", action="store_true",
                   help="pool result files of different configs (different config_hash); refused without it")


def _add_range(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n-min", type=_n_bound, default=paper.FIT_N_MIN, metavar="N",
                   help="smallest n of the fit (default: %(default)s, as the paper)")
    p.add_argument("--n-max", type=_n_bound, default=None, metavar="N", help="largest n of the fit (default: no bound)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=f"{PROG}", description="Table 1, time regression and figures of nqc result files "
                     "(000_*, arXiv:1912.05935). Run as: /usr/bin/python3 -m analysis ...")
    parser.add_argument("--version", action="version", version=f"%(prog)s {analysis.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{table,false-negatives,fit,report}", parser_class=_Parser)

    p = sub.add_parser("table", help="print Table 1 (Markdown) per n", description="Table 1 per n, as "
                       "Markdown on stdout; --csv writes every column (shares as fractions, times in seconds).")
    _add_common(p)
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")

    p = sub.add_parser("false-negatives", help="print the false negative shares beside the paper's bounds",
                       description="Per n and pooled per claim of the paper: false negatives, their share with "
                       "its exact (Clopper-Pearson) 95%% interval, the paper's claim (< 1e-4 for n < 100, < 1e-5 "
                       "for 100 <= n < 800, none seen for n >= 800) and whether the interval lies below it.")
    _add_common(p)
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")

    p = sub.add_parser("fit", help="print the regression fits beside the paper's", description=
                       "Least squares of log10(1000 t) on log10(n) (mean and t90mean per case, and per placed "
                       "queen), with 95%% confidence intervals and residuals, beside the paper's a, b, R.")
    _add_common(p)
    _add_range(p)
    p.add_argument("--csv", type=Path, help="also write the fits (one row each) as CSV here")

    p = sub.add_parser("report", help="write report.md with tables, fits and figures", description=
                       "Writes OUT_DIR/report.md with Table 1, the fits, the comparison with the paper and "
                       "the figures (OUT_DIR/figures/*.png), and the tables as CSV.")
    _add_common(p)
    p.add_argument("-o", "--out", type=Path, metavar="OUT_DIR", help="output directory (default: RESULTS_DIR/report for one "
                   "directory, FILE's directory/report for one file; required for several paths)")
    _add_range(p)
    p.add_argument("--hist-n", type=_n_bound, metavar="N", help="n of the time histograms (default: 1000 if present, "
                   "else the n with the most cases)")
    p.add_argument("--hist-k", type=_k_range, metavar="LO:HI",
                   help="only compositions of LO..HI queens in the by-backtracks histogram (the paper: 800:800 at n = 1000)")
    p.add_argument("--randset", action="append", default=[], metavar="N:CSV",
                   help="a CSV of `nqc randset N` for the randSet & randSet figure: the per-trial CSV of "
                   "--trials-csv (first-pass and dead-end histograms) or the histogram of --csv (dead end "
                   "only); repeatable")
    p.add_argument("--nqc", type=Path, metavar="BIN", help="an nqc binary: run `nqc randset` for the figure when no --randset is given")
    p.add_argument("--randset-n", type=_n_bound, nargs="+", default=[100, 1000], metavar="N",
                   help="board sizes for --nqc (default: 100 1000)")
    p.add_argument("--randset-trials", type=_count, default=20000, metavar="T", help="trials per size for --nqc (default: %(default)s)")
    return parser


def _table(args) -> int:
    from analysis.load import load_cases

    t = table.table1(load_cases(args.paths, allow_mixed=args.allow_mixed), args.time)
    text = table.to_markdown(t)
    if args.csv:  # written before anything is printed: an error prints one line only
        table.to_csv(t, args.csv)
    print(text)
    return 0


def _false_negatives(args) -> int:
    from analysis.load import load_cases

    fn = table.false_negative_table(table.table1(load_cases(args.paths, allow_mixed=args.allow_mixed), args.time))
    if args.csv:  # written before anything is printed
        output.write_csv(fn, args.csv, index=False, float_format="%.9g")
    print(table.false_negative_markdown(fn))
    return 0


def _fit(args) -> int:
    from analysis.load import load_cases

    cases = load_cases(args.paths, allow_mixed=args.allow_mixed)
    fits = fit.fits(table.table1(cases, args.time), cases, args.n_min, args.n_max, args.time)
    if args.csv:  # written before anything is printed
        output.write_csv(fit.fits_csv(fits), args.csv, index=False, float_format="%.9g")
    print(fit.fits_table(fits).to_markdown(index=False, disable_numparse=True))
    print()
    print("Residuals (observed - fitted log10(1000 t)):")
    print(fit.residuals_table(fits).to_markdown(index=False, floatfmt=".5f"))
    return 0


def _default_out(paths: list[str]) -> Path:
    if len(paths) != 1:
        raise AnalysisError("report: -o OUT_DIR is required with several paths")
    p = Path(paths[0])
    return (p if p.is_dir() else p.parent) / "report"


def _report(args, argv: list[str]) -> int:
    from analysis import randset
    from analysis.report import ReportOptions, command_line, write_report

    out = args.out or _default_out(args.paths)
    options = ReportOptions(n_min=args.n_min, n_max=args.n_max, hist_n=args.hist_n, hist_k=args.hist_k,
                            time=args.time, randset_csvs=randset.parse_specs(args.randset),
                            nqc=args.nqc, randset_n=args.randset_n, randset_trials=args.randset_trials,
                            allow_mixed=args.allow_mixed, command=command_line(argv))
    path = write_report(args.paths, out, options)
    print(f"report: {path}")
    return 0


_default_show_warning = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    from analysis.load import AnalysisWarning

    if issubclass(category, AnalysisWarning):
        print(f"{PROG}: warning: {message}", file=sys.stderr)
    else:
        _default_show_warning(message, category, filename, lineno, file, line)


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit code (0 success, 1 error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    warnings.showwarning = _show_warning
    try:
        if args.command == "table":
            return _table(args)
        if args.command == "false-negatives":
            return _false_negatives(args)
        if args.command == "fit":
            return _fit(args)
        return _report(args, argv)
    except AnalysisError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # stdout closed early (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # writing outputs: full disk, permissions
        where = f"{e.filename}: " if e.filename else ""
        print(f"{PROG}: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
