"""Instance runs show their results: composition and CSPLib .param files
grouped by file and by diags, with outcome counts and the times of each verdict, in the tables,
on the command line and in the report."""

from __future__ import annotations

import re
import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest

from analysis import instances
from analysis.load import DIAGS, instance_cases, load_cases, param_cases
from analysis.report import write_report
from conftest import analysis_cli, PARAM_FILES, SCHEMA_ENGINES, run_env, synthetic_rows, write_result_file


@pytest.fixture(scope="module")
def stored(instance_runs) -> pd.DataFrame:
    """The auto run's rows as h5py gives them, decoded by hand (not through analysis.load)."""
    with h5py.File(instance_runs["auto"] / "results.h5") as f:
        rows = pd.DataFrame(f["cases"][()])
    rows["instance"] = rows["instance"].str.decode("utf-8")
    return rows


def test_instance_rows_and_their_diags(instance_runs, stored, small_run):
    cases = load_cases(instance_runs["auto"])
    assert len(cases) == len(stored) == 2 * len(PARAM_FILES) + 1
    assert instance_cases(cases).all() and not instance_cases(load_cases(small_run)).any()
    param = param_cases(cases)
    assert param.sum() == 2 * len(PARAM_FILES)
    assert cases.loc[param, DIAGS].tolist() == cases.loc[param, "composition_id"].tolist()
    assert set(cases.loc[param, DIAGS]) == {5, 10}
    assert cases.loc[~param, DIAGS].isna().all()  # the composition file: no diags
    assert load_cases(small_run)[DIAGS].isna().all()


def test_outcomes_by_diags_match_the_stored_rows(instance_runs, stored):
    t = instances.by_diags(load_cases(instance_runs["auto"]))
    assert list(t.columns) == instances.BY_DIAGS_COLUMNS
    names = {0: "solved", 1: "infeasible", 2: "gave_up"}
    for _, row in t.iterrows():
        if pd.isna(row[DIAGS]):
            part = stored[~stored["instance"].str.endswith(".param")]
        else:
            part = stored[stored["instance"].str.endswith(".param") & (stored["composition_id"] == row[DIAGS])]
        assert (
            row["n"] == part["n"].iloc[0] and row["cases"] == len(part) and row["files"] == part["instance"].nunique()
        )
        for code, name in names.items():
            assert row[name] == int((part["outcome"] == code).sum()), name
        for name, code in [("solved", 0), ("infeasible", 1)]:
            t_v = part.loc[part["outcome"] == code, "wall_s"].to_numpy()
            got = row[[f"{name}_mean_s", f"{name}_median_s", f"{name}_max_s"]].to_numpy(dtype=float)
            if t_v.size:
                np.testing.assert_allclose(got, [t_v.mean(), np.median(t_v), t_v.max()], rtol=1e-12)
            else:
                assert np.isnan(got).all()
    # the corner composition has no completion; 10 excluded diagonals leave none of these six solvable
    corner = t[t[DIAGS].isna()].iloc[0]
    assert (corner["n"], corner["infeasible"]) == (4, 1)
    assert t[t[DIAGS] == 10]["infeasible"].item() == len(PARAM_FILES)
    assert t["solved"].sum() > 0  # some with 5 diagonals excluded are solved


def test_outcomes_by_file(instance_runs, stored):
    t = instances.by_file(load_cases(instance_runs["auto"]))
    assert list(t.columns) == instances.BY_FILE_COLUMNS and len(t) == len(stored)
    for _, row in t.iterrows():
        part = stored[(stored["instance"] == row["instance"])]
        if not pd.isna(row[DIAGS]):
            part = part[part["composition_id"] == row[DIAGS]]
        assert len(part) == row["cases"] == 1
        assert row["outcome"] == {0: "solved", 1: "infeasible", 2: "gave_up"}[int(part["outcome"].iloc[0])]
        assert row["mean_s"] == part["wall_s"].iloc[0]
    md, common = instances.by_file_markdown(t)
    assert common == str(instance_runs["auto"].parent / "files")
    assert "| corner4.txt " in md and "| diag-10-4-1.param " in md and str(common) not in md


def test_two_engines_side_by_side_and_no_contradiction(instance_runs):
    cases = load_cases(instance_runs["auto"], instance_runs["bitboard"], mixed="group")
    t = instances.by_diags(cases)
    assert t["run"].tolist() == ["auto"] * 3 + ["bitboard"] * 3
    a, b = (t[t["run"] == e].drop(columns="run").reset_index(drop=True) for e in ("auto", "bitboard"))
    pd.testing.assert_frame_equal(a[["n", DIAGS, *instances.OUTCOMES]], b[["n", DIAGS, *instances.OUTCOMES]])
    md, _ = instances.by_file_markdown(instances.by_file(cases))
    header = md.splitlines()[0]
    assert re.match(r"\| file +\| +diags \| +n \| +k \| auto +\| bitboard +\|", header), header
    assert re.search(r"\| corner4.txt +\| +- \| +4 \| +1 \| infeasible, [0-9.e-]+ s +\| infeasible, ", md)
    assert instances.disagreements(cases).empty


def test_a_contradiction_between_engines_is_reported(tmp_path):
    def run(engine, outcome, name):
        rows = synthetic_rows(
            [10, 10], [0, 0], [1e-5, 2e-5], outcome=outcome, instance=[b"/data/a.param", b"/data/b.param"]
        )
        rows["composition_id"] = 5
        rows["engine"] = SCHEMA_ENGINES[engine]
        return write_result_file(tmp_path / f"{name}.h5", rows, config_hash=name * 16, config=f'{{"name": "{name}"}}')

    cases = load_cases(run("auto", [0, 1], "a"), run("sat", [1, 1], "b"), mixed="group")
    conflicts = instances.disagreements(cases)
    assert conflicts[["instance", DIAGS, "auto", "sat"]].astype(str).values.tolist() == [
        ["/data/a.param", "5", "solved", "infeasible"]
    ]


def test_instance_results_on_the_command_line(instance_runs, tmp_path):
    done = analysis_cli("table", instance_runs["auto"])
    assert done.returncode == 0, done.stderr
    assert "Instance runs: outcomes by diags" in done.stdout
    assert re.search(r"^\| +10 \| +10 \| +6 \| +6 \| +0 \| +6 \| +0 \|", done.stdout, re.M), done.stdout
    done = analysis_cli("instances", instance_runs["auto"], instance_runs["bitboard"], "--csv", tmp_path / "i.csv")
    assert done.returncode == 0, done.stderr
    assert "Outcomes by file (under " in done.stdout and "| diag-10-4-1000.param " in done.stdout
    csv = pd.read_csv(tmp_path / "i.csv")
    assert list(csv.columns) == ["run"] + instances.BY_FILE_COLUMNS and len(csv) == 2 * 13
    done = analysis_cli("table", instance_runs["auto"], "--csv", tmp_path / "t.csv")
    assert done.returncode == 1 and "instance runs only" in done.stderr


def test_instance_report(instance_runs, tmp_path):
    text = write_report([instance_runs["auto"]], tmp_path / "one").read_text()
    for heading in ("## Instances", "### Outcomes by diags", "### Outcomes by file"):
        assert heading in text
    assert "## Table 1" not in text and "## Compared with the paper" not in text  # generated cases only
    assert "[instances.csv](instances.csv)" in text
    assert (tmp_path / "one" / "instances.csv").is_file() and (tmp_path / "one" / "instances_by_diags.csv").is_file()
    text = write_report([instance_runs["auto"], instance_runs["bitboard"]], tmp_path / "two").read_text()
    assert text.startswith("# nqc comparison: instances-auto, instances-bitboard")
    assert "## Instances" in text and "| auto " in text and "| bitboard " in text
    assert "Contradictions" not in text


def test_nqc_aggregate_gives_the_by_diags_table(instance_runs, nqc_bin, tmp_path):
    """`nqc aggregate --csv` on an instance run: the columns and values of by_diags (one fact,
    two programs: counts exact, times to 9 significant digits as nqc writes them)."""
    csv = tmp_path / "aggregate.csv"
    done = subprocess.run(
        [str(nqc_bin), "aggregate", str(instance_runs["auto"]), "--csv", str(csv)],
        capture_output=True,
        text=True,
        env=run_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    theirs = pd.read_csv(csv)
    ours = instances.by_diags(load_cases(instance_runs["auto"]))
    assert list(theirs.columns) == instances.BY_DIAGS_COLUMNS
    assert len(theirs) == len(ours) == 3
    ours = ours.sort_values(["n", DIAGS], na_position="first").reset_index(drop=True)
    for column in instances.BY_DIAGS_COLUMNS:
        a, b = theirs[column].to_numpy(dtype=float), ours[column].to_numpy(dtype=float, na_value=np.nan)
        np.testing.assert_allclose(a, b, rtol=1e-8, equal_nan=True, err_msg=column)
