"""OUT_DIR/report.md with tables, fits, the paper's values and figures, and the tables as CSV (analysis/README.md);
several groups give a comparison report."""

from __future__ import annotations

import contextlib
import json
import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from analysis import compare, figures, fit, groups, instances, output, paper, phase, threshold, timeline
from analysis import randset as randset_mod
from analysis import table as table_mod
from analysis.errors import AnalysisError
from analysis.load import CONFIG_HASH, EXPERIMENT, AnalysisWarning, derived_cases, load_cases
from analysis.output import markdown as _md

#: At most this many false negative / gave_up cases are listed in the report.
MAX_LISTED_FAILURES = 20
#: The timeline's per-rank table is printed in the report up to this many rows (timeline.csv has all).
MAX_TIMELINE_RANK_ROWS = 32
#: The column of paper_comparison that holds the paper's values.
PAPER_COLUMN = f"paper ({paper.NAME})"


@dataclass
class ReportOptions:
    """What :func:`write_report` draws. Times are in seconds; n bounds are inclusive."""

    n_min: int | None = paper.FIT_N_MIN  #: fit range (None: no bound)
    n_max: int | None = None
    hist_n: int | None = None  #: n of Figures 10 and 11 (None: 1000 if present, else the n with most cases)
    hist_k: tuple[int, int] | None = None  #: k range of Figure 11 (None: all k)
    time: str = "wall_s"  #: per-case time column: wall_s or cpu_s
    #: (n, CSV of nqc randset: --trials-csv or --csv)
    randset_csvs: list[tuple[int, Path]] = field(default_factory=list)
    nqc: Path | None = None  #: an nqc binary: run ``nqc randset`` when no CSV is given
    randset_n: list[int] = field(default_factory=lambda: [100, 1000])
    randset_trials: int = 20000
    allow_mixed: bool = False  #: pool result files of different configs into one group (not recommended)
    command: str | None = None  #: the command line that made the report (printed in it)
    by: tuple = groups.DEFAULT  #: the groups (analysis.groups): per run by default
    baseline: str | None = None  #: the group the others are compared with (default: the first)
    formats: tuple[str, ...] = ("png",)  #: figure formats (analysis.figures.FORMATS)
    dpi: float = figures.DPI  #: PNG resolution (dots per inch)
    #: published shares for the phase transition (None: phase.DEFAULT_PUBLISHED of the origin)
    published: Path | None = None


def _section(title: str | None, *paragraphs: str) -> list[str]:
    """A report section: its heading (none without `title`), then each paragraph and a blank line."""
    lines = [title if title.startswith("#") else f"## {title}", ""] if title else []
    for p in paragraphs:
        lines += [p, ""]
    return lines


def _shown(path: Path | str) -> str:
    """A path as the report shows it: relative to the working directory when inside it."""
    rel = os.path.relpath(Path(path).resolve(), Path.cwd())
    return rel if not rel.startswith("..") else str(Path(path).resolve())


def default_hist_n(table: pd.DataFrame) -> int:
    """n = 1000 ([Grigoryan]'s Figure 10) when present, else the n with the most cases (larger on a tie)."""
    if (table["n"] == 1000).any():
        return 1000
    return int(table.sort_values(["cases", "n"]).iloc[-1]["n"])


def _share_ci(share: float, lo: float, hi: float) -> str:
    return f"{100 * share:.2f}% (95% CI {100 * lo:.1f}..{100 * hi:.1f}%)"


def paper_comparison(
    table: pd.DataFrame, fits: list[fit.Fit], runs: list, engines: list[str] | None = None
) -> pd.DataFrame:
    """Our values beside the paper's where our data has the n, with what our sample can say about each."""
    rows: list[dict] = []
    by_n = table.set_index("n")
    other = (
        ""
        if engines is None or list(engines) == ["grigoryan"]
        else f"engine {', '.join(engines)}: its own backtracks, not the paper's algorithm"
    )

    def add(what: str, ours, theirs, note: str = "") -> None:
        rows.append({"quantity": what, "ours": ours, PAPER_COLUMN: theirs, "note": note})

    hw = "MATLAB on one desktop vs our engine and machine: compare shapes, not seconds"
    if 1000 in by_n.index:
        r = by_n.loc[1000]
        add(
            "mean time at n = 1000",
            f"{r.mean_s:.4g} s"
            + (f" (95% CI {r.mean_s_lo:.3g}..{r.mean_s_hi:.3g})" if math.isfinite(r.mean_s_lo) else ""),
            f"{paper.MEAN_S_AT_1000} s",
            hw,
        )
        add("t90mean at n = 1000", f"{r.t90mean_s:.4g} s", f"{paper.T90MEAN_S_AT_1000} s", hw)
        ratio = f"{r.mean_s / r.t90mean_s:.3g}" if r.t90mean_s > 0 and math.isfinite(r.mean_s) else "n/a"
        add(
            "mean / t90mean at n = 1000",
            ratio,
            f"{paper.MEAN_S_AT_1000 / paper.T90MEAN_S_AT_1000:.3g}",
            "weight of the slow 10% tail",
        )
    mean_fit = next((f for f in fits if f.quantity == "mean_s"), None)
    if mean_fit is not None:
        ci = f" (95% CI {mean_fit.b_ci[0]:.3f}..{mean_fit.b_ci[1]:.3f})" if math.isfinite(mean_fit.b_ci[0]) else ""
        few = f"; only {mean_fit.points} points: too few to test the paper's slope" if mean_fit.warning else ""
        add(
            "fit slope b (mean time)",
            f"{mean_fit.b:.4f}{ci}",
            f"{paper.B}",
            f"ours over n = {mean_fit.n_min}..{mean_fit.n_max}, paper over {paper.FIT_N_MIN}..10^8{few}",
        )
        add("fit intercept a (mean time)", f"{mean_fit.a:.4f}", f"{paper.A}", hw)
        add("fit R", f"{mean_fit.r:.4f}", f"{paper.R}", f"only {mean_fit.points} points: R says little" if few else "")
        add(
            "time the fit predicts at n = 1000",
            f"{mean_fit.predict_s(1000):.4g} s",
            f"{paper.predicted_time_s(1000):.3g} s",
            hw,
        )
    for n, shares in paper.BACKTRACK_SHARES.items():
        if n in by_n.index:
            cases = int(by_n.loc[n, "cases"])
            for key, theirs in shares.items():
                share = float(by_n.loc[n, key])
                lo, hi = (float(v) for v in table_mod.clopper_pearson(round(share * cases), cases))
                inside = f"the paper's value is {'inside' if lo <= theirs <= hi else 'outside'} our interval"
                add(
                    f"cases with {'> 3' if key == 'bt_more' else key[2:]} backtracks at n = {n}",
                    _share_ci(share, lo, hi),
                    f"{100 * theirs:.2f}%",
                    "; ".join(filter(None, [f"{cases} cases here", inside, other])),
                )
    for lo_n, hi_n, floor in paper.NO_BACKTRACK_FLOORS:
        part = table[(table["n"] >= lo_n) & (table["n"] <= hi_n)]
        if not part.empty:
            worst = part.loc[part["bt0"].idxmin()]
            below = part[part["bt0_hi"] < floor]
            if not below.empty:
                verdict = f"below the floor at n = {output.ns_text(below['n'])} (95% upper bound under it)"
            elif (part["bt0_lo"] > floor).all():
                verdict = "above the floor at every n (95% lower bounds over it)"
            else:
                unsure = part[part["bt0_lo"] <= floor]
                verdict = (
                    f"cannot tell at n = {output.ns_text(unsure['n'])}: the 95% interval "
                    "contains the floor (too few cases)"
                )
            add(
                f"lowest share without backtracking, n = {lo_n}..{hi_n}",
                f"{_share_ci(worst.bt0, worst.bt0_lo, worst.bt0_hi)} at n = {int(worst.n)}",
                f"> {100 * floor:.0f}%",
                "; ".join(filter(None, [verdict, other])),
            )
    for lo, hi, bound in paper.FALSE_NEGATIVE_CLAIMS:
        part = table[(table["n"] >= lo) & ((table["n"] < hi) if hi is not None else True)]
        if not part.empty:
            r = table_mod.fn_row("", int(part["cases"].sum()), int(part["false_negatives"].sum()), bound)
            add(
                f"false negative share, n = {lo}..{hi - 1}" if hi is not None else f"false negatives, n >= {lo}",
                f"{r['false_negatives']} of {r['cases']} (95% interval {r['lo']:.2g}..{r['hi']:.2g}): {r['verdict']}",
                f"< {bound:g}" if bound is not None else "none seen",
                "; ".join(filter(None, [r["note"], other])),
            )
    for run in runs:
        if run.first_pass_share is not None and run.n in paper.RANDSET_FIRST_PASS:
            theirs = paper.RANDSET_FIRST_PASS[run.n]
            se = run.first_pass_se
            ours = f"{run.first_pass_share:.6f}" + (f" \u00b1 {se:.6f} (SE)" if se is not None else "")
            gap = f"; ours - paper = {(run.first_pass_share - theirs) / se:+.1f} SE" if se else ""
            add(f"randSet & randSet first pass share, n = {run.n}", ours, f"{theirs}", f"{run.trials} trials{gap}")
    return pd.DataFrame(rows, columns=["quantity", "ours", PAPER_COLUMN, "note"])


def randset_caption(runs: list) -> str:
    """The caption of randset.png."""
    first = (
        "Top: the first-pass histogram, the share of the trials by the share of the n queens that the "
        "first randSet & randSet pass places on the empty board (bins of whole queens, their width in "
        "the legend; the legend gives the mean \u00b1 its standard error in percentage points). The "
        "paper reports about 60% (0.605701 at n = 10, 60.05% at n = 100), dotted where our n matches."
    )
    if all(r.per_trial is None for r in runs):
        first = (
            "Top: the first-pass histogram is unavailable, because the CSVs given hold only the dead-end "
            "histogram (`nqc randset --csv`); the per-trial CSV (`--trials-csv`) has it."
        )
    return (
        "randSet & randSet on the empty board (`nqc randset`), one trial = one empty board. "
        + first
        + " Bottom: the dead-end histogram, the share of the trials by the share k / n of the queens standing "
        "when repeated passes reach a dead end (the paper's Figure 2, which shows n = 100)."
    )


def randset_lines(runs: list, out_dir: Path) -> list[str]:
    """The report's table of the randSet & randSet runs, per n, beside the paper's values."""

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
        rows.append(
            {
                "n": str(r.n),
                "trials": str(r.trials),
                "first pass: mean share \u00b1 SE": "n/a (no per-trial CSV)"
                if r.first_pass_share is None
                else f"{r.first_pass_share:.6f}"
                + (f" \u00b1 {se:.6f}" if se is not None else " (nqc's output; no SE)"),
                "SD over trials": f"{sd:.4f}" if sd is not None else "n/a",
                PAPER_COLUMN: "not published"
                if theirs is None
                else (f"{theirs}" + (f" ({(r.first_pass_share - theirs) / se:+.1f} SE)" if se else "")),
                "dead end: mean k / n": f"{r.mean_dead_end_share:.4f}",
                "data": ", ".join(filter(None, [link(r.trials_csv), link(r.csv)])),
            }
        )
    have = [r for r in runs if r.first_pass_share is not None]
    summary = ""
    if have:
        lo, hi = min(r.first_pass_share for r in have), max(r.first_pass_share for r in have)
        summary = (
            f" Over n = {output.ns_text(r.n for r in have)} the first pass places "
            f"{100 * lo:.2f}% to {100 * hi:.2f}% of the queens on average; the paper: about 60%, "
            "0.605701 at n = 10, 0.6005 (60.05%) at n = 100, 0.599777 at n = 10^6."
        )
    return [
        "randSet & randSet per n: mean share of the n queens placed by the first pass with its standard "
        "error (SD / sqrt(trials)) and the spread over the trials (SD), beside the paper's mean where it "
        "gives one, with the gap ours - paper in our standard errors (the paper gives no error)." + summary,
        "",
        _md(pd.DataFrame(rows)),
        "",
    ]


def _provenance(cases: pd.DataFrame) -> list[str]:
    lines = []
    for s in cases.attrs.get("sources", [])[:5]:
        a = s.attrs
        if s.launches is not None and len(s.launches):
            where = "; ".join(
                f"launch {r.id}: {r.world_size} rank(s) on {r.hosts}"
                + (f", Slurm job {r.slurm_array_task or r.slurm_job_id}" if r.slurm_job_id else "")
                + (f", part {r.part}/{r.parts}" if r.parts > 1 else "")
                + f", {r.shards_done} shards"
                + (", merged" if r.merged else "")
                for r in s.launches.itertuples()
            )
        else:
            where = f"host {a.get('hostname', '?')}, world size {a.get('world_size', '?')}"
        lines.append(
            f"- `{_shown(s.path)}`: {s.rows} cases, schema {a.get('schema_version', '?')}, "
            f"nqc {a.get('nqc_version', '?')} (git {a.get('git_revision', '?')}), {where}, "
            f"{a.get('start_utc', '?')} .. {a.get('end_utc', '?')}, config hash {a.get('config_hash', '?')}"
        )
    more = len(cases.attrs.get("sources", [])) - 5
    if more > 0:
        lines.append(f"- and {more} more files")
    return lines


def _seconds(x) -> str:
    return "" if x is None or not math.isfinite(float(x)) else f"{float(x):.4g}"


def _launch_line(part: pd.DataFrame, run: str) -> str:
    """One launch's balance in words: ranks, hosts, cases, span, busy shares and idle ranks."""
    share = timeline.share_text
    span = float(part["span_s"].iloc[0])
    named = sorted({h for h in part["host"] if h != timeline.UNKNOWN_HOST})
    unknown = int((part["host"] == timeline.UNKNOWN_HOST).sum())
    overall = part["busy_s"].sum() / (len(part) * span) if span > 0 else float("nan")
    least, most = part.loc[part["busy_share"].idxmin()], part.loc[part["busy_share"].idxmax()]
    idle = part[part["cases"] == 0]
    ended = part[part["cases"] > 0].sort_values("last_end_s").iloc[0]
    text = (
        f"- **{run}launch {part['launch'].iloc[0]}**: {output.plural(len(part), 'rank')} on {output.plural(len(named), 'host')}"
        + (f" (and {unknown} of unknown host)" if unknown else "")
        + f", {int(part['cases'].sum()):,} cases; span {span:.4g} s; engine busy {share(overall)} of the ranks' time"
    )
    if len(part) > 1:
        text += (
            f", from {share(least.busy_share)} (rank {least['rank']}, {least.host}) to "
            f"{share(most.busy_share)} (rank {most['rank']}, {most.host})"
        )
        if span > 0:
            text += (
                f"; the first rank to finish (rank {ended['rank']}, {ended.host}) ended its last case at "
                f"{ended.last_end_s:.4g} s, idle for the last {share(1 - ended.last_end_s / span)} of the span"
            )
    if len(idle):
        text += f"; {output.plural(len(idle), 'rank')} ran no case: {timeline.format_ranks(idle['rank'])}"
    return text + "."


def _timeline_lines(out: _Out, cases: pd.DataFrame) -> list[str]:
    """The Timeline section: figure, busy shares per host and rank (their CSVs), a line per launch."""
    title = "Timeline"
    if not timeline.has_timeline(cases):
        return _section(title, "No timeline: no case records when it started in a known launch (`start_s`, `launch`).")
    line = timeline.of(cases)
    ranks, hosts = line.busy_shares("rank"), line.busy_shares("host")
    out.csv("timeline.csv", ranks)
    out.csv("timeline_by_host.csv", hosts)
    shown = line.chosen_launches()
    drawn = (
        ""
        if len(shown) == len(line.spans)
        else f" The figure draws {len(shown)} of the {len(line.spans)} launches, those with the most engine time."
    )
    figure = out.figure(
        "timeline",
        "When each rank ran its cases, one panel per launch of `nqc run` on the directory, one row "
        'per MPI rank, the ranks grouped by host (host and ranks on the left, a line between hosts; "?": ranks '
        "whose host the files do not name). A bar is a stretch of one shard's cases on that rank, from the start "
        "of its first engine call to the end of its last; the shades of the host's colour alternate from one "
        f"shard to the next, and gaps shorter than 1/{round(1 / timeline.MERGE_FRACTION)} of the launch's span "
        "(below a pixel) are merged. White is idle: no engine call (making compositions, writing shard files, waiting "
        "for work, or done). x: seconds since the launch's start, a barrier of all its ranks, so the hosts line up. On "
        "the right, each rank's busy share (few ranks)." + drawn,
        lambda path, dpi: line.draw(path, dpi=dpi),
    )
    several = hosts["config_hash"].nunique() > 1
    share = timeline.share_text
    launches = [
        _launch_line(part, f"{part['experiment'].iloc[0] or config_hash}, " if several else "")
        for (config_hash, _), part in ranks.groupby(["config_hash", "launch"], sort=False)
    ]

    def shown_table(frame: pd.DataFrame, columns: dict) -> str:
        run = {"run": frame["experiment"]} if several else {}
        return _md(pd.DataFrame({**run, "launch": frame["launch"].astype(str), "host": frame["host"], **columns}))

    per_host = shown_table(
        hosts,
        {
            "ranks": hosts["ranks"],
            "cases": hosts["cases"].map("{:,}".format),
            **{c.replace("_", " "): hosts[c].map(_seconds) for c in ("busy_s", "last_end_s", "span_s")},
            "busy share": hosts["busy_share"].map(share),
            "its ranks' shares": [
                share(lo) if lo == hi else f"{share(lo)}..{share(hi)}"
                for lo, hi in zip(hosts["rank_share_min"], hosts["rank_share_max"])
            ],
        },
    )
    per_rank = [f"Per rank: {len(ranks)} rows in [timeline.csv](timeline.csv)."]
    if len(ranks) <= MAX_TIMELINE_RANK_ROWS:
        columns = {"rank": ranks["rank"].astype(str), "cases": ranks["cases"].map("{:,}".format)}
        columns |= {"shards": ranks["shards"].astype(str)}
        columns |= {c.replace("_", " "): ranks[c].map(_seconds) for c in ("busy_s", "first_start_s", "last_end_s")}
        columns["busy share"] = ranks["busy_share"].map(share)
        per_rank = ["Per rank (busy share: busy s / span s):", shown_table(ranks, columns)]
    return (
        _section(
            title,
            "How the work was spread over the ranks and hosts over time (each case's `start_s`, with its "
            "`rank`, `launch` and `wall_s`). Busy means in an engine call: a rank's busy share is the sum of its "
            "cases' `wall_s` over the launch's span (from its start to the end of its last case); a host's, over its "
            "ranks x the span. Bars that end at different times, or white stretches on some hosts only, show an "
            "imbalance; a low share on every rank with short cases is the time between engine calls (making "
            "compositions, writing shard files). Per rank: [timeline.csv](timeline.csv); per host: "
            "[timeline_by_host.csv](timeline_by_host.csv).",
        )
        + figure
        + launches
        + [""]
        + _section(None, "Per host (busy share: busy s / (ranks x span s)):", per_host, *per_rank)
    )


def _instance_lines(out: _Out, cases: pd.DataFrame, by) -> list[str]:
    """The Instances section and its CSVs (no lines without instance runs)."""
    per_diags = instances.by_diags(cases, by, out.options.time)
    if per_diags.empty:
        return []
    per_file = instances.by_file(cases, by, out.options.time)
    out.csv("instances_by_diags.csv", per_diags)
    out.csv("instances.csv", per_file)
    files_md, common = instances.by_file_markdown(per_file)
    rows, limit = instances.file_rows(per_file), instances.MAX_LISTED_FILES
    lines = _section(
        "Instances",
        "Runs of instance files (composition files, CSPLib prob079 `.param` files once per `diags`, the "
        "number of excluded diagonals used). An outcome is a result here: solved (a completion, checked), "
        "infeasible (proved to have none) or gave up (stopped by a limit, or an engine that cannot prove "
        "infeasibility found nothing). Times in seconds, of each verdict.",
    )
    lines += _section("### Outcomes by diags", instances.by_diags_markdown(per_diags))
    lines += _section(
        "### Outcomes by file",
        (f"Files under `{common}`" if common else "Files")
        + (f"; the first {limit} of {rows} rows" if rows > limit else "")
        + ". Every file: [instances.csv](instances.csv); per diags: [instances_by_diags.csv](instances_by_diags.csv).",
        files_md,
    )
    conflicts = instances.disagreements(cases, by)
    if not conflicts.empty:
        lines += _section(
            "### Contradictions",
            f"**{len(conflicts)} instances were solved by one group and proved infeasible by another**: one "
            "engine is wrong (`nqc rerun RESULTS --case ID` runs a case again).",
            _md(conflicts.astype(str)),
        )
    return lines


#: Figures a report may draw (stems; each in every format of --format).
_FIGURES = "time_vs_n fig09_no_backtrack_share false_negative_share randset compare_time compare_shares timeline"
_FIGURES += " phase_transition"
_FIGURES += " fig10_time_histogram_n* fig11_time_by_backtracks_n*"
#: Files of a previous report removed first (no stale report.md after a failure), and temporary files.
_OUTPUTS = [
    *"report.md table1.csv table1.md fits.csv residuals.csv compare.csv instances.csv".split(),
    *"instances_by_diags.csv timeline.csv timeline_by_host.csv .*.part figures/.*.part".split(),
    *"phase.csv phase_peaks.csv threshold.csv threshold_by_k.csv".split(),
    *(f"figures/{stem}.{fmt}" for stem in _FIGURES.split() for fmt in figures.FORMATS),
]


def write_report(paths, out_dir, options: ReportOptions | None = None) -> Path:
    """Writes OUT_DIR/report.md and the files it links; returns its path. AnalysisError before anything is written,
    or when a write fails (what was written is removed)."""
    options = options or ReportOptions()
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise AnalysisError(f"{out_dir}: is not a directory")
    if len(set(options.formats)) != len(options.formats):  # argparse checks each format and --dpi
        raise AnalysisError(f"--format: {tuple(options.formats)} names a format twice")
    specs = randset_mod.check_specs(options.randset_csvs)
    twice = [n for i, n in enumerate(options.randset_n) if n in options.randset_n[:i]]
    if not specs and options.nqc is not None and twice:  # argparse checks each n
        raise AnalysisError(f"n = {twice[0]} given twice in --randset-n")
    cases = load_cases(paths, mixed="pool" if options.allow_mixed else "group")
    by = () if options.allow_mixed else tuple(options.by)
    several = groups.count(cases, by) > 1
    plan = _comparison_plan(cases, by, options) if several else _single_plan(cases, options, specs)
    out = _Out(out_dir, options)
    created = not out_dir.exists()
    output.make_dir(out_dir)
    try:
        for pattern in _OUTPUTS:
            for path in out_dir.glob(pattern):
                try:
                    path.unlink()
                except OSError as e:
                    raise AnalysisError(
                        f"{path}: cannot remove the previous report's file ({e.strerror or e})"
                    ) from None
        lines = _comparison_lines(out, plan) if several else _single_lines(out, plan)
        return out.text("report.md", "\n".join(lines).rstrip("\n") + "\n")
    except BaseException:
        output.remove(reversed(out.written))
        for d in [out_dir / "figures", out_dir] if created else [out_dir / "figures"]:
            with contextlib.suppress(OSError):
                d.rmdir()  # only when empty
        raise


class _Out:
    """The files of one report, each written whole and remembered (removed if the report fails)."""

    def __init__(self, out_dir: Path, options: ReportOptions):
        self.dir, self.options, self.written = out_dir, options, []

    def keep(self, name: str | Path) -> Path:
        self.written.append(self.dir / name)
        return self.dir / name

    def csv(self, name: str, frame: pd.DataFrame) -> None:
        output.write_csv(frame, self.keep(name))

    def text(self, name: str, text: str) -> Path:
        return output.write_text(self.keep(name), text)

    def figure(self, stem: str, caption: str, make) -> list[str]:
        """``make(path, dpi)`` per format; the figure as Markdown (PNG, else SVG, shown; others linked). NoData: a
        note and a warning instead."""
        name, paths = f"{stem}.{self.options.formats[0]}", []
        try:
            for fmt in self.options.formats:
                paths.append(make(self.dir / "figures" / f"{stem}.{fmt}", self.options.dpi))
                self.written.append(paths[-1])
        except figures.NoData as e:
            warnings.warn(f"figure {name} not drawn: {e}", AnalysisWarning, stacklevel=3)
            return [f"**Not drawn: `figures/{name}`** ({e}).", "", caption, ""]
        rels = {p.suffix.lstrip("."): os.path.relpath(p, self.dir) for p in paths}
        shown = next((rels[f] for f in ("png", "svg") if f in rels), None)
        others = [f"[{f.upper()}]({rel})" for f, rel in rels.items() if rel != shown]
        head = [f"![{Path(shown).stem}]({shown})", ""] if shown else []
        return head + [caption + (f" ({', '.join(others)})" if others else ""), ""]

    def tables(self, table: pd.DataFrame) -> str:
        """table1.csv and table1.md; returns the Markdown."""
        self.csv("table1.csv", table)
        table_md = table_mod.to_markdown(table)
        self.text("table1.md", table_md + "\n")
        return table_md


def _warn_few_points(fits: list, where: str = "") -> None:
    for f in fits:
        if f.quantity == "mean_s" and f.warning:
            warnings.warn(f"{where}{f.warning}", AnalysisWarning, stacklevel=4)


def _single_plan(cases: pd.DataFrame, options: ReportOptions, randset_csvs) -> SimpleNamespace:
    """What the report of one group holds, computed (and its input checked) before anything is written."""
    generated = derived_cases(cases)
    table, hist_n, fits, fit_error = None, None, [], None
    if generated.empty and (options.hist_n is not None or options.hist_k is not None):
        raise AnalysisError("--hist-n/--hist-k: these results hold no derived cases (no histograms to draw)")
    if not generated.empty:
        table = table_mod.table1(generated, options.time)
        hist_n = options.hist_n if options.hist_n is not None else default_hist_n(table)
        if not (table["n"] == hist_n).any():
            raise AnalysisError(
                f"--hist-n {hist_n}: no cases at that n (the data has n = {output.ns_text(table['n'])})"
            )
        if options.hist_k is not None:
            lo, hi = options.hist_k
            k = generated.loc[generated["n"] == hist_n, "k"]
            if not ((k >= lo) & (k <= hi)).any():
                raise AnalysisError(
                    f"--hist-k {lo}:{hi}: no case at n = {hist_n} has k in {lo}..{hi} "
                    f"(k ranges over {int(k.min())}..{int(k.max())})"
                )
    runs = [randset_mod.read_csv(p, n) for n, p in randset_csvs]  # input errors before any warning
    if table is not None:
        try:
            fits = fit.fits(table, generated, options.n_min, options.n_max, options.time)
        except AnalysisError as e:
            fit_error = str(e)
            warnings.warn(f"no fit: {e}", AnalysisWarning, stacklevel=3)
        _warn_few_points(fits)
    return SimpleNamespace(
        cases=cases,
        generated=generated,
        table=table,
        hist_n=hist_n,
        fits=fits,
        fit_error=fit_error,
        runs=runs,
        origins=_origin_plan(cases, () if options.allow_mixed else tuple(options.by), options),
    )


def _origin_plan(cases: pd.DataFrame, by, options: ReportOptions) -> SimpleNamespace:
    """The phase transition (beside published shares) and completion threshold, computed before any write."""
    points = phase.points(cases, by, options.time)
    if points.empty and options.published is not None:
        raise AnalysisError(
            f"--published {options.published}: these results hold no random compositions or Excluded "
            "Diagonals instances to compare"
        )
    published = phase.read_published(options.published) if options.published else phase.default_published(points)
    if published is not None:
        points = phase.compare(points, published)
    counts = threshold.by_k(cases, by)
    limits = threshold.thresholds(cases, by) if not counts.empty else None
    return SimpleNamespace(points=points, published=published, counts=counts, thresholds=limits)


def _origin_lines(out: _Out, plan: SimpleNamespace) -> tuple[list[str], list[str]]:
    """The phase transition and completion threshold sections and CSVs, and their figure."""
    lines, figs = [], []
    points = plan.points
    if not points.empty:
        peaks = phase.peaks(points)
        out.csv("phase.csv", points)
        out.csv("phase_peaks.csv", peaks)
        lines += _section(
            "Phase transition",
            "Random compositions (f free rows, CSPLib's placed-queens procedure) and Excluded Diagonals "
            f"instances (d diagonals) of {phase.GENT17_REFERENCE}: these may have no completion. Per point "
            "(f or d, n): the cases and their outcomes; the share completable, solved / (solved + infeasible), "
            "with its exact (Clopper-Pearson) 95% interval of all the point's cases, those that gave up counted "
            "both ways (from the lower bound with them infeasible to the upper bound with them completable: the "
            "share of the point's compositions lies inside whatever they are); the median, mean and 90th "
            "percentile of the time "
            f"per case (`{out.options.time}`, seconds) and of the nodes, over all the point's cases. Nodes and "
            "times are the engine's: an engine that changes its method with n (`auto`, docs/engines.md) can "
            "make a step in the effort that is its own, not the problem's. Every column: [phase.csv](phase.csv).",
            phase.to_markdown(points),
        )
        lines += _section(
            "### Where the share crosses 1/2 and where the effort peaks",
            "Per f or d: the n where the share completable first crosses 1/2 (linear between the two board "
            "sizes around it) and which way: it falls as n grows at fixed f, and rises at fixed d; and the "
            "peaks of difficulty: the n with the largest median nodes and the n with the largest mean time "
            "([phase_peaks.csv](phase_peaks.csv)).",
            phase.peaks_markdown(peaks),
        )
        if plan.published is not None:
            lines += _section(
                f"### Compared with {plan.published.name}",
                "Per point that both have: whether the published share lies inside our 95% interval (which "
                "leaves out the published sample's own error); our share minus the published one with "
                "Newcombe's 95% interval (hybrid score) for two independent samples; Fisher's exact two-sided "
                "test of equal shares, its p-value adjusted by Holm's method over every point compared, and "
                '"differs" where the adjusted p-value is below 0.05. Cases that gave up are counted both ways, '
                'completable and not (the p-value then a range): "differs" or "consistent" only when both give '
                'that verdict, else "cannot tell", and the point is named as not compared.',
                "\n".join(phase.summary(points)),
            )
        figs += out.figure(
            "phase_transition",
            "The phase transition: the share of compositions completable vs n, one line per f (or d), with "
            "exact 95% intervals"
            + (f", and the published shares ({plan.published.name}, open diamonds)" if plan.published else "")
            + " (top); the median (solid) and 90th percentile (dashed) nodes per case vs n, on a symmetric "
            "log axis, 0 at the bottom (bottom).",
            lambda path, dpi: figures.phase_transition(points, path, dpi=dpi),
        )
    if plan.thresholds is not None:
        out.csv("threshold_by_k.csv", plan.counts)
        out.csv("threshold.csv", plan.thresholds)
        lines += _section(
            "Completion threshold",
            "Canonical cases: every consistent composition of k queens up to the board's 8 symmetries, one "
            "case standing for the compositions of its orbit. Per n and k: the cases, the compositions they "
            "stand for and the outcomes ([threshold_by_k.csv](threshold_by_k.csv)).",
            threshold.by_k_markdown(plan.counts),
        )
        lines += _section(
            "### a(n)",
            "a(n) is the largest k such that every composition of k' <= k queens completes "
            f"({threshold.OEIS_NAME}): settled when k = a(n) + 1 has an infeasible case and every k' <= a(n) "
            "was run and solved (a(n) = 0 when k = 1 has one; a(n) = n when every k' = 1..n was run and solved, "
            "as at n = 1; undefined on a board without solution, n = 2 and 3); a case that gave up, a k not run "
            "or shard files leave it open between bounds, and the note names them. The witness is the lowest infeasible case at k = a(n) + 1: "
            "`nqc export RESULTS --case ID` writes its composition. Every column: [threshold.csv](threshold.csv).",
            threshold.to_markdown(plan.thresholds),
            "\n".join(threshold.summary(plan.thresholds)),
        )
    return lines, figs


def _comparison_plan(cases: pd.DataFrame, by, options: ReportOptions) -> SimpleNamespace:
    """What a comparison report holds, computed before anything is written."""
    if options.hist_k is not None or options.hist_n is not None:
        warnings.warn(
            "--hist-n/--hist-k: a comparison report draws no histograms (they are per run: give one run's results)",
            AnalysisWarning,
            stacklevel=3,
        )
    generated = derived_cases(cases)
    comp, table, fit_rows = None, None, []
    if not generated.empty:
        if groups.count(generated, by) > 1:
            comp = compare.comparison(generated, by, options.time, options.baseline)
        table = table_mod.table_by(generated, by, options.time)
        fit_rows = fit.per_group(groups.split(generated, by, warn=False), options.n_min, options.n_max, options.time)
        for labels, got in fit_rows:
            if not isinstance(got, str):
                _warn_few_points(got, f"{compare.SEPARATOR.join(labels.values())}: ")
    origins = _origin_plan(cases, by, options)
    return SimpleNamespace(cases=cases, by=by, comp=comp, table=table, fits=fit_rows, origins=origins)


def _single_lines(out: _Out, plan: SimpleNamespace) -> list[str]:
    """Writes the files of the report of one group; returns the lines of its report.md."""
    options, cases, table, fits, runs, hist_n = out.options, plan.cases, plan.table, plan.fits, plan.runs, plan.hist_n
    table_md = out.tables(table) if table is not None else None
    if fits:
        out.csv("fits.csv", fit.fits_csv(fits))
        out.csv("residuals.csv", fit.residuals_table(fits))
    inst_lines = _instance_lines(out, cases, groups.DEFAULT)
    if not runs and options.nqc is not None and table is not None:
        for n in options.randset_n:
            runs.append(randset_mod.run(options.nqc, n, options.randset_trials, out.dir))
            for name in (f"randset-n{n}.csv", f"randset-n{n}-trials.csv", f"randset-n{n}.txt"):
                out.keep(name)
    figs = []
    if table is not None:
        generated, time = plan.generated, options.time
        mean_fit = next((f for f in fits if f.quantity == "mean_s"), None)
        where = figures.files_note(generated)
        figs += out.figure(
            "time_vs_n",
            "Mean and t90mean completion time per case vs n (log-log) with their 95% "
            "confidence intervals, our least-squares fit of log10(1000 t) on log10(n) for the mean over its "
            "n range, and the paper's line over the n range it was fitted on (the paper's Figure 7).",
            lambda path, dpi: figures.time_vs_n(table, mean_fit, path, where, dpi=dpi),
        )
        figs += out.figure(
            f"fig10_time_histogram_n{hist_n}",
            f"Completion time histogram at n = {hist_n}, log-spaced bins, the mean with its 95% confidence "
            "interval (shaded) and the median (the paper's Figure 10, n = 1000).",
            lambda path, dpi: figures.time_histogram(generated, hist_n, path, time, dpi=dpi),
        )
        figs += out.figure(
            f"fig11_time_by_backtracks_n{hist_n}",
            "The same histogram stacked by backtrack count (the paper's Figure 11, which took the 998 "
            "compositions of size k = 800 at n = 1000; --hist-k LO:HI selects a k range).",
            lambda path, dpi: figures.time_histogram_by_backtracks(
                generated, hist_n, path, time, options.hist_k, dpi=dpi
            ),
        )
        figs += out.figure(
            "fig09_no_backtrack_share",
            "Share of cases solved without backtracking vs n with exact (Clopper-Pearson) 95% intervals, and "
            "the paper's statements, each in its own style (the paper's Figure 9).",
            lambda path, dpi: figures.no_backtrack_share(table, path, dpi=dpi),
        )
        figs += out.figure(
            "false_negative_share",
            "False negative share vs n with exact (Clopper-Pearson) 95% intervals; where none was seen, "
            "the interval's upper end. The paper's bounds as dotted and dashed lines.",
            lambda path, dpi: figures.false_negative_share(table, path, dpi=dpi),
        )
    if runs:
        figs += out.figure(
            "randset", randset_caption(runs), lambda path, dpi: figures.randset_histogram(runs, path, dpi=dpi)
        )
    timeline_lines = _timeline_lines(out, cases)

    sources = cases.attrs.get("sources", [])
    config = sources[0].config if sources else {}
    names = sorted({str(v) for v in cases[EXPERIMENT].unique() if str(v)})
    L = [f"# nqc results: {', '.join(names) or 'unnamed experiment'}", ""]
    if config.get("description"):
        L += [f"> {config['description']}", ""]
    L += [
        f"{len(cases)} cases, n = {output.ns_text(sorted(cases['n'].unique()))}; engine(s): "
        f"{', '.join(sorted(set(groups.engines(cases)))) or '?'}; "
        f"time per case: `{options.time}` (seconds of the engine call only).",
        "",
        "Result files:",
        "",
        *_provenance(cases),
        "",
    ]
    if table is not None:
        L += _section(
            "Table 1",
            "Per n: mean, median and maximum completion time per case; t90mean, the mean of the fastest 90% "
            "(as the paper); shares of cases with 0, 1, 2, 3 and more than 3 backtracks; false negatives "
            "(completable compositions not solved: count and share of cases); cases stopped by a limit "
            "(gave up). Every column, with 95% intervals of the means and shares, mean backtracks, "
            "infeasible counts and mean k: [table1.csv](table1.csv).",
            table_md,
        )
        regression = [f"No fit: {plan.fit_error}"]
        if fits:
            few = [f for f in fits if f.warning]  # the fits per case share their n, those per queen nearly: one
            more = f"; so do the other {len(few) - 1} fits above" if len(few) > 1 else ""
            residuals = fit.residuals_table(fits).apply(
                lambda c: c.map(lambda v: f"{v:.5f}" if isinstance(v, float) else str(v))
            )
            regression = [
                _md(fit.fits_table(fits)),
                *([f"**Warning:** {few[0].warning}{more}."] if few else []),
                "Residuals (observed - fitted log10(1000 t)) per n ([residuals.csv](residuals.csv), "
                "all fits: [fits.csv](fits.csv)):",
                _md(residuals),
            ]
        comparison = paper_comparison(table, fits, runs, sorted(set(groups.engines(plan.generated))) or None)
        L += _section(
            "Time regression",
            "Least squares (statsmodels OLS) of log10(1000 t) = a + b log10(n), t in seconds, over the n "
            "range shown; 95% confidence intervals from the t distribution with points - 2 degrees of "
            "freedom; R = sign(b) sqrt(R^2). Per placed queen: t / (n - k) per case, averaged per n. "
            "The paper's fit (MATLAB, one desktop) is of the mean time per case; it published no "
            "intervals. The intercept a depends on the machine and language, the slope b on the algorithm.",
            *regression,
        )
        L += _section(
            "Compared with the paper",
            f"The published values of {paper.REFERENCE} beside ours, where our data has the n, with what our "
            'sample can say about each (95% intervals; "cannot tell" when it is too small to test a claim).',
            _md(comparison) if not comparison.empty else "(no n of ours matches a published value)",
        )
        L += _section(
            "False negatives against the paper's bounds",
            'Per n and pooled per claim: the share with its exact (Clopper-Pearson) 95% interval; "below" when the '
            'interval lies below the paper\'s bound, "cannot tell" when it contains it: the sample is too small '
            "to test the claim, and with none seen it takes the number of cases shown (the interval's upper end "
            "is about 3.7 / cases; the one-sided rule of three says 3 / cases).",
            table_mod.false_negative_markdown(table_mod.false_negative_table(table)),
        )
    origin_lines, origin_figs = _origin_lines(out, plan.origins)
    figs += origin_figs
    L += inst_lines + origin_lines + _failure_lines(cases, options) + (["## Figures", ""] + figs if figs else [])
    if table is not None and not runs:
        L += [
            "(No randSet & randSet figure: give `--randset N:CSV` with the per-trial CSV of "
            "`nqc randset N --trials-csv CSV`, or `--nqc BIN` to run it.)",
            "",
        ]
    elif table is not None:
        L += randset_lines(runs, out.dir)
    return L + timeline_lines + _closing_lines(options, [(config, None)] if config else [])


def _closing_lines(options: ReportOptions, configs: list[tuple[dict, str | None]]) -> list[str]:
    """The Reproduce section and each (resolved config, its hash; None: the report of one run)."""
    L = _section("Reproduce", f"```sh\n{options.command}\n```") if options.command else []
    for config, config_hash in configs:
        named = f" {config.get('name', '')} ({config_hash}, " if config_hash is not None else " ("
        L += [f"<details><summary>Config{named}resolved, from the result file)</summary>", ""]
        L += [f"```json\n{json.dumps(config, indent=2)}\n```", "", "</details>", ""]
    return L


def _failure_lines(cases: pd.DataFrame, options: ReportOptions, keys: list[str] | None = None) -> list[str]:
    failed = cases[cases["false_negative"].astype(bool) | (cases["outcome"].astype(str) == "gave_up")]
    title = "False negatives and cases that gave up"
    if failed.empty:
        return _section(title, "None.")
    listed = ["case_id", "n", "k", "outcome", "false_negative", "backtracks", "nodes", "limit", options.time]
    cols = [c for c in [*(keys or []), *listed] if c in failed.columns]
    return _section(
        title,
        f"{len(failed)} cases"
        + (f"; the first {MAX_LISTED_FAILURES}" if len(failed) > MAX_LISTED_FAILURES else "")
        + ". `nqc export RESULTS --case ID` writes a stored composition, `nqc rerun RESULTS --case ID` runs it again.",
        _md(failed[cols].head(MAX_LISTED_FAILURES).astype(str)),
    )


def _groups_table(cases: pd.DataFrame, by) -> pd.DataFrame:
    """Per group: its cases, engines, experiments, config hashes and result files."""

    def joined(values) -> str:
        return ", ".join(sorted({str(v) for v in values}))

    rows = [
        {
            **labels,
            "cases": str(len(part)),
            "engine": joined(groups.engines(part)),
            "experiment": joined(part[EXPERIMENT].unique()),
            "config hash": joined(str(v)[:16] for v in part[CONFIG_HASH].unique()),
            "n": output.ns_text(sorted(part["n"].unique())),
        }
        for labels, part in groups.split(cases, by, warn=False)
    ]
    return pd.DataFrame(rows)


def _comparison_lines(out: _Out, plan: SimpleNamespace) -> list[str]:
    """Writes the files of a comparison report; returns the lines of its report.md."""
    options, cases, comp, table = out.options, plan.cases, plan.comp, plan.table
    by_text = " ".join(f"--by {b}" for b in plan.by) if tuple(plan.by) != groups.DEFAULT else "run (config and engine)"
    names = [str(v) for v in dict.fromkeys(cases[EXPERIMENT].astype(str)) if str(v)]
    L = _section(
        f"# nqc comparison: {', '.join(names) or 'unnamed experiments'}",
        f"{len(cases)} cases in {groups.count(cases, plan.by)} groups by {by_text}; time per case: `{options.time}` "
        "(seconds of the engine call only). Every interval is a 95% interval.",
        _md(_groups_table(cases, plan.by)),
        "Result files:",
        "\n".join(_provenance(cases)),
    )
    figs = []
    if comp is not None:
        out.csv("compare.csv", comp)
        base = comp.attrs["baseline"]
        L += _section(
            "Summary",
            f'Mean completion time per case against **{base}** (the baseline), per n: "faster" or "slower" '
            "only where the 95% interval of the ratio of mean times excludes 1.",
            "\n".join(compare.summary(comp)),
        )
        L += _section(
            "Side by side per n",
            "Per n, the groups one under the other: cases; mean and t90mean time per case with their 95% "
            "confidence intervals (t distribution; the t90mean's from its winsorized variance); the share without "
            "backtracking (each engine counts its own backtracks) and the false negatives with exact "
            "(Clopper-Pearson) 95% intervals of their shares; cases that gave up and infeasible ones; the mean "
            f"time as a multiple of {base}'s with its 95% interval (delta method on the log ratio; *paired* when "
            "both ran the same compositions, as two engines on one config do). All columns: "
            "[compare.csv](compare.csv); Table 1 per group: [table1.csv](table1.csv).",
            compare.to_markdown(comp),
        )
    if table is not None:
        table_md = out.tables(table)
        if comp is None:  # one group of generated cases: nothing side by side, its Table 1 instead
            L += _section("Table 1", "Of the generated cases (every column: [table1.csv](table1.csv)).", table_md)
        L += _section(
            "False negatives against the paper's bounds",
            "Per group, per n and pooled per claim of the paper: the share with its exact 95% interval, "
            '"cannot tell" when the interval contains the bound (with the cases it would take, none seen).',
            table_mod.false_negative_markdown(table_mod.false_negative_table(table)),
        )
        fit_rows, csv_rows, warned = [], [], []
        for labels, got in plan.fits:
            label = compare.SEPARATOR.join(labels.values())
            if isinstance(got, str):
                fit_rows.append({"group": label, "n range": "", "points": "", "b (95% CI)": f"no fit: {got}", "R": ""})
                continue
            f = next(f for f in got if f.quantity == "mean_s")
            ci = f" ({f.b_ci[0]:.3f}..{f.b_ci[1]:.3f})" if math.isfinite(f.b_ci[0]) else " (no interval)"
            row = {"n range": f"{f.n_min}..{f.n_max}", "points": str(f.points), "b (95% CI)": f"{f.b:.3f}{ci}"}
            fit_rows.append({"group": label, **row, "R": f"{f.r:.4f}"})
            warned += [f"**Warning** ({label}): {f.warning}."] if f.warning else []
            csv_rows.append(groups.labelled(fit.fits_csv(got), labels))
        if csv_rows:
            out.csv("fits.csv", pd.concat(csv_rows, ignore_index=True))
        L += _section(
            "Time regression per group",
            "Least squares of log10(1000 t) = a + b log10(n) for the mean time per case, per group, beside the "
            f"paper's b = {paper.B} (fitted over n = {paper.FIT_N_MIN}..10^8).",
            _md(pd.DataFrame(fit_rows)),
            *warned,
            *(["All fits (per placed queen too): [fits.csv](fits.csv)."] if csv_rows else []),
        )
    L += _instance_lines(out, cases, plan.by)
    origin_lines, origin_figs = _origin_lines(out, plan.origins)
    L += origin_lines
    if comp is not None:
        figs += out.figure(
            "compare_time",
            "Mean completion time per case vs n, one line per group, with 95% confidence "
            f"intervals (top), and each group's mean time as a multiple of {comp.attrs['baseline']}'s with "
            "its 95% interval (bottom; below 1: faster). Points of different groups are shifted a little "
            "sideways so that their intervals do not overlap.",
            lambda path, dpi: figures.compare_time(comp, path, dpi=dpi),
        )
        figs += out.figure(
            "compare_shares",
            "Share of cases solved without backtracking (top) and false negative share "
            "(bottom, log; an open triangle is the 95% upper bound where none was seen) vs n, one line per "
            "group, exact 95% intervals, with the paper's false negative bounds.",
            lambda path, dpi: figures.compare_shares(comp, path, dpi=dpi),
        )
    labels = groups.group_frame(cases, plan.by).astype(str).agg(compare.SEPARATOR.join, axis=1)
    L += _failure_lines(cases.assign(group=labels.to_numpy()), options, ["group"])
    figs += origin_figs
    L += (["## Figures", ""] + figs if figs else []) + _timeline_lines(out, cases)
    runs = {s.attrs.get("config_hash", ""): s for s in cases.attrs.get("sources", [])}.values()
    return L + _closing_lines(options, [(s.config, s.attrs.get("config_hash", "")) for s in runs if s.config])
