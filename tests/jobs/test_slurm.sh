#!/usr/bin/env bash
# jobs/ against a real single-node Slurm (munged + slurmctld + slurmd from Debian, started here
# by tests/jobs/slurm-harness.sh and stopped by PID whatever happens):
#   1. configs/ci.json as a 2-task job with a set-up line: the same rows as a direct `nqc run`; the table
#   2. a 2-part job array (--time 1-0) plus the aggregation job (afterok): the merged rows and table
#   3. resubmitting a finished config into its directory resumes (merges) instead of starting over
#   4. a job whose time limit expires mid-run: SIGUSR1, nqc exit 4, requeue, resume, until the
#      plan is done with no lost or duplicated rows (its work sized in wall-clock seconds by
#      cases slow on purpose, so it runs the same on an idle and on a loaded machine: 2 attempts)
#   5. scancel: nqc stops with exit 4, no requeue, the aggregation job is cancelled; a
#      resubmission resumes from the shards on disk
#   6. bad input submits nothing; a slurmctld that does not answer is named in one line
#   7. --wait tells a failed study: a run job that fails (exit 53) and its aggregation job that
#      Slurm cancels (DependencyNeverSatisfied) are each named, exit 1; a failed array task
#      (nqc's io_error, 7) is named as JOB_TASK and its code is submit's
#   8. nqc knows the world it runs in: `srun --mpi=none -n 2` (two worlds of one rank each) and a
#      2-task batch script that starts nqc without a launcher are refused with one line, exit 1,
#      nothing written; `srun --mpi=pmix -n 2` runs one 2-rank world
# Exit 77 (ctest: skipped) only when Slurm cannot start here, with the reason.
# Usage: test_slurm.sh NQC PYTHON REPO
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 NQC PYTHON REPO" >&2
  exit 2
fi
NQC=$(readlink -f "$1")
PYTHON=$2
REPO=$(cd "$3" && pwd -P)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../cli/lib.sh
source "$REPO/tests/cli/lib.sh"
# shellcheck source=slurm-harness.sh
source "$HERE/slurm-harness.sh"
export NQC
SUBMIT=$REPO/jobs/submit
CONFIG=$REPO/configs/ci.json
LIMIT=300  # seconds for any one submission with --wait

TMP=$(cd "$TMP" && pwd -P)
# The cluster's directory: under /tmp, whatever TMPDIR is, because munged runs as user munge
# and must reach its socket and key there.
SLURM_DIR=$(mktemp -d /tmp/nqc-slurm-test.XXXXXX) || exit 1
chmod 0755 "$SLURM_DIR"
cleanup() {
  slurm_down "$SLURM_DIR"
  rm -rf "$TMP" "$SLURM_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP  # through the EXIT trap
T0=$SECONDS
if ! slurm_up "$SLURM_DIR" 2>"$TMP/slurm-up.err"; then
  echo "SKIP: a local single-node Slurm cannot start here: $(cat "$TMP/slurm-up.err")"
  exit 77
fi
slurm_watchdog "$SLURM_DIR" $$  # stops the cluster even if this script is killed with SIGKILL
echo "# slurm up in $((SECONDS - T0)) s: $(sinfo -h -o '%P %D node(s) %c CPUs %t'), SLURM_CONF=$SLURM_CONF"

step_start=$SECONDS
step() {
  echo "# ---- $* ($(date -u +%H:%M:%S); previous step took $((SECONDS - step_start)) s)"
  step_start=$SECONDS
}

# py CHECK ARGS...: the checks of compare.py, counted here.
py() {
  "$PYTHON" "$HERE/compare.py" "$@" >"$TMP/py.out" 2>&1
  relay_checks "$TMP/py.out"
}

# slow_instances DIR COUNT: an instance set of 3 easy compositions (n = 12, solved in
# microseconds: easy-*.txt, the first 3 cases) and COUNT slow cases (slow-*.param). A slow case
# is the empty 40 x 40 board with every other difference diagonal and the main one excluded:
# 40 queens need 40 difference diagonals and 39 are left, so it has no completion, but the
# bitboard search cannot prove that in any time a test allows (the same board at n = 24: 3.4
# million nodes, 0.26 s; n = 28: over 90 million nodes and 10 s; about 30x per 4 rows). Each
# slow case therefore ends at the config's time limit, SLOW_CASE_S of wall time, whatever the
# machine's speed or load: the work of a job is sized in seconds, not in cases.
SLOW_CASE_S=0.5
slow_instances() {
  mkdir -p "$1"
  "$NQC" generate 12 --seed 3 -o "$1/solution.tmp"
  for i in a b c; do "$NQC" derive "$1/solution.tmp" -k 5 --seed "$(printf '%d' "'$i")" -o "$1/easy-$i.txt"; done
  rm "$1/solution.tmp"
  local diags i
  diags=$(for ((a = 1; a < 79; a += 2)); do printf '[%d, 0], ' "$a"; done)
  printf 'n = 40\nnumdiags = 40\ndiags = [%s[39, 0]]\n' "$diags" >"$1/slow-0000.param"
  for ((i = 1; i < $2; i++)); do cp "$1/slow-0000.param" "$(printf '%s/slow-%04d.param' "$1" "$i")"; done
}

job_id() { sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" "$OUT_FILE"; }
# launches FILE: "world_size slurm_job_id merged" of each row of FILE's launches table (merged a bool: True)
launches() { "$PYTHON" -c 'import sys, h5py; [print(r["world_size"], r["slurm_job_id"].decode(), r["merged"]) for r in h5py.File(sys.argv[1], "r")["launches"][()]]' "$1" 2>&1; }
# gone IDS: none of the jobs IDS (comma-separated) is queued or running any more
gone() { [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; }

step "direct nqc run of configs/ci.json (the reference)"
run "$NQC" run "$CONFIG" -o "$TMP/direct" -q
expect_exit 0 "direct nqc run"
run "$NQC" aggregate "$TMP/direct" --csv "$TMP/direct.csv"
expect_exit 0 "nqc aggregate of the direct run"

step "1. configs/ci.json as a 2-task job"
# shellcheck disable=SC2016 # expanded in the job
run timeout "$LIMIT" "$SUBMIT" "$CONFIG" --ntasks 2 -o "$TMP/job" --wait --setup 'echo "set-up line of job $SLURM_JOB_ID"'
expect_exit 0 "jobs/submit ci.json --ntasks 2 --wait"
run_id=$(job_id "run job")
agg_id=$(job_id "aggregation job")
check "prints the run and aggregation job ids ($run_id, $agg_id)" test -n "$run_id" -a -n "$agg_id"
expect_stdout_line "results:         $TMP/job/results.h5" "prints where the results are"
expect_stdout_line "logs:            $TMP/job/logs/nqc-ci-$run_id.out" "prints where the log is"
expect_stdout_line "done: every job completed; $TMP/job/results.h5 is complete" "--wait: both jobs completed, nqc finds results.h5 complete"
log=$TMP/job/logs/nqc-ci-$run_id.out
check "the set-up line ran in the job" grep -qx "set-up line of job $run_id" "$log"
check "the job ran nqc with srun --mpi=pmix" grep -q "srun --mpi=pmix $NQC run $CONFIG -o $TMP/job --resume" "$log"
check "on 2 ranks" grep -q "230 cases on 2 rank(s)" "$log"
check "results.h5's launches table: one launch, 2 ranks, in the run job, merged" \
  test "$(launches "$TMP/job/results.h5")" = "2 $run_id True"
py rows "$TMP/direct/results.h5" "$TMP/job/results.h5"
check "the aggregation job wrote table.txt and table.csv" test -s "$TMP/job/table.txt" -a -s "$TMP/job/table.csv"
py tables "$TMP/direct.csv" "$TMP/job/table.csv"
if [ -f "$REPO/analysis/__main__.py" ]; then
  check "the aggregation job wrote the analysis report" test -s "$TMP/job/report/report.md"
fi

step "2. a 2-part job array and the aggregation job"
run timeout "$LIMIT" "$SUBMIT" "$CONFIG" --array 2 --time 1-0 -o "$TMP/array" --wait
expect_exit 0 "jobs/submit ci.json --array 2 --time 1-0 --wait"
array_id=$(job_id "run job")
agg_id=$(job_id "aggregation job")
expect_stdout_line "aggregation job: $agg_id (starts when job $array_id has succeeded)" "the aggregation job depends on the array"
for i in 0 1; do
  check "part $i ran nqc run --part $i/2" grep -q -- "--part $i/2 (1 task(s))" "$TMP/array/logs/nqc-ci-${array_id}_$i.out"
  check "part $i did its part only" grep -q "(part $i/2: " "$TMP/array/logs/nqc-ci-${array_id}_$i.out"
done
agg_log=$TMP/array/logs/nqc-ci-aggregate-$agg_id.out
check "the aggregation job merged once both parts were done (15 shards already done)" \
  grep -q "230 cases on 1 rank(s); 15 shards already done" "$agg_log"
py rows "$TMP/direct/results.h5" "$TMP/array/results.h5"
py tables "$TMP/direct.csv" "$TMP/array/table.csv"

step "3. resubmitting ci.json into the 2-task job's directory"
run timeout "$LIMIT" "$SUBMIT" "$CONFIG" --ntasks 2 -o "$TMP/job" --wait --no-aggregate
expect_exit 0 "the resubmission"
run_id=$(job_id "run job")
check "it found the run finished (nothing to do)" \
  grep -qF "$TMP/job: the run of this config is finished" "$TMP/job/logs/nqc-ci-$run_id.out"
py rows "$TMP/direct/results.h5" "$TMP/job/results.h5"

step "4. a job whose time limit (2 min) expires mid-run"
# Work sized in wall-clock seconds, not by this machine's speed: slow cases that each end at
# the per-case time limit (SLOW_CASE_S) on any machine, idle or loaded (slow_instances). When
# Slurm signals: slurmctld checks time limits every 30 s, and signals at the first check with
# at most GRACE + 30 s left (it may signal up to 60 s early): with --time 00:02:00 --grace 30,
# 60..90 s after an attempt starts. 420 slow cases on 2 ranks are 105 s of wall time: more than
# the first attempt can do (90 s at most), and what is left (at most 105 - 60 + its start-up)
# less than a second attempt does before its own signal: 2 attempts by design (3 are allowed,
# for a check of slurmctld's that comes late).
slow_instances "$TMP/tl-inst" 420
printf '{"name": "timelimit", "engine": "bitboard", "time_limit_s": %s, "shard_cases": 10, "instances": {"files": ["tl-inst"]}}\n' \
  "$SLOW_CASE_S" >"$TMP/timelimit.json"
# 3 attempts of at most 2 min, and Slurm's requeues (about 10 s each): under 6 min.
run timeout 600 "$SUBMIT" "$TMP/timelimit.json" --ntasks 2 --time 00:02:00 --grace 30 -o "$TMP/tl" --wait
expect_exit 0 "jobs/submit timelimit.json --time 00:02:00 --grace 30 --wait"
tl_id=$(job_id "run job")
log=$TMP/tl/logs/nqc-timelimit-$tl_id.out
check "#SBATCH --signal=B:USR1@30 and --requeue in the batch script" \
  bash -c "grep -qx '#SBATCH --signal=B:USR1@30' '$TMP/tl/jobs/run.sbatch' && grep -qx '#SBATCH --requeue' '$TMP/tl/jobs/run.sbatch'"
warnings=$(grep -c "(SIGUSR1)" "$log")
requeues=$(grep -c "stopped at the time limit (exit 4): requeueing" "$log")
interrupted=$(grep -c "\[warning\] interrupted in shard" "$log")
attempts=$(grep -c "nqc job $tl_id: attempt [0-9]* on" "$log")
check "Slurm sent SIGUSR1 before the limit ($warnings times)" test "$warnings" -ge 1
# (A warning during the last case may let nqc finish instead: requeues <= warnings.)
check "nqc stopped with exit 4 and the job requeued itself ($requeues times)" test "$requeues" -ge 1 -a "$requeues" -le "$warnings"
check "the ranks stopped after their current case ($interrupted 'interrupted in shard' lines)" test "$interrupted" -ge 1
check "the requeued job resumed: attempts 1..$attempts (2 by design, 3 at most), the last one finished" \
  bash -c "test $attempts -eq $((requeues + 1)) -a $attempts -le 3 && grep -q 'attempt $attempts on' '$log' && tail -n 1 '$log' | grep -q 'nqc finished (exit 0)'"
check "the job never reached its hard time limit" bash -c "! grep -q 'DUE TO TIME LIMIT' '$log'"
check "--wait followed the job through its $requeues requeue(s)" \
  test "$(grep -c "^job $tl_id requeued (restart [0-9]*): following it\$" "$OUT_FILE")" -eq "$requeues"
# The time line of the attempts: when each started and when SIGUSR1 came (the whole log when a check failed).
if [ "$FAILED" -gt 0 ]; then sed 's/^/#   /' "$log" | cut -c1-200; else
  grep -E "attempt [0-9]+ on|\(SIGUSR1\)|already done|requeueing|nqc finished" "$log" | sed -E 's/^/#   /; s/ on [^:]*: srun .*$//' | cut -c1-150
fi
py slow "$TMP/tl/results.h5" 423 3 "$SLOW_CASE_S"
for c in 0 1 2; do
  run "$NQC" rerun "$TMP/tl/results.h5" --case "$c"
  expect_exit 0 "nqc rerun of easy case $c from the requeued run gives the stored outcome and backtracks"
done

step "5. scancel of a running job, then the same submission again"
# 100 slow cases: 25 s of wall time on 2 ranks on any machine, so the job still runs when the
# first shard file appears (5 s) and scancel comes.
slow_instances "$TMP/cancel-inst" 100
printf '{"name": "cancel", "engine": "bitboard", "time_limit_s": %s, "shard_cases": 10, "instances": {"files": ["cancel-inst"]}}\n' \
  "$SLOW_CASE_S" >"$TMP/cancel.json"
run "$SUBMIT" "$TMP/cancel.json" --ntasks 2 -o "$TMP/cancel"
expect_exit 0 "jobs/submit cancel.json"
run_id=$(job_id "run job")
agg_id=$(job_id "aggregation job")
for _ in $(seq 1 600); do
  compgen -G "$TMP/cancel/shards/*.h5" >/dev/null && break
  sleep 0.1
done
run "$SUBMIT" "$TMP/cancel.json" --ntasks 2 -o "$TMP/cancel"
expect_exit 1 "a second submission while the first job runs"
expect_stderr_line "submit: error: job $run_id is still queued or running for $TMP/cancel: wait for it, or scancel $run_id first (a new submission resumes)" \
  "it is refused, naming the running job"
scancel "$run_id"
for _ in $(seq 1 300); do gone "$run_id,$agg_id" && break; sleep 0.2; done
check "the run job and its aggregation job are gone" gone "$run_id,$agg_id"
log=$TMP/cancel/logs/nqc-cancel-$run_id.out
check "scancel: the batch script saw SIGTERM" grep -q "SIGTERM (scancel" "$log"
check "scancel: nqc stopped with exit 4" grep -q "nqc stopped (exit 4): " "$log"
check "scancel: no requeue" bash -c "! grep -q requeueing '$log'"
check "scancel: the aggregation job never ran" test ! -e "$TMP/cancel/logs/nqc-cancel-aggregate-$agg_id.out"
shard_files=("$TMP"/cancel/shards/shard-*.h5)  # partial-*.h5: finished cases of interrupted shards
done_before=${#shard_files[@]}
run timeout "$LIMIT" "$SUBMIT" "$TMP/cancel.json" --ntasks 2 -o "$TMP/cancel" --wait
expect_exit 0 "the same submission again"
run_id=$(job_id "run job")
check "it resumed from the $done_before shards on disk" \
  grep -q "103 cases on 2 rank(s); $done_before shards already done" "$TMP/cancel/logs/nqc-cancel-$run_id.out"
py slow "$TMP/cancel/results.h5" 103 3 "$SLOW_CASE_S"

step "6. bad input submits nothing"
before=$(squeue -h -o %i | wc -l)
run "$SUBMIT" "$TMP/missing.json" --ntasks 2
expect_exit 1 "a missing config"
run "$SUBMIT" "$CONFIG" --time 1h -o "$TMP/bad"
expect_exit 1 "a malformed --time"
printf '{"name": "x", "sizes": [{"n": 8}]}\n' >"$TMP/invalid.json"
run "$SUBMIT" "$TMP/invalid.json" -o "$TMP/bad"
expect_exit 1 "an invalid config"
check "nothing was submitted ($before jobs before and after)" test "$(squeue -h -o %i | wc -l)" -eq "$before" -a ! -e "$TMP/bad"
# This cluster's slurm.conf with a port where no slurmctld listens: the real clients' failure.
sed "s/^SlurmctldPort=.*/SlurmctldPort=$(slurm_free_port)/" "$SLURM_CONF" >"$SLURM_DIR/unreachable.conf"
run env SLURM_CONF="$SLURM_DIR/unreachable.conf" "$SUBMIT" "$CONFIG" -o "$TMP/bad"
expect_exit 1 "no slurmctld at SLURM_CONF's address"
check "no slurmctld: one line on stderr" test "$(wc -l <"$ERR_FILE")" -eq 1
check "no slurmctld: the line names the unreachable cluster" grep -qxE "submit: error: no Slurm cluster reachable: squeue failed: .*Unable to contact slurm controller.* \(is slurmctld up\? SLURM_CONF=$SLURM_DIR/unreachable.conf\)" "$ERR_FILE"
check "no slurmctld: nothing written" test ! -e "$TMP/bad"

step "7. --wait when the run job fails"
# A set-up line that fails: the run job ends FAILED with its code before nqc starts, and Slurm
# cancels the aggregation job without running it (afterok can never be satisfied).
run timeout "$LIMIT" "$SUBMIT" "$CONFIG" -o "$TMP/fail" --setup 'exit 53' --wait
expect_exit 1 "--wait: the run job failed with 53 (not one of nqc's codes)"
run_id=$(job_id "run job")
agg_id=$(job_id "aggregation job")
printf '%s\n' "submit: job $run_id (run): FAILED, exit code 53, reason NonZeroExitCode; log $TMP/fail/logs/nqc-ci-$run_id.out" \
  "submit: job $agg_id (aggregation): CANCELLED, reason DependencyNeverSatisfied; log $TMP/fail/logs/nqc-ci-aggregate-$agg_id.out" >"$TMP/fail.want"
check "--wait names the failed run job and the cancelled aggregation job, one line each" cmp -s "$TMP/fail.want" "$ERR_FILE"
check "--wait: no 'done' line" bash -c "! grep -q '^done' '$OUT_FILE'"
# shellcheck disable=SC2016 # expanded in the job
run timeout "$LIMIT" "$SUBMIT" "$CONFIG" --array 2 --time 1-0 -o "$TMP/fail-array" --wait \
  --setup '[[ ${SLURM_ARRAY_TASK_ID:-} != 1 ]] || exit 7'
expect_exit 7 "--wait: array task 1 failed with nqc's io_error (7): submit exits 7"
array_id=$(job_id "run job")
agg_id=$(job_id "aggregation job")
printf '%s\n' "submit: job ${array_id}_1 (run): FAILED, exit code 7 (io_error), reason NonZeroExitCode; log $TMP/fail-array/logs/nqc-ci-${array_id}_1.out" \
  "submit: job $agg_id (aggregation): CANCELLED, reason DependencyNeverSatisfied; log $TMP/fail-array/logs/nqc-ci-aggregate-$agg_id.out" >"$TMP/fail.want"
check "--wait names the failed array task (JOB_TASK) and the cancelled aggregation job; task 0 completed" \
  cmp -s "$TMP/fail.want" "$ERR_FILE"
if [ "$FAILED" -gt 0 ]; then sed 's/^/#   stderr: /' "$ERR_FILE"; fi

step "8. the world nqc runs in is the one Slurm gave"
run timeout "$LIMIT" salloc -Q -n 2 srun --mpi=none -n 2 "$NQC" run "$CONFIG" -o "$TMP/mpi-none"
expect_exit 1 "srun --mpi=none -n 2 nqc run: refused"
check "srun --mpi=none: one line, from the first task only" test "$(grep -c 'nqc: error: srun started 2 tasks (SLURM_STEP_NUM_TASKS), but they form no MPI world: each would run alone: start nqc with srun --mpi=pmix (or mpirun), or with srun -n 1' "$ERR_FILE")" -eq 1
check "srun --mpi=none: nothing written" test ! -e "$TMP/mpi-none"
run timeout "$LIMIT" sbatch -Q --wait -n 2 -o "$TMP/bare.out" --wrap "$NQC run $CONFIG -o $TMP/bare"
expect_exit 1 "a 2-task batch script that runs nqc without a launcher: the job fails"
check "without a launcher: the one line says what to do" \
  grep -qx "nqc: error: Slurm gave this job 2 tasks (SLURM_NTASKS), but nqc was started without a launcher, as 1 rank: start it with srun --mpi=pmix (or mpirun), or ask for 1 task" "$TMP/bare.out"
check "without a launcher: nothing written" test ! -e "$TMP/bare"
run timeout "$LIMIT" salloc -Q -n 2 srun --mpi=pmix -n 2 "$NQC" run "$CONFIG" -o "$TMP/pmix" -q
expect_exit 0 "srun --mpi=pmix -n 2 nqc run"
check "srun --mpi=pmix -n 2: one world of 2 ranks (launches: 2 ranks on one host)" \
  bash -c "'$NQC' info '$TMP/pmix' | grep -qE '^ +1 .* 2 - +[^ ]+:0-1 '"

step "done"
echo "# total $((SECONDS - T0)) s"
summary
