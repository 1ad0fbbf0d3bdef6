#!/usr/bin/env bash
# Provenance of every launch: two launches stopped by SIGTERM (the first on
# 2 ranks), then a --part array of two tasks (Slurm variables set as sbatch sets them) and a
# merge in a requeued job: results.h5's `launches` table lists the five, truthfully (their
# ids, exit statuses, world sizes, parts, Slurm jobs, shards and cases, which one merged), each
# case row names the launch that ran it, and the root attributes describe the merged file.
# Not timing-dependent: the cases each end at a 0.5 s time limit, each SIGTERM is sent once a
# launch has written a shard file, and every count is checked against the rows themselves.
# Usage: test_launches.sh NQC PYTHON
set -u
NQC=$(realpath "$1")
PYTHON=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

# 24 slow cases (lib.sh's slow_instances: 0.5 s each), 2 per shard: 12 shards of about 1 s.
slow_instances "$TMP/inst" 24
cat >"$TMP/slow.json" <<'JSON'
{"name": "slow", "engine": "auto", "time_limit_s": 0.5, "shard_cases": 2, "instances": {"files": ["inst"]}}
JSON
D=$TMP/D
shards() { find "$D/shards" -name 'shard-*.h5' 2>/dev/null | wc -l; }

# stop_after_shard CMD...: runs CMD in the background, sends SIGTERM once one more shard file
# is on disk than before, and waits for it.
stop_after_shard() {
  local before pid
  before=$(shards)
  "$@" -q 2>>"$TMP/launches.err" &
  pid=$!
  for _ in $(seq 1 300); do
    [ "$(shards)" -gt "$before" ] && break
    sleep 0.1
  done
  kill -TERM "$pid"
  wait "$pid"
}

stop_after_shard mpirun -np 2 "$NQC" run "$TMP/slow.json" -o "$D"
check "launch 1 (2 ranks) wrote a shard before SIGTERM" test "$(shards)" -ge 1
stop_after_shard "$NQC" run "$TMP/slow.json" -o "$D" --resume
check "launch 2 wrote another" test "$(shards)" -ge 2
check "no launch has merged yet" test ! -e "$D/results.h5"

# The array: two tasks of Slurm job 700 (array job 700, tasks 0 and 1) at once.
SLURM_JOB_ID=701 SLURM_ARRAY_JOB_ID=700 SLURM_ARRAY_TASK_ID=0 "$NQC" run "$TMP/slow.json" -o "$D" --part 0/2 -q &
p0=$!
SLURM_JOB_ID=702 SLURM_ARRAY_JOB_ID=700 SLURM_ARRAY_TASK_ID=1 "$NQC" run "$TMP/slow.json" -o "$D" --part 1/2 -q &
p1=$!
wait "$p0"
rc0=$?
wait "$p1"
rc1=$?
check "the array's tasks end with exit 0 ($rc0, $rc1)" test "$rc0" -eq 0 -a "$rc1" -eq 0
check "every shard is on disk" test "$(shards)" -eq 12
run env SLURM_JOB_ID=703 SLURM_RESTART_COUNT=1 "$NQC" run "$TMP/slow.json" -o "$D" --resume -q
expect_exit 0 "the merge job (requeued once) writes results.h5"

"$PYTHON" - "$D/results.h5" >"$TMP/check.out" 2>&1 <<'PY'
import sys
import h5py
import numpy as np

def check(ok, what):
    print(("ok - " if ok else "FAIL - ") + what)

with h5py.File(sys.argv[1]) as f:
    cases = f["cases"][()]
    t = f["launches"][()]
    attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
s = lambda col: [x.decode() for x in t[col]]
check(list(t["id"]) == [1, 2, 3, 4, 5], f"the table lists launches 1..5 (ids {list(t['id'])})")
check(list(t["exit_status"]) == [4, 4, 0, 0, 0], f"exit statuses 4 4 0 0 0 (got {list(t['exit_status'])})")
check(list(t["world_size"]) == [2, 1, 1, 1, 1], f"world sizes 2 1 1 1 1 (got {list(t['world_size'])})")
# The array's two tasks start at once: either may register first (launch 3 or 4).
rows = [(int(p), int(k), j, a) for p, k, j, a in zip(t["part"], t["parts"], s("slurm_job_id"), s("slurm_array_task"))]
check(rows[:2] == [(0, 1, "", "")] * 2 and rows[4] == (0, 1, "703", ""),
      f"launches 1, 2 and 5: whole-plan launches, 5 in Slurm job 703 (got {rows})")
check(sorted(rows[2:4]) == [(0, 2, "701", "700_0"), (1, 2, "702", "700_1")],
      f"launches 3 and 4: parts 0/2 and 1/2 in array job 700, tasks 0 and 1 (got {rows[2:4]})")
check(s("slurm_restart_count") == ["", "", "", "", "1"], f"restart counts (got {s('slurm_restart_count')})")
check(list(t["merged"]) == [0, 0, 0, 0, 1], f"only launch 5 merged (got {list(t['merged'])})")
check(all(x for x in s("end_utc")) and all(a <= b for a, b in zip(s("start_utc"), s("end_utc"))),
      "every launch has a start and a later end")
check(s("start_utc") == sorted(s("start_utc")), "ids in the order the launches started")
ids, counts = np.unique(cases["launch"], return_counts=True)
by_rows = dict(zip(ids.tolist(), counts.tolist()))
by_table = {int(i): int(c) for i, c in zip(t["id"], t["cases_done"]) if c}
check(by_rows == by_table, f"each launch's cases_done is the number of rows that name it ({by_table} vs rows {by_rows})")
check(set(by_rows) <= {1, 2, 3, 4} and 1 in by_rows and 2 in by_rows,
      f"rows name launches 1-4, including both stopped ones (got {sorted(by_rows)})")
check(int(t["shards_done"].sum()) == 12 and t["shards_done"][4] == 0,
      f"the launches wrote the 12 shard files between them, the merge none (got {list(t['shards_done'])})")
check(len(cases) == 24 and int(t["cases_done"].sum()) == 24, "24 cases, each counted once")
check(attrs.get("launches") == 5 and "world_size" not in attrs and "hostname" not in attrs,
      f"root attributes: launches = 5, no world_size or hostname of one launch (got {sorted(attrs)})")
check(attrs.get("start_utc") == s("start_utc")[0] and attrs.get("end_utc", "") >= s("end_utc")[3],
      "results.h5 spans the first launch's start to the merge")
PY
relay_checks "$TMP/check.out"

# A merge killed part-way leaves results.h5.tmp and no results.h5 (the shards untouched):
# --resume merges again, over the leftover.
cp "$D/results.h5" "$TMP/first.h5"
mv "$D/results.h5" "$D/results.h5.tmp"
head -c 5000 "$D/results.h5.tmp" >"$D/results.h5.tmp.cut" && mv "$D/results.h5.tmp.cut" "$D/results.h5.tmp"
before=$(cd "$D/shards" && sha256sum ./*)
run "$NQC" run "$TMP/slow.json" -o "$D" --resume -q
expect_exit 0 "after a merge killed part-way (a truncated results.h5.tmp), --resume merges again"
check "the shard files were not touched" test "$(cd "$D/shards" && sha256sum ./*)" = "$before"
check "no temporary file is left" test ! -e "$D/results.h5.tmp"
"$PYTHON" - "$TMP/first.h5" "$D/results.h5" >"$TMP/again.out" 2>&1 <<'PY'
import sys
import h5py
a, b = (h5py.File(f)["cases"][()] for f in sys.argv[1:])
t = h5py.File(sys.argv[2])["launches"][()]
print(("ok - " if (a == b).all() else "FAIL - ") + "the same rows as the first merge, launch ids included")
print(("ok - " if list(t["id"]) == [1, 2, 3, 4, 5, 6] and list(t["merged"]) == [0, 0, 0, 0, 1, 1]
       else "FAIL - ") + f"the second merge is launch 6 (ids {list(t['id'])}, merged {list(t['merged'])})")
PY
relay_checks "$TMP/again.out"

# nqc info: what the directory holds, with its launches.
run "$NQC" info "$D"
expect_exit 0 "nqc info DIR"
schema=$("$NQC" info --columns --json | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["schema_version"])')
expect_stdout_line "$D: config slow, schema $schema, nqc $("$NQC" -V | sed -n 's/^nqc \([^ ]*\) (git \(.*\))$/\1 (git \2)/p')" \
  "the first line names the config, the schema and the nqc that merged"
expect_stdout_line "$(printf '%12s %12s %12s %12s %12s %12s %12s' n diags files cases solved infeasible gave_up)" \
  "an instance run: its cases by n and diags, no false-negative column"
expect_stdout_line "$(printf '%12s %12s %12s %12s %12s %12s %12s' 40 40 24 24 0 0 24)" "24 cases of n = 40 with all 40 diagonals excluded, 24 files, all gave up"
expect_stdout_line "launches: 6" "six launches listed"
check "their exit statuses: 4 4 0 0 0 0" test "$(awk '/^launches:/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $(NF - 3) }' "$OUT_FILE" | tr '\n' ' ')" = "4 4 0 0 0 0 "
run "$NQC" info "$D/shards/shard-000000.h5"
expect_exit 0 "nqc info on one shard file"
expect_stdout_contains "launches: none recorded" "a shard file has no launches table"
rm "$D/results.h5"
run "$NQC" info "$D"
expect_stdout_contains "not merged: 12 shard files and 0 partial files read" "a directory not merged: its shard files, said so"
expect_stdout_line "launches: 6" "... and its launch records"
# A damaged launch record: named (file and reason), its launch listed by id; the merge warns too.
printf '{"id": 2, "start_utc": ' >"$D/launches/launch-000002.json"
run "$NQC" info "$D"
expect_exit 0 "nqc info with a damaged launch record"
check "stderr names the record and why it is damaged" grep -qxF \
  "nqc: warning: $D/launches/launch-000002.json: damaged (parse error at line 1, column 24: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal); launch 2 is listed with its id only" "$ERR_FILE"
check "launch 2 is listed as a damaged record, exit and counts unknown" grep -qE '^ +2 +- +- +0 +- +\(record damaged\) +- +- +- +- +no$' "$OUT_FILE"
run "$NQC" run "$TMP/slow.json" -o "$D" --resume
expect_exit 0 "the merge goes on with a damaged launch record"
check "... and warns naming it" grep -qF "[warning] $D/launches/launch-000002.json: damaged (" "$ERR_FILE"
check "nothing logged an error" test "$(grep -c '\[error\]\|\[critical\]' "$TMP/launches.err")" -eq 0
summary
