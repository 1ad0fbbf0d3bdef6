#!/usr/bin/env bash
# A results directory that the hosts do not share is refused at launch, before anything is
# written, on a simulated cluster of 3 hosts (tests/cluster/lib.sh), whose /tmp is node-local:
#   1. `nqc run ci.json -o /tmp/DIR` on 3 hosts x 2 ranks: exit 1; one line of stderr names
#      /tmp/DIR and says it is not shared (visible) on every host; no file written into
#      /tmp/DIR on any host (results.h5, shards, partial or lock files): nothing to clean up
#   2. the same with a directory that does not exist yet on any host
#   3. (control) /tmp/DIR is fine when every rank runs on one host: the refusal is about
#      hosts that do not share the directory, not about /tmp
# Exit 77 (ctest: skipped) only when not root or without `ip netns`.
# Usage: test_unshared_dir.sh NQC PYTHON REPO
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 NQC PYTHON REPO" >&2
  exit 2
fi
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
SPEC=nqc-h0:2,nqc-h1:2,nqc-h2:2

# files_under DIR: the files (not directories) under DIR on every host's /tmp, as HOST:/tmp/PATH.
files_under() {
  local h
  for h in "${CLUSTER_HOSTS[@]}"; do
    [ -d "$CLUSTER_BASE/local/$h/${1#/tmp/}" ] || continue
    (cd "$CLUSTER_BASE/local/$h" && find "${1#/tmp/}" ! -type d) | sed "s|^|$h:/tmp/|"
  done
}

# says_not_shared DIR: the line of the last run's stderr that names DIR says "shared" or "visible".
# shellcheck disable=SC2317 # called through check
says_not_shared() { grep -F -- "$1" "$ERR_FILE" | grep -qiE 'shared|visible'; }

# refused DIR DESC: the last run refused DIR as not shared, and wrote nothing there.
refused() {
  local dir=$1 desc=$2 naming
  expect_exit 1 "$desc: refused"
  naming=$(grep -cF -- "$dir" "$ERR_FILE")
  check "$desc: one line of stderr names $dir ($naming lines)" test "$naming" -eq 1
  check "$desc: that line says the directory is not shared by (visible from) every host" says_not_shared "$dir"
  grep -F -- "$dir" "$ERR_FILE" | sed 's/^/#   stderr: /'
  local left
  left=$(files_under "$dir")
  check "$desc: nothing written into $dir on any host (results, shards, partial, lock files)" test -z "$left"
  [ -z "$left" ] || printf '%s\n' "$left" | head -n 20 | sed 's/^/#   left: /'
}

step "1. -o /tmp/nqc-unshared (made on every host, empty) on 3 hosts x 2 ranks"
DIR=/tmp/nqc-unshared
for h in "${CLUSTER_HOSTS[@]}"; do mkdir -p "$CLUSTER_BASE/local/$h/nqc-unshared"; done
run mpirun_hosts "$SPEC" 6 "$NQC" run "$CONFIG" -o "$DIR" -q
refused "$DIR" "a directory of the same name on every host's own /tmp"

step "2. -o /tmp/nqc-new/out (does not exist on any host) on 3 hosts x 2 ranks"
DIR=/tmp/nqc-new/out
run mpirun_hosts "$SPEC" 6 "$NQC" run "$CONFIG" -o "$DIR" -q
refused "$DIR" "a directory that does not exist yet"

step "3. control: -o /tmp/nqc-one-host on one host x 2 ranks"
run mpirun_hosts nqc-h1:2 2 "$NQC" run "$CONFIG" -o /tmp/nqc-one-host -q
expect_exit 0 "every rank on nqc-h1: a directory in its /tmp is shared by all the ranks"
check "results.h5 written in nqc-h1's /tmp" test -s "$CLUSTER_BASE/local/nqc-h1/nqc-one-host/results.h5"

step "done"
echo "# total $((SECONDS - T0)) s"
summary
