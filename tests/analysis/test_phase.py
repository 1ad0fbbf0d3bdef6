"""analysis.phase: the phase transition of random compositions and Excluded Diagonals instances,
per point and beside published shares, on the command line, in the report and its figure."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from analysis import figures, phase
from analysis.errors import AnalysisError
from analysis.load import load_cases
from analysis.table import clopper_pearson
from conftest import analysis_cli, png_size, run_config
from test_figures import svg_texts

#: Random compositions (f = 10 at n = 14, 20, 26: points of [Gent17]): 180 cases, well under a second.
PHASE_CONFIG = {
    "name": "phase-test",
    "seed": 7,
    "engine": "auto",
    "random_compositions": [{"n": [14, 20, 26], "free_rows": 10, "samples": 60}],
    "output": "unused",
}
#: Excluded Diagonals instances (d = 4 at n = 10, 12): 60 cases (a config has one origin).
DIAGS_CONFIG = {
    "name": "diags-test",
    "seed": 7,
    "engine": "auto",
    "excluded_diagonals": [{"n": [10, 12], "diags": [4], "samples": 30}],
    "output": "unused",
}


@pytest.fixture(scope="module")
def phase_run(nqc_bin, tmp_path_factory):
    return run_config(nqc_bin, tmp_path_factory.mktemp("phase-run"), PHASE_CONFIG)


@pytest.fixture(scope="module")
def diags_run(nqc_bin, tmp_path_factory):
    return run_config(nqc_bin, tmp_path_factory.mktemp("diags-run"), DIAGS_CONFIG)


def expect_one_error_line(done, *fragments: str) -> None:
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nqc-analysis: error: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_clopper_pearson_of_none_in_ten():
    lo, hi = (float(v) for v in clopper_pearson(0, 10))
    assert lo == 0.0 and hi == pytest.approx(0.3085, abs=5e-5)
    for count, cases in ((0, 10), (3, 10), (10, 10), (497, 1000)):
        np.testing.assert_allclose(
            [float(v) for v in clopper_pearson(count, cases)],
            proportion_confint(count, cases, alpha=0.05, method="beta"),
            rtol=1e-9,
        )


def synthetic(points: dict[tuple[str, int, int], tuple[int, int, int]]) -> pd.DataFrame:
    """Cases of each point (origin, param, n) -> (solved, infeasible, gave up), with wall_s and
    nodes 1, 2, 3, ... in order."""
    rows = []
    for (origin, param, n), counts in points.items():
        outcomes = [o for o, c in zip(("solved", "infeasible", "gave_up"), counts) for _ in range(c)]
        for i, outcome in enumerate(outcomes):
            rows.append({"origin": origin, "solution_id": param, "n": n, "outcome": outcome, "wall_s": i + 1.0})
    frame = pd.DataFrame(rows)
    frame["nodes"] = frame["wall_s"].astype("uint64")
    frame["solution_id"] = frame["solution_id"].astype("uint64")
    return frame.assign(config_hash="0123456789abcdef", experiment="synthetic", engine="auto")


def test_points_count_outcomes_and_count_gave_up_both_ways_in_the_interval():
    cases = synthetic({("random", 10, 20): (3, 7, 2), ("excluded_diagonals", 4, 10): (0, 10, 0)})
    cases = pd.concat([cases, cases.iloc[:1].assign(origin="derived")], ignore_index=True)  # not a point
    table = phase.points(cases)
    assert list(table.columns) == phase.COLUMNS
    assert table[["origin", "param", "n"]].values.tolist() == [["excluded_diagonals", 4, 10], ["random", 10, 20]]
    ed, rnd = table.iloc[0], table.iloc[1]
    assert (rnd.cases, rnd.solved, rnd.infeasible, rnd.gave_up) == (12, 3, 7, 2)
    assert rnd.share == pytest.approx(0.3)
    # the share is of the decided cases; its interval counts the 2 that gave up both ways, of all 12
    assert (rnd.share_lo, rnd.share_hi) == pytest.approx(
        [float(clopper_pearson(3, 12)[0]), float(clopper_pearson(5, 12)[1])]
    )
    assert ed.share == 0 and ed.share_lo == 0 and ed.share_hi == pytest.approx(0.3085, abs=5e-5)
    # time and nodes over all 12 cases of the point (1..12)
    assert (rnd.median_s, rnd.mean_s, rnd.p90_s) == pytest.approx([6.5, 6.5, 10.9])  # numpy's linear p90
    assert (rnd.median_nodes, rnd.mean_nodes, rnd.p90_nodes) == pytest.approx([6.5, 6.5, 10.9])


def write_published(path, text: str):
    path.write_text(text)
    return path


def test_the_comparison_flags_a_point_outside_the_interval(tmp_path):
    cases = synthetic({("random", 10, 20): (500, 500, 0), ("random", 10, 22): (330, 670, 0)})
    published = phase.read_published(
        write_published(
            tmp_path / "made-up.csv",
            "free_rows,n,share_completable,compositions\n10,20,0.9,1000\n10,22,0.321,1000\n10,30,0.05,1000\n",
        )
    )
    assert published.name == "published"  # a file of the user's: no name of a paper in the legends
    compared = phase.compare(phase.points(cases), published)
    assert list(compared.columns) == phase.COLUMNS + phase.PUBLISHED_COLUMNS
    far, near = compared.iloc[0], compared.iloc[1]
    assert far.inside is False and far.verdict == "differs" and far.p_holm < 1e-10
    assert far.difference == pytest.approx(-0.4) and far.difference_lo < -0.4 < far.difference_hi < 0
    assert near.inside is True and near.verdict == "consistent" and near.difference_lo < 0 < near.difference_hi
    assert far.p_holm == pytest.approx(min(1.0, 2 * far.p_value))  # Holm over the 2 points compared
    text = "\n".join(phase.summary(compared))
    assert "its share lies inside our 95% interval at 1 of them" in text
    assert "finds 1 where they differ at the 5% level: f = 10, n = 20." in text
    assert "Not run here: 1 published point (f = 10, n = 30)." in text
    markdown = phase.to_markdown(compared)
    assert "| f = 10  |  20 |" in markdown and "differs" in markdown and "consistent" in markdown


def test_the_published_shares_of_gent17():
    published = phase.read_published(phase.GENT17)
    assert published.name == phase.GENT17_NAME
    frame = published.frame
    assert set(frame["origin"]) == {"random"} and (frame["published_compositions"] == 1000).all()
    assert frame.groupby("param").size().to_dict() == {10: 15, 15: 15, 20: 2}
    assert phase.default_published(phase.points(synthetic({("random", 10, 20): (1, 1, 0)}))).path == phase.GENT17
    assert phase.default_published(phase.points(synthetic({("excluded_diagonals", 4, 10): (1, 1, 0)}))) is None


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("f,n,share_completable,compositions\n10,20,0.5,1000\n", "header 'f,n,share_completable,compositions'"),
        ("free_rows,n,share_completable,compositions\n", "no rows under the header"),
        ("free_rows,n,share_completable,compositions\n10,20,1.5,1000\n", "row 2, column share_completable: 1.5"),
        ("free_rows,n,share_completable,compositions\n10,20,0.5\n", "row 2: 3 fields '10,20,0.5', expected 4"),
        (
            "free_rows,n,share_completable,compositions\n10,20,0.5,1000\n10,20,0.4,1000\n",
            "row 3, column n: point free_rows = 10, n = 20 repeats row 2",
        ),
        (
            "free_rows,n,share_completable,compositions\n0,20,0.5,1000\n",
            "row 2, column free_rows: 0 is out of range, expected free_rows f, an integer in 1..n = 1..20",
        ),
        (
            "free_rows,n,share_completable,compositions\n21,20,0.5,1000\n",
            "row 2, column free_rows: 21 is out of range, expected free_rows f, an integer in 1..n = 1..20",
        ),
        ("free_rows,n,share_completable,compositions\n-1,20,0.5,1000\n", "row 2, column free_rows: -1 is out of"),
        ("free_rows,n,share_completable,compositions\n10,0,0.5,1000\n", "row 2, column n: 0 is out of range"),
        ("free_rows,n,share_completable,compositions\n10,20,-0.1,1000\n", "row 2, column share_completable: -0.1"),
        ("diags,n,share_completable,compositions\n-1,20,0.5,1000\n", "row 2, column diags: -1 is out of range"),
    ],
)
def test_a_bad_published_csv_is_one_error_line(phase_run, tmp_path, text, fragment):
    path = write_published(tmp_path / "published.csv", text)
    expect_one_error_line(analysis_cli("phase", phase_run, "--published", path), f"{path}: ", fragment)


def test_published_shares_of_an_origin_not_run_are_refused(tmp_path):
    path = write_published(tmp_path / "p.csv", "diags,n,share_completable,compositions\n4,10,0.5,1000\n")
    with pytest.raises(AnalysisError, match="its shares are of origin excluded_diagonals .diags., these results"):
        phase.compare(phase.points(synthetic({("random", 10, 20): (1, 1, 0)})), phase.read_published(path))


def test_phase_on_the_command_line(phase_run, diags_run, tmp_path):
    out = tmp_path / "phase.csv"
    done = analysis_cli("phase", phase_run, diags_run, "--csv", out)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    assert list(table.columns) == ["run", *phase.COLUMNS, *phase.PUBLISHED_COLUMNS]  # two runs: two groups
    cases = load_cases(phase_run, diags_run)
    assert table["cases"].sum() == len(cases) == 240
    assert table[["run", "origin", "param", "n"]].values.tolist() == [
        ["phase-test", "random", 10, 14],
        ["phase-test", "random", 10, 20],
        ["phase-test", "random", 10, 26],
        ["diags-test", "excluded_diagonals", 4, 10],
        ["diags-test", "excluded_diagonals", 4, 12],
    ]
    assert table.loc[table["origin"] == "excluded_diagonals", "published_share"].isna().all()
    assert table.loc[table["origin"] == "random", "published_share"].tolist() == [0.999, 0.545, 0.125]
    for n, solved in cases[cases["origin"] == "random"].groupby("n")["outcome"]:
        assert (
            table.loc[(table["origin"] == "random") & (table["n"] == n), "solved"].item() == (solved == "solved").sum()
        )
    assert "Gent et al. 2017" in done.stdout and "3 points compared with Gent et al. 2017" in done.stdout
    assert re.search(r"\| diags-test +\| d = 4 +\| +10 \|", done.stdout), done.stdout


def test_other_commands_on_a_phase_run_say_where_to_look(phase_run):
    for command in ("table", "fit", "false-negatives", "threshold"):
        done = analysis_cli(command, phase_run)
        expect_one_error_line(done, "random", f"{command}:")
    expect_one_error_line(analysis_cli("table", phase_run), "/usr/bin/python3 -m analysis phase")


def test_phase_of_derived_cases_is_one_error_line(small_run):
    expect_one_error_line(
        analysis_cli("phase", small_run), "phase: these results hold no random compositions or Excluded Diagonals"
    )


def test_diags_alone_have_no_default_published_shares(diags_run):
    done = analysis_cli("phase", diags_run)
    assert done.returncode == 0, done.stderr
    assert "| d = 4   |  12 |" in done.stdout and "published" not in done.stdout and "Gent" not in done.stdout


def test_report_of_a_phase_run(phase_run, tmp_path):
    out = tmp_path / "report"
    done = analysis_cli("report", phase_run, "-o", out)
    assert done.returncode == 0, done.stderr
    text = (out / "report.md").read_text()
    for heading in ("## Phase transition", "### Where the share crosses 1/2", "### Compared with Gent et al. 2017"):
        assert heading in text
    assert "## Table 1" not in text and "## Time regression" not in text and not (out / "table1.csv").exists()
    assert "![phase_transition](figures/phase_transition.png)" in text
    assert png_size(out / "figures/phase_transition.png") == figures.TALL_PX
    assert list(pd.read_csv(out / "phase.csv").columns) == phase.COLUMNS + phase.PUBLISHED_COLUMNS
    assert list(pd.read_csv(out / "phase_peaks.csv").columns) == phase.PEAK_COLUMNS


def test_published_given_to_a_report_of_derived_cases_is_refused(small_run, tmp_path):
    path = write_published(tmp_path / "p.csv", "free_rows,n,share_completable,compositions\n10,20,0.5,1000\n")
    done = analysis_cli("report", small_run, "-o", tmp_path / "r", "--published", path)
    expect_one_error_line(done, f"--published {path}: these results hold no random compositions")
    assert not (tmp_path / "r").exists()


def test_peaks_and_the_half_way_n():
    table = phase.points(synthetic({("random", 10, 14): (9, 1, 0), ("random", 10, 20): (3, 7, 0)}))
    table["median_nodes"] = [5.0, 5.0]
    table["mean_s"] = [1.0, 2.0]
    (peak,) = phase.peaks(table).itertuples()
    assert peak.n_half == pytest.approx(14 + (0.9 - 0.5) / (0.9 - 0.3) * 6)
    assert (peak.peak_nodes_n, peak.peak_time_n, peak.points) == ("14, 20", "20", 2)


def test_the_figure_has_intervals_published_points_and_no_file_names(phase_run, diags_run, tmp_path, drawn):
    table = phase.points(load_cases(phase_run, diags_run), by=())
    table = phase.compare(table, phase.default_published(table))
    path = figures.phase_transition(table, tmp_path / "phase.svg")
    for text in svg_texts(path):
        for bad in (".csv", "gent17", "data/", str(tmp_path)):
            assert bad not in text, text
    figures.phase_transition(table, tmp_path / "phase.png", dpi=100)
    fig = drawn["phase.png"]
    top, bottom = fig.axes
    bars = {c.get_label(): c for c in top.containers}
    assert set(bars) == {"f = 10", "d = 4"}
    segments = bars["f = 10"].lines[2][0].get_segments()
    random = table[table["origin"] == "random"]
    np.testing.assert_allclose([s[1][1] for s in segments], 100 * random["share_hi"], rtol=1e-9)
    labels = [line.get_label() for line in top.get_lines()]
    assert "Gent et al. 2017: f = 10" in labels and not any("d = 4" in lab and "Gent" in lab for lab in labels)
    assert bottom.get_yscale() == "symlog"
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_window_extent(renderer) for ax in fig.axes]
    for ax in fig.axes:
        box = ax.get_legend().get_window_extent(renderer)
        assert not any(box.overlaps(b) for b in boxes)


def test_an_unknown_origin_in_a_published_csv_is_refused(tmp_path):
    path = write_published(tmp_path / "p.csv", "diagonals,n,share_completable,compositions\n1,2,0.5,10\n")
    with pytest.raises(AnalysisError, match="expected free_rows,n,share_completable,compositions or diags,"):
        phase.read_published(path)


@pytest.mark.parametrize("by", ["origin", "param", "solution_id", "k:2", "outcome", "run:2"])
def test_a_by_that_could_split_a_point_is_one_error_line(phase_run, by):
    expect_one_error_line(
        analysis_cli("phase", phase_run, "--by", by),
        f"--by {by}: the phase transition groups whole runs only",
        "give --by run, engine, experiment or config_hash, or no --by",
    )


def test_a_by_of_whole_runs_gives_the_points_of_each(phase_run, diags_run, tmp_path):
    out = tmp_path / "phase.csv"
    done = analysis_cli("phase", phase_run, diags_run, "--by", "experiment", "--by", "engine", "--csv", out)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    assert list(table.columns[:3]) == ["experiment", "engine", "origin"]
    assert table["experiment"].tolist() == ["diags-test"] * 2 + ["phase-test"] * 3 and (table["engine"] == "auto").all()


def test_the_half_way_n_is_found_rising_too():
    rising = synthetic({("excluded_diagonals", 8, 10): (2, 8, 0), ("excluded_diagonals", 8, 12): (6, 4, 0)})
    falling = synthetic({("random", 10, 14): (9, 1, 0), ("random", 10, 20): (3, 7, 0)})
    peaks = phase.peaks(phase.points(pd.concat([rising, falling], ignore_index=True)))
    assert peaks[["origin", "half_direction"]].values.tolist() == [
        ["excluded_diagonals", phase.RISES],
        ["random", phase.FALLS],
    ]
    assert peaks["n_half"].tolist() == pytest.approx([10 + (0.5 - 0.2) / (0.6 - 0.2) * 2, 14 + 0.4 / 0.6 * 6])
    markdown = phase.peaks_markdown(peaks)
    assert "| d = 8   |        2 |     11.5 (rises) |" in markdown and "18.0 (falls)" in markdown
    never = phase.peaks(phase.points(synthetic({("excluded_diagonals", 4, 10): (9, 1, 0)})))
    assert np.isnan(never["n_half"].item()) and never["half_direction"].item() == ""


def test_a_published_point_without_decided_cases_is_named(tmp_path, drawn):
    cases = synthetic({("random", 10, 20): (0, 0, 5), ("random", 10, 22): (3, 7, 0)})
    path = write_published(
        tmp_path / "p.csv", "free_rows,n,share_completable,compositions\n10,20,0.5,1000\n10,22,0.3,1000\n"
    )
    only_undecided = phase.compare(phase.points(cases[cases["n"] == 20]), phase.read_published(path))
    assert phase.summary(only_undecided) == [
        "Not compared: 1 published point with no decided case here, every case gave up (f = 10, n = 20).",
        "Not run here: 1 published point (f = 10, n = 22).",
    ]
    compared = phase.compare(phase.points(cases), phase.read_published(path))
    text = phase.summary(compared)
    assert text[0].startswith("1 points compared with published") and text[1].startswith("Not compared: 1 ")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "converting a masked element to nan" from matplotlib
        figures.phase_transition(only_undecided, tmp_path / "undecided.png", dpi=100)
        figures.phase_transition(compared, tmp_path / "compared.png", dpi=100)
    (bars,) = drawn["compared.png"].axes[0].containers
    assert len(bars.lines[2][0].get_segments()) == 1  # the point with a share only


def test_derived_cases_given_to_phase_are_named_as_left_out(phase_run, small_run):
    done = analysis_cli("phase", phase_run, small_run)
    assert done.returncode == 0, done.stderr
    derived = int((load_cases(small_run)["origin"] == "derived").sum())
    assert done.stderr.splitlines() == [
        f"nqc-analysis: warning: phase: left out the cases of other origins: {derived} derived "
        "(/usr/bin/python3 -m analysis report)"
    ]
    expect_one_error_line(analysis_cli("phase", small_run), f"here: {derived} derived (")


#: PHASE_CONFIG under a node limit so low that most cases give up: the same points, other settings.
CAPPED_CONFIG = {**PHASE_CONFIG, "name": "phase-test-capped", "max_nodes": 5}


@pytest.fixture(scope="module")
def capped_run(nqc_bin, tmp_path_factory):
    return run_config(nqc_bin, tmp_path_factory.mktemp("capped-run"), CAPPED_CONFIG)


def test_a_by_never_pools_runs_of_other_settings_into_a_point(nqc_bin, phase_run, capped_run, tmp_path):
    # --allow-mixed is refused for them (nqc's rule), and so is a --by that would pool them
    expect_one_error_line(analysis_cli("phase", phase_run, capped_run, "--allow-mixed"), "(max_nodes 0 and 5)")
    expect_one_error_line(
        analysis_cli("phase", phase_run, capped_run, "--by", "engine"),
        "--by engine: the group engine = auto holds ",
        f"{phase_run}/results.h5 and {capped_run}/results.h5, runs of other engines or settings (max_nodes 0 "
        "and 5): a point of the phase transition would mix cases run under other limits or engine options; "
        "give --by run (the default: one group per run)",
    )
    # kept apart by run (the default) and by experiment; runs of one setting pool
    assert analysis_cli("phase", phase_run, capped_run, "--by", "experiment").returncode == 0
    # report's phase section is grouped as asked, with the same refusal
    expect_one_error_line(
        analysis_cli("report", phase_run, capped_run, "--by", "engine", "-o", tmp_path / "report"),
        "--by engine: the group engine = auto holds ",
        "a point of the phase transition would mix cases run under other limits or engine options",
    )
    assert not (tmp_path / "report").exists()
    out = tmp_path / "pooled.csv"
    more = run_config(nqc_bin, tmp_path, {**PHASE_CONFIG, "name": "phase-test-more", "seed": 8})
    done = analysis_cli("phase", phase_run, more, "--by", "engine", "--csv", out)
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(out)["cases"].tolist() == [120, 120, 120]
    done = analysis_cli("report", phase_run, more, "--by", "engine", "-o", tmp_path / "pooled")
    assert done.returncode == 0, done.stderr
    pooled = pd.read_csv(tmp_path / "pooled" / "phase.csv")
    assert set(pooled["engine"]) == {"auto"} and pooled["cases"].tolist() == [120, 120, 120]
    # two runs of one seed and point hold the same cases: pooled, they would count twice (nqc's line)
    points = [{"n": 14, "free_rows": 10, "samples": 5}]
    same = run_config(nqc_bin, tmp_path, {**PHASE_CONFIG, "name": "phase-test-same", "random_compositions": points})
    expect_one_error_line(
        analysis_cli("phase", phase_run, same, "--by", "engine"),
        "--by engine: the group engine = auto holds ",
        f"{same}/results.h5: case 0 (random, n = 14, free_rows 10, seed ",
        f") is case 0 of {phase_run}/results.h5: pooled, it would count twice",
    )


def test_a_point_of_few_decided_cases_is_not_called_consistent():
    # 48 of 50 gave up, 2 infeasible: its share lies anywhere in 0..0.96, so no verdict
    cases = synthetic({("random", 10, 22): (0, 2, 48), ("random", 10, 20): (21, 28, 1), ("random", 10, 26): (0, 0, 3)})
    published = phase.read_published(phase.GENT17)
    table = phase.points(cases)
    few = table[table["n"] == 22].iloc[0]
    assert (few.share_lo, few.share_hi) == pytest.approx(
        [0.0, float(clopper_pearson(48, 50)[1])]
    )  # both ways: 0 of 50 .. 48 of 50
    compared = phase.compare(table, published)
    at = compared.set_index("n")
    assert at.loc[22, "verdict"] == phase.CANNOT_TELL and at.loc[22, "p_holm"] < 0.05 <= at.loc[22, "p_holm_max"]
    assert at.loc[20, "verdict"] == "consistent"  # 1 of 50 gave up: either way it agrees
    assert at.loc[20, "p_holm"] < at.loc[20, "p_holm_max"]
    assert pd.isna(at.loc[26, "verdict"])  # no decided case
    text = phase.summary(compared)
    assert text[0].startswith("1 points compared with Gent et al. 2017") and "over the 2 points tested" in text[0]
    assert text[1] == (
        "Not compared: 1 published point where too many cases gave up to tell: counted completable they give one "
        "verdict, counted infeasible another (f = 10, n = 22: 2 decided of 50)."
    )
    assert text[2] == "Not compared: 1 published point with no decided case here, every case gave up (f = 10, n = 26)."
    markdown = phase.to_markdown(compared)
    assert re.search(r"\| f = 10 +\| +22 \|.*\| +cannot tell \|", markdown), markdown
    # none gave up: one p-value, the verdict as before
    plain = phase.compare(phase.points(synthetic({("random", 10, 20): (22, 28, 0)})), published)
    assert plain["p_value"].item() == plain["p_value_max"].item() and plain["verdict"].item() == "consistent"


def test_a_run_where_most_cases_gave_up_is_not_compared(capped_run, tmp_path):
    out = tmp_path / "phase.csv"
    done = analysis_cli("phase", capped_run, "--csv", out)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    assert "consistent" not in set(table["verdict"].dropna()), table
    decided = table[(table["solved"] + table["infeasible"] > 0) & (table["gave_up"] > 0)]
    assert not decided.empty and (decided["verdict"] == phase.CANNOT_TELL).all()
    assert "too many cases gave up to tell" in done.stdout
    for r in decided.itertuples():
        assert f"f = 10, n = {r.n}: {r.solved + r.infeasible} decided of {r.cases}" in done.stdout


@pytest.mark.parametrize("command", ["phase", "threshold"])
def test_the_help_of_whole_run_commands_offers_only_whole_run_groups(command):
    done = analysis_cli(command, "--help")
    assert done.returncode == 0 and done.stderr == ""
    text = " ".join(done.stdout.split())
    assert (
        "--by COLUMN group whole runs by COLUMN: run (the default: one group per config and engine), engine, " in text
    )
    assert "experiment or config_hash; no bins" in text and "k:4" not in text and "[:BINS]" not in text
    by_help = text.split("--by COLUMN group")[1].split("--allow-mixed pool")[0]
    assert ("a group may pool runs of one engine and settings only" in by_help) == (command == "phase")
