#!/usr/bin/env bash
# Results on file systems without flock: flock()
# failing with ENOLCK (NFS without a lock daemon), 524 (Lustre, Cray DVS) or ENOSYS, simulated
# by an LD_PRELOAD shim: run, aggregate and rerun work, and the directory lock still refuses a
# second launch (it uses link(), not flock).
# Usage: test_no_flock.sh NQC CONFIG
set -u
NQC=$(realpath "$1")
CONFIG=$(realpath "$2")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

printf '#include <errno.h>\n#include <stdlib.h>\nint flock(int fd, int op) { (void)fd; (void)op; const char* e = getenv("FAKE_FLOCK_ERRNO"); errno = e ? atoi(e) : 38; return -1; }\n' >"$TMP/nolock.c"
gcc -shared -fPIC -o "$TMP/nolock.so" "$TMP/nolock.c"
check "the flock shim builds" test -f "$TMP/nolock.so"
for e in 37 524 38; do
  D=$TMP/r$e
  run env FAKE_FLOCK_ERRNO=$e LD_PRELOAD="$TMP/nolock.so" "$NQC" run "$CONFIG" -o "$D" -q
  expect_exit 0 "flock failing with errno $e: nqc run completes"
  run env FAKE_FLOCK_ERRNO=$e LD_PRELOAD="$TMP/nolock.so" "$NQC" aggregate "$D"
  expect_exit 0 "flock failing with errno $e: nqc aggregate reads the results"
  run env FAKE_FLOCK_ERRNO=$e LD_PRELOAD="$TMP/nolock.so" "$NQC" rerun "$D" --case 3
  expect_exit 0 "flock failing with errno $e: nqc rerun of case 3"
done
# The directory lock needs no flock: a held directory is refused there too.
mkdir -p "$TMP/held/locks"
printf '{"scope": "all", "host": "node017", "pid": 1234, "slurm_job": "", "since_utc": "2026-12-01T04:00:00Z"}\n' >"$TMP/held/locks/all.lock"
run env FAKE_FLOCK_ERRNO=37 LD_PRELOAD="$TMP/nolock.so" "$NQC" run "$CONFIG" -o "$TMP/held" -q
expect_exit 1 "without flock, a directory held by another host's launch is refused"
expect_log_error "$TMP/held: in use by nqc run on node017, pid 1234, since 2026-12-01T04:00:00Z (the whole plan, $TMP/held/locks/all.lock): wait for it to end (if it is dead, remove $TMP/held/locks/all.lock)" \
  "... naming the holder"
summary
