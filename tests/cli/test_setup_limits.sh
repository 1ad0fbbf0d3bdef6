#!/usr/bin/env bash
# Limits hold at every size: `count` and `complete` with each engine on huge boards stop at
# their limits during the set-up too (max_nodes counts the random fill's queens), or refuse
# with one line (exit 1) what can never run, before allocating its memory: in an address space
# (ulimit -v) far smaller than what the run would need, the answer is that line, not exit 8.
# Nothing here depends on the machine's speed: refusals, node counts, an already-passed limit.
# Usage: test_setup_limits.sh NQC
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 NQC" >&2
  exit 2
fi
NQC=$(realpath "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

# le VALUE BYTES: VALUE little-endian in BYTES bytes.
le() {
  local v=$1 bytes=$2 i
  for ((i = 0; i < bytes; i++)); do printf "\\x$(printf %02x $(((v >> (8 * i)) & 255)))"; done
}
# empty_bin N FILE [ROW COL]...: a binary composition of N rows (a sparse file: no disk written
# for its empty rows), with a queen at each 1-based ROW, COL.
empty_bin() {
  local n=$1 file=$2
  shift 2
  { printf '\x89NQC\r\n\x1a\n'; le 1 4; le 0 4; le "$n" 8; } >"$file"
  truncate -s $((24 + 4 * n)) "$file"
  while [ $# -ge 2 ]; do
    le "$2" 4 | dd of="$file" bs=1 seek=$((24 + 4 * ($1 - 1))) conv=notrunc status=none
    shift 2
  done
}
# expect_stderr_match REGEX DESC: stderr is one line matching REGEX (grep -E).
expect_stderr_match() {
  if [ "$(wc -l <"$ERR_FILE")" -eq 1 ] && grep -qE "$1" "$ERR_FILE"; then ok "$2"
  else
    fail "$2" "expected one stderr line matching: $1
$(last_run)"
  fi
}
BOARD_CAP="more than the 2147483647 a residual board holds (32-bit cell ids)"

# count N: the empty board of N > 46340 has more free cells than a residual board holds; the
# count is refused before its N rows are allocated (the board of 2^31 - 1 rows is 8.6 GB: it
# once ran out of memory after 26 s, and 3*10^8 ran 12 s past a 1 s limit).
for n in 2147483647 300000000 46341; do
  run bash -c "ulimit -v 200000 && exec timeout 60 '$NQC' count $n --time-limit 1"
  expect_exit 1 "count $n --time-limit 1 in 200 MB of address space: refused"
  expect_stderr_line "nqc: error: cannot count the empty $n x $n board: the residual board of $n free rows x $n free columns has at least $((n * n)) free cells, $BOARD_CAP" \
    "... naming the board, its free cells and the bound"
done
run bash -c "ulimit -v 200000 && exec '$NQC' count 46340"
expect_exit 1 "count 46340 in 200 MB: refused, its 2147395600 cells needing more memory than the address space"
expect_stderr_match "^nqc: error: cannot count the empty 46340 x 46340 board: the residual board of 46340 free rows x 46340 free columns \(at least 2147395600 free cells, with the line sets and lists of its set-up\) needs 60\.1 GB, more than this process can get \([0-9.]+ [kM]B left under the address-space limit \(ulimit -v\) of 204\.8 MB\)$" \
  "... naming the need and the limit"

# A composition of 10^7 rows and two queens: each queen closes two diagonals, each diagonal one
# cell of a row at most, so 9999998 x 9999994 cells at least.
empty_bin 10000000 "$TMP/two.bin" 1 1 5000000 7
run bash -c "ulimit -v 400000 && exec '$NQC' count '$TMP/two.bin' --time-limit 1"
expect_exit 1 "count of a composition of 10^7 rows and 2 queens: refused"
expect_stderr_line "nqc: error: cannot count the completions: the residual board of 9999998 free rows x 9999998 free columns has at least $((9999998 * 9999994)) free cells, $BOARD_CAP" \
  "... before its residual is built"
run bash -c "ulimit -v 400000 && exec '$NQC' complete '$TMP/two.bin' -e exact --time-limit 1"
expect_exit 1 "complete -e exact on it: refused"
expect_stderr_line "nqc: error: the residual board of 9999998 free rows x 9999998 free columns has at least $((9999998 * 9999994)) free cells, $BOARD_CAP" \
  "... by the same bound"
for e in bitboard:128 sat:500; do
  run "$NQC" complete "$TMP/two.bin" -e "${e%:*}" --time-limit 1
  expect_exit 1 "complete -e ${e%:*} on it: refused"
  expect_stderr_line "nqc: error: engine '${e%:*}' takes at most ${e#*:} free rows, this composition has 9999998 (use auto or exact)" \
    "... naming the most free rows it takes"
done
# The engines that run there stop at a limit that has passed when their set-up polls it first.
for e in auto grigoryan minconflicts; do
  run "$NQC" complete "$TMP/two.bin" -e "$e" --time-limit 0.000001
  expect_exit 3 "complete -e $e on it, --time-limit 0.000001: gave up"
  expect_stdout_line "limit: time_limit" "... at the time limit"
  expect_stdout_line "nodes: 0" "... in its set-up, before any node"
done

# Engines whose memory grows with n refuse, before allocating it, what the address space cannot
# hold: min-conflicts' diagonal counts (32 bytes per row), grigoryan's lists (16 per free row).
empty_bin 30000000 "$TMP/e3e7.bin"
run bash -c "ulimit -v 600000 && exec '$NQC' complete '$TMP/e3e7.bin' -e minconflicts"
expect_exit 1 "complete -e minconflicts on the empty board of 3*10^7 rows in 600 MB: refused"
expect_stderr_match "^nqc: error: engine 'minconflicts' at n = 30000000 \(its diagonal counts: 32 bytes per row\) needs 978\.8 MB, more than this process can get \([0-9.]+ MB left under the address-space limit \(ulimit -v\) of 614\.4 MB\)$" \
  "... naming its need and the limit (not exit 8)"
run bash -c "ulimit -v 400000 && exec '$NQC' complete '$TMP/e3e7.bin' -e grigoryan"
expect_exit 1 "complete -e grigoryan on it in 400 MB: refused"
expect_stderr_match "^nqc: error: engine 'grigoryan' at n = 30000000 with 30000000 free rows \(16 bytes per free row\) needs 480\.0 MB, more than this process can get \([0-9.]+ MB left under the address-space limit \(ulimit -v\) of 409\.6 MB\)$" \
  "... naming its need and the limit"

# max_nodes counts the queens of auto's random fill (n >= 2^17): it stops there exactly (it
# once ran the whole fill, 130323 nodes).
empty_bin 131072 "$TMP/e17.bin"
run "$NQC" complete "$TMP/e17.bin" --max-nodes 10
expect_exit 3 "complete (auto) on the empty board of 2^17 rows, --max-nodes 10: gave up"
expect_stdout_line "nodes: 10" "... after exactly 10 nodes"
expect_stdout_line "limit: max_nodes" "... at max_nodes"

summary
