"""analysis.table: Table 1 against a direct computation from the stored rows and `nqc aggregate`."""

from __future__ import annotations

import re
import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest

from analysis import output, table
from analysis.load import load_cases
from conftest import run_env


@pytest.fixture(scope="module")
def stored(small_run) -> np.ndarray:
    with h5py.File(small_run / "results.h5") as f:
        return f["cases"][()]


@pytest.fixture(scope="module")
def table1(small_run) -> pd.DataFrame:
    return table.table1(load_cases(small_run))


def test_the_small_run_exercises_every_column(stored):
    # Guards the fixture: without failures and many-backtrack cases the checks below prove less.
    assert (stored["outcome"] == 2).sum() > 0
    assert stored["false_negative"].sum() > 0
    assert ((stored["backtracks"] > 3).sum() > 0) and ((stored["backtracks"] == 0).sum() > 0)
    assert ((stored["backtracks"] >= 1) & (stored["backtracks"] <= 3)).sum() > 0


def test_table_matches_a_direct_computation(stored, table1):
    ns = np.unique(stored["n"])
    assert table1["n"].tolist() == ns.tolist() == [10, 20, 50, 100, 300]
    for n in ns:
        rows = stored[stored["n"] == n]
        t = np.sort(rows["wall_s"])
        fast = max(1, len(t) * 9 // 10)
        bt = rows["backtracks"].astype(np.int64)
        expected = {
            "cases": len(rows),
            "mean_s": t.sum() / len(t),
            "median_s": np.median(t),
            "t90mean_s": t[:fast].sum() / fast,
            "max_s": t[-1],
            "bt0": np.count_nonzero(bt == 0) / len(bt),
            "bt1": np.count_nonzero(bt == 1) / len(bt),
            "bt2": np.count_nonzero(bt == 2) / len(bt),
            "bt3": np.count_nonzero(bt == 3) / len(bt),
            "bt_more": np.count_nonzero(bt > 3) / len(bt),
            "false_negatives": int(rows["false_negative"].sum()),
            "false_negative_share": rows["false_negative"].sum() / len(rows),
            "gave_up": int(np.count_nonzero(rows["outcome"] == 2)),
            "infeasible": int(np.count_nonzero(rows["outcome"] == 1)),
            "mean_backtracks": bt.mean(),
            "mean_k": rows["k"].mean(),
        }
        got = table1.set_index("n").loc[n]
        for column, value in expected.items():
            assert got[column] == pytest.approx(value, rel=1e-12, abs=0), (n, column)
        assert got["cases"] == len(rows) and got["false_negatives"] == expected["false_negatives"]


def test_table_is_nqc_aggregates_with_the_intervals(small_run, nqc_bin, table1, tmp_path):
    """Table 1's columns are nqc's (one implementation): equal to `nqc aggregate --csv`."""
    csv = tmp_path / "aggregate.csv"
    done = subprocess.run(
        [str(nqc_bin), "aggregate", str(small_run), "--csv", str(csv)],
        capture_output=True,
        text=True,
        env=run_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    theirs = pd.read_csv(csv, float_precision="round_trip")
    pd.testing.assert_frame_equal(table1[list(theirs.columns)], theirs)


def test_backtrack_shares_add_up(table1):
    np.testing.assert_allclose(table1[["bt0", "bt1", "bt2", "bt3", "bt_more"]].sum(axis=1), 1.0, rtol=1e-12)


def test_markdown_and_csv(table1, tmp_path):
    md = table.to_markdown(table1).splitlines()
    assert [c.strip() for c in md[0].split("|")[1:-1]] == [
        "n",
        "cases",
        "mean s",
        "median s",
        "t90mean s",
        "max s",
        "0 bt",
        "1 bt",
        "2 bt",
        "3 bt",
        ">3 bt",
        "false neg",
        "false neg share",
        "gave up",
    ]
    assert len(md) == 2 + len(table1)
    first = [c.strip() for c in md[2].split("|")[1:-1]]
    assert first[0] == "10" and first[1] == str(table1["cases"][0])
    assert first[6].endswith("%") and float(first[6][:-1]) == pytest.approx(100 * table1["bt0"][0], abs=0.005)
    path = tmp_path / "t.csv"
    output.write_csv(table1, path)
    back = pd.read_csv(path)
    assert back.columns.tolist() == table.COLUMNS
    np.testing.assert_allclose(back["mean_s"], table1["mean_s"], rtol=1e-8)
    assert back["false_negatives"].tolist() == table1["false_negatives"].tolist()


def test_clopper_pearson_interval():
    lo, hi = table.clopper_pearson([0, 5, 10], [1000, 10, 10])
    assert lo[0] == 0 and hi[0] == pytest.approx(3.682083e-3, rel=1e-5)  # 1 - 0.025^(1/1000)
    assert lo[1] == pytest.approx(0.187086, rel=1e-5) and hi[1] == pytest.approx(0.812914, rel=1e-5)
    assert hi[2] == 1.0 and lo[2] == pytest.approx(0.025**0.1, rel=1e-9)


def _fn_input(rows):
    base = {c: 0.0 for c in table.COLUMNS}
    return pd.DataFrame([{**base, **r} for r in rows], columns=table.COLUMNS)


def test_false_negative_table_verdicts():
    # n = 20: 1 of 100000 (interval 2.5e-7 .. 5.6e-5, below 1e-4); n = 30: 10 of 100000
    # (4.8e-5 .. 1.8e-4, contains 1e-4); n = 50: 30 of 100000 (above); n = 200: 0 of 400000
    # (upper end 9.2e-6 < 1e-5, below); n = 300: 0 of 100000 (upper end 3.7e-5: cannot tell);
    # n = 1000: none seen; n = 3000: one seen.
    t = _fn_input(
        [
            {"n": 20, "cases": 100000, "false_negatives": 1},
            {"n": 30, "cases": 100000, "false_negatives": 10},
            {"n": 50, "cases": 100000, "false_negatives": 30},
            {"n": 200, "cases": 400000, "false_negatives": 0},
            {"n": 300, "cases": 100000, "false_negatives": 0},
            {"n": 1000, "cases": 400000, "false_negatives": 0},
            {"n": 3000, "cases": 1000, "false_negatives": 1},
        ]
    )
    fn = table.false_negative_table(t).set_index("n")
    assert fn.loc[20, "verdict"] == "below" and fn.loc[20, "paper"] == "< 0.0001"
    assert fn.loc[30, "verdict"] == "cannot tell"
    assert fn.loc[50, "verdict"] == "above"
    assert fn.loc[200, "verdict"] == "below" and fn.loc[200, "hi"] == pytest.approx(1 - 0.025 ** (1 / 400000), rel=1e-9)
    assert fn.loc[300, "verdict"] == "cannot tell"
    assert fn.loc[1000, "verdict"] == "none seen" and fn.loc[3000, "verdict"] == "some seen"
    # pooled rows, one per claim
    assert fn.loc["20..50", "cases"] == 300000 and fn.loc["20..50", "false_negatives"] == 41
    assert fn.loc["20..50", "verdict"] == "cannot tell"  # 41 / 300000: 9.8e-5 .. 1.9e-4
    assert fn.loc["200..300", "false_negatives"] == 0 and fn.loc["200..300", "verdict"] == "below"
    assert fn.loc["1000..3000", "verdict"] == "some seen"
    md = table.false_negative_markdown(table.false_negative_table(t))
    assert "| 200 | 400000 | 0 | 0 | 0 .. 9.22e-06 | < 1e-05 | below |" in re.sub(" +", " ", md)
