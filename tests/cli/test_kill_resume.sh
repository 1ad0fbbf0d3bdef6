#!/usr/bin/env bash
# Durability: kill -9 of rank 1 in the middle of a 2-rank run, then --resume, gives exactly
# the rows of an uninterrupted run; SIGTERM (or SIGUSR1 to mpirun) gives exit 4 and a
# resumable state.
# Usage: test_kill_resume.sh NQC PYTHON
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NQC PYTHON" >&2
  exit 2
fi
NQC=$1
PYTHON=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

# About 4 s of work on 2 ranks in 80 shards, so that a kill lands mid-run.
cat >"$TMP/work.json" <<'JSON'
{"name": "work", "seed": 11, "shard_cases": 100,
 "sizes": [{"n": [1000, 3000], "solutions": 40, "compositions_per_solution": 100}]}
JSON
run "$NQC" run "$TMP/work.json" -o "$TMP/clean" -q
expect_exit 0 "uninterrupted run"

# kill -9 one rank once a few shards are on disk.
mpirun -np 2 --oversubscribe "$NQC" run "$TMP/work.json" -o "$TMP/killed" -q >"$TMP/killed.log" 2>&1 &
launcher=$!
wait_for_shards "$TMP/killed" 3
# Rank 1, not rank 0, which holds the directory's lock: when mpirun returns, rank 0 may not be
# reaped yet (a zombie), and the --resume right after must not take it for a live holder.
victim=""
for p in $(pgrep -f "nqc run $TMP/work.json -o $TMP/killed"); do
  tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" && victim=$p
done
check "kill -9: found rank 1 to kill" test -n "$victim" -a "$victim" != "$launcher"
[ -n "$victim" ] && kill -9 "$victim"
wait "$launcher"
killed_rc=$?
check "kill -9 of a rank: the run fails (exit $killed_rc)" test "$killed_rc" -ne 0
done_before=$(ls "$TMP/killed/shards" | grep -c '\.h5$')
check "kill -9: some but not all 80 shards on disk ($done_before)" test "$done_before" -gt 0 -a "$done_before" -lt 80
check "kill -9: no results.h5 yet" test ! -e "$TMP/killed/results.h5"
run mpirun -np 2 --oversubscribe "$NQC" run "$TMP/work.json" -o "$TMP/killed" --resume -q
expect_exit 0 "--resume at once after kill -9 of rank 1 (rank 0, the lock's holder, dead or a zombie)"

# SIGTERM: exit 4, then --resume completes.
"$NQC" run "$TMP/work.json" -o "$TMP/termed" -q >"$TMP/termed.log" 2>&1 &
pid=$!
wait_for_shards "$TMP/termed" 2
kill -TERM "$pid"
wait "$pid"
termed_rc=$?
check "SIGTERM: exit 4 (got $termed_rc)" test "$termed_rc" -eq 4
check "SIGTERM: the log says to resume" grep -q "rerun with --resume" "$TMP/termed.log"
run "$NQC" run "$TMP/work.json" -o "$TMP/termed" --resume -q
expect_exit 0 "--resume after SIGTERM"

# Mid-shard: the finished cases of the interrupted shard are kept in its partial file and
# --resume continues after them, with the rows of a clean run. Shards of 40 cases of about
# 15 ms (n = 10^5), so that the signal lands inside a shard; a signal that lands between two
# shards leaves nothing to keep, and the run is tried again (3 times at most).
cat >"$TMP/slow.json" <<'JSON'
{"name": "slow", "seed": 5, "shard_cases": 40,
 "sizes": [{"n": 100000, "solutions": 6, "compositions_per_solution": 20}]}
JSON
run "$NQC" run "$TMP/slow.json" -o "$TMP/slow-clean" -q
expect_exit 0 "uninterrupted run of 3 shards of 40 slow cases"
partial=""
for attempt in 1 2 3; do
  rm -rf "$TMP/slow"
  "$NQC" run "$TMP/slow.json" -o "$TMP/slow" >"$TMP/slow.log" 2>&1 &
  pid=$!
  wait_for_shards "$TMP/slow" 1
  sleep 0.2
  kill -TERM "$pid"
  wait "$pid"
  partial=$(ls "$TMP/slow/shards" 2>/dev/null | grep '^partial-[0-9]*\.h5$' | head -n 1)
  [ -n "$partial" ] && break
done
check "SIGTERM mid-shard: the finished cases are kept ($partial, attempt $attempt)" \
  grep -q "kept in $TMP/slow/shards/$partial" "$TMP/slow.log"
# Before the resume every command reads the partial file's cases, as info counts them.
info_cases=$("$NQC" info "$TMP/slow" | awk '$1 == 100000 { print $2 }')
"$NQC" rows "$TMP/slow" >"$TMP/slow-rows.csv" 2>/dev/null
row_count=$(tail -n +2 "$TMP/slow-rows.csv" | grep -c .)
kept_case=$(grep "/shards/$partial\$" "$TMP/slow-rows.csv" | head -n 1 | cut -d, -f1)
check "unfinished run: rows lists info's $info_cases cases ($row_count), the partial file's by its name" \
  test -n "$kept_case" -a "$row_count" = "$info_cases"
run "$NQC" rerun "$TMP/slow" --case "$kept_case"
expect_exit 0 "rerun of case $kept_case, kept in $partial"
run "$NQC" run "$TMP/slow.json" -o "$TMP/slow" --resume
expect_exit 0 "--resume after SIGTERM mid-shard"
check "--resume continues the interrupted shard after its kept cases" \
  grep -q "continuing after the [0-9]* cases in $TMP/slow/shards/$partial" "$ERR_FILE"
check "--resume: no partial file left" test -z "$(ls "$TMP/slow/shards" | grep '^partial-')"
same_slow=$("$PYTHON" - "$TMP/slow-clean/results.h5" "$TMP/slow/results.h5" <<'PY'
import os, sys, h5py, pandas as pd
a, b = (pd.DataFrame(h5py.File(f)['cases'][()]).drop(columns=os.environ['NQC_RUN_DEPENDENT'].split(',')) for f in sys.argv[1:])
print(len(a), len(b), int(a.sort_values('case_id').reset_index(drop=True).equals(b.sort_values('case_id').reset_index(drop=True))))
PY
)
check "mid-shard SIGTERM + resume: the 120 rows of the clean run ($same_slow)" test "$same_slow" = "120 120 1"

# Under mpirun: SIGUSR1 to mpirun, which forwards it to the ranks (SIGTERM to mpirun also
# stops the ranks cleanly, but Open MPI's mpirun then exits 1 whatever the ranks return).
mpirun -np 2 --oversubscribe "$NQC" run "$TMP/work.json" -o "$TMP/usr1" -q >"$TMP/usr1.log" 2>&1 &
launcher=$!
wait_for_shards "$TMP/usr1" 2
kill -USR1 "$launcher"
wait "$launcher"
usr1_rc=$?
check "SIGUSR1 to mpirun: exit 4 (got $usr1_rc)" test "$usr1_rc" -eq 4
check "SIGUSR1 to mpirun: both ranks say to resume" test "$(grep -c "interrupted in shard .*; rerun with --resume to continue" "$TMP/usr1.log")" -eq 2
check "SIGUSR1 to mpirun: -q keeps the summary, which says so too" \
  test "$(grep -c "\] summary: .*(interrupted: rerun with --resume to continue)$" "$TMP/usr1.log")" -eq 1
check "SIGUSR1 to mpirun: no results.h5 yet" test ! -e "$TMP/usr1/results.h5"
run mpirun -np 2 --oversubscribe "$NQC" run "$TMP/work.json" -o "$TMP/usr1" --resume -q
expect_exit 0 "--resume after SIGUSR1 to mpirun"

same=$("$PYTHON" - "$TMP/clean/results.h5" "$TMP/killed/results.h5" "$TMP/termed/results.h5" "$TMP/usr1/results.h5" <<'PY'
import os, sys, h5py, pandas as pd
frames = [pd.DataFrame(h5py.File(f)['cases'][()]) for f in sys.argv[1:]]
cols = [c for c in frames[0].columns if c not in os.environ['NQC_RUN_DEPENDENT'].split(',')]
ref = frames[0][cols].sort_values('case_id').reset_index(drop=True)
out = [len(ref), int(ref.case_id.is_unique)]
for f in frames[1:]:
    g = f[cols].sort_values('case_id').reset_index(drop=True)
    out += [len(g), int(g.case_id.is_unique), int(g.equals(ref))]
print(*out)
PY
)
check "clean, killed+resumed, terminated+resumed and USR1+resumed runs hold the same 8000 rows, no duplicates ($same)" \
  test "$same" = "8000 1 8000 1 1 8000 1 1 8000 1 1"
summary
