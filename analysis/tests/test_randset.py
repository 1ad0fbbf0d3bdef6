"""analysis.randset: nqc randset's CSV and first-pass share."""

from __future__ import annotations

import pytest

from analysis import randset
from analysis.errors import AnalysisError


def test_run_reads_histogram_and_first_pass_share(nqc_bin, tmp_path):
    run = randset.run(nqc_bin, 100, 2000, tmp_path)
    assert run.n == 100 and run.trials == 2000
    assert run.histogram["count"].sum() == 2000
    assert run.histogram["share"].sum() == pytest.approx(1.0, abs=1e-9)
    assert 0.55 < run.first_pass_share < 0.65          # 000_*: 60.05% at n = 100
    assert run.histogram["k"].between(60, 100).all()   # a dead end comes after the first pass
    assert (tmp_path / "randset-n100.txt").read_text().startswith("randset 100 --trials 2000")
    again = randset.read_csv(run.csv, 100)
    assert again.trials == 2000 and again.first_pass_share is None


def test_specs_and_bad_csvs(tmp_path):
    assert randset.parse_spec("100:a/b.csv") == (100, tmp_path.__class__("a/b.csv"))
    for bad in ("b.csv", "x:b.csv", "0:b.csv"):
        with pytest.raises(AnalysisError, match="expected N:FILE"):
            randset.parse_spec(bad)
    with pytest.raises(AnalysisError, match="no such file"):
        randset.read_csv(tmp_path / "none.csv", 100)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("a,b\n1,2\n")
    with pytest.raises(AnalysisError, match="not an nqc randset CSV"):
        randset.read_csv(wrong, 100)
    big = tmp_path / "big.csv"
    big.write_text("k,count,share\n90,1,0.5\n200,1,0.5\n")
    with pytest.raises(AnalysisError, match="k = 200 > n = 100"):
        randset.read_csv(big, 100)
