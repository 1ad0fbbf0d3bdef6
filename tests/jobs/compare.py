"""Checks of result files for the jobs/ tests; prints "ok - ..." / "FAIL - ..." lines.

  compare.py rows REF.h5 OTHER.h5     same rows by case_id in every column but the run-dependent ones
  compare.py complete FILE.h5 CASES   CASES rows, case_id 0..CASES-1 once each, shards all listed,
                                      every case solved
  compare.py slow FILE.h5 CASES EASY LIMIT_S   the same rows, of a run of slow cases (test_slurm.sh,
                                      slow_instances): the first EASY solved, the others stopped at
                                      their time limit (gave_up, limit time_limit, wall_s >= LIMIT_S)
  compare.py tables REF.csv OTHER.csv same per-n table (`nqc aggregate --csv`) but the times

Run with Debian's /usr/bin/python3 (h5py, pandas).
"""

import json
import sys
from pathlib import Path

import h5py
import pandas as pd

# The columns that say when and where a case ran (result_schema.json, "run_dependent").
VOLATILE = [
    c["name"]
    for c in json.loads(
        (Path(__file__).resolve().parents[2] / "analysis" / "result_schema.json").read_text(encoding="utf-8")
    )["columns"]
    if c["run_dependent"]
]
TIME_COLUMNS = ["mean_s", "median_s", "t90mean_s", "max_s"]


def report(good, what, detail=""):
    print(("ok - " if good else "FAIL - ") + what)
    if not good and detail:
        for line in str(detail).splitlines()[:20]:
            print("#   " + line)
    return good


def cases(path):
    """The rows (engine and limit as their enum names) and the merged shard ids of a results.h5."""
    with h5py.File(path, "r") as f:
        df = pd.DataFrame(f["cases"][()])
        for column in ("engine", "limit"):
            df[column] = df[column].map({v: k for k, v in h5py.check_enum_dtype(f["cases"].dtype[column]).items()})
        return df, list(f["shards"][()])


def rows(ref_path, other_path):
    ref, _ = cases(ref_path)
    other, _ = cases(other_path)
    a = ref.drop(columns=VOLATILE).sort_values("case_id").reset_index(drop=True)
    b = other.drop(columns=VOLATILE).sort_values("case_id").reset_index(drop=True)
    detail = f"rows {len(a)} vs {len(b)}, columns {list(a.columns)} vs {list(b.columns)}"
    if list(a.columns) == list(b.columns) and len(a) == len(b) and not a.equals(b):
        diff = (a != b).any(axis=1)
        detail = (
            "first differing rows (reference, then other):\n"
            + a[diff].head(3).to_string()
            + "\n"
            + b[diff].head(3).to_string()
        )
    report(
        a.equals(b),
        f"{other_path}: the {len(b)} rows equal those of {ref_path} in every column but " f"{', '.join(VOLATILE)}",
        detail,
    )


def complete(path, planned, solved=None):
    """`solved`: the cases that must be solved (all of them by default)."""
    df, shards = cases(path)
    ids = sorted(df["case_id"].tolist())
    report(len(df) == planned, f"{path}: {planned} rows (got {len(df)})")
    dup = df[df["case_id"].duplicated(keep=False)]
    report(dup.empty, f"{path}: no case_id twice ({dup['case_id'].nunique()} duplicated)", dup.head().to_string())
    missing = sorted(set(range(planned)) - set(ids))
    report(not missing, f"{path}: no case_id of 0..{planned - 1} missing ({len(missing)} missing)", missing[:20])
    plan_shards = sorted(set(df["shard_id"].tolist()))
    report(sorted(shards) == plan_shards, f"{path}: the shards dataset lists the {len(plan_shards)} shards of the rows")
    must = df if solved is None else df[df["case_id"].isin(solved)]
    bad = must[(must["outcome"] != 0) | (must["false_negative"] != 0)]
    report(
        bad.empty,
        f"{path}: {'every case' if solved is None else f'the {len(must)} easy cases'} solved, " "no false negative",
        bad.head().to_string(),
    )
    return df


def slow(path, planned, easy, limit_s):
    df = complete(path, planned, solved=range(easy))
    rest = df[df["case_id"] >= easy]
    bad = rest[(rest["outcome"] != 2) | (rest["limit"] != "time_limit") | (rest["wall_s"] < limit_s)]
    report(
        bad.empty,
        f"{path}: the {len(rest)} slow cases stopped at their time limit of {limit_s} s "
        f"(wall {rest['wall_s'].min():.3f}..{rest['wall_s'].max():.3f} s)",
        bad.head().to_string(),
    )


def tables(ref_path, other_path):
    a = pd.read_csv(ref_path).drop(columns=TIME_COLUMNS)
    b = pd.read_csv(other_path).drop(columns=TIME_COLUMNS)
    report(
        a.equals(b),
        f"{other_path} equals {ref_path} in every column but the times ({len(b)} rows of n)",
        "reference:\n" + a.to_string() + "\nother:\n" + b.to_string(),
    )


def main(argv):
    what = argv[1]
    if what == "rows":
        rows(argv[2], argv[3])
    elif what == "complete":
        complete(argv[2], int(argv[3]))
    elif what == "slow":
        slow(argv[2], int(argv[3]), int(argv[4]), float(argv[5]))
    elif what == "tables":
        tables(argv[2], argv[3])
    else:
        raise SystemExit(f"compare.py: unknown check {what!r}")


if __name__ == "__main__":
    try:
        main(sys.argv)
    except Exception as e:  # noqa: BLE001 - an unreadable file is a failed check, with its reason
        report(False, f"compare.py {' '.join(sys.argv[1:])}: ran", repr(e))
