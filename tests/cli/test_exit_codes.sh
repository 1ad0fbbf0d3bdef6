#!/usr/bin/env bash
# Exit codes: one table (src/system/errors.hpp, NQC_EXIT_CODES) that `nqc --help`
# prints, docs/cli.md's table repeats word for word and `nqc info --constants --json` gives scripts
# (jobs/submit); and the codes themselves: bad input 1, the system refusing a write 7 (a full device:
# /dev/full, no root needed; the full and read-only file systems: test_full_disk.sh), out of
# memory 8 (an address space too small for the board: ulimit -v), also inside a shard and under
# mpirun, where every rank ends with the code.
# Usage: test_exit_codes.sh NQC REPO
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NQC REPO" >&2
  exit 2
fi
NQC=$(realpath "$1")
REPO=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

# The table: `nqc --help`'s lines "  CODE NAME  MEANING", docs/cli.md's rows "| CODE | `NAME` | MEANING |".
run "$NQC" --help
expect_exit 0 "nqc --help"
sed -n '/^Exit codes:$/,$p' "$OUT_FILE" | sed -nE 's/^  ([0-9]+) ([a-z_]+) +(.*)$/\1|\2|\3/p' >"$TMP/help.table"
awk '/^Exit codes, the same for every subcommand/ { on = 1 } on && /^\| [0-9]+ \|/ { print } on && /^$/ && seen { exit } on && /^\|/ { seen = 1 }' \
  "$REPO/docs/cli.md" | sed -E 's/^\| ([0-9]+) \| `([a-z_]+)` \| (.*) \|$/\1|\2|\3/' >"$TMP/doc.table"
check "nqc --help lists 9 exit codes, 0..8 ($(cut -d'|' -f1 "$TMP/help.table" | tr '\n' ' '))" \
  test "$(cut -d'|' -f1 "$TMP/help.table" | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 "
if diff_out=$(diff "$TMP/help.table" "$TMP/doc.table"); then
  ok "docs/cli.md's exit-code table is nqc --help's, word for word"
else
  fail "docs/cli.md's exit-code table differs from nqc --help's (< help, > docs/cli.md)" "$diff_out"
fi
check "7 is io_error, 8 out_of_memory" grep -qxE '7\|io_error\|.*' "$TMP/help.table"
check "8 is out_of_memory" grep -qxE '8\|out_of_memory\|.*' "$TMP/help.table"
# The same table for scripts (jobs/submit): nqc info --constants --json, with the largest board size.
run "$NQC" info --constants --json
expect_exit 0 "nqc info --constants --json"
/usr/bin/python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
for e in c["exit_codes"]: print("%s|%s|%s" % (e["code"], e["name"], e["meaning"]))
print(c["max_board_size"], file=sys.stderr)' "$OUT_FILE" >"$TMP/constants.table" 2>"$TMP/max_board_size"
if diff_out=$(diff "$TMP/help.table" "$TMP/constants.table"); then
  ok "info --constants --json: the exit codes of nqc --help (code, name, meaning)"
else
  fail "info --constants --json: its exit codes differ from nqc --help's (< help, > constants)" "$diff_out"
fi
check "info --constants --json: max_board_size 2147483647 (2^31 - 1)" test "$(cat "$TMP/max_board_size")" = 2147483647
run "$NQC" info --constants
expect_stdout_line "Largest board size (max_board_size): 2147483647" "info --constants: the same as text"
run "$NQC" info --json
expect_exit 1 "info --json alone"
expect_stderr_line "nqc: error: --json: goes with --columns or --constants" "... says what it goes with"
run "$NQC" construct --help
expect_stdout_contains "Exit codes: 0 written, 2 no solution exists (N = 2, 3); every subcommand: 1 bad_input, 7 io_error, 8 out_of_memory (nqc --help)." \
  "a subcommand's help names its own codes and the common ones"

# Bad input: 1.
printf '{"name": "typo", "seeed": 1, "sizes": [{"n": 8, "solutions": 1, "compositions_per_solution": 1}]}\n' >"$TMP/typo.json"
run "$NQC" run "$TMP/typo.json" -o "$TMP/typo"
expect_exit 1 "a typo in a config"
run "$NQC" verify "$TMP/missing.txt"
expect_exit 1 "a file that does not exist"
expect_stderr_line "nqc: error: $TMP/missing.txt: cannot open: No such file or directory" "... named, with the system's reason"
run "$NQC" construct 10 -o "$TMP/no/such/dir/s.txt"
expect_exit 1 "construct -o into a directory that does not exist (the user's path)"
expect_stderr_line "nqc: error: $TMP/no/such/dir/s.txt: cannot write: No such file or directory" "... named"

# The system refusing a write: 7, in each format (/dev/full: every write fails with ENOSPC).
if [ -w /dev/full ]; then
  for ext in txt bin h5; do
    ln -s /dev/full "$TMP/full.$ext"
    run "$NQC" construct 100000 -o "$TMP/full.$ext"
    expect_exit 7 "construct -o a full device (.$ext)"
    check "... the error names the file and says No space left on device" \
      grep -qE "^nqc: error: .*$TMP/full\.$ext.*No space left on device" "$ERR_FILE"
  done
  run "$NQC" generate 1000 -o "$TMP/full.txt"
  expect_exit 7 "generate -o a full device"
  run "$NQC" run "$REPO/configs/ci.json" -o "$TMP/ci" -q
  expect_exit 0 "a small run to export from"
  run "$NQC" export "$TMP/ci" --case 3 -o "$TMP/full.bin"
  expect_exit 7 "export -o a full device"
  expect_stderr_line "nqc: error: $TMP/full.bin: cannot write: No space left on device" "... the one-line error"
  run "$NQC" aggregate "$TMP/ci" --csv "$TMP/full.txt"
  expect_exit 7 "aggregate --csv onto a full device"
  # Standard output onto a full device: every command that prints its result there, 7 and one
  # line (they exited 0 before: what they printed was lost unsaid).
  "$NQC" construct 12 -o "$TMP/q12.txt"
  while IFS= read -r args; do
    # shellcheck disable=SC2086 # the arguments are words
    "$NQC" $args >/dev/full 2>"$ERR_FILE"
    rc=$?
    check "$args >/dev/full: exit 7 (got $rc)" test "$rc" -eq 7
    # The reason when the last write failed; an earlier one's errno is gone by the end.
    check "$args >/dev/full: one line, <stdout>: cannot write" \
      grep -qxE "nqc: error: <stdout>: cannot write(: No space left on device| \(a write failed\))" "$ERR_FILE"
    check "$args >/dev/full: ... and nothing else" test "$(wc -l <"$ERR_FILE")" -eq 1
  done <<EOF
aggregate $TMP/ci
info $TMP/ci
info --columns
verify $TMP/q12.txt
count 8
complete $TMP/q12.txt
rerun $TMP/ci --case 3
run $REPO/configs/ci.json --dry-run --json -o $TMP/ci
run --config-schema
randset 100 --trials 10
EOF
else
  echo "# /dev/full is not writable here: the full-device checks are skipped"
fi

# Out of memory: 8. A board of 10^9 rows needs 4 GB for its columns alone; an address space
# of 400 MB cannot hold it, whatever the machine's memory (nqc itself starts in less).
run bash -c "ulimit -v 400000 && exec '$NQC' generate 1000000000 -o '$TMP/big.bin'"
expect_exit 8 "generate N = 10^9 in 400 MB of address space"
expect_stderr_line "nqc: error: out of memory (the board or the file is too large for this machine)" "... says out of memory"
check "... and writes nothing" test ! -e "$TMP/big.bin"
run bash -c "ulimit -v 400000 && exec '$NQC' construct 1000000000 -o '$TMP/big.txt'"
expect_exit 8 "construct N = 10^9 in 400 MB"
# Inside a shard: the rank names the shard; no rank takes another shard, the lock is
# released and the launch records 8 (a resume on a larger machine continues).
printf '{"name": "huge", "seed": 1, "sizes": [{"n": 1000000000, "solutions": 1, "compositions_per_solution": 1}, {"n": 8, "solutions": 4, "compositions_per_solution": 1}]}\n' >"$TMP/huge.json"
oom_line="out of memory (the board or the file is too large for this machine) (shard 0, n = 1000000000: 0 of 1 cases done, none kept)"
run bash -c "ulimit -v 400000 && exec '$NQC' run '$TMP/huge.json' -o '$TMP/huge' -q"
expect_exit 8 "run: a shard of n = 10^9 in 400 MB"
check "... the critical line names the shard, its n and cases" \
  grep -qE "$(log_line 0 critical)$(printf '%s' "$oom_line" | sed 's/[][\.*^$()/]/\\&/g')$" "$ERR_FILE"
check "... the lock released" test -z "$(ls -A "$TMP/huge/locks")"
run "$NQC" info "$TMP/huge"
check "... launch 1 recorded with exit status 8" test "$(awk '$1 == "1" && $2 ~ /Z$/ { print $(NF - 3) }' "$OUT_FILE")" = 8
if command -v mpirun >/dev/null; then
  run mpirun -np 2 bash -c "ulimit -v 1500000 && exec '$NQC' run '$TMP/huge.json' -o '$TMP/huge-2' -q"
  expect_exit 8 "under mpirun -np 2: every rank ends, the run with 8"
  check "... naming the shard" grep -qF "[critical] $oom_line" "$ERR_FILE"
  check "... the lock released" test -z "$(ls -A "$TMP/huge-2/locks")"
fi
summary
