"""Checks of result files for the tests of tests/cluster/; prints "ok - ..." / "FAIL - ..." lines
(details on "#   " lines), which the tests count (tests/cli/lib.sh: relay_checks).

  check.py rows NQC REF OTHER      the rows of OTHER equal REF's by case_id in every column but
                                   the run-dependent ones (when and where a case ran: wall_s,
                                   cpu_s, rank, launch, and those `nqc info --columns --json`
                                   marks run_dependent)
  check.py once FILE CASES         CASES rows, every case_id of 0..CASES-1 exactly once, the
                                   shards dataset lists the shards of the rows
  check.py launches FILE           prints the launches table, one "#   " line per launch
  check.py hosts FILE ID HOSTS     launch ID's `hosts` is exactly HOSTS
  check.py host_names FILE ID NAMES   launch ID ran on exactly the hosts NAMES (comma-separated,
                                   any order; the host names of `hosts`, without their ranks)
  check.py merged FILE COUNT       COUNT launches of the table merged (wrote results.h5)

Run with Debian's /usr/bin/python3 (h5py, pandas).
"""

import json
import subprocess
import sys

import h5py
import pandas as pd

#: When and where a case ran: differ between two runs of one config by design.
RUN_DEPENDENT = ["wall_s", "cpu_s", "rank", "launch"]


def report(good, what, detail=""):
    print(("ok - " if good else "FAIL - ") + what)
    if not good and detail:
        for line in str(detail).splitlines()[:20]:
            print("#   " + line)
    return good


def run_dependent(nqc):
    """RUN_DEPENDENT and the columns nqc's schema marks run_dependent (e.g. start_s)."""
    columns = list(RUN_DEPENDENT)
    try:
        schema = json.loads(
            subprocess.run(
                [nqc, "info", "--columns", "--json"], capture_output=True, text=True, timeout=60, check=True
            ).stdout
        )
        for column in schema.get("columns", []):
            if column.get("run_dependent") and column["name"] not in columns:
                columns.append(column["name"])
    except (subprocess.SubprocessError, OSError, ValueError) as e:
        print(f"#   nqc info --columns --json: {e!r}; run-dependent columns: {columns}")
    return columns


def cases(path):
    with h5py.File(path, "r") as f:
        df = pd.DataFrame(f["cases"][()])
        for column in ("outcome", "engine", "limit"):
            df[column] = df[column].map({v: k for k, v in h5py.check_enum_dtype(f["cases"].dtype[column]).items()})
        return df, sorted(int(s) for s in f["shards"][()])


def launches(path):
    with h5py.File(path, "r") as f:
        table = f["launches"][()]
    rows = []
    for r in table:
        row = {}
        for name in table.dtype.names:
            v = r[name]
            row[name] = v.decode(errors="replace").rstrip("\0") if isinstance(v, bytes) else v.item()
        rows.append(row)
    return rows


def rows(nqc, ref_path, other_path):
    volatile = run_dependent(nqc)
    ref, _ = cases(ref_path)
    other, _ = cases(other_path)
    a = ref.drop(columns=[c for c in volatile if c in ref]).sort_values("case_id").reset_index(drop=True)
    b = other.drop(columns=[c for c in volatile if c in other]).sort_values("case_id").reset_index(drop=True)
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
        f"{other_path}: its {len(b)} rows equal those of the 1-rank run in every column but "
        f"{', '.join(c for c in volatile if c in ref)}",
        detail,
    )


def once(path, planned):
    df, shards = cases(path)
    planned = int(planned)
    report(len(df) == planned, f"{path}: {planned} rows, the plan's cases (got {len(df)})")
    dup = df[df["case_id"].duplicated(keep=False)]
    report(
        dup.empty,
        f"{path}: no case twice ({dup['case_id'].nunique()} case_ids more than once)",
        dup.sort_values("case_id").head(6).to_string(),
    )
    missing = sorted(set(range(planned)) - set(df["case_id"].tolist()))
    report(not missing, f"{path}: no case of 0..{planned - 1} missing ({len(missing)} missing)", missing[:20])
    report(
        shards == sorted(set(df["shard_id"].tolist())),
        f"{path}: the shards dataset lists the {df['shard_id'].nunique()} shards of the rows, each once",
        f"shards dataset: {shards[:20]}...",
    )


def show_launches(path):
    for r in launches(path):
        print(
            "#   launch {id}: world_size {world_size}, hosts '{hosts}', slurm job '{slurm_job_id}' restart "
            "'{slurm_restart_count}', exit {exit_status}, shards {shards_done}, cases {cases_done}, merged {merged}".format(
                **{
                    k: r.get(k, "?")
                    for k in (
                        "id",
                        "world_size",
                        "hosts",
                        "slurm_job_id",
                        "slurm_restart_count",
                        "exit_status",
                        "shards_done",
                        "cases_done",
                        "merged",
                    )
                }
            )
        )


def by_id(path, launch_id):
    for r in launches(path):
        if r["id"] == int(launch_id):
            return r
    return None


def hosts(path, launch_id, expected):
    r = by_id(path, launch_id)
    got = r["hosts"] if r else None
    report(got == expected, f"launch {launch_id} of {path}: hosts is '{expected}' (got '{got}')")


def host_names(path, launch_id, expected):
    r = by_id(path, launch_id)
    got = sorted(h.split(":")[0] for h in r["hosts"].split(",") if h and not h[0].isdigit()) if r else None
    want = sorted(expected.split(","))
    report(
        got == want,
        f"launch {launch_id} of {path}: ran on the hosts {','.join(want)} "
        f"(hosts column '{r['hosts'] if r else None}')",
    )


def merged(path, count):
    n = sum(1 for r in launches(path) if r["merged"])
    report(n == int(count), f"{path}: {count} launch(es) merged the shards into results.h5 (got {n})")


if __name__ == "__main__":
    commands = {
        "rows": rows,
        "once": once,
        "launches": show_launches,
        "hosts": hosts,
        "host_names": host_names,
        "merged": merged,
    }
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    try:
        commands[sys.argv[1]](*sys.argv[2:])
    except Exception as e:  # noqa: BLE001 - any failure to read is a failed check
        report(False, f"check.py {' '.join(sys.argv[1:])}", repr(e))
