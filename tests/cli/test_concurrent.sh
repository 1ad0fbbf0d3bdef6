#!/usr/bin/env bash
# One owner per results directory: while
# a run provably holds its directory (its lock file names it), every second launch on that
# directory is refused with one line naming the holder, exit 1, and leaves nothing behind;
# the holder, stopped by SIGTERM, releases the lock, and its shards are intact. Not timing-
# dependent: the holder's cases each end at a 0.5 s time limit (an instance that no engine
# proves infeasible in a test's time) and there are far more of them than the test needs, so
# the holder runs until the test stops it.
# Usage: test_concurrent.sh NQC
set -u
NQC=$(realpath "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

slow_instances "$TMP/inst" 400
cat >"$TMP/slow.json" <<'JSON'
{"name": "slow", "engine": "auto", "time_limit_s": 0.5, "shard_cases": 2,
 "instances": {"files": ["inst"]}}
JSON
D=$TMP/D

# The holder: the whole plan on 2 ranks (400 cases of 0.5 s: 100 s at the least).
mpirun -np 2 "$NQC" run "$TMP/slow.json" -o "$D" -q 2>"$TMP/holder.err" &
holder=$!
for _ in $(seq 1 600); do
  [ -s "$D/locks/all.lock" ] && break
  sleep 0.1
done
check "the holder took the lock (DIR/locks/all.lock)" test -s "$D/locks/all.lock"
holder_pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$D/locks/all.lock")
check "the lock names a live process ($holder_pid)" kill -0 "${holder_pid:-0}"

# 30 second launches of every kind: each refused, naming the holder, exit 1.
refused=0
for try in $(seq 1 30); do
  case $((try % 5)) in
    0) args=(run "$TMP/slow.json" -o "$D") ;;
    1) args=(run "$TMP/slow.json" -o "$D" --resume) ;;
    2) args=(run "$TMP/slow.json" -o "$D" --part 0/2) ;;
    3) args=(run "$TMP/slow.json" -o "$D" --part 1/3) ;;
    4) args=(run "$TMP/slow.json" -o "$D" --resume --repair) ;;
  esac
  run "$NQC" "${args[@]}"
  if [ "$RC" -eq 1 ] && grep -q "^.*$D: in use by nqc run on $(hostname), pid $holder_pid, since .* (the whole plan, $D/locks/all.lock): wait for it to end (if it is dead, remove $D/locks/all.lock)$" "$ERR_FILE" &&
    [ "$(wc -l <"$ERR_FILE")" -eq 1 ]; then
    refused=$((refused + 1))
  else
    fail "try $try (${args[*]}): refused with one line naming the holder" "$(last_run)"
  fi
done
check "30 of 30 second launches refused naming the holder (got $refused)" test "$refused" -eq 30
run mpirun -np 2 "$NQC" run "$TMP/slow.json" -o "$D" --resume
check "a second launch under mpirun -np 2 is refused too (exit $RC)" test "$RC" -ne 0
check "... naming the holder" grep -q "in use by nqc run on $(hostname), pid $holder_pid" "$ERR_FILE"
check "the holder still holds the lock" kill -0 "$holder_pid"

# Stop the holder: exit 4 (interrupted), lock released, nothing left by the refused launches.
kill -TERM "$holder"
wait "$holder"
hrc=$?
# (Open MPI's mpirun exits 1 after SIGTERM even when every rank stops cleanly: docs/cli.md.)
check "the holder, stopped by SIGTERM, ends (mpirun exit $hrc)" test "$hrc" -ne 0
check "both ranks of the holder stopped cleanly (interrupted, rerun with --resume)" \
  test "$(grep -c 'interrupted .* rerun with --resume to continue' "$TMP/holder.err")" -eq 2
check "the holder logged no error" test "$(grep -c '\[error\]\|\[critical\]' "$TMP/holder.err")" -eq 0
check "the lock is released" test ! -e "$D/locks/all.lock"
stray=$(find "$D" -name '*.tmp*' -o -name '.tmp-*' | head -3)
check "no temporary file left in the directory ($stray)" test -z "$stray"
run "$NQC" run "$TMP/slow.json" -o "$D" --resume --dry-run
expect_exit 0 "the directory reads as intact afterwards (--resume --dry-run checks every shard)"
summary
