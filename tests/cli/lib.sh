# shellcheck shell=bash
# Shared helpers of the command-line tests (sourced, bash). Every check prints one line,
# "ok - DESC" or "FAIL - DESC" (details of a failure follow on lines starting with "#");
# `summary` prints "N passed, M failed" and exits non-zero when M > 0.
#
#   run CMD ARGS...           runs CMD, keeps its stdout, stderr and exit code ($RC)
#   expect_exit CODE DESC     the last run exited with CODE
#   expect_stderr_line L DESC the last run's stderr is exactly the one line L
#   log_line R LEVEL          an ERE of the start of nqc's log line "[TIME] [rank R] [LEVEL] "
#   expect_log_error M DESC   stderr is exactly one log line "[TIME] [rank 0] [error] M"
#   plan_field KEY CONFIG ARGS...   KEY of `nqc run --dry-run --json CONFIG ARGS...` (cases, shards, ...)
#   doc_block MD NAME OUT     the commands between <!-- NAME --> and <!-- /NAME --> of MD, as the script OUT
#   expect_stdout_contains S DESC   the last run's stdout contains S (fixed string)
#   expect_stdout_line L DESC       the last run's stdout has a line exactly L
#   check DESC CMD ARGS...    passes when CMD succeeds
#   relay_checks FILE         counts the "ok - " / "FAIL - " lines of FILE (a Python check's output)
#   wait_for_shards DIR N     waits (at most 10 s) until DIR/shards holds N shard files
#   slow_instances DIR N      writes N copies of a slow CSPLib instance into DIR (see below)
#   repo_test_args "$@"       NQC PYTHON REPO of a test that runs documentation as written
#   repo_copy ITEM...         $W: a copy of the repository's layout with the built nqc (see below)
set -u

# The columns that say when and where a case ran (result_schema.json's "run_dependent"): rows
# of two runs of one config agree in every other column. Python checks read NQC_RUN_DEPENDENT.
NQC_RUN_DEPENDENT=$(/usr/bin/python3 -c 'import json, sys
print(",".join(c["name"] for c in json.load(open(sys.argv[1]))["columns"] if c.get("run_dependent")))' \
  "$(dirname "${BASH_SOURCE[0]}")/../../analysis/result_schema.json")
export NQC_RUN_DEPENDENT

# Open MPI refuses to run as root without these (harmless otherwise).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

PASSED=0
FAILED=0
RC=0
LAST_CMD=""
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nqc-cli-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OUT_FILE="$TMP/.stdout"
ERR_FILE="$TMP/.stderr"

ok() { PASSED=$((PASSED + 1)); echo "ok - $1"; }

# fail DESC [DETAIL]: DETAIL (may span lines) is printed with every line after "#   ".
fail() {
  FAILED=$((FAILED + 1))
  echo "FAIL - $1"
  if [ $# -gt 1 ]; then printf '%s\n' "$2" | sed 's/^/#   /'; fi
}

# Details of the last run, for failure messages.
last_run() {
  echo "command: $LAST_CMD"
  echo "exit code: $RC"
  echo "stdout: $(head -c 600 "$OUT_FILE")"
  echo "stderr: $(head -c 600 "$ERR_FILE")"
}

run() {
  LAST_CMD="$*"
  "$@" >"$OUT_FILE" 2>"$ERR_FILE"
  RC=$?
}

expect_exit() {
  if [ "$RC" -eq "$1" ]; then ok "$2 (exit $1)"
  else
    fail "$2 (exit $RC, expected $1)" "$(last_run)"
  fi
}

expect_stderr_line() {
  if printf '%s\n' "$1" | cmp -s - "$ERR_FILE"; then ok "$2"
  else
    fail "$2" "expected stderr (one line): $1
$(last_run)"
  fi
}

# The pattern of nqc run's log lines (cli/cmd_mpi.cpp) ("[%Y-%m-%d %H:%M:%S.%e] [rank R] [%l] %v").
log_line() { printf '^\\[[0-9-]+ [0-9:.]+\\] \\[rank %s\\] \\[%s\\] ' "$1" "$2"; }

plan_field() {
  "$NQC" run --dry-run --json "${@:2}" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

doc_block() { sed -n "/^<!-- $2 -->\$/,/^<!-- \\/$2 -->\$/p" "$1" | sed '/^```/d; /^<!--/d' >"$3"; }

expect_log_error() {
  local lines line message
  lines=$(wc -l <"$ERR_FILE")
  line=$(head -n 1 "$ERR_FILE")
  message=${line#*'] [error] '}
  if [ "$lines" -eq 1 ] && [[ $line =~ $(log_line 0 error) ]] && [ "$message" = "$1" ]; then
    ok "$2"
  else
    fail "$2" "expected stderr (one line): [TIME] [rank 0] [error] $1
$(last_run)"
  fi
}

expect_stdout_contains() {
  if grep -qF -- "$1" "$OUT_FILE"; then ok "$2"
  else
    fail "$2" "expected stdout to contain: $1
$(last_run)"
  fi
}

expect_stdout_line() {
  if grep -qxF -- "$1" "$OUT_FILE"; then ok "$2"
  else
    fail "$2" "expected a stdout line: $1
$(last_run)"
  fi
}

check() {
  local desc=$1
  shift
  if "$@"; then ok "$desc"; else fail "$desc" "check failed: $*"; fi
}

summary() {
  echo "$PASSED passed, $FAILED failed"
  if [ "$FAILED" -eq 0 ]; then exit 0; fi
  exit 1
}

# relay_checks FILE: the "ok - ..." / "FAIL - ..." lines of FILE (e.g. printed by a Python
# check) counted as checks here; other lines are echoed.
relay_checks() {
  local line
  while IFS= read -r line; do
    case $line in
      "ok - "*) ok "${line#ok - }" ;;
      "FAIL - "*) fail "${line#FAIL - }" ;;
      *) echo "$line" ;;
    esac
  done <"$1"
}

# wait_for_shards DIR N: returns once DIR/shards holds N or more shard files, or after 10 s.
wait_for_shards() {
  local _
  for _ in $(seq 1 200); do
    [ "$(ls "$1/shards" 2>/dev/null | grep -c '\.h5$')" -ge "$2" ] && return 0
    sleep 0.05
  done
}

# slow_instances DIR N: N CSPLib .param files (slow-0000.param ...) of the empty 40 x 40 board
# with every other difference diagonal and the main one excluded: no completion (40 queens
# need 40 difference diagonals, 39 are left), which no engine proves in a test's time, so a
# config with time_limit_s 0.5 spends 0.5 s on each: cases slow on purpose, not by the
# machine's speed.
slow_instances() {
  local diags i
  mkdir -p "$1"
  diags=$(for ((a = 1; a < 79; a += 2)); do printf '[%d, 0], ' "$a"; done)
  printf 'n = 40\nnumdiags = 40\ndiags = [%s[39, 0]]\n' "$diags" >"$1/slow-0000.param"
  for ((i = 1; i < $2; i++)); do cp "$1/slow-0000.param" "$(printf '%s/slow-%04d.param' "$1" "$i")"; done
}

# repo_test_args NQC PYTHON REPO: sets NQC, PYTHON and REPO (absolute) for a test that runs
# documentation as written; else prints its usage and exits 2.
repo_test_args() {
  if [ $# -ne 3 ]; then
    echo "usage: $0 NQC PYTHON REPO" >&2
    exit 2
  fi
  NQC=$(realpath "$1")
  PYTHON=$2
  REPO=$(realpath "$3")
}

# repo_copy ITEM...: W=$TMP/repo, a copy of the repository's layout for documentation run as
# written from the repository's root: the built nqc at build/src/cli/nqc (a link to $NQC) and
# each ITEM (a file or directory of $REPO) copied to the same path.
repo_copy() {
  local item
  W=$TMP/repo
  mkdir -p "$W/build/src/cli"
  ln -s "$NQC" "$W/build/src/cli/nqc"
  for item in "$@"; do
    mkdir -p "$W/$(dirname "$item")"
    cp -r "$REPO/$item" "$W/$item"
  done
}
