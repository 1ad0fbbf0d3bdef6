#!/usr/bin/env bash
# jobs/submit without a cluster: the directive lists and parameters of the batch scripts it
# generates, compared with tests/jobs/expected/ (lists, not whole files: the rest of each
# script is the static templates of jobs/templates/, checked by shellcheck here); the
# submission itself against a stand-in sbatch (inherited SBATCH_* variables must not reach
# it) and --wait against a stand-in scontrol (each job that did not complete named; exit 0 only
# when nqc finds results.h5 complete); set-up lines, time forms, --print --write; the run job's
# end against stand-ins for nqc (requeue on exit 4, exit codes 7 and 8 named, not requeued);
# and bad input: a clear one-line error, exit 1, and nothing submitted or written.
# (tests/jobs/test_submit.py tests the pieces.)
# Usage: test_batch_script.sh NQC REPO
#   UPDATE_EXPECTED=1 test_batch_script.sh NQC REPO   rewrites the expected files instead
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NQC REPO" >&2
  exit 2
fi
NQC=$(readlink -f "$1")
REPO=$(cd "$2" && pwd -P)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../cli/lib.sh
source "$REPO/tests/cli/lib.sh"
SUBMIT=$REPO/jobs/submit
export NQC
TMP=$(cd "$TMP" && pwd -P)
# In $TMP: its output "results/golden" is taken from the config's directory ($TMP/results/golden).
cp "$HERE/golden.json" "$TMP/golden.json"
CONFIG=$TMP/golden.json
SHELLCHECK=$(command -v shellcheck)

# The templates on their own, as they are in the repository. Without shellcheck (scripts/setup.sh
# installs it) this test fails, unless NQC_ALLOW_NO_SHELLCHECK=1 lets bash -n alone check them.
if [ -n "$SHELLCHECK" ]; then
  check "jobs/templates/*.sh pass shellcheck" shellcheck "$REPO"/jobs/templates/*.sh
elif [ "${NQC_ALLOW_NO_SHELLCHECK:-0}" = 1 ]; then
  echo "# shellcheck is not installed (NQC_ALLOW_NO_SHELLCHECK=1): the templates and scripts are checked with bash -n only"
else
  fail "shellcheck is installed (scripts/setup.sh installs it; NQC_ALLOW_NO_SHELLCHECK=1 checks with bash -n only)"
fi

# The run job names nqc's exit codes as EXIT[NAME] only (jobs/submit writes them from nqc info
# --constants --json), never by number; each NAME is one of nqc's.
names=$("$NQC" info --constants --json | /usr/bin/python3 -c 'import json, sys
print(" ".join(e["name"] for e in json.load(sys.stdin)["exit_codes"]))')
for name in $(grep -oE 'EXIT\[[a-z_]+\]' "$REPO/jobs/templates/run.sh" | sort -u | sed -E 's/EXIT\[(.*)\]/\1/'); do
  check "jobs/templates/run.sh: EXIT[$name] is one of nqc's exit codes ($names)" grep -qw -- "$name" <<<"$names"
done
check "jobs/templates/run.sh: no exit code by number" bash -c "! grep -nE '(exit|rc ==|rc=) *[1-9]' '$REPO/jobs/templates/run.sh'"

# placeholders: the generated text with this machine's paths replaced, longest first
placeholders() {
  local line
  while IFS= read -r line; do
    line=${line//"$NQC"/@NQC@}
    line=${line//"$CONFIG"/@CONFIG@}
    line=${line//"$TMP"/@TMP@}
    line=${line//"$REPO"/@REPO@}
    printf '%s\n' "$line"
  done
}

# spec: of `jobs/submit --print` output, what the job specifications say: the script headers,
# the #SBATCH directives and the parameter assignments (NAME=VALUE at the start of a line).
spec() { grep -E '^(# ==> .* <==|#SBATCH .*|[A-Z_]+=.*)$'; }

# scripts_pass NAME FILE: each script of a --print output FILE passes bash -n and shellcheck.
scripts_pass() {
  local name=$1 part
  rm -f "$TMP/$name".part*
  awk -v d="$TMP/$name.part" '/^# ==> .* <==$/ { n++; next } { print > (d n) }' "$2"
  for part in "$TMP/$name".part*; do
    local job
    job=$(sed -n 's/^#SBATCH --job-name=//p' "$part")
    check "$name: $job parses (bash -n)" bash -n "$part"
    [ -z "$SHELLCHECK" ] || check "$name: $job passes shellcheck" shellcheck "$part"
  done
}

# golden NAME ARGS...: the spec of `jobs/submit ARGS... --print` (run in $TMP) against expected/NAME.
golden() {
  local name=$1 expected=$HERE/expected/$1
  shift
  (cd "$TMP" && "$SUBMIT" "$@" --print) >"$TMP/$name.raw" 2>"$TMP/$name.err"
  local rc=$?
  placeholders <"$TMP/$name.raw" | spec >"$TMP/$name"
  if [ -n "${UPDATE_EXPECTED:-}" ]; then
    cp "$TMP/$name" "$expected"
    echo "# wrote $expected"
  fi
  check "$name: jobs/submit ${*} --print exits 0 (got $rc)" test "$rc" -eq 0 -a ! -s "$TMP/$name.err"
  if diff_out=$(diff "$expected" "$TMP/$name"); then
    ok "$name: the directives and parameters equal expected/$name ($(grep -c '^#SBATCH' "$TMP/$name") directives)"
  else
    fail "$name: the directives or parameters differ from expected/$name (< expected, > got)" "$diff_out"
  fi
  scripts_pass "$name" "$TMP/$name.raw"
}

# 1. Defaults, with the config's own output directory (relative: taken from the current directory).
golden single.txt "$CONFIG"
# 2. Every option.
golden array.txt "$CONFIG" -o out/study --nodes 1 --ntasks 2 --time 1-00:00:00 --partition debug \
  --account proj --array 3 --grace 300 --max-requeues 5 --launcher srun --job-name study \
  --sbatch=--mem-per-cpu=1G --aggregate-time 45:00 --setup 'module load openmpi'
# --opt=value is the same as --opt value (--sbatch: a value that starts with - goes after = in both).
(cd "$TMP" && "$SUBMIT" "$CONFIG" -o out/study --nodes=1 --ntasks=2 --time=1-00:00:00 --partition=debug \
  --account=proj --array=3 --grace=300 --max-requeues=5 --launcher=srun --job-name=study \
  --sbatch=--mem-per-cpu=1G --aggregate-time=45:00 --setup='module load openmpi' --print) 2>&1 |
  placeholders >"$TMP/array-eq.txt"
check "array.txt: --opt=VALUE gives the same scripts as --opt VALUE" cmp -s <(placeholders <"$TMP/array.txt.raw") "$TMP/array-eq.txt"

# Every time form sbatch takes, as given in the run job; the aggregation job keeps its own
# 30-minute limit, or --time when that is shorter.
for t in 120 30:00 1:00:00 1-0 1-12 1-12:30 1-00:00:00 2:3; do
  run "$SUBMIT" "$CONFIG" -o "$TMP/t" --time "$t" --grace 1 --print
  expect_exit 0 "--time $t is accepted"
  expect_stdout_line "#SBATCH --time=$t" "--time $t: #SBATCH --time=$t in the run job"
done
check "--time 2:3 (2 min 3 s): the aggregation job keeps --time=2:3, shorter than 30 minutes" \
  test "$(grep -c '^#SBATCH --time=2:3$' "$OUT_FILE")" -eq 2
run "$SUBMIT" "$CONFIG" -o "$TMP/t" --time 1-0 --print
check "--time 1-0: the aggregation job gets --time=00:30:00" grep -qxF "#SBATCH --time=00:30:00" "$OUT_FILE"
# No limit (man sbatch: a limit of zero; Slurm also takes UNLIMITED and INFINITE): written as
# given, with the default --grace (its signal is sent only if the job gets a limit later); the
# aggregation job keeps its 30 minutes.
for t in 0 00:00:00 UNLIMITED infinite; do
  run "$SUBMIT" "$CONFIG" -o "$TMP/t" --time "$t" --print
  expect_exit 0 "--time $t (no limit) is accepted with the default --grace"
  check "--time $t: the run job has --time=$t and --signal=B:USR1@120, the aggregation job --time=00:30:00" \
    test "$(grep -cxE "#SBATCH --time=$t|#SBATCH --signal=B:USR1@120|#SBATCH --time=00:30:00" "$OUT_FILE")" -eq 3
done

# The job name comes from the config's "name", not from its file name.
cp "$CONFIG" "$TMP/another-file-name.json"
run "$SUBMIT" "$TMP/another-file-name.json" -o "$TMP/t" --print
expect_stdout_line "#SBATCH --job-name=nqc-golden" "the job name is nqc- and the config's name"
expect_stdout_line "#SBATCH --job-name=nqc-golden-aggregate" "the aggregation job's name too"

# Set-up lines, from --setup and --setup-file in order, in both scripts, before the templates.
printf 'module purge\nexport OMP_NUM_THREADS=1\n' >"$TMP/setup.sh"
run "$SUBMIT" "$CONFIG" -o "$TMP/t" --setup 'module load gcc' --setup-file "$TMP/setup.sh" --setup 'source /opt/venv/bin/activate' --print
expect_exit 0 "--setup and --setup-file"
awk '/^# ---- set-up lines/ { on = 1; next } /^$/ { on = 0 } on' "$OUT_FILE" >"$TMP/setup.got"
printf '%s\n' "module load gcc" "module purge" "export OMP_NUM_THREADS=1" "source /opt/venv/bin/activate" \
  "module load gcc" "module purge" "export OMP_NUM_THREADS=1" "source /opt/venv/bin/activate" >"$TMP/setup.want"
check "the set-up lines, in order, in the run and the aggregation script" cmp -s "$TMP/setup.want" "$TMP/setup.got"
check "the set-up lines run before the templates' strict mode (set -u)" \
  bash -c "awk '/^module load gcc\$/ && !s { print NR; s = 1 } /^set -uo pipefail\$/ { print NR; exit }' '$OUT_FILE' | sort -n -c"
# --setup-file - reads them from standard input: the same scripts.
cp "$OUT_FILE" "$TMP/setup-from-file.txt"
"$SUBMIT" "$CONFIG" -o "$TMP/t" --setup 'module load gcc' --setup-file - --setup 'source /opt/venv/bin/activate' --print \
  <"$TMP/setup.sh" >"$TMP/setup-from-stdin.txt" 2>&1
check "--setup-file - (standard input) gives the scripts of --setup-file FILE" cmp -s "$TMP/setup-from-file.txt" "$TMP/setup-from-stdin.txt"

# Submission against stand-ins for sbatch and squeue: they record their arguments and the
# SBATCH_*/SLURM_* variables they see, and sbatch answers with a job id.
mkdir -p "$TMP/fake"
cat >"$TMP/fake/sbatch" <<'SH'
#!/bin/bash
n=$(($(cat "$FAKE_LOG.count" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_LOG.count"
{ echo "sbatch $*"; env | grep -E '^(SBATCH|SLURM)_' | sort | sed 's/^/  env /'; } >>"$FAKE_LOG"
echo "$((100 + n))"
SH
# shellcheck disable=SC2016 # the stand-in expands them
printf '#!/bin/bash\necho "squeue $*" >>"$FAKE_LOG"\n' >"$TMP/fake/squeue"
chmod +x "$TMP/fake/sbatch" "$TMP/fake/squeue"
export FAKE_LOG=$TMP/fake.log
FAKE_PATH=$TMP/fake:$PATH

run env PATH="$FAKE_PATH" SBATCH_PARTITION=bogus SBATCH_TIMELIMIT=9 SBATCH_ACCOUNT=x SLURM_NTASKS=7 \
  SLURM_JOB_ID=5 SLURM_CONF=/etc/slurm/test.conf "$SUBMIT" "$CONFIG" -o "$TMP/sub" --ntasks 2 --array 2
expect_exit 0 "submit with a stand-in sbatch"
expect_stdout_line "run job:         101 (array of 2 parts, 2 task(s) each; 230 cases in 15 shards)" "prints the run job id"
expect_stdout_line "aggregation job: 102 (starts when job 101 has succeeded)" "prints the aggregation job id and its dependency"
expect_stdout_line "results:         $TMP/sub/results.h5" "prints where the results will be"
expect_stdout_line "logs:            $TMP/sub/logs/nqc-golden-101_I.out (part I = 0..1)" "prints where the logs will be"
check "sbatch was called twice" test "$(grep -c '^sbatch ' "$FAKE_LOG")" -eq 2
check "run job: sbatch --parsable DIR/jobs/run.sbatch" grep -qxF "sbatch --parsable $TMP/sub/jobs/run.sbatch" "$FAKE_LOG"
check "aggregation job: afterok on the run job, cancelled if that fails" \
  grep -qxF "sbatch --parsable --dependency=afterok:101 --kill-on-invalid-dep=yes $TMP/sub/jobs/aggregate.sbatch" "$FAKE_LOG"
check "no SBATCH_* variable reaches sbatch" bash -c "! grep -q '  env SBATCH_' '$FAKE_LOG'"
check "no SLURM_* variable of an enclosing job reaches sbatch" bash -c "! grep -qE '  env SLURM_(NTASKS|JOB_ID)=' '$FAKE_LOG'"
check "SLURM_CONF is kept" grep -qxF "  env SLURM_CONF=/etc/slurm/test.conf" "$FAKE_LOG"
(cd "$TMP" && "$SUBMIT" "$CONFIG" -o "$TMP/sub" --ntasks 2 --array 2 --print) >"$TMP/sub.print"
# the lines between the two headers, but the blank line that separates the scripts
awk '/^# ==> .*run.sbatch <==$/ { on = 1; next } /^# ==> / { on = 0 } on' "$TMP/sub.print" | sed '$d' >"$TMP/sub.run"
check "DIR/jobs/run.sbatch is what --print shows" cmp -s "$TMP/sub.run" "$TMP/sub/jobs/run.sbatch"
check "DIR/logs/ exists before the job starts (Slurm does not create it)" test -d "$TMP/sub/logs"
check "DIR/jobs/submitted.txt records the submission" grep -q "submitted run 101 aggregate 102: " "$TMP/sub/jobs/submitted.txt"

# --wait against the stand-ins and a stand-in scontrol that shows each job as $FAKE_JOBS/ID says
# (no such file: scontrol no longer knows it), with this nqc's exit codes and dry run.
mkdir -p "$TMP/jobs-state"
cat >"$TMP/fake/scontrol" <<'SH'
#!/bin/bash
case "$1 $2 $3" in
  "show config ") printf 'MinJobAge               = 5 sec\nAccountingStorageType   = accounting_storage/none\n' ;;
  "show job -o") cat "$FAKE_JOBS/$4" 2>/dev/null || { echo "slurm_load_jobs error: Invalid job id specified"; exit 1; } ;;
  *) exit 2 ;;
esac
SH
chmod +x "$TMP/fake/scontrol"
export FAKE_JOBS=$TMP/jobs-state
# fake_job FILE LINE...: what scontrol show job -o shows for a job (one record a line)
fake_job() { local f=$1; shift; printf '%s\n' "$@" >"$FAKE_JOBS/$f"; }
rm -f "$FAKE_LOG" "$FAKE_LOG.count"
fake_job 101 "JobId=103 ArrayJobId=101 ArrayTaskId=0 JobState=COMPLETED Reason=None Restarts=0 ExitCode=0:0" \
  "JobId=101 ArrayJobId=101 ArrayTaskId=1 JobState=FAILED Reason=NonZeroExitCode Restarts=0 ExitCode=7:0"
fake_job 102 "JobId=102 JobState=CANCELLED Reason=DependencyNeverSatisfied Restarts=0 ExitCode=0:0"
run env PATH="$FAKE_PATH" "$SUBMIT" "$CONFIG" -o "$TMP/wait" --array 2 --wait
expect_exit 7 "--wait, array task 1 failed with 7: submit exits 7 (nqc's io_error, from this nqc's --help)"
printf '%s\n' "submit: job 101_1 (run): FAILED, exit code 7 (io_error), reason NonZeroExitCode; log $TMP/wait/logs/nqc-golden-101_1.out" \
  "submit: job 102 (aggregation): CANCELLED, reason DependencyNeverSatisfied; log $TMP/wait/logs/nqc-golden-aggregate-102.out" >"$TMP/wait.want"
check "--wait names the failed task and the cancelled aggregation job with their logs, one line each" cmp -s "$TMP/wait.want" "$ERR_FILE"
check "--wait: submitted without sbatch --wait" bash -c "! grep -q -- '--wait' '$FAKE_LOG'"
# Both jobs completed: nqc decides. A directory without results.h5: exit 1; after a finished run: 0.
rm -f "$FAKE_LOG" "$FAKE_LOG.count"
fake_job 101 "JobId=101 JobState=COMPLETED Reason=None Restarts=1 ExitCode=0:0"
fake_job 102 "JobId=102 JobState=COMPLETED Reason=None Restarts=0 ExitCode=0:0"
run env PATH="$FAKE_PATH" "$SUBMIT" "$CONFIG" -o "$TMP/wait-done" --wait
expect_exit 1 "--wait, both jobs completed but no results: exit 1"
expect_stderr_line "submit: the jobs completed, but $TMP/wait-done/results.h5 is not complete: nqc run --dry-run: 0 of 15 shards done, no results.h5" \
  "--wait: says that results.h5 is not complete, as nqc finds it"
"$NQC" run "$CONFIG" -o "$TMP/wait-done" -q >/dev/null 2>&1
rm -f "$FAKE_LOG" "$FAKE_LOG.count"
run env PATH="$FAKE_PATH" "$SUBMIT" "$CONFIG" -o "$TMP/wait-done" --wait
expect_exit 0 "--wait, both jobs completed and nqc finds results.h5 complete: exit 0"
expect_stdout_line "done: every job completed; $TMP/wait-done/results.h5 is complete" "--wait: says so"
rm -rf "$FAKE_JOBS"

# --aggregate-only --after JOBID: one sbatch call, the aggregation job only.
rm -f "$FAKE_LOG" "$FAKE_LOG.count"
run env PATH="$FAKE_PATH" "$SUBMIT" "$CONFIG" -o "$TMP/agg" --aggregate-only --after 55
expect_exit 0 "--aggregate-only --after 55"
expect_stdout_line "aggregation job: 101 (starts when job 55 has succeeded)" "--aggregate-only: prints the job and its dependency"
check "--aggregate-only: one sbatch call, afterok:55" \
  bash -c "test \$(grep -c '^sbatch ' '$FAKE_LOG') -eq 1 && grep -qxF 'sbatch --parsable --dependency=afterok:55 --kill-on-invalid-dep=yes $TMP/agg/jobs/aggregate.sbatch' '$FAKE_LOG'"
check "--aggregate-only: no run.sbatch written" test ! -e "$TMP/agg/jobs/run.sbatch"

# --print --write DIR: the scripts written for editing, OUT/logs created, nothing submitted;
# the command it prints submits them with the dependency.
rm -f "$FAKE_LOG" "$FAKE_LOG.count"
run env PATH="$FAKE_PATH" "$SUBMIT" "$CONFIG" -o "$TMP/w" --ntasks 2 --print --write "$TMP/edit"
expect_exit 0 "--print --write DIR"
expect_stdout_line "batch scripts:   $TMP/edit/run.sbatch, $TMP/edit/aggregate.sbatch (nothing submitted)" "--write: names the scripts"
expect_stdout_line "logs:            $TMP/w/logs/ (created: Slurm does not create it)" "--write: names the log directory"
command=$(sed -n 's/^submit: *//p' "$OUT_FILE")
check "--write: prints the sbatch commands" test "$command" = \
  "run=\$(sbatch --parsable $TMP/edit/run.sbatch) && sbatch --dependency=afterok:\$run --kill-on-invalid-dep=yes $TMP/edit/aggregate.sbatch"
(cd "$TMP" && "$SUBMIT" "$CONFIG" -o "$TMP/w" --ntasks 2 --print) >"$TMP/w.print"
awk '/^# ==> .*run.sbatch <==$/ { on = 1; next } /^# ==> / { on = 0 } on' "$TMP/w.print" | sed '$d' >"$TMP/w.run"
check "--write: DIR/run.sbatch is what --print shows" cmp -s "$TMP/w.run" "$TMP/edit/run.sbatch"
check "--write: OUT/logs/ exists, nothing else in OUT" test -d "$TMP/w/logs" -a ! -e "$TMP/w/jobs" -a ! -e "$TMP/w/config.json"
check "--write: sbatch not called" test ! -e "$FAKE_LOG"
run env PATH="$FAKE_PATH" bash -c "$command"
check "--write: the printed command submits both, the aggregation afterok on the run job" \
  grep -qxF "sbatch --dependency=afterok:101 --kill-on-invalid-dep=yes $TMP/edit/aggregate.sbatch" "$FAKE_LOG"

# The run job's end, against stand-ins for nqc, mpirun and scontrol (jobs/templates/run.sh):
# the time-limit warning (SIGUSR1) stops nqc (exit 4) and the job requeues itself; nqc's
# failures that another attempt would repeat (7 io_error, 8 out_of_memory) are not requeued
# and are logged with their meaning; the job exits with nqc's code.
mkdir -p "$TMP/job/bin"
printf '#!/bin/bash\nexec "$@"\n' >"$TMP/job/bin/mpirun"
# shellcheck disable=SC2016 # the stand-in expands it
printf '#!/bin/bash\necho "scontrol $*" >>"$JOB_DIR/scontrol.log"\n' >"$TMP/job/bin/scontrol"
cat >"$TMP/job/nqc" <<'SH'
#!/bin/bash
# nqc's stand-in: exits STUB_RC at once, or (STUB_RC unset) runs until SIGUSR1, then exits STUB_ON_USR1.
trap 'exit "${STUB_ON_USR1:-4}"' USR1
: >"$JOB_DIR/started"
if [[ -n ${STUB_RC:-} ]]; then exit "$STUB_RC"; fi
while :; do sleep 0.1; done
SH
chmod +x "$TMP/job/bin/mpirun" "$TMP/job/bin/scontrol" "$TMP/job/nqc"
(cd "$TMP" && "$SUBMIT" "$CONFIG" -o "$TMP/job/out" --launcher mpirun --print --write "$TMP/job/scripts") >/dev/null
sed -i "s|^NQC=.*|NQC=$TMP/job/nqc|" "$TMP/job/scripts/run.sbatch"
# run_job NAME [VAR=VALUE...]: runs the run job in the background; $job is its pid.
run_job() {
  local name=$1
  shift
  rm -f "$TMP/job/started" "$TMP/job/scontrol.log"
  env PATH="$TMP/job/bin:$PATH" SLURM_JOB_ID=77 SLURM_RESTART_COUNT=0 JOB_DIR="$TMP/job" "$@" \
    bash "$TMP/job/scripts/run.sbatch" >"$TMP/job/$name.log" 2>&1 &
  job=$!
  for _ in $(seq 1 200); do [ -e "$TMP/job/started" ] && break; sleep 0.05; done
}
run_job io STUB_RC=7
wait "$job"
check "run job, nqc exits 7: the job exits 7" test $? -eq 7
check "... its log names io_error and what to do" \
  grep -qE "nqc job 77: nqc failed \(exit 7: io_error: the system refused a read or write .*make room, then submit" "$TMP/job/io.log"
run_job usr1
kill -USR1 "$job"
wait "$job"
check "run job, SIGUSR1 (the time limit near): nqc exits 4, the job requeues itself and exits 4" test $? -eq 4
check "... the log says so" grep -qF "nqc job 77: stopped at the time limit (exit 4): requeueing; attempt 2 resumes" "$TMP/job/usr1.log"
check "... scontrol requeue 77" grep -qxF "scontrol requeue 77" "$TMP/job/scontrol.log"
run_job memory STUB_ON_USR1=8
kill -USR1 "$job"
wait "$job"
check "run job, SIGUSR1 and nqc out of memory (exit 8): the job exits 8" test $? -eq 8
check "... not requeued" test ! -e "$TMP/job/scontrol.log"
check "... its log says out_of_memory: ask for more memory per task" \
  grep -qF "nqc job 77: nqc failed (exit 8: out_of_memory: ask for more memory per task" "$TMP/job/memory.log"

# No cluster reachable: squeue (or sbatch) cannot contact slurmctld, or finds no slurm.conf.
mkdir -p "$TMP/down" "$TMP/noconf" "$TMP/sbatch-down"
printf '#!/bin/bash\necho "slurm_load_jobs error: Unable to contact slurm controller (connect failure)" >&2\nexit 1\n' >"$TMP/down/squeue"
# shellcheck disable=SC2016 # the stand-in expands it
printf '#!/bin/bash\nfor w in "error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host" "error: fetch_config: DNS SRV lookup failed" "fatal: Could not establish a configuration source"; do echo "squeue: $w" >&2; done\nexit 1\n' >"$TMP/noconf/squeue"
# shellcheck disable=SC2016 # the stand-in expands it
printf '#!/bin/bash\necho "sbatch $*" >>"$FAKE_LOG"\necho "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)" >&2\nexit 1\n' >"$TMP/sbatch-down/sbatch"
chmod +x "$TMP/down/squeue" "$TMP/noconf/squeue" "$TMP/sbatch-down/sbatch"
rm -f "$FAKE_LOG" "$FAKE_LOG.count"
run env PATH="$TMP/down:$FAKE_PATH" SLURM_CONF=/etc/slurm/test.conf "$SUBMIT" "$CONFIG" -o "$TMP/down-out"
expect_exit 1 "slurmctld unreachable"
expect_stderr_line "submit: error: no Slurm cluster reachable: squeue failed: slurm_load_jobs error: Unable to contact slurm controller (connect failure) (is slurmctld up? SLURM_CONF=/etc/slurm/test.conf)" \
  "slurmctld unreachable: one line says so"
check "slurmctld unreachable: nothing submitted, nothing written" test ! -e "$FAKE_LOG" -a ! -e "$TMP/down-out"
run env -u SLURM_CONF PATH="$TMP/noconf:$FAKE_PATH" "$SUBMIT" "$CONFIG" -o "$TMP/down-out"
expect_exit 1 "no slurm.conf"
expect_stderr_line "submit: error: no Slurm cluster reachable: squeue failed: squeue: fatal: Could not establish a configuration source (no slurm.conf: set SLURM_CONF, or submit from a login node)" \
  "no slurm.conf: one line says so"
run env PATH="$TMP/sbatch-down:$FAKE_PATH" SLURM_CONF=/etc/slurm/test.conf "$SUBMIT" "$CONFIG" -o "$TMP/down-out"
expect_exit 1 "sbatch cannot contact slurmctld"
expect_stderr_line "submit: error: no Slurm cluster reachable: sbatch failed: sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure) (is slurmctld up? SLURM_CONF=/etc/slurm/test.conf); nothing was submitted" \
  "sbatch cannot contact slurmctld: one line says so"
check "sbatch cannot contact slurmctld: one attempt (the run job), no submission recorded" \
  bash -c "test \$(grep -c '^sbatch ' '$FAKE_LOG') -eq 1 && test ! -e '$TMP/down-out/jobs/submitted.txt'"

# Bad input: one line "submit: error: ...", exit 1, sbatch never called, nothing written.
# bad DESC EXPECTED_STDERR ARGS...   (BAD_ENV: more NAME=VALUE for env)
bad() {
  local desc=$1 message=$2
  shift 2
  rm -f "$FAKE_LOG" "$FAKE_LOG.count"
  rm -rf "$TMP/bad"
  run env PATH="${BAD_PATH:-$FAKE_PATH}" ${BAD_ENV[@]+"${BAD_ENV[@]}"} "$SUBMIT" "$@"
  expect_exit 1 "$desc"
  expect_stderr_line "submit: error: $message" "$desc: the error says why"
  check "$desc: nothing submitted, nothing written" \
    bash -c "! grep -q '^sbatch' '$FAKE_LOG' 2>/dev/null && test ! -e '$TMP/bad'"
}
printf '{"name": "bad", "sizes": [{"n": 8, "solutions": "two", "compositions_per_solution": 1}]}\n' >"$TMP/invalid.json"
printf '{"name": "bad", "bogus": 1}\n' >"$TMP/unknown-key.json"
bad "missing config" "config $TMP/nope.json: no such file" "$TMP/nope.json" -o "$TMP/bad"
bad "no config" "a CONFIG file is required (usage: jobs/submit CONFIG [options]; see --help)" -o "$TMP/bad"
# nqc's own one-line error (what nqc run --dry-run says), relayed; nqc's wording is nqc's.
nqc_error() { "$NQC" run "$1" --dry-run 2>&1 >/dev/null | tail -n 1 | sed -E "s/$(log_line 0 error)//"; }
bad "invalid config (a wrong type)" "invalid config: $(nqc_error "$TMP/invalid.json")" "$TMP/invalid.json" -o "$TMP/bad"
check "invalid config: the error names the JSON path" grep -qF "/sizes/0/solutions" "$ERR_FILE"
bad "invalid config (an unknown key)" "invalid config: $(nqc_error "$TMP/unknown-key.json")" "$TMP/unknown-key.json" -o "$TMP/bad"
check "unknown key: the error names the JSON path" grep -qF "/bogus" "$ERR_FILE"
for t in 00:60:00 1:60 1-24 01:00:00x -1:00:00 1-2-03:00:00 1h abc; do
  bad "malformed --time $t" "--time: expected a time limit as sbatch takes it (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or 0, UNLIMITED or INFINITE for no limit), got '$t'" \
    "$CONFIG" -o "$TMP/bad" "--time=$t"
done
# A value that starts with - follows = (argparse reads "--time -1:00:00" as two options).
bad "--time -1:00:00 without =" "option --time needs a value (see jobs/submit --help); a value that starts with - goes after =, e.g. --sbatch=--mem-per-cpu=2G" \
  "$CONFIG" -o "$TMP/bad" --time -1:00:00
# "-" is standard output or input, as for nqc: a results directory, a directory of scripts or a
# config cannot be one.
bad "-o -" "-o: '-' (standard output) cannot be a results directory; give a directory" "$CONFIG" -o -
bad "--print --write -" "--write: '-' (standard output) cannot be a directory (--print without --write prints the scripts); give a directory" \
  "$CONFIG" -o "$TMP/bad" --print --write -
bad "CONFIG -" "CONFIG: '-' (standard input) cannot be a config: nqc and the jobs read it by name; give a file" - -o "$TMP/bad"
bad "empty --time" "option --time needs a value (see jobs/submit --help)" "$CONFIG" -o "$TMP/bad" --time=
bad "--ntasks 0" "--ntasks: expected a positive integer, got '0'" "$CONFIG" -o "$TMP/bad" --ntasks 0
bad "--nodes x" "--nodes: expected a positive integer, got 'x'" "$CONFIG" -o "$TMP/bad" --nodes x
bad "--array -2" "--array: expected a positive number of parts, got '-2'" "$CONFIG" -o "$TMP/bad" --array -2
bad "--array larger than the plan" "--array 16: the plan has only 15 shards, so at most 15 parts" "$CONFIG" -o "$TMP/bad" --array 16
bad "--grace not below --time" "--grace 60 must be shorter than the --time limit 00:01:00 (60 s)" \
  "$CONFIG" -o "$TMP/bad" --time 00:01:00 --grace 60
bad "--partition with a space" "--partition: not a partition name: 'a b'" "$CONFIG" -o "$TMP/bad" --partition "a b"
bad "unknown option" "unknown option '--nodse' (see jobs/submit --help)" "$CONFIG" -o "$TMP/bad" --nodse 2
bad "--after without --aggregate-only" "--after goes with --aggregate-only" "$CONFIG" -o "$TMP/bad" --after 5
bad "option without its value" "option --ntasks needs a value (see jobs/submit --help); a value that starts with - goes after =, e.g. --sbatch=--mem-per-cpu=2G" "$CONFIG" -o "$TMP/bad" --ntasks
bad "results directory with a space" "results directory '$TMP/bad dir': spaces, quotes, backslashes and % cannot go into #SBATCH lines; choose another (-o DIR)" \
  "$CONFIG" -o "$TMP/bad dir"
bad "--setup that is not bash" "--setup, --setup-file: the set-up lines are not valid bash: line 1: unexpected EOF while looking for matching \`''" \
  "$CONFIG" -o "$TMP/bad" --setup "module load 'openmpi"
bad "--setup-file missing" "--setup-file $TMP/no-setup.sh: no such file" "$CONFIG" -o "$TMP/bad" --setup-file "$TMP/no-setup.sh"
bad "--write without --print" "--write goes with --print (or --dry-run)" "$CONFIG" -o "$TMP/bad" --write "$TMP/bad/edit"
BAD_ENV=(NQC="$TMP/no-nqc")
bad "no nqc binary" "nqc binary $TMP/no-nqc not found or not executable (build it, or set NQC=/path/to/nqc)" "$CONFIG" -o "$TMP/bad"
BAD_ENV=()
# No sbatch on PATH: a PATH with the ordinary tools submit uses, and no Slurm client.
mkdir -p "$TMP/nosbatch"
for tool in bash env readlink dirname basename head tail sed rm cat mkdir awk grep date seq mktemp stdbuf; do
  ln -s "$(command -v "$tool")" "$TMP/nosbatch/$tool"
done
BAD_PATH=$TMP/nosbatch
bad "no sbatch on PATH" "sbatch not found on PATH (is this a Slurm login node? module load slurm?)" "$CONFIG" -o "$TMP/bad"
BAD_PATH=
# With --print, no cluster is needed at all.
run env PATH="$TMP/nosbatch" "$SUBMIT" "$CONFIG" -o "$TMP/bad" --print
expect_exit 0 "--print needs no sbatch"
check "--print writes nothing" test ! -e "$TMP/bad"

summary
