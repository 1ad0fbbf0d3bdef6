#!/usr/bin/env bash
# `nqc run` gives the same results on 1, 2, 3, 16 and 64 MPI ranks, and in 3 parts (--part) merged by
# --resume: the rows of results.h5, sorted by case_id, agree in every column but wall_s, cpu_s
# and rank.
# Usage: test_run_ranks.sh NQC PYTHON CONFIG   (PYTHON: a python3 with h5py and pandas)
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 NQC PYTHON CONFIG" >&2
  exit 2
fi
NQC=$1
PYTHON=$2
CONFIG=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
LIMIT=120  # seconds per run: a hung mpirun fails the check instead of the whole test

run "$NQC" run --dry-run "$CONFIG" -o "$TMP/A"
expect_exit 0 "run --dry-run"
planned=$(plan_field cases "$CONFIG" -o "$TMP/A")
check "run --dry-run prints the case count ($planned)" test -n "$planned"

run timeout "$LIMIT" "$NQC" run "$CONFIG" -o "$TMP/A" -q
expect_exit 0 "run without mpirun (dir A)"
run timeout "$LIMIT" mpirun -np 2 "$NQC" run "$CONFIG" -o "$TMP/B" -q
expect_exit 0 "run under mpirun -np 2 (dir B)"
run timeout "$LIMIT" mpirun -np 3 --oversubscribe "$NQC" run "$CONFIG" -o "$TMP/C" -q
expect_exit 0 "run under mpirun -np 3 --oversubscribe (dir C)"
# Many ranks: 16 and 64 ranks, oversubscribed, more ranks than the plan has
# shards: the idle ranks take no shard and the rows are the same.
run timeout "$LIMIT" mpirun -np 16 --oversubscribe "$NQC" run "$CONFIG" -o "$TMP/D" -q
expect_exit 0 "run under mpirun -np 16 --oversubscribe (dir D)"
run timeout "$LIMIT" mpirun -np 64 --oversubscribe "$NQC" run "$CONFIG" -o "$TMP/E" -q
expect_exit 0 "run under mpirun -np 64 --oversubscribe (dir E)"
shards=$(plan_field shards "$CONFIG" -o "$TMP/A")
check "the plan has fewer shards ($shards) than 16 ranks" test "${shards:-99}" -lt 16
for d in A B C D E; do check "dir $d: results.h5 written" test -s "$TMP/$d/results.h5"; done

# A job array's way (dir P): the plan in 3 parts, parts 0 and 2 at once, part 1 on 2 ranks;
# no part merges; then --resume merges (and runs nothing).
timeout "$LIMIT" "$NQC" run "$CONFIG" -o "$TMP/P" -q --part 0/3 & p0=$!
timeout "$LIMIT" "$NQC" run "$CONFIG" -o "$TMP/P" -q --part 2/3 & p2=$!
run timeout "$LIMIT" mpirun -np 2 "$NQC" run "$CONFIG" -o "$TMP/P" -q --part 1/3
expect_exit 0 "run --part 1/3 under mpirun -np 2 (dir P)"
wait "$p0"; rc0=$?
wait "$p2"; rc2=$?
check "run --part 0/3 and 2/3 at the same time: exit 0 and 0 (got $rc0 and $rc2)" test "$rc0" -eq 0 -a "$rc2" -eq 0
check "dir P: the parts do not merge" test ! -e "$TMP/P/results.h5"
run timeout "$LIMIT" "$NQC" run "$CONFIG" -o "$TMP/P" --resume
expect_exit 0 "run --resume after the parts: merges (dir P)"
check "dir P: --resume found every shard done" grep -q "already done" "$ERR_FILE"
check "dir P: results.h5 written" test -s "$TMP/P/results.h5"
run "$NQC" run "$CONFIG" -o "$TMP/Q" --part ""
expect_exit 1 "run --part '' (an empty array task id)"
expect_stderr_line "nqc: error: --part: expected I/K with integers 0 <= I < K <= 999999999 (e.g. 0/4), got ''" "run --part '': refused"

# The Python checks print "ok - ..." / "FAIL - ..." / "#   ..." lines, counted here.
"$PYTHON" - "$TMP" "${planned:-0}" >"$TMP/py.out" 2>"$TMP/py.err" <<'EOF'
import os
import sys

import h5py
import pandas as pd

tmp, planned = sys.argv[1], int(sys.argv[2])
volatile = os.environ["NQC_RUN_DEPENDENT"].split(",")


def report(good, what, detail=""):
    print(("ok - " if good else "FAIL - ") + what)
    if not good and detail:
        for line in str(detail).splitlines()[:20]:
            print("#   " + line)


frames, world = {}, {}
for d in "ABCDEP":
    try:
        with h5py.File(f"{tmp}/{d}/results.h5", "r") as f:
            frames[d] = pd.DataFrame(f["cases"][()]).sort_values("case_id").reset_index(drop=True)
            launches = f["launches"][()]
            world[d] = [str(w) for w in launches["world_size"]]
        report(True, f"dir {d}: results.h5 readable ({len(frames[d])} rows)")
    except Exception as e:  # noqa: BLE001 - any failure to read is a failed check
        report(False, f"dir {d}: results.h5 readable", repr(e))

for d, want in zip("ABCDE", ["1", "2", "3", "16", "64"]):
    report(world.get(d) == [want], f"dir {d}: one launch, of world size {want} (launches table: {world.get(d)!r})")

for d, df in frames.items():
    report(len(df) == planned, f"dir {d}: {planned} rows, the --dry-run case count (got {len(df)})")
    ids = df["case_id"].tolist()
    report(ids == list(range(len(df))), f"dir {d}: case_id is 0..{len(df) - 1}, each once")
    bad = df[df["outcome"] != 0]
    report(bad.empty, f"dir {d}: every row has outcome 0 (solved)", bad.head().to_string())
    bad = df[df["false_negative"] != 0]
    report(bad.empty, f"dir {d}: every row has false_negative 0", bad.head().to_string())

if "B" in frames:
    ranks = sorted(set(frames["B"]["rank"].tolist()))
    report(ranks == [0, 1], f"dir B: rows from both ranks 0 and 1 (got {ranks})")

if os.path.isdir(f"{tmp}/B/shards"):
    # Every rank's shard files name their launch as rank 0 recorded it.
    blank = []
    for name in sorted(os.listdir(f"{tmp}/B/shards")):
        with h5py.File(f"{tmp}/B/shards/{name}", "r") as f:
            blank += [f"{name} (rank {f.attrs['rank']}): {a}" for a in ("start_utc", "nqc_version", "git_revision") if not f.attrs[a]]
    report(not blank, "dir B: every shard file has its launch's start_utc, nqc_version and git_revision", "\n".join(blank))

for d, df in frames.items():
    starts = df["start_s"]
    report(bool(((starts >= 0) & (starts < 3600)).all()), f"dir {d}: start_s of every row is within the launch (0..3600 s)",
           df[(starts < 0) | (starts >= 3600)].head().to_string())

if "A" in frames:
    a = frames["A"].drop(columns=volatile)
    for d in "BCDEP":
        if d not in frames:
            continue
        b = frames[d].drop(columns=volatile)
        same = list(a.columns) == list(b.columns) and len(a) == len(b) and a.equals(b)
        detail = ""
        if not same and list(a.columns) == list(b.columns) and len(a) == len(b):
            diff = (a != b).any(axis=1)
            detail = "first differing rows (A, then " + d + "):\n" + a[diff].head(3).to_string() + "\n" + b[diff].head(3).to_string()
        elif not same:
            detail = f"columns {list(a.columns)} vs {list(b.columns)}, rows {len(a)} vs {len(b)}"
        report(same, f"dirs A and {d}: same rows by case_id in every column but {', '.join(volatile)}", detail)
EOF
py_rc=$?
relay_checks "$TMP/py.out"
if [ "$py_rc" -eq 0 ]; then ok "python checks ran ($PYTHON)"
else fail "python checks ran ($PYTHON, exit $py_rc)" "$(head -c 2000 "$TMP/py.err")"
fi

summary
