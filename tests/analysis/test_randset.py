"""analysis.randset: nqc randset's two CSVs (per trial, histogram), the first-pass share, the figure."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from analysis import figures, paper, randset
from analysis.errors import AnalysisError
from conftest import PYTHON, REPO, png_size


def printed(run_dir: Path, n: int, key: str) -> float:
    """A value nqc randset printed (kept in randset-n{n}.txt), e.g. first_pass_share."""
    text = (run_dir / f"randset-n{n}.txt").read_text()
    return float(re.search(rf"^{key}:\s*(\S+)$", text, re.MULTILINE).group(1))


@pytest.mark.parametrize("n, trials", [(10, 3000), (100, 2000)])
def test_run_reads_the_per_trial_csv(nqc_bin, tmp_path, n, trials):
    run = randset.run(nqc_bin, n, trials, tmp_path, seed=7)
    assert run.n == n and run.trials == trials
    assert run.trials_csv == tmp_path / f"randset-n{n}-trials.csv" and run.csv == tmp_path / f"randset-n{n}.csv"
    assert (
        (tmp_path / f"randset-n{n}.txt")
        .read_text()
        .startswith(f"randset {n} --trials {trials} --seed 7 --csv {run.csv} --trials-csv {run.trials_csv}")
    )
    frame = run.per_trial
    assert list(frame.columns) == ["trial", "first_pass", "dead_end_k", "first_pass_share"]
    assert len(frame) == trials and sorted(frame["trial"]) == list(range(trials))
    assert (frame["first_pass_share"] == frame["first_pass"] / n).all()
    assert (frame["first_pass"] <= frame["dead_end_k"]).all() and (frame["dead_end_k"] <= n).all()
    # the mean of the per-trial shares is what nqc prints (6 decimals), likewise its SD and SE
    assert frame["first_pass_share"].mean() == pytest.approx(printed(tmp_path, n, "first_pass_share"), abs=1e-6)
    assert run.first_pass_share == pytest.approx(printed(tmp_path, n, "first_pass_share"), abs=1e-6)
    assert run.first_pass_sd == pytest.approx(printed(tmp_path, n, "first_pass_share_sd"), abs=1e-6)
    assert run.first_pass_se == pytest.approx(printed(tmp_path, n, "first_pass_share_se"), abs=1e-6)
    assert abs(run.first_pass_share - paper.RANDSET_FIRST_PASS[n]) < 5 * run.first_pass_se + 1e-4  # [Grigoryan]
    # the dead ends counted from the per-trial CSV are the histogram CSV, row for row
    hist = randset.read_csv(run.csv, n)
    assert hist.per_trial is None and hist.first_pass_share is None and hist.trials == trials
    counted = frame["dead_end_k"].value_counts().sort_index()
    assert hist.histogram["k"].tolist() == counted.index.tolist()
    assert hist.histogram["count"].tolist() == counted.tolist()
    assert run.histogram["count"].tolist() == hist.histogram["count"].tolist()
    assert run.histogram["share"].to_numpy() == pytest.approx(hist.histogram["share"].to_numpy(), abs=1e-6)
    assert run.mean_dead_end_share == pytest.approx(printed(tmp_path, n, "mean_dead_end_k") / n, abs=1e-3 / n)


def test_read_csv_tells_the_two_csvs_apart(nqc_bin, tmp_path):
    run = randset.run(nqc_bin, 100, 500, tmp_path)
    by_trial = randset.read_csv(run.trials_csv, 100)
    assert by_trial.per_trial is not None and by_trial.trials == 500 and by_trial.csv is None
    assert by_trial.first_pass_share == pytest.approx(run.first_pass_share, abs=1e-12)
    assert by_trial.histogram.equals(run.histogram)
    by_hist = randset.read_csv(run.csv, 100, first_pass_share=0.6)
    assert by_hist.per_trial is None and by_hist.trials_csv is None
    assert by_hist.first_pass_share == 0.6 and by_hist.first_pass_se is None


def test_specs_and_bad_histogram_csvs(tmp_path):
    assert randset.parse_spec("100:a/b.csv") == (100, Path("a/b.csv"))
    for bad in ("b.csv", "x:b.csv", "0:b.csv", "1e2:b.csv", "-5:b.csv"):
        with pytest.raises(AnalysisError, match="expected N:FILE"):
            randset.parse_spec(bad)
    with pytest.raises(AnalysisError, match="no such file"):
        randset.read_csv(tmp_path / "none.csv", 100)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("a,b\n1,2\n")
    with pytest.raises(AnalysisError, match="not an nqc randset CSV .expected rows under the header k,count,share"):
        randset.read_csv(wrong, 100)
    big = tmp_path / "big.csv"
    big.write_text("k,count,share\n90,1,0.5\n200,1,0.5\n")
    with pytest.raises(
        AnalysisError,
        match=r"row 3, column k: 200 is out of range, expected .* 0..n = 0..100 " r"\(wrong N in N:FILE\?\)",
    ):
        randset.read_csv(big, 100)


HEADER = "trial,first_pass,dead_end_k\n"


@pytest.mark.parametrize(
    "body, message",
    [
        ("", "not an nqc randset CSV (expected rows under the header"),  # header only
        (
            "0,60,95\n1,sixty,95\n",
            "row 3, column first_pass: 'sixty' is not a whole number, expected queens placed "
            "by the first pass, an integer in 1..n = 1..100",
        ),
        ("0,60,95\n1,61\n", "row 3: 2 fields '1,61', expected 3: trial,first_pass,dead_end_k"),  # short row
        ("0,60.5,95\n", "row 2, column first_pass: '60.5' is not a whole number"),
        (
            "0,-1,95\n",
            "row 2, column first_pass: -1 is out of range, expected queens placed by the first pass, "
            "an integer in 1..n = 1..100 (the first pass on the empty board places at least one queen)",
        ),
        (
            "0,60,95\n1,60,120\n",
            "row 3, column dead_end_k: 120 is out of range, expected queens at the dead end, "
            "an integer in first_pass..n = 60..100 (wrong N in N:FILE?)",
        ),
        ("0,160,170\n", "row 2, column first_pass: 160 is out of range"),
        (
            "0,60,95\n1,70,65\n",
            "row 3, column dead_end_k: 65 is out of range, expected queens at the dead end, an "
            "integer in first_pass..n = 70..100 (repeated passes never remove queens)",
        ),
        ("0,60,95\n0,61,96\n", "row 3, column trial: trial 0 repeats row 2, expected each trial once"),
        ("0,60,95,7,8\n", "row 2: 5 fields '0,60,95,7,8', expected 3: trial,first_pass,dead_end_k"),
        ("0,60,95\n1,2,3,4\n", "row 3: 4 fields '1,2,3,4', expected 3"),
    ],
)
def test_malformed_trials_csv_is_a_clear_error(tmp_path, body, message):
    bad = tmp_path / "trials.csv"
    bad.write_text(HEADER + body)
    with pytest.raises(AnalysisError) as err:
        randset.read_csv(bad, 100)
    assert str(err.value).startswith(f"{bad}: ") and message in str(err.value), str(err.value)


def test_malformed_trials_csv_on_the_command_line(small_run, tmp_path):
    bad = tmp_path / "trials.csv"
    bad.write_text(HEADER + "0,60,95\n1,70,65\n")
    done = subprocess.run(
        [PYTHON, "-m", "analysis", "report", str(small_run), "-o", str(tmp_path / "out"), "--randset", f"100:{bad}"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"nqc-analysis: error: {bad}: row 3, column dead_end_k: 65 is out of range, "
        "expected queens at the dead end, an integer in first_pass..n = 70..100 "
        "(repeated passes never remove queens)"
    ]


def test_a_failing_nqc_is_named_with_its_error(tmp_path):
    old = tmp_path / "old-nqc"
    old.write_text("#!/bin/sh\necho 'The following argument was not expected: --trials-csv' >&2\nexit 109\n")
    old.chmod(0o755)
    with pytest.raises(AnalysisError, match="exit 109: The following argument was not expected: --trials-csv$"):
        randset.run(old, 100, 10, tmp_path / "out")


def test_first_pass_bins_hold_whole_queens():
    counts = np.repeat(np.arange(48, 74, dtype=float), 80)  # n = 100, 2080 trials
    edges, width = figures.first_pass_bins(counts, 100)  # one queen a bin
    assert width == 1 and edges[0] == 47.5 and edges[-1] == 73.5
    assert figures.first_pass_bins(counts[::40], 100)[1] == 5  # 52 trials: 10 bins at most
    rng = np.random.default_rng(1)
    counts = rng.normal(6000, 32, 20000).round()  # n = 10^4
    edges, width = figures.first_pass_bins(counts, 10_000)
    assert width in figures._NICE_QUEENS and len(edges) - 1 <= 41
    assert np.all(np.diff(edges) == width) and edges[0] <= counts.min() < counts.max() <= edges[-1]
    assert np.all((edges + 0.5) % width == 0)
    edges, width = figures.first_pass_bins(np.array([6.0]), 10)  # one trial
    assert width == 1 and edges.tolist() == [5.5, 6.5]


def test_the_figure_with_per_trial_data_histogram_only_or_both(nqc_bin, tmp_path):
    runs = [randset.run(nqc_bin, n, 400, tmp_path / "runs") for n in (10, 100)]
    only_hist = randset.read_csv(runs[1].csv, 100)
    one_trial = randset.run(nqc_bin, 20, 1, tmp_path / "one")
    for name, chosen in [
        ("trials", runs),
        ("hist", [only_hist]),
        ("mixed", [runs[0], only_hist]),
        ("one", [one_trial]),
    ]:
        path = figures.randset_histogram(chosen, tmp_path / name / "randset.png")
        assert path.stat().st_size > 1000 and png_size(path) == (1920, 2400) == figures.TALL_PX, name
