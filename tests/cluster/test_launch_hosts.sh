#!/usr/bin/env bash
# The launches table names every host with its ranks, on a simulated cluster of 3 hosts
# (tests/cluster/lib.sh): the `hosts` column of a launch is HOST:RANKS,... with the hosts in
# rank order (of their first rank) and each host's ranks as ranges (a-b, or a alone) joined by
# + (launches.hpp), e.g. nqc-h0:0-1,nqc-h1:2-3,nqc-h2:4-5; `nqc info DIR` shows it.
#   1. 3 hosts x 2 ranks, by slot:        nqc-h0:0-1,nqc-h1:2-3,nqc-h2:4-5
#   2. 1, 2 and 3 ranks on the 3 hosts:    nqc-h0:0,nqc-h1:1-2,nqc-h2:3-5
#   3. 3 hosts x 2 ranks, round robin (--map-by node): nqc-h0:0+3,nqc-h1:1+4,nqc-h2:2+5
# Where mpirun put each rank is asked of mpirun itself (the same options, hostname per rank),
# and the expected column is built from that, so the test does not depend on mpirun's
# mapping policy; the examples above are what Open MPI 4.1 does.
# Exit 77 (ctest: skipped) only when not root or without `ip netns`.
# Usage: test_launch_hosts.sh NQC PYTHON REPO
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 NQC PYTHON REPO" >&2
  exit 2
fi
PYTHON=$2
REPO=$(cd "$3" && pwd -P)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../cli/lib.sh
source "$REPO/tests/cli/lib.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
cluster_require
T0=$SECONDS
cluster_up 3
NQC=$(cluster_shared "$1")
CONFIG=$(cluster_shared "$REPO/configs/ci.json")
py() {
  "$PYTHON" "$HERE/check.py" "$@" >"$TMP/py.out" 2>&1
  relay_checks "$TMP/py.out"
}

# expected_hosts: "RANK HOST" lines on stdin -> HOST:RANKS,... as the launches table should say.
expected_hosts() {
  sort -n | awk '
    { host[$1] = $2; if (!($2 in seen)) { seen[$2] = 1; order[++hosts] = $2 } n = $1 + 1 }
    END {
      for (i = 1; i <= hosts; i++) {
        h = order[i]; s = ""; r = 0
        while (r < n) {
          if (host[r] != h) { r++; continue }
          a = r; while (r + 1 < n && host[r + 1] == h) r++
          s = s (s == "" ? "" : "+") (a == r ? a : a "-" r); r++
        }
        out = out (out == "" ? "" : ",") h ":" s
      }
      print out
    }'
}

# has_field WORD FILE: a line of FILE has WORD as one of its whitespace-separated fields.
# shellcheck disable=SC2317 # called through check
has_field() { awk -v w="$1" '{ for (i = 1; i <= NF; i++) if ($i == w) found = 1 } END { exit !found }' "$2"; }

# case_hosts NAME SPEC NP WANT [MPIRUN OPTIONS...]: where mpirun puts the NP ranks (must give
# WANT, the example), then nqc run ci.json with the same options: its launch's hosts column.
case_hosts() {
  local name=$1 spec=$2 np=$3 want=$4 mapped
  shift 4
  # shellcheck disable=SC2016 # expanded by each rank's shell
  run mpirun_hosts "$spec" "$np" "$@" sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname)"'
  expect_exit 0 "$name: mpirun --host $spec -np $np${*:+ $*} (where the ranks go)"
  mapped=$(expected_hosts <"$OUT_FILE")
  check "$name: mpirun maps the ranks as $want (got $mapped)" test "$mapped" = "$want"
  run mpirun_hosts "$spec" "$np" "$@" "$NQC" run "$CONFIG" -o "$WORK/$name" -q
  expect_exit 0 "$name: nqc run ci.json on those ranks"
  py hosts "$WORK/$name/results.h5" 1 "$mapped"
  run "$NQC" info "$WORK/$name"
  expect_exit 0 "$name: nqc info"
  check "$name: nqc info shows the launch's hosts as $mapped" has_field "$mapped" "$OUT_FILE"
  grep -A3 '^launches:' "$OUT_FILE" | sed 's/^/#   /'
}

step "1. 3 hosts x 2 ranks, by slot"
case_hosts slot nqc-h0:2,nqc-h1:2,nqc-h2:2 6 nqc-h0:0-1,nqc-h1:2-3,nqc-h2:4-5
step "2. 1, 2 and 3 ranks on the 3 hosts"
case_hosts uneven nqc-h0:1,nqc-h1:2,nqc-h2:3 6 nqc-h0:0,nqc-h1:1-2,nqc-h2:3-5
step "3. 3 hosts x 2 ranks, round robin"
case_hosts round_robin nqc-h0:2,nqc-h1:2,nqc-h2:2 6 nqc-h0:0+3,nqc-h1:1+4,nqc-h2:2+5 --map-by node

step "done"
echo "# total $((SECONDS - T0)) s"
summary
