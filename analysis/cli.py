"""The analysis's command line (analysis/README.md): an error is one line 'nqc-analysis: error: ...', exit 1."""

from __future__ import annotations

import argparse
import contextlib
import re
import shlex
import signal
import sys
import warnings
from pathlib import Path

import analysis
from analysis import COMMAND, fit, groups, output, paper, table
from analysis.schema import N_MAX
from analysis.errors import AnalysisError

PROG = "nqc-analysis"
#: Largest trial count (64 bits); the largest board size is nqc's (analysis.schema).
COUNT_MAX = 2**63 - 1


class _Parser(argparse.ArgumentParser):
    """argparse with nqc's convention: a usage error is one line on stderr and exit 1."""

    def error(self, message: str):
        self.exit(1, f"{PROG}: error: {message} (see {self.prog} --help)\n")


def _whole(what: str, lo: int, hi: int):
    """An argparse type: an integer in lo..hi (ASCII digits only: no '1_000', '1e3', spaces)."""

    def parse(text: str) -> int:
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise argparse.ArgumentTypeError(f"expected {what}, an integer in {lo}..{hi}, got '{text}'")
        value = int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected {what} in {lo}..{hi}, got {value}")
        return value

    return parse


_n_bound = _whole("a board size", 1, N_MAX)


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


#: The commands that group whole runs only (analysis.groups.whole_runs), and what they need of a group.
_WHOLE_RUN_COMMANDS = {
    "phase": "; a group may pool runs of one engine and settings only (nqc's rule, as --allow-mixed)",
    "threshold": "",
}


def _by_help(command: str | None) -> str:
    if command in _WHOLE_RUN_COMMANDS:
        first, *others = groups.WHOLE_RUNS
        accepted = ", ".join(others[:-1]) + f" or {others[-1]}"
        return (
            f"group whole runs by COLUMN: {first} (the default: one group per config and engine), {accepted}; "
            f"no bins; repeatable{_WHOLE_RUN_COMMANDS[command]}"
        )
    return (
        "group the cases by COLUMN instead of by run (config and engine): e.g. --by engine; "
        "a numeric column in bins: --by k:4 (quartiles) or --by k:1,10,100 (edges), --by k/n:0.5; "
        "repeatable (--by run --by k:4)"
    )


def _common(p, command: str | None = None) -> None:
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
        help="per-case time column, seconds of the engine call (default: %(default)s)"
        + ("; threshold shows no times" if command == "threshold" else ""),
    )
    p.add_argument(
        "--by",
        type=_by,
        action="append",
        metavar="COLUMN" if command in _WHOLE_RUN_COMMANDS else "COLUMN[:BINS]",
        help=_by_help(command),
    )
    p.add_argument(
        "--allow-mixed",
        action="store_true",
        help="pool the cases of every run into one table (nqc's rule: runs of one engine and settings only)",
    )


def _range(p) -> None:
    p.add_argument(
        "--n-min",
        type=_n_bound,
        default=paper.FIT_N_MIN,
        metavar="N",
        help="smallest n of the fit (default: %(default)s, as the paper)",
    )
    p.add_argument("--n-max", type=_n_bound, default=None, metavar="N", help="largest n of the fit (default: no bound)")


def _baseline(p) -> None:
    p.add_argument("--baseline", metavar="GROUP", help="the group the others are compared with (default: the first)")


def _figure_options(p) -> None:
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
        type=_whole("a resolution in dots per inch", 50, 1200),
        default=output.DPI,
        metavar="DPI",
        help=f"PNG resolution in dots per inch: {output.DPI} (default, print resolution), 100 for the screen",
    )
    p.add_argument(
        "-o",
        "--out",
        metavar="OUT_DIR",
        help="output directory (default: RESULTS_DIR/report for one "
        "directory, FILE's directory/report for one file; required for several paths)",
    )


def _histograms_and_randset(p) -> None:
    p.add_argument(
        "--hist-n",
        type=_n_bound,
        metavar="N",
        help="n of the time histograms (default: 1000 if present, else the n with the most cases)",
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
        type=_whole("a number of trials", 1, COUNT_MAX),
        default=20000,
        metavar="T",
        help="trials per size for --nqc (default: %(default)s)",
    )


def _published(p) -> None:
    p.add_argument(
        "--published",
        type=Path,
        metavar="CSV",
        help="published shares completable to compare with: a CSV with the header "
        "free_rows,n,share_completable,compositions (or diags,...) (default for random compositions: "
        "[Gent17]'s, analysis/data/gent17-phase-transition.csv)",
    )


def _csv(what: str):
    def add(p) -> None:
        p.add_argument(
            "--csv",
            metavar="FILE",
            help=f"also write {what} as CSV here; - for standard output (the tables then go to standard error)",
        )

    return add


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Table 1, time regression, comparisons of runs and figures of nqc "
        f"result files ({paper.REFERENCE}). Run as: {COMMAND} ...",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {analysis.__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="{" + ",".join(SUBCOMMANDS) + "}", parser_class=_Parser
    )
    for name, (short, description, options, _) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=short, description=description)
        _common(p, name)
        for add in options:
            add(p)
    return parser


def _load(args):
    """The cases of args.paths: grouped per run (or pooled with --allow-mixed), and `by`."""
    from analysis.load import load_cases

    cases = load_cases(args.paths, mixed="pool" if args.allow_mixed else "group")
    return cases, () if args.allow_mixed else tuple(args.by or groups.DEFAULT)


#: The command that analyses the cases of each origin but derived ones.
_COMMAND_OF = {"instance": "instances", "random": "phase", "excluded_diagonals": "phase", "canonical": "threshold"}


def _other_origins(cases) -> str:
    """The origins of `cases` other than derived, each with the command that analyses it."""
    from analysis.load import DERIVED, origins

    found = [o for o in dict.fromkeys(origins(cases)) if o != DERIVED]
    return "; ".join(f"{o}: {COMMAND} {_COMMAND_OF.get(o, 'report')}" for o in found)


def _left_out(cases, command: str, kept) -> str:
    """'COUNT ORIGIN (COMMAND)' per origin not in `kept`, with a warning that `command` leaves them out."""
    from analysis.load import AnalysisWarning, origins

    found = origins(cases)
    text = "; ".join(
        f"{int((found == o).sum())} {o} ({COMMAND} {_COMMAND_OF.get(o, 'report')})"
        for o in dict.fromkeys(found)
        if o not in kept
    )
    if text:
        warnings.warn(f"{command}: left out the cases of other origins: {text}", AnalysisWarning, stacklevel=2)
    return text


def _derived(cases, what: str | None = None):
    """The derived cases (Table 1's); with `what`, an error when there are none."""
    from analysis.load import INSTANCE_ORIGIN, derived_cases, origins

    derived = derived_cases(cases)
    if what and derived.empty:
        if set(origins(cases)) == {INSTANCE_ORIGIN}:
            raise AnalysisError(f"{what}: these results hold instance runs only (see {COMMAND} instances)")
        raise AnalysisError(f"{what}: these results hold no derived cases ({_other_origins(cases)})")
    return derived


def _instance_tables(cases, by, time: str) -> list[str]:
    from analysis import instances

    per_diags = instances.by_diags(cases, by, time)
    if per_diags.empty:
        return []
    return [
        f"Instance runs: outcomes by diags (times in seconds; per file: `{COMMAND} instances`)\n\n"
        + instances.by_diags_markdown(per_diags)
    ]


def _table(args):
    cases, by = _load(args)
    generated = _derived(cases)
    t = table.table_by(generated, by, args.time) if not generated.empty else None
    instance_tables = _instance_tables(cases, by, args.time)
    if args.csv and t is None and instance_tables:
        raise AnalysisError(
            "--csv: these results hold instance runs only, and Table 1 is of generated cases "
            f"({COMMAND} instances --csv FILE writes the instance table)"
        )
    if t is None and not instance_tables:
        raise AnalysisError(f"table: these results hold no derived cases or instance runs ({_other_origins(cases)})")
    texts = ([table.to_markdown(t)] if t is not None else []) + instance_tables
    return t, ["\n\n".join(texts)]


def _false_negatives(args):
    cases, by = _load(args)
    fn = table.false_negative_table(table.table_by(_derived(cases, "false-negatives"), by, args.time))
    return fn, [table.false_negative_markdown(fn)]


def _fit(args):
    from analysis.load import AnalysisWarning

    cases, by = _load(args)
    generated = _derived(cases, "fit")
    parts = list(groups.split(generated, by)) if groups.count(generated, by) > 1 else [({}, generated)]
    results = fit.per_group(parts, args.n_min, args.n_max, args.time)
    for labels, fits in results:
        if isinstance(fits, str):
            where = " / ".join(labels.values())
            raise AnalysisError(f"{where}: {fits}" if where else fits)
    import pandas as pd

    frame = pd.concat([groups.labelled(fit.fits_csv(fits), labels) for labels, fits in results], ignore_index=True)
    lines = []
    for i, (labels, fits) in enumerate(results):
        where = " / ".join(labels.values())
        if where:
            lines.append(("\n" if i else "") + f"## {where}\n")
        lines.append(output.markdown(fit.fits_table(fits)))
        few = [f for f in fits if f.warning]
        if few:  # once per group: the fits per case share their n, those per queen nearly
            more = f"; so do {len(few) - 1} more fits above" if len(few) > 1 else ""
            lines.append(f"\nWarning: {few[0].warning}{more}.")
            warnings.warn(f"{where + ': ' if where else ''}{few[0].warning}", AnalysisWarning, stacklevel=2)
        lines += ["", "Residuals (observed - fitted log10(1000 t)):"]
        lines.append(fit.residuals_table(fits).to_markdown(index=False, floatfmt=".5f"))
    return frame, lines


def _compare(args):
    from analysis import compare

    cases, by = _load(args)
    if not by:
        raise AnalysisError("compare: --allow-mixed pools every case into one group: nothing to compare")
    comp = compare.comparison(_derived(cases, "compare"), by, args.time, args.baseline)
    return comp, [compare.to_markdown(comp), "", *compare.summary(comp)]


def _instances(args):
    from analysis import instances

    cases, by = _load(args)
    per_file = instances.by_file(cases, by, args.time)
    if per_file.empty:
        raise AnalysisError(
            f'instances: these results hold no instance runs (a config\'s "instances"); {COMMAND} table '
            "shows generated cases"
        )
    files_md, common = instances.by_file_markdown(per_file, limit=None)
    lines = [*_instance_tables(cases, by, args.time), "", f"Outcomes by file{f' (under {common})' if common else ''}:"]
    lines += ["", files_md]
    conflicts = instances.disagreements(cases, by)
    if not conflicts.empty:
        lines += [
            "",
            f"Contradictions: {len(conflicts)} instances solved by one group and proved infeasible by another:",
        ]
        lines.append(output.markdown(conflicts.astype(str)))
    return per_file, lines


def _phase(args):
    from analysis import phase
    from analysis.load import SAMPLED

    cases, by = _load(args)
    points = phase.points(cases, by, args.time)
    others = _left_out(cases, "phase", SAMPLED)
    if points.empty:
        raise AnalysisError(
            "phase: these results hold no random compositions or Excluded Diagonals instances (a config's "
            f'"random_compositions" or "excluded_diagonals"; here: {others})'
        )
    published = phase.read_published(args.published) if args.published else phase.default_published(points)
    if published is not None:
        points = phase.compare(points, published)
    lines = [
        phase.to_markdown(points),
        "",
        "Per f or d: where the share crosses 1/2 (and which way), where the effort peaks:",
    ]
    lines += ["", phase.peaks_markdown(phase.peaks(points))]
    return points, lines + (["", *phase.summary(points)] if published is not None else [])


def _threshold(args):
    from analysis import threshold
    from analysis.load import CANONICAL

    cases, by = _load(args)
    counts = threshold.by_k(cases, by)
    others = _left_out(cases, "threshold", (CANONICAL,))
    if counts.empty:
        raise AnalysisError(
            f'threshold: these results hold no canonical cases (a config\'s "canonical_compositions"; here: {others})'
        )
    table = threshold.thresholds(cases, by)
    lines = ["Canonical cases per n and k:", "", threshold.by_k_markdown(counts), "", "a(n):", ""]
    return table, lines + [threshold.to_markdown(table), "", *threshold.summary(table)]


def _report(args):
    from analysis import randset
    from analysis.report import ReportOptions, write_report

    output.refuse_std_stream(
        "-o", args.out, "the report's directory (report.md, figures/ and the CSVs); give a directory"
    )
    if args.out is None and len(args.paths) != 1:
        raise AnalysisError("report: -o OUT_DIR is required with several paths")
    first = Path(args.paths[0])
    out = args.out or (first if first.is_dir() else first.parent) / "report"
    copied = ("n_min", "n_max", "hist_n", "hist_k", "time", "nqc", "randset_n", "randset_trials", "baseline", "dpi")
    copied += ("published",)
    options = ReportOptions(
        **{name: getattr(args, name) for name in (*copied, "allow_mixed")},
        randset_csvs=randset.parse_specs(args.randset),
        command=f"{COMMAND} " + " ".join(map(shlex.quote, args.argv)),
        formats=tuple(args.format),
        by=tuple(args.by or groups.DEFAULT),
    )
    return None, [f"report: {write_report(args.paths, out, options)}"]


#: Subcommand -> (help, description, options beyond the common ones, function -> (CSV frame, lines)).
SUBCOMMANDS = {
    "table": (
        "print Table 1 (Markdown) per n",
        "Table 1 per n, as Markdown on stdout; --csv writes every column (shares as fractions, times in seconds).",
        [_csv("the table")],
        _table,
    ),
    "false-negatives": (
        "print the false negative shares beside the paper's bounds",
        "Per n and pooled per claim of the paper: false negatives, their share with "
        "its exact (Clopper-Pearson) 95% interval, the paper's claim (< 1e-4 for n < 100, < 1e-5 "
        "for 100 <= n < 800, none seen for n >= 800) and whether the interval lies below it.",
        [_csv("the table")],
        _false_negatives,
    ),
    "fit": (
        "print the regression fits beside the paper's",
        "Least squares of log10(1000 t) on log10(n) (mean and t90mean per case, and per placed "
        "queen), with 95% confidence intervals and residuals, beside the paper's a, b, R.",
        [_range, _csv("the fits (one row each)")],
        _fit,
    ),
    "compare": (
        "print the runs side by side per n, with time ratios",
        "Per n, the groups (runs: configs and engines; or --by) side by side: mean and t90mean "
        "times with 95% confidence intervals, the share without backtracking and the false "
        "negatives with exact 95% intervals, and the mean time as a multiple of the baseline's "
        "with its 95% interval (paired when both ran the same compositions).",
        [_baseline, _csv("the comparison (every column)")],
        _compare,
    ),
    "instances": (
        "print the outcomes of instance runs by diags and by file",
        "Instance runs (composition and CSPLib .param files): per diags, the cases solved, proved "
        "infeasible and given up with the times of each verdict; per file, its outcome and time "
        "(one column per group when there are several).",
        [_csv("the per-file table (every column)")],
        _instances,
    ),
    "phase": (
        "print the phase transition of random compositions and Excluded Diagonals instances",
        "Cases of random compositions (f free rows) and Excluded Diagonals instances (d diagonals): per "
        "point (f or d, n) the outcomes, the share completable with its exact (Clopper-Pearson) 95% "
        "interval (cases that gave up counted both ways, completable and not), the median, mean and 90th "
        "percentile of the time and of the nodes; per f or d the n where the share crosses 1/2 (falling or "
        "rising) and where the effort peaks; beside published shares (Fisher's exact test, Holm-adjusted, "
        'and Newcombe\'s interval of the difference; "cannot tell" where the cases that gave up could '
        "go either way).",
        [_published, _csv("the table per point (every column)")],
        _phase,
    ),
    "threshold": (
        "print the completion threshold a(n) of canonical runs beside OEIS A374013",
        "Canonical cases (every composition of k queens up to symmetry): per n and k the cases, the "
        "compositions they stand for and the outcomes; per n a(n), the largest k such that every "
        "composition of k' <= k queens completes, where the rows settle it (else its bounds and what is "
        "missing: the k not run, the cases that gave up), with a witness case, beside the terms of OEIS A374013.",
        [_csv("the table of a(n) per n (every column)")],
        _threshold,
    ),
    "report": (
        "write report.md with tables, fits and figures",
        "Writes OUT_DIR/report.md with Table 1, the fits, the comparison with the paper and "
        "the figures (OUT_DIR/figures/), and the tables as CSV. Several runs (or --by groups) "
        "give a comparison report: per n the groups side by side, time ratios and shares with "
        "intervals, figures with one line per group. Instance runs get their outcomes by diags "
        "and by file, random compositions and Excluded Diagonals their phase transition, canonical "
        "runs the completion threshold. Runs of schema 2.2 on get a timeline: when each rank ran its "
        "cases, by host, and how busy each rank and host was.",
        [_baseline, _figure_options, _range, _histograms_and_randset, _published],
        _report,
    ),
}


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit code (0 success, 1 error), stdout checked and flushed first."""
    stdout = sys.stdout
    sys.stdout = output.CheckedStdout(stdout)
    # SIGTERM as Ctrl-C: the exception ends an nqc child and removes temporary files.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return _checked_main(argv)
    except KeyboardInterrupt:
        _say(f"{PROG}: interrupted (SIGTERM or SIGINT): stopped, its nqc child too")
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
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
            args.argv = argv
            code = _run(args)
        sys.stdout.flush()
    except AnalysisError as e:  # standard output failed outside a command (--help, the last flush)
        _say(f"{PROG}: error: {e}")
        return 1
    except output.StdoutClosed:  # its reader went away: stop quietly
        return 1
    for w in caught if code == 0 else ():
        if issubclass(w.category, AnalysisWarning):
            _say(f"{PROG}: warning: {w.message}")
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return code


def _say(line: str) -> None:
    """Prints `line` on stderr; a standard error that cannot be written is left at that."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def _run(args) -> int:
    try:
        for path in args.paths:  # HDF5 files and results directories are read by name
            output.refuse_std_stream(
                "PATH", path, "a result file or results directory (they are read by name); give a path", reading=True
            )
        if args.allow_mixed and args.by:
            raise AnalysisError("--allow-mixed pools every case into one table: give it without --by")
        frame, lines = SUBCOMMANDS[args.command][3](args)
        csv = getattr(args, "csv", None)
        if csv:  # written before anything is printed: an error prints one line only
            output.write_csv(frame, csv)
        print("\n".join(lines), file=output.text_stream(csv))
        return 0
    except AnalysisError as e:
        _say(f"{PROG}: error: {e}")
        return 1
    except OSError as e:  # writing outputs: full disk, permissions (analysis.output names the file)
        where = f"{e.filename}: " if e.filename else ""
        _say(f"{PROG}: error: {where}{e.strerror or e}")
        return 1
