#!/usr/bin/env bash
# A full disk during a run (one rank and two), and an unwritable results directory (read-only
# file system): a clear error naming the file and the system's reason (e.g. "No space left on
# device"), exit 7 (io_error), every shard written before it intact, no temporary file left,
# and --resume completes the run once there is space; a results directory through a regular
# file is the user's path: exit 1. Writing subcommands into a full file system keep the file
# their path held (temporary name, rename). Writing subcommands into the full (construct -o) or
# read-only (construct -o, export -o) file system: 7; export -o onto a full device:
# test_exit_codes.sh. Needs root to mount a small tmpfs (exit 77 = skipped, for
# ctest, where that is not allowed).
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
trap 'umount "$mnt" "$TMP/small2" "$TMP/small3" 2>/dev/null; rm -rf "$TMP"' EXIT
cat >"$TMP/full.json" <<'JSON'
{"name": "full", "seed": 1, "shard_cases": 100, "sizes": [{"n": [1000], "solutions": 200, "compositions_per_solution": 100}]}
JSON
run "$NQC" run "$TMP/full.json" -o "$mnt/out"
expect_exit 7 "a run that fills the disk"
check "full disk: the error names the shard file" grep -qF "$mnt/out/shards/shard-" "$ERR_FILE"
check "full disk: the error says No space left on device" grep -qF ": No space left on device (" "$ERR_FILE"
check "full disk: the error is one short line, not HDF5's whole stack" test "$(grep -c '\[error\]' "$ERR_FILE")" -eq 1 -a "$(grep '\[error\]' "$ERR_FILE" | wc -c)" -lt 300
written=$(ls "$mnt/out/shards" | grep -c '\.h5$')
check "full disk: earlier shards kept ($written)" test "$written" -gt 0
check "full disk: no temporary file left" test -z "$(ls "$mnt/out/shards" | grep '\.tmp$')"
run "$NQC" aggregate "$mnt/out"
expect_exit 0 "the shards written before the disk filled are readable"
# A writing subcommand into the full file system: 7, its file not left half written.
run "$NQC" construct 200000 -o "$mnt/big.txt"
expect_exit 7 "construct -o into the full file system"
check "... the error names the file and says No space left on device" \
  grep -qxF "nqc: error: $mnt/big.txt: cannot write: No space left on device" "$ERR_FILE"
rm -f "$mnt/big.txt"
# Every writing subcommand writes under a temporary name and renames: on a full disk the file
# the path held before is kept whole (text, binary, HDF5; construct, generate, randset
# --trials-csv), and no temporary file is left.
mnt3=$TMP/small3
mkdir -p "$mnt3" && mount -t tmpfs -o size=64k tmpfs "$mnt3"
for ext in txt bin h5; do "$NQC" construct 1000 -o "$mnt3/keep.$ext" 2>/dev/null; done
"$NQC" randset 100 --trials 10 --trials-csv "$mnt3/keep.csv" >/dev/null 2>&1
keep_sums=$(cd "$mnt3" && sha256sum -- keep.*)
head -c 45000 /dev/zero >"$mnt3/fill" 2>/dev/null
for ext in txt bin h5; do
  run "$NQC" construct 10000 -o "$mnt3/keep.$ext"
  expect_exit 7 "construct 10000 -o keep.$ext onto a full disk"
  run "$NQC" generate 10000 -o "$mnt3/keep.$ext"
  expect_exit 7 "generate 10000 -o keep.$ext onto a full disk"
done
check "... the error names the output, not a temporary file" grep -qF "$mnt3/keep.h5" "$ERR_FILE"
run "$NQC" randset 100 --trials 20000 --trials-csv "$mnt3/keep.csv"
expect_exit 7 "randset --trials-csv onto a full disk"
check "full disk: each file the paths held before is unchanged" test "$(cd "$mnt3" && sha256sum -- keep.*)" = "$keep_sums"
check "full disk: no temporary file left" test -z "$(ls -A "$mnt3" | grep '\.part$')"
umount "$mnt3"
# A file bind-mounted over another cannot be renamed onto: it is written in place, whole.
echo old >"$TMP/bind-source" && echo old >"$TMP/bind-target"
if mount --bind "$TMP/bind-source" "$TMP/bind-target" 2>/dev/null; then
  run "$NQC" construct 8 -o "$TMP/bind-target"
  expect_exit 0 "construct -o a bind-mounted file"
  check "... the mounted file holds the composition" grep -qF "# nqc composition: n = 8, k = 8" "$TMP/bind-source"
  umount "$TMP/bind-target"
fi
# Two ranks, on a file system of their own (the one above is full): the rank whose write fails
# stops; every rank, and mpirun, exit 7.
if command -v mpirun >/dev/null; then
  mnt2=$TMP/small2
  mkdir -p "$mnt2" && mount -t tmpfs -o size=300k tmpfs "$mnt2"
  run mpirun -np 2 "$NQC" run "$TMP/full.json" -o "$mnt2/out"
  expect_exit 7 "mpirun -np 2: a run that fills the disk"
  check "mpirun: the error says No space left on device" grep -qF ": No space left on device (" "$ERR_FILE"
  umount "$mnt2"
fi
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
expect_exit 7 "a results directory on a read-only file system"
expect_log_error "$mnt/fresh: cannot create the results directory: Read-only file system" "read-only: the error names the directory"
run "$NQC" run "$TMP/full.json" -o "$mnt/out" --resume
expect_exit 7 "--resume on a read-only file system"
expect_log_error "$mnt/out: cannot write to the results directory: Read-only file system" "read-only --resume: the error names the directory and says why"
check "read-only --resume: the shards are unchanged" test "$(sums)" = "$before"
run "$NQC" construct 10 -o "$mnt/s.txt"
expect_exit 7 "construct -o onto a read-only file system"
expect_stderr_line "nqc: error: $mnt/s.txt: cannot write: Read-only file system" "... the one-line error"
run "$NQC" export "$TMP/out" --case 0 -o "$mnt/case.bin"
expect_exit 7 "export -o onto a read-only file system"
mount -o remount,rw "$mnt"
: >"$TMP/a-file"
run "$NQC" run "$TMP/full.json" -o "$TMP/a-file/out"
expect_exit 1 "a results directory under a regular file"
expect_log_error "$TMP/a-file/out: cannot create the results directory: Not a directory" "under a file: the error says Not a directory"
summary
