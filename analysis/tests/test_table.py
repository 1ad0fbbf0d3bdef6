"""analysis.table: Table 1 against a direct computation from the stored rows and `nqc aggregate`."""

from __future__ import annotations

import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest

from analysis import table
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
            "cases": len(rows), "mean_s": t.sum() / len(t), "median_s": np.median(t),
            "t90mean_s": t[:fast].sum() / fast, "max_s": t[-1],
            "bt0": np.count_nonzero(bt == 0) / len(bt), "bt1": np.count_nonzero(bt == 1) / len(bt),
            "bt2": np.count_nonzero(bt == 2) / len(bt), "bt3": np.count_nonzero(bt == 3) / len(bt),
            "bt_more": np.count_nonzero(bt > 3) / len(bt),
            "false_negatives": int(rows["false_negative"].sum()),
            "false_negative_share": rows["false_negative"].sum() / len(rows),
            "gave_up": int(np.count_nonzero(rows["outcome"] == 2)),
            "infeasible": int(np.count_nonzero(rows["outcome"] == 1)),
            "mean_backtracks": bt.mean(), "mean_k": rows["k"].mean(),
        }
        got = table1.set_index("n").loc[n]
        for column, value in expected.items():
            assert got[column] == pytest.approx(value, rel=1e-12, abs=0), (n, column)
        assert got["cases"] == len(rows) and got["false_negatives"] == expected["false_negatives"]


def test_table_agrees_with_nqc_aggregate(small_run, nqc_bin, table1, tmp_path):
    csv = tmp_path / "aggregate.csv"
    done = subprocess.run([str(nqc_bin), "aggregate", str(small_run), "--csv", str(csv)],
                          capture_output=True, text=True, env=run_env(), timeout=60)
    assert done.returncode == 0, done.stderr
    theirs = pd.read_csv(csv).set_index("n")
    ours = table1.set_index("n")
    assert ours.index.tolist() == theirs.index.tolist()
    for o, t in [("cases", "cases"), ("false_negatives", "false_negatives"), ("gave_up", "gave_up"),
                 ("infeasible", "infeasible")]:
        assert ours[o].tolist() == theirs[t].tolist(), o
    for o, t in [("mean_s", "mean_s"), ("median_s", "median_s"), ("t90mean_s", "t90mean_s"), ("max_s", "max_s"),
                 ("bt0", "share_no_backtrack"), ("mean_backtracks", "mean_backtracks")]:
        np.testing.assert_allclose(ours[o], theirs[t], rtol=1e-6, err_msg=o)


def test_t90mean_is_the_mean_of_the_fastest_90_percent():
    assert table.t90mean(range(1, 11)) == pytest.approx(5.0)          # 9 fastest of 10
    assert table.t90mean([10, 1, 2, 3, 4, 5, 6, 7, 8, 9]) == pytest.approx(5.0)
    assert table.t90mean([7.0]) == 7.0                                 # at least one case
    assert table.t90mean(list(range(19))) == pytest.approx(np.mean(range(17)))  # floor(17.1) = 17


def test_backtrack_shares_add_up(table1):
    np.testing.assert_allclose(table1[["bt0", "bt1", "bt2", "bt3", "bt_more"]].sum(axis=1), 1.0, rtol=1e-12)


def test_markdown_and_csv(table1, tmp_path):
    md = table.to_markdown(table1).splitlines()
    assert [c.strip() for c in md[0].split("|")[1:-1]] == [
        "n", "cases", "mean s", "median s", "t90mean s", "max s", "0 bt", "1 bt", "2 bt", "3 bt", ">3 bt",
        "false neg", "false neg share", "gave up"]
    assert len(md) == 2 + len(table1)
    first = [c.strip() for c in md[2].split("|")[1:-1]]
    assert first[0] == "10" and first[1] == str(table1["cases"][0])
    assert first[6].endswith("%") and float(first[6][:-1]) == pytest.approx(100 * table1["bt0"][0], abs=0.005)
    path = tmp_path / "t.csv"
    table.to_csv(table1, path)
    back = pd.read_csv(path)
    assert back.columns.tolist() == table.COLUMNS
    np.testing.assert_allclose(back["mean_s"], table1["mean_s"], rtol=1e-8)
    assert back["false_negatives"].tolist() == table1["false_negatives"].tolist()
