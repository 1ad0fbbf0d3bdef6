#!/usr/bin/env bash
# `nqc count` under mpirun: the ranks split the empty board's prefixes and rank 0 prints
# the same lines as one process (time_s aside), for 2 and 3 ranks; limits give a lower
# bound and exit 3; a composition file is counted once.
# Usage: test_count_ranks.sh NQC OEIS_FILE
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NQC OEIS_FILE" >&2
  exit 2
fi
NQC=$1
OEIS=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
LIMIT=120  # seconds per run: a hung mpirun fails the check instead of the whole test

q() { awk -v n="$1" '$1 == n { print $2 }' "$OEIS"; }
# without_time FILE: the output without its time_s line
without_time() { grep -v '^time_s: ' "$1"; }

run timeout "$LIMIT" mpirun -np 2 "$NQC" count 12
expect_exit 0 "mpirun -np 2 count 12"
expect_stdout_line "completions: 14200" "mpirun -np 2 count 12 prints Q(12) = 14200"
check "mpirun -np 2 count 12: printed once, by rank 0" test "$(grep -c '^completions: ' "$OUT_FILE")" = 1

for n in 12 14; do
  run "$NQC" count "$n"
  expect_stdout_line "completions: $(q "$n")" "count $n alone = OEIS A000170"
  without_time "$OUT_FILE" >"$TMP/one-$n.txt"
  for np in 2 3; do
    run timeout "$LIMIT" mpirun -np "$np" --oversubscribe "$NQC" count "$n"
    expect_exit 0 "mpirun -np $np count $n"
    check "mpirun -np $np count $n: the same n, k, completions and nodes as one process" \
      cmp -s <(without_time "$OUT_FILE") "$TMP/one-$n.txt"
  done
done

run timeout "$LIMIT" mpirun -np 2 "$NQC" count 12 --max-nodes 1000
expect_exit 3 "mpirun -np 2 count 12 --max-nodes 1000: exit 3"
expect_stdout_line "limit: max_nodes" "mpirun count with --max-nodes names the limit"
lower=$(sed -n 's/^completions: \([0-9]*\) (lower bound)$/\1/p' "$OUT_FILE")
check "mpirun count with --max-nodes: a lower bound below 14200 ($lower)" test "${lower:-14200}" -lt 14200
nodes=$(sed -n 's/^nodes: //p' "$OUT_FILE")
check "mpirun count with --max-nodes: at most 1000 placements on each of 2 ranks ($nodes)" test "${nodes:-9999}" -le 2000

run timeout "$LIMIT" mpirun -np 2 "$NQC" count 20 --time-limit 0.3
expect_exit 3 "mpirun -np 2 count 20 --time-limit 0.3: exit 3"
expect_stdout_line "limit: time_limit" "mpirun count with --time-limit names the limit"

# A composition (n = 8, a queen in row 1, column 1): counted by rank 0 alone, 4 completions.
printf '1 0 0 0 0 0 0 0\n' >"$TMP/q8-corner.txt"
run "$NQC" count "$TMP/q8-corner.txt"
expect_stdout_line "completions: 4" "count of an n = 8 composition with a corner queen: 4"
without_time "$OUT_FILE" >"$TMP/one-file.txt"
run timeout "$LIMIT" mpirun -np 2 "$NQC" count "$TMP/q8-corner.txt"
expect_exit 0 "mpirun -np 2 count FILE"
check "mpirun -np 2 count FILE: the same lines as one process, printed once" \
  cmp -s <(without_time "$OUT_FILE") "$TMP/one-file.txt"

summary
