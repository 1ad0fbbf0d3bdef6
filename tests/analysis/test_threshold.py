"""analysis.threshold: a(n) of A374013 read off canonical runs, settled or bounded, with its
witnesses, beside the published terms; on the command line and in the report."""

from __future__ import annotations

import re
import shutil
import warnings

import pandas as pd
import pytest

from analysis import threshold
from analysis.load import AnalysisWarning, load_cases
from conftest import analysis_cli, run_config

#: Every canonical composition of 1 and 2 queens for n = 4..9: 656 cases, under a second.
THRESHOLD_CONFIG = {
    "name": "threshold-test",
    "seed": 1,
    "engine": "auto",
    "canonical_compositions": [{"n": [4, 5, 6, 7, 8, 9], "k": [1, 2]}],
    "output": "unused",
}


@pytest.fixture(scope="module")
def canonical_run(nqc_bin, tmp_path_factory):
    return run_config(nqc_bin, tmp_path_factory.mktemp("canonical-run"), THRESHOLD_CONFIG)


def test_a_of_n_from_a_canonical_run(canonical_run):
    cases = load_cases(canonical_run)
    table = threshold.thresholds(cases)
    assert list(table.columns) == threshold.COLUMNS
    assert table["n"].tolist() == [4, 5, 6, 7, 8, 9]
    assert table["a"].tolist() == [0, 1, 0, 1, 1, 1]
    assert (table["note"] == "").all() and (table["agreement"] == "agrees").all()
    for row in table.itertuples():
        (witness,) = cases[cases["case_id"] == row.witness].itertuples()
        assert (witness.n, witness.k, witness.outcome) == (row.n, row.a + 1, "infeasible")
        at = cases[(cases["n"] == row.n) & (cases["k"] == row.a + 1)]
        assert row.witnesses == (at["outcome"] == "infeasible").sum()


def test_the_orbits_add_up_to_every_composition(canonical_run):
    counts = threshold.by_k(load_cases(canonical_run))
    assert list(counts.columns) == threshold.BY_K_COLUMNS
    n = counts["n"]
    expected = n.pow(2).where(counts["k"] == 1, n * (n - 1) * (n - 2) * (3 * n - 1) // 6)  # n^2; A036464
    assert counts["compositions"].tolist() == expected.tolist()
    assert (counts["solved"] + counts["infeasible"] + counts["gave_up"] == counts["cases"]).all()


def test_threshold_on_the_command_line(canonical_run, tmp_path):
    out = tmp_path / "a.csv"
    done = analysis_cli("threshold", canonical_run, "--csv", out)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    assert list(table.columns) == threshold.COLUMNS and table["a"].tolist() == [0, 1, 0, 1, 1, 1]
    assert "a(n) settled for 6 of 6 board sizes: a(4) = 0, a(5) = 1, a(6) = 0" in done.stdout
    assert "Against OEIS A374013 (6 n with a published term): 6 agrees." in done.stdout


def cells(rows: list[tuple[int, int, str]], n: int = 10) -> pd.DataFrame:
    """Canonical cases of board n: (k, orbit_size, outcome) each, ids in order, one result file."""
    frame = pd.DataFrame(rows, columns=["k", "orbit_size", "outcome"])
    frame = frame.assign(n=n, case_id=range(len(frame)), origin="canonical", source="results.h5")
    return frame.assign(config_hash="0123456789abcdef", experiment="synthetic", engine="auto")


@pytest.mark.parametrize(
    "rows, a, lo, hi, note, agreement",
    [
        ([(1, 8, "solved"), (2, 8, "solved"), (3, 8, "infeasible")], 2, 2, 2, "", "agrees"),
        ([(1, 8, "solved"), (2, 8, "gave_up"), (3, 8, "infeasible")], None, 1, 2, "k = 2: 1 case gave up", "within"),
        ([(1, 8, "solved"), (3, 8, "infeasible")], None, 1, 2, "k = 2 not run", "within bounds"),
        ([(1, 8, "solved"), (2, 8, "solved")], None, 2, None, "k = 3 not run: no infeasible case up to k = 2", "with"),
        ([(1, 8, "solved"), (2, 8, "infeasible")], 1, 1, 1, "", "differs"),
        ([(1, 8, "infeasible"), (2, 8, "solved")], 0, 0, 0, "", "differs"),
        # every k <= a_hi not run is named, and the k to run next when no k has an infeasible case
        ([(2, 8, "solved"), (3, 8, "infeasible")], None, 0, 2, "k = 1 not run", "within bounds"),
        ([(3, 8, "infeasible")], None, 0, 2, "k = 1..2 not run", "within bounds"),
        ([(2, 8, "solved")], None, 0, None, "k = 1 not run; k = 3 not run: no infeasible case up to k = 2", "with"),
        (
            [(1, 8, "solved"), (2, 8, "gave_up"), (4, 8, "infeasible"), (6, 8, "infeasible")],
            None,
            1,
            3,
            "k = 2: 1 case gave up; k = 3 not run",
            "within bounds",
        ),
    ],
)
def test_a_of_n_is_settled_only_when_certain(rows, a, lo, hi, note, agreement):
    (row,) = threshold.thresholds(cells(rows), oeis={10: 2}).itertuples()
    assert (None if pd.isna(row.a) else row.a, row.a_lo, None if pd.isna(row.a_hi) else row.a_hi) == (a, lo, hi)
    assert row.note == note and row.agreement.startswith(agreement)


def test_shard_files_leave_a_of_n_open(canonical_run, tmp_path):
    shutil.copytree(canonical_run / "shards", tmp_path / "partial" / "shards")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnalysisWarning)  # an unfinished run is read from its shards
        table = threshold.thresholds(load_cases(tmp_path / "partial"))
    assert table["a"].isna().all() and table["a_lo"].isna().all()
    assert table["a_hi"].tolist() == [0, 1, 0, 1, 1, 1]  # an infeasible case is a witness all the same
    assert table["note"].str.startswith("read from shard files").all()
    assert (table["agreement"] == "within bounds").all()


def test_the_published_terms_are_oeis_a374013():
    # A374013 as the OEIS gives it (and the issue that asked for it): a(4..20).
    published = [0, 1, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4]
    assert threshold.read_oeis() == dict(zip(range(4, 21), published))


def test_threshold_of_derived_cases_is_one_error_line(small_run):
    done = analysis_cli("threshold", small_run)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("nqc-analysis: error: threshold: these results hold no canonical cases")


def test_report_of_a_canonical_run(canonical_run, tmp_path):
    out = tmp_path / "report"
    done = analysis_cli("report", canonical_run, "-o", out)
    assert done.returncode == 0, done.stderr
    text = (out / "report.md").read_text()
    assert "## Completion threshold" in text and "### a(n)" in text and "## Table 1" not in text
    assert "## Figures" not in text  # nothing drawn but the timeline, which has its own section
    assert pd.read_csv(out / "threshold.csv")["a"].tolist() == [0, 1, 0, 1, 1, 1]
    assert list(pd.read_csv(out / "threshold_by_k.csv").columns) == threshold.BY_K_COLUMNS


@pytest.mark.parametrize("by", ["k", "k:4", "k:2,3", "k/n:0.5", "outcome", "orbit_size"])
def test_a_by_that_could_split_a_board_size_is_one_error_line(canonical_run, tmp_path, by):
    for args in (("threshold",), ("report", "-o", tmp_path / "report")):
        done = analysis_cli(*args, canonical_run, "--by", by)
        assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
        assert (
            done.stderr.startswith(f"nqc-analysis: error: --by {by}: the completion threshold groups whole runs only (")
            and "give --by run, engine, experiment or config_hash, or no --by" in done.stderr
        )
    assert not (tmp_path / "report").exists()


def test_a_by_of_whole_runs_gives_a_of_n_per_group(nqc_bin, canonical_run, tmp_path):
    out = tmp_path / "a.csv"
    done = analysis_cli("threshold", canonical_run, "--by", "engine", "--csv", out)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out)
    assert list(table.columns) == ["engine", *threshold.COLUMNS] and table["a"].tolist() == [0, 1, 0, 1, 1, 1]
    # another run of n = 9, k = 2 holds the same canonical compositions: pooled, they would count twice
    again = run_config(
        nqc_bin, tmp_path, {**THRESHOLD_CONFIG, "name": "again", "canonical_compositions": [{"n": 9, "k": 2}]}
    )
    done = analysis_cli("threshold", canonical_run, again, "--by", "engine")
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(
        f"nqc-analysis: error: --by engine: the group engine = auto holds {again}/results.h5: case 0 (canonical, "
        f"n = 9, k 2, index 0) is case "
    ), done.stderr


def test_other_origins_given_to_threshold_are_named_as_left_out(canonical_run, small_run):
    done = analysis_cli("threshold", canonical_run, small_run)
    assert done.returncode == 0, done.stderr
    derived = len(load_cases(small_run))
    assert done.stderr.splitlines() == [
        f"nqc-analysis: warning: threshold: left out the cases of other origins: {derived} derived "
        "(/usr/bin/python3 -m analysis report)"
    ]


#: Board sizes 1..3 (outside A374013, which starts at n = 4) and n = 10 without k = 1: 7254 cases, well under a second.
EDGE_CONFIG = {
    "name": "threshold-edges",
    "engine": "auto",
    "canonical_compositions": [{"n": [1, 2, 3], "k": [1]}, {"n": [10], "k": [2, 3]}],
    "output": "unused",
}


def test_small_boards_and_missing_k_are_said_plainly(nqc_bin, tmp_path):
    run = run_config(nqc_bin, tmp_path, EDGE_CONFIG)
    out = tmp_path / "a.csv"
    done = analysis_cli("threshold", run, "--csv", out)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out, keep_default_na=False)
    assert table["n"].tolist() == [1, 2, 3, 10]
    assert table["a"].astype(str).tolist() == ["1", "", "", ""]  # a(1) = 1: every k <= n completes
    assert table["note"].tolist() == ["", threshold.NO_SOLUTION, threshold.NO_SOLUTION, "k = 1 not run"]
    assert table["witness"].astype(str).tolist()[:3] == ["", "", ""]
    assert "?" not in done.stdout and "open: 1.." not in done.stdout
    assert re.search(r"\| +2 \| +1 \| +undefined \|", done.stdout), done.stdout
    lines = done.stdout.splitlines()
    assert "a(n) settled for 1 of 4 board sizes: a(1) = 1." in lines
    assert "Not settled: a(10) in 0..2 (k = 1 not run)." in lines
    assert f"Undefined ({threshold.NO_SOLUTION}): a(2), a(3)." in lines
    assert "No published term for n = 1..3: OEIS A374013 starts at n = 4." in lines
    # no infeasible case yet: the upper bound is n (a(n) <= n), not "?"
    k1 = run_config(nqc_bin, tmp_path, {**EDGE_CONFIG, "name": "k1", "canonical_compositions": [{"n": 5, "k": 1}]})
    done = analysis_cli("threshold", k1)
    assert done.returncode == 0 and re.search(r"\| +5 \| +1 \| +open: 1\.\.5 \|", done.stdout), done.stdout
