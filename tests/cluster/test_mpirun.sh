#!/usr/bin/env bash
# nqc across hosts under mpirun, on a simulated cluster of 3 hosts (tests/cluster/lib.sh):
#   1. configs/ci.json on 3 hosts x 2 ranks (rsh agent, TCP only: btl tcp,self on the hosts'
#      eth0, pml ob1, as on an Ethernet cluster without RDMA): exit 0, its rows equal a 1-rank
#      run's in every column but the run-dependent ones, one launch of world size 6 on the 3 hosts
#   2. `nqc count 12` on 3 hosts x 2 ranks prints Q(12) of OEIS A000170, once
#   3. the same run through Open MPI's pml ucx (UCX over its own TCP transport, as UCX would
#      carry it over InfiniBand or RoCE on a cluster that has them): the same rows
# Exit 77 (ctest: skipped) only when not root or without `ip netns`.
# Usage: test_mpirun.sh NQC PYTHON REPO
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
OEIS=$REPO/tests/data/oeis-A000170.txt
SPEC=nqc-h0:2,nqc-h1:2,nqc-h2:2
py() {
  "$PYTHON" "$HERE/check.py" "$@" >"$TMP/py.out" 2>&1
  relay_checks "$TMP/py.out"
}

step "the reference: configs/ci.json on 1 rank"
run "$NQC" run --dry-run "$CONFIG" -o "$WORK/one"
planned=$(plan_field cases "$CONFIG" -o "$WORK/one")
check "run --dry-run prints the case count ($planned)" test -n "$planned"
run timeout 300 "$NQC" run "$CONFIG" -o "$WORK/one" -q
expect_exit 0 "nqc run on 1 rank"

step "1. configs/ci.json on 3 hosts x 2 ranks"
run mpirun_hosts "$SPEC" 6 "$NQC" run "$CONFIG" -o "$WORK/six" -q
expect_exit 0 "mpirun --host $SPEC -np 6 nqc run ci.json"
check "results.h5 written" test -s "$WORK/six/results.h5"
py once "$WORK/six/results.h5" "${planned:-0}"
py rows "$NQC" "$WORK/one/results.h5" "$WORK/six/results.h5"
py host_names "$WORK/six/results.h5" 1 nqc-h0,nqc-h1,nqc-h2
# Every rank joined on its host (the launch's hosts); the rows come from ranks among them (the
# work is taken dynamically: on a loaded machine a rank may get no shard).
ranks=$("$PYTHON" -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r"); l = f["launches"]; print(len(l), int(l["world_size"][0]), l["hosts"][0].decode(), set(f["cases"]["rank"].tolist()) <= set(range(6)))' "$WORK/six/results.h5" 2>&1)
check "one launch of world size 6 on the 3 hosts, rows from ranks 0..5 ($ranks)" \
  test "$ranks" = "1 6 nqc-h0:0-1,nqc-h1:2-3,nqc-h2:4-5 True"
"$PYTHON" "$HERE/check.py" launches "$WORK/six/results.h5"

step "2. nqc count 12 on 3 hosts x 2 ranks"
q12=$(awk '$1 == 12 { print $2 }' "$OEIS")
run mpirun_hosts "$SPEC" 6 "$NQC" count 12
expect_exit 0 "mpirun --host $SPEC -np 6 nqc count 12"
expect_stdout_line "completions: $q12" "count 12 on 3 hosts = OEIS A000170 ($q12)"
check "the count is printed once, by rank 0" test "$(grep -c '^completions: ' "$OUT_FILE")" = 1

step "3. configs/ci.json on 3 hosts x 2 ranks through UCX"
MPI_TRANSPORT=ucx run mpirun_hosts "$SPEC" 6 "$NQC" run "$CONFIG" -o "$WORK/ucx" -q
expect_exit 0 "mpirun --mca pml ucx --host $SPEC -np 6 nqc run ci.json"
py once "$WORK/ucx/results.h5" "${planned:-0}"
py rows "$NQC" "$WORK/one/results.h5" "$WORK/ucx/results.h5"

step "done"
echo "# total $((SECONDS - T0)) s"
summary
