"""analysis.report: options, the paper comparison, a report without a fit."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from analysis import paper
from analysis.errors import AnalysisError
from analysis.load import AnalysisWarning
from analysis.report import PAPER_COLUMN, ReportOptions, default_hist_n, paper_comparison, write_report
from analysis.table import COLUMNS, clopper_pearson
from conftest import png_size


def randset_row(text: str, n: int) -> str:
    """The row of n in the report's randSet & randSet table (after Table 1's rows)."""
    part = text[text.index("randSet & randSet per n:") :]
    return next(line for line in part.splitlines() if line.startswith(f"| {n} "))


def test_report_from_a_randset_csv_with_a_k_range_and_cpu_time(small_run, tmp_path):
    csv = tmp_path / "rs.csv"
    csv.write_text("k,count,share\n92,1,0.25\n94,2,0.5\n95,1,0.25\n")
    out = tmp_path / "out"
    report = write_report(
        [small_run], out, ReportOptions(hist_n=50, hist_k=(10, 40), time="cpu_s", randset_csvs=[(100, csv)])
    )
    text = report.read_text()
    assert "time per case: `cpu_s`" in text
    row = randset_row(text, 100)
    assert "| 4 " in row and "n/a (no per-trial CSV)" in row and "[" not in row  # CSV outside OUT_DIR: no link
    assert "Top: the first-pass histogram is unavailable" in text
    assert png_size(out / "figures" / "fig11_time_by_backtracks_n50.png") == (1920, 1440)  # 300 dpi
    assert png_size(out / "figures" / "randset.png") == (1920, 2400)  # two panels
    assert "## Reproduce" not in text  # no command given


def test_report_from_per_trial_csvs_gives_the_first_pass_mean_and_se(small_run, nqc_bin, tmp_path):
    from analysis import randset

    runs = {n: randset.run(nqc_bin, n, 1000, tmp_path / "rs") for n in (10, 100, 200)}
    report = write_report(
        [small_run], tmp_path / "out", ReportOptions(randset_csvs=[(n, r.trials_csv) for n, r in runs.items()])
    )
    text = report.read_text()
    assert "Top: the first-pass histogram, the share of the trials" in text
    for n, r in runs.items():
        row = randset_row(text, n)
        assert f"{r.first_pass_share:.6f} \u00b1 {r.first_pass_se:.6f}" in row
        theirs = paper.RANDSET_FIRST_PASS.get(n)
        assert (theirs is not None and f"| {theirs} (" in row) == (n in (10, 100)), row
    got = paper_comparison(pd.DataFrame(columns=COLUMNS), [], list(runs.values())).set_index("quantity")
    assert got.loc["randSet & randSet first pass share, n = 10", PAPER_COLUMN] == "0.605701"
    assert got.loc["randSet & randSet first pass share, n = 100", PAPER_COLUMN] == "0.6005"
    assert got.loc["randSet & randSet first pass share, n = 100", "ours"].endswith(" (SE)")
    assert "1000 trials; ours - paper = " in got.loc["randSet & randSet first pass share, n = 100", "note"]
    assert "randSet & randSet first pass share, n = 200" not in got.index


def test_report_without_enough_n_for_a_fit_still_writes_the_rest(small_run, tmp_path):
    write_report([small_run], tmp_path / "out", ReportOptions(hist_n=300))  # one with a fit, first
    assert (tmp_path / "out" / "fits.csv").is_file()
    with pytest.warns(AnalysisWarning, match="no fit"):
        report = write_report([small_run], tmp_path / "out", ReportOptions(n_min=300))
    text = report.read_text()
    assert "No fit: 1 board size(s) in n = 300..max" in text
    assert "No randSet & randSet figure" in text
    assert not (tmp_path / "out" / "fits.csv").exists()  # the earlier report's fits are gone
    assert not (tmp_path / "out" / "figures" / "fig10_time_histogram_n300.png").exists()
    assert (tmp_path / "out" / "figures" / "time_vs_n.png").is_file()


def test_bad_hist_options_write_nothing(small_run, tmp_path):
    with pytest.raises(AnalysisError, match=r"--hist-k 5000:6000: no case at n = 100 has k in 5000..6000"):
        write_report([small_run], tmp_path / "out", ReportOptions(hist_k=(5000, 6000)))
    assert not (tmp_path / "out").exists()


def table_of(rows: list[dict]) -> pd.DataFrame:
    """Table 1 rows with the given values, the rest 0; the no-backtrack share's interval from bt0 and cases."""
    base = {c: 0.0 for c in COLUMNS}
    table = pd.DataFrame([{**base, **r} for r in rows], columns=COLUMNS)
    table["bt0_lo"], table["bt0_hi"] = clopper_pearson((table["bt0"] * table["cases"]).round(), table["cases"])
    for c in ("mean_s_lo", "mean_s_hi", "t90mean_s_lo", "t90mean_s_hi"):
        table[c] = [r.get(c, float("nan")) for r in rows]
    return table


def test_paper_comparison_uses_the_published_values():
    tab = table_of(
        [
            {"n": 50, "cases": 100, "bt0": 0.40, "false_negatives": 1, "false_negative_share": 0.01},
            {
                "n": 1000,
                "cases": 200,
                "mean_s": 0.002,
                "t90mean_s": 0.001,
                "bt0": 0.55,
                "bt1": 0.25,
                "bt2": 0.1,
                "bt3": 0.05,
                "bt_more": 0.05,
            },
            {"n": 5000, "cases": 100, "bt0": 0.65},
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = paper_comparison(tab, [], [], ["grigoryan"]).set_index("quantity")
    assert got.loc["mean time at n = 1000", PAPER_COLUMN] == "0.062 s"
    assert got.loc["mean / t90mean at n = 1000", "ours"] == "2"
    assert got.loc["mean time at n = 1000", "ours"] == "0.002 s"  # no interval given
    # shares with their exact 95% intervals, and whether the paper's value lies inside
    assert got.loc["cases with 0 backtracks at n = 1000", "ours"] == "55.00% (95% CI 47.8..62.0%)"
    assert (
        got.loc["cases with 0 backtracks at n = 1000", "note"]
        == "200 cases here; the paper's value is inside our interval"
    )
    assert (
        got.loc["cases with 1 backtracks at n = 5000", "note"]
        == "100 cases here; the paper's value is outside our interval"
    )
    assert got.loc["cases with 0 backtracks at n = 1000", PAPER_COLUMN] == "60.50%"
    assert got.loc["cases with 0 backtracks at n = 5000", PAPER_COLUMN] == "61.92%"
    assert "cases with > 3 backtracks at n = 5000" not in got.index  # not published
    # a floor tested against the interval: 40 of 100 cannot show a share above 35%
    assert (
        got.loc["lowest share without backtracking, n = 7..100000", "ours"] == "40.00% (95% CI 30.3..50.3%) at n = 50"
    )
    assert got.loc["lowest share without backtracking, n = 7..100000", "note"].startswith(
        "cannot tell at n = 50: the 95% interval contains the floor"
    )
    assert got.loc["false negative share, n = 1..99", "ours"] == "1 of 100 (95% interval 0.00025..0.054): above"
    assert (
        got.loc["false negative share, n = 1..99", "note"]
        == "the 95% lower bound 0.00025 is above 0.0001: more than the paper's bound"
    )
    assert got.loc["false negatives, n >= 800", "ours"] == "0 of 300 (95% interval 0..0.012): none seen"
    other = paper_comparison(tab, [], [], ["auto"]).set_index("quantity")
    assert "engine auto" in other.loc["cases with 1 backtracks at n = 1000", "note"]


def test_default_histogram_n():
    assert default_hist_n(table_of([{"n": 100, "cases": 5}, {"n": 1000, "cases": 1}])) == 1000
    assert default_hist_n(table_of([{"n": 100, "cases": 5}, {"n": 200, "cases": 5}, {"n": 50, "cases": 9}])) == 50
    assert default_hist_n(table_of([{"n": 100, "cases": 5}, {"n": 200, "cases": 5}])) == 200
    assert paper.FIT_N_MIN == 50
