"""Report statements honest about power: a claim of the paper that the sample
is too small to test says so (with the cases it would take), and a fit on fewer than 5 points
carries a warning."""

from __future__ import annotations

import re

import numpy as np
import pytest

from analysis import fit, table
from analysis.load import AnalysisWarning
from analysis.report import paper_comparison, write_report
from conftest import synthetic_rows, write_result_file
from test_cli import analysis
from test_report import table_of


@pytest.mark.parametrize("bound", [1e-4, 1e-5, 3e-3])
def test_cases_needed_is_the_least_sample_whose_interval_falls_below_the_bound(bound):
    m = table.cases_needed(bound)
    _, hi = table.clopper_pearson(0, m)
    _, hi_before = table.clopper_pearson(0, m - 1)
    assert hi < bound <= hi_before
    assert 3 / bound < m < 3.7 / bound  # between the rule of three (one-sided) and the two-sided 3.69 / m


def test_a_bound_of_1e_5_on_1000_cases_cannot_be_tested():
    t = table_of(
        [{"n": 300, "cases": 1000}, {"n": 400, "cases": 400_000}, {"n": 500, "cases": 20_000, "false_negatives": 1}]
    )
    fn = table.false_negative_table(t).set_index("n")
    row = fn.loc[300]
    assert (row["verdict"], row["paper"], row["cases_needed"]) == ("cannot tell", "< 1e-05", table.cases_needed(1e-5))
    assert row["note"] == (
        "the sample cannot test the claim: none in 1,000 cases leaves a 95% upper bound of "
        f"0.0037, above 1e-05; it takes {table.cases_needed(1e-5):,} cases with none seen"
    )
    assert fn.loc[400, "verdict"] == "below" and fn.loc[400, "note"].startswith(
        "the 95% upper bound 9.2e-06 is below 1e-05"
    )
    assert fn.loc[500, "verdict"] == "cannot tell" and "the sample cannot tell: the 95% interval" in fn.loc[500, "note"]
    shown = table.false_negative_markdown(table.false_negative_table(t))
    assert re.search(
        rf"\| +300 \| +1000 \| +0 \| .*\| cannot tell: needs {table.cases_needed(1e-5):,} cases", shown
    ), shown
    got = paper_comparison(t, [], [], ["grigoryan"]).set_index("quantity")
    note = got.loc["false negative share, n = 100..799", "note"]
    assert got.loc["false negative share, n = 100..799", "ours"].endswith(": cannot tell")
    assert note.startswith("the sample cannot tell: the 95% interval")  # pooled: 1 in 421,000


def test_the_report_says_what_the_sample_cannot_test(tmp_path):
    n = np.repeat([50, 100, 300], 1000)  # 1000 cases each, none a false negative
    rows = synthetic_rows(n, n // 2, 1e-6 * n * np.tile(np.linspace(0.5, 1.5, 1000), 3))
    path = write_result_file(tmp_path / "r.h5", rows)
    with pytest.warns(AnalysisWarning, match=r"rests on 3 points \(n = 50, 100, 300\), fewer than 5"):
        text = write_report([path], tmp_path / "out").read_text()
    section = text[text.index("## Compared with the paper") : text.index("## False negatives against")]
    assert (
        "0 of 2000 (95% interval 0..0.0018): cannot tell | < 1e-05 | the sample cannot test the claim: none in "
        f"2,000 cases leaves a 95% upper bound of 0.0018, above 1e-05; it takes {table.cases_needed(1e-5):,} cases "
        "with none seen" in re.sub(" +", " ", section)
    )
    assert "0 of 1000 (95% interval 0..0.0037): cannot tell | < 0.0001 | the sample cannot test the claim" in re.sub(
        " +", " ", section
    )
    assert "**Warning:** the fit of mean time per case rests on 3 points (n = 50, 100, 300), fewer than 5" in text
    assert "only 3 points: too few to test the paper's slope" in section
    fn = text[text.index("## False negatives against") : text.index("## False negatives and cases")]
    assert "cannot tell" in fn and "it takes the number of cases shown" in fn


def test_fits_on_fewer_than_5_points_carry_a_warning():
    n = np.array([50, 100, 200, 400, 800, 1600])
    t = 1e-3 * n**0.8
    assert fit.fit_loglog(n, t).warning is None and fit.fit_loglog(n[:5], t[:5]).warning is None
    four = fit.fit_loglog(n[:4], t[:4]).warning
    assert four.startswith("the fit of mean time per case rests on 4 points (n = 50, 100, 200, 400), fewer than 5")
    assert "b's 95% CI" in four
    assert fit.fit_loglog(n[:2], t[:2]).warning.endswith("and it has no interval")
    got = paper_comparison(table_of([]), [fit.fit_loglog(n[:3], t[:3])], []).set_index("quantity")
    assert got.loc["fit slope b (mean time)", "note"].endswith("; only 3 points: too few to test the paper's slope")
    got = paper_comparison(table_of([]), [fit.fit_loglog(n, t)], []).set_index("quantity")
    assert "too few" not in got.loc["fit slope b (mean time)", "note"]


def test_fit_on_the_command_line_warns(small_run):
    done = analysis("fit", small_run)
    assert done.returncode == 0, done.stderr
    assert "Warning: the fit of mean time per case rests on 3 points (n = 50, 100, 300)" in done.stdout
    assert done.stderr.startswith("nqc-analysis: warning: the fit of mean time per case rests on 3 points")
    done = analysis("fit", small_run, "--n-min", 10)
    assert done.returncode == 0 and "Warning" not in done.stdout and done.stderr == "", done.stderr


def test_a_failed_command_prints_its_error_alone(small_run, tmp_path):
    # the few-points warning is printed only when the command succeeds
    done = analysis("report", small_run, "-o", tmp_path / "out", "--hist-n", "12345")
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
