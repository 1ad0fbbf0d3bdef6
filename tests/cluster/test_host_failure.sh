#!/usr/bin/env bash
# A host dies in the middle of a run job that spans 3 hosts of a simulated cluster
# (tests/cluster/lib.sh: a 3-node Slurm, SlurmdTimeout 10 s, JobRequeue):
#   jobs/submit CONFIG --ntasks 3 --sbatch=--nodes=2-3 --wait, one rank per host (Slurm gives a
#   job as many nodes of the range as are up: 3 now, 2 after the failure). Once the run has
#   written its first shards, VICTIM dies as a powered-off node does: its cable is cut, then
#   every process on it (slurmd, slurmstepd, its rank; with the default victim, the batch
#   script, srun and rank 0, which holds the results directory's lock) is killed.
# Then: Slurm marks the host down and requeues the job instead of leaving it hanging; the job
# runs again on the 2 remaining hosts, resumes from the shards on disk (no lock left behind
# blocks it), completes; the aggregation job runs once; every case of the plan is in
# results.h5 exactly once, with the rows of a 1-rank run.
# The work is sized in cases (exact search, n = 1000, 500 queens given: 10-40 ms a case), not
# in seconds: the run is still going when its first shards appear, on any machine; nothing is
# checked against the clock, every wait is bounded (LIMIT).
# Exit 77 (ctest: skipped) only when not root or without `ip netns`.
# Usage: test_host_failure.sh NQC PYTHON REPO [rank0|other]
#   rank0 (default): the victim is the batch host (rank 0, the lock holder, srun); other: a
#   host with a rank but not the batch host.
set -u
if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: $0 NQC PYTHON REPO [rank0|other]" >&2
  exit 2
fi
PYTHON=$2
WHICH=${4:-rank0}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../cli/lib.sh
source "$(cd "$3" && pwd -P)/tests/cli/lib.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
cluster_require
T0=$SECONDS
cluster_up 3
NQC=$(cluster_shared "$1")
REPO=$(cluster_shared_repo "$3")
SUBMIT=$REPO/jobs/submit
LIMIT=300  # seconds for the whole submission with --wait: a hang fails the test, it does not block it
py() {
  "$PYTHON" "$HERE/check.py" "$@" >"$TMP/py.out" 2>&1
  relay_checks "$TMP/py.out"
}
job_id() { sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" "$2"; }
shards_on_disk() { find "$D/shards" -name 'shard-*.h5' 2>/dev/null | wc -l; }

# 1200 cases in 60 shards of 20 (10-40 ms a case on one core here).
mkdir -p "$WORK/cfg"
cat >"$WORK/cfg/hostfail.json" <<'JSON'
{"name": "hostfail", "seed": 11, "engine": "exact",
 "sizes": [{"n": 1000, "solutions": 20, "compositions_per_solution": 60}],
 "k": {"fixed": 500}, "shard_cases": 20, "output": "out"}
JSON
CONFIG=$WORK/cfg/hostfail.json
D=$WORK/out

step "slurm up"
slurm_up
run "$NQC" run --dry-run "$CONFIG" -o "$D"
planned=$(plan_field cases "$CONFIG" -o "$D")
shards=$(plan_field shards "$CONFIG" -o "$D")
check "run --dry-run prints the plan ($planned cases in $shards shards)" test -n "$planned" -a -n "$shards"
rm -rf "$D"

step "the run job on 3 hosts, until its first shards are on disk"
on_head env NQC="$NQC" timeout -k 10 "$LIMIT" "$SUBMIT" "$CONFIG" --ntasks 3 --sbatch=--nodes=2-3 -o "$D" --wait --no-aggregate \
  >"$TMP/submit.out" 2>"$TMP/submit.err" &
submit_pid=$!
# The reference, meanwhile (the cluster waits for Slurm most of the time): 1 rank, no Slurm.
timeout 600 "$NQC" run "$CONFIG" -o "$WORK/one" -q >"$TMP/one.out" 2>&1 &
one_pid=$!
for _ in $(seq 1 1200); do  # 120 s at most
  [ "$(shards_on_disk)" -ge 2 ] && break
  kill -0 "$submit_pid" 2>/dev/null || break
  sleep 0.1
done
run_id=$(job_id "run job" "$TMP/submit.out")
log=$D/logs/nqc-hostfail-$run_id.out
batch_host=$(attempt_host "$log" 1)
at_kill=$(shards_on_disk)
check "the run job (${run_id:-none}) started on 3 hosts: attempt 1 on ${batch_host:-?}, $at_kill shards on disk" \
  test -n "$run_id" -a -n "$batch_host" -a "$at_kill" -ge 2
nodes=$(on_head squeue -h -j "${run_id:-0}" -o %N 2>/dev/null)
check "its allocation is the 3 hosts ($nodes)" test "$nodes" = "nqc-h[0-2]"
if [ "$WHICH" = rank0 ]; then
  VICTIM=$batch_host
else
  for h in nqc-h2 nqc-h1 nqc-h0; do [ "$h" != "$batch_host" ] && { VICTIM=$h; break; }; done
fi
VICTIM=${VICTIM:-nqc-h0}

step "$VICTIM dies ($WHICH: batch host $batch_host)"
check "mid-run: no results.h5 yet, $at_kill of $shards shards on disk" test ! -e "$D/results.h5" -a "$at_kill" -lt "$shards"
host_kill "$VICTIM"
check "$VICTIM is gone: no process left in its namespace, no network" \
  bash -c "test -z \"\$(ip netns pids '$(cluster_ns "$VICTIM")')\" && ! ip -n '$(cluster_ns "$VICTIM")' link show eth0 >/dev/null 2>&1"

step "Slurm notices, requeues the job onto the 2 other hosts, it resumes and completes"
wait "$submit_pid"
submit_rc=$?
check "jobs/submit --wait ended by itself (not at its $LIMIT s bound): exit $submit_rc" test "$submit_rc" -ne 124 -a "$submit_rc" -ne 137
check "jobs/submit --wait: exit 0 (every job completed, results.h5 complete)" test "$submit_rc" -eq 0
sed 's/^/#   submit: /' "$TMP/submit.out" "$TMP/submit.err"
state=$(on_head sinfo -h -n "$VICTIM" -o %t 2>/dev/null)
check "Slurm marked $VICTIM down ($state)" bash -c "[[ '$state' == down* ]]"
attempts=$(grep -c "nqc job $run_id: attempt [0-9]* on" "$log")
check "the job ran twice: attempt 1 on 3 hosts, then attempt 2 (got $attempts attempts)" test "$attempts" -eq 2
second=$(attempt_host "$log" 2)
check "attempt 2 ran on a host that is up (${second:-none}, not $VICTIM)" test -n "$second" -a "$second" != "$VICTIM"
resumed=$(sed -n 's/.* \([0-9][0-9]*\) shards already done.*/\1/p' "$log" | tail -n 1)
check "attempt 2 resumed from the shards on disk (${resumed:-?} already done, $at_kill at the kill)" \
  test "${resumed:-0}" -ge "$at_kill"
check "attempt 2: nqc finished (exit 0)" bash -c "tail -n 1 '$log' | grep -q 'nqc finished (exit 0)'"
check "no lock left in the results directory" test -z "$(find "$D/locks" -name '*.lock' 2>/dev/null)"
py once "$D/results.h5" "${planned:-0}"
wait "$one_pid"
check "the reference run on 1 rank: exit $?" test -s "$WORK/one/results.h5"
py rows "$NQC" "$WORK/one/results.h5" "$D/results.h5"
py merged "$D/results.h5" 1
last=$("$PYTHON" -c 'import sys, h5py; print(len(h5py.File(sys.argv[1], "r")["launches"]))' "$D/results.h5" 2>/dev/null)
survivors=$(printf '%s\n' nqc-h0 nqc-h1 nqc-h2 | grep -vx "$VICTIM" | paste -sd,)
py host_names "$D/results.h5" "${last:-0}" "$survivors"
# The launch that the failure ended never recorded its end: its record must still say where it ran.
py host_names "$D/results.h5" 1 nqc-h0,nqc-h1,nqc-h2
"$PYTHON" "$HERE/check.py" launches "$D/results.h5"
grep -vE 'progress' "$log" | sed 's/^/#   log: /' | cut -c1-220
if [ "$FAILED" -gt 0 ]; then
  grep -E "requeue|not responding|DOWN|JobId=$run_id" "$CLUSTER_BASE/slurm/log/slurmctld.log" | sed 's/^/#   slurmctld: /' | tail -n 20
fi

step "done"
echo "# total $((SECONDS - T0)) s"
summary
