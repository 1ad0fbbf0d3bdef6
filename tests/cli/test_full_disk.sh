#!/usr/bin/env bash
# A full disk during a run: a clear error naming the file and "No space left on device",
# exit 1, every shard written before it intact, no temporary file left, and --resume
# completes the run once there is space. Needs root to mount a small tmpfs (exit 77 =
# skipped, for ctest, where that is not allowed).
# Usage: test_full_disk.sh NQC
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 NQC" >&2
  exit 2
fi
NQC=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

mnt=$TMP/small
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=300k tmpfs "$mnt" 2>/dev/null; then
  echo "skipped: cannot mount a tmpfs here (needs root)"
  exit 77
fi
trap 'umount "$mnt" 2>/dev/null; rm -rf "$TMP"' EXIT
cat >"$TMP/full.json" <<'JSON'
{"name": "full", "seed": 1, "shard_cases": 100, "sizes": [{"n": [1000], "solutions": 200, "compositions_per_solution": 100}]}
JSON
run "$NQC" run "$TMP/full.json" -o "$mnt/out"
expect_exit 1 "a run that fills the disk"
check "full disk: the error names the shard file" grep -qF "$mnt/out/shards/shard-" "$ERR_FILE"
check "full disk: the error says No space left on device" grep -qF ": No space left on device (" "$ERR_FILE"
check "full disk: the error is one short line, not HDF5's whole stack" test "$(grep -c '\[error\]' "$ERR_FILE")" -eq 1 -a "$(grep '\[error\]' "$ERR_FILE" | wc -c)" -lt 300
written=$(ls "$mnt/out/shards" | grep -c '\.h5$')
check "full disk: earlier shards kept ($written)" test "$written" -gt 0
check "full disk: no temporary file left" test -z "$(ls "$mnt/out/shards" | grep '\.tmp$')"
run "$NQC" aggregate "$mnt/out"
expect_exit 0 "the shards written before the disk filled are readable"
# Make room: move the results to a larger place, then resume there.
cp -r "$mnt/out" "$TMP/out"
run "$NQC" run "$TMP/full.json" -o "$TMP/out" --resume -q
expect_exit 0 "--resume after the disk filled, with room"
check "--resume: results.h5 written" test -s "$TMP/out/results.h5"
summary
