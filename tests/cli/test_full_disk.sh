#!/usr/bin/env bash
# A full disk during a run, and an unwritable results directory (read-only file system, a
# path through a file): a clear error naming the file and the system's reason (e.g. "No space left on device"),
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

# An unwritable results directory: a read-only file system (root ignores permission bits),
# fresh and with a run half done; and a path through a regular file.
sums() { (cd "$mnt/out/shards" && sha256sum -- *.h5); }
before=$(sums)
mount -o remount,ro "$mnt"
run "$NQC" run "$TMP/full.json" -o "$mnt/fresh"
expect_exit 1 "a results directory on a read-only file system"
expect_log_error "$mnt/fresh: cannot create the results directory: Read-only file system" "read-only: the error names the directory"
run "$NQC" run "$TMP/full.json" -o "$mnt/out" --resume
expect_exit 1 "--resume on a read-only file system"
expect_log_error "$mnt/out: cannot write to the results directory: Read-only file system" "read-only --resume: the error names the directory and says why"
check "read-only --resume: the shards are unchanged" test "$(sums)" = "$before"
mount -o remount,rw "$mnt"
: >"$TMP/a-file"
run "$NQC" run "$TMP/full.json" -o "$TMP/a-file/out"
expect_exit 1 "a results directory under a regular file"
expect_log_error "$TMP/a-file/out: cannot create the results directory: Not a directory" "under a file: the error says Not a directory"
summary
