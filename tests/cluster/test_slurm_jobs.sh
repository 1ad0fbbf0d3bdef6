#!/usr/bin/env bash
# jobs/submit on a 3-node Slurm of a simulated cluster (tests/cluster/lib.sh: slurmctld on the
# head node, one slurmd per host, srun --mpi=pmix across the hosts over TCP):
#   1. configs/ci.json --nodes 3 --ntasks 6 --wait: one run job with 2 ranks on each host;
#      it completes, the aggregation job runs once, every case is in results.h5 exactly once,
#      with the rows of a 1-rank run
#   2. configs/ci.json --array 3 --wait: 3 array tasks, on 3 different hosts (the partition
#      spreads jobs over the least loaded hosts, LLN); the same checks, one merge
# Exit 77 (ctest: skipped) only when not root or without `ip netns`; a Slurm that does not
# start is a failure.
# Usage: test_slurm_jobs.sh NQC PYTHON REPO
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 NQC PYTHON REPO" >&2
  exit 2
fi
PYTHON=$2
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
CONFIG=$REPO/configs/ci.json
SUBMIT=$REPO/jobs/submit
LIMIT=240  # seconds for one jobs/submit --wait: a hang fails the checks, not the whole test
py() {
  "$PYTHON" "$HERE/check.py" "$@" >"$TMP/py.out" 2>&1
  relay_checks "$TMP/py.out"
}
job_id() { sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" "$OUT_FILE"; }
# submit ARGS...: jobs/submit on the head node, bounded by LIMIT.
# shellcheck disable=SC2317 # called through run
submit() { on_head env NQC="$NQC" timeout -k 10 "$LIMIT" "$SUBMIT" "$@"; }
# aggregated DIR RUN_ID: the aggregation job ran exactly once, to its end.
aggregated() {
  local logs=("$1"/logs/nqc-ci-aggregate-*.out)
  check "$1: one aggregation job log (${#logs[@]}: ${logs[*]##*/})" test "${#logs[@]}" -eq 1 -a -f "${logs[0]}"
  check "$1: the aggregation job ran to its end ('done')" grep -q "nqc job [0-9]*: done$" "${logs[0]}"
  check "$1: the per-n table was written" test -s "$1/table.txt" -a -s "$1/table.csv"
  py merged "$1/results.h5" 1
}

step "slurm up"
slurm_up
run "$NQC" run --dry-run "$CONFIG" -o "$WORK/one"
planned=$(plan_field cases "$CONFIG" -o "$WORK/one")
check "run --dry-run prints the case count ($planned)" test -n "$planned"
run timeout 300 "$NQC" run "$CONFIG" -o "$WORK/one" -q
expect_exit 0 "the reference: nqc run on 1 rank"

step "1. jobs/submit ci.json --nodes 3 --ntasks 6 --wait"
D=$WORK/nodes
run submit "$CONFIG" --nodes 3 --ntasks 6 -o "$D" --wait
expect_exit 0 "jobs/submit --nodes 3 --ntasks 6 --wait"
run_id=$(job_id "run job")
log=$D/logs/nqc-ci-$run_id.out
check "the run job ran once and nqc finished (exit 0)" \
  bash -c "test \$(grep -c 'attempt [0-9]* on' '$log') -eq 1 && grep -q 'nqc finished (exit 0)' '$log'"
check "nqc ran on 6 ranks" grep -q "$planned cases on 6 rank(s)" "$log"
py once "$D/results.h5" "${planned:-0}"
py rows "$NQC" "$WORK/one/results.h5" "$D/results.h5"
py host_names "$D/results.h5" 1 nqc-h0,nqc-h1,nqc-h2
aggregated "$D"
"$PYTHON" "$HERE/check.py" launches "$D/results.h5"
[ "$FAILED" -eq 0 ] || sed 's/^/#   log: /' "$log" | cut -c1-220

step "2. jobs/submit ci.json --array 3 --wait"
D=$WORK/array
run submit "$CONFIG" --array 3 -o "$D" --wait
expect_exit 0 "jobs/submit --array 3 --wait"
array_id=$(job_id "run job")
hosts=""
for i in 0 1 2; do
  log=$D/logs/nqc-ci-${array_id}_$i.out
  check "part $i ran once and did its part: nqc run --part $i/3, finished (exit 0)" \
    bash -c "test \$(grep -c 'attempt [0-9]* on' '$log') -eq 1 && grep -q -- '--part $i/3 (1 task(s))' '$log' && grep -q 'nqc finished (exit 0)' '$log'"
  hosts+="$(attempt_host "$log" 1) "
done
distinct=$(echo "$hosts" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
check "the 3 parts ran on 3 different hosts ($hosts)" test "$distinct" = "nqc-h0 nqc-h1 nqc-h2 "
py once "$D/results.h5" "${planned:-0}"
py rows "$NQC" "$WORK/one/results.h5" "$D/results.h5"
aggregated "$D"
"$PYTHON" "$HERE/check.py" launches "$D/results.h5"
[ "$FAILED" -eq 0 ] || cat "$D"/logs/*.out | sed 's/^/#   log: /' | cut -c1-220

step "done"
echo "# total $((SECONDS - T0)) s"
summary
