#!/usr/bin/env bash
# Progress that tells the truth: progress lines count finished cases of every
# rank, also inside a shard, during one long case and while other ranks finish (a run of one
# shard, held by rank 1, on 2 ranks), at the interval --progress asks for (0: none), the last
# one at the final count; every launch ends with one summary line, which -q keeps.
# Not timing-dependent in what it asserts: the slow cases each end at a time limit (0.5 s,
# or 2 s for the long one), and the checks ask only for counts that rise and end at the total.
# Usage: test_progress.sh NQC CI_CONFIG
set -u
NQC=$(realpath "$1")
CONFIG=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
LOG=$(log_line 0 info)

# Six slow cases in one shard (lib.sh's slow_instances: 0.5 s each).
slow_instances "$TMP/inst" 6
cat >"$TMP/slow.json" <<'JSON'
{"name": "slow", "engine": "auto", "time_limit_s": 0.5, "instances": {"files": ["inst"]}}
JSON
run "$NQC" run "$TMP/slow.json" --dry-run
expect_stdout_contains "1 shards, 6 cases" "the slow config is one shard of 6 cases"

run "$NQC" run "$TMP/slow.json" -o "$TMP/one" --progress 0.2
expect_exit 0 "one shard on one rank, --progress 0.2"
grep -E "${LOG}progress: " "$ERR_FILE" | sed -E 's/.*progress: ([0-9]+)\/6 cases.*/\1/' >"$TMP/counts"
check "progress lines inside the one shard ($(tr '\n' ' ' <"$TMP/counts"))" test "$(wc -l <"$TMP/counts")" -ge 2
check "... counting finished cases, rising ($(sort -n -u "$TMP/counts" | tr '\n' ' '))" \
  test "$(sort -n -u "$TMP/counts" | wc -l)" -ge 2 -a "$(sort -n "$TMP/counts" | tr '\n' ' ')" = "$(tr '\n' ' ' <"$TMP/counts")"
check "... each with a rate and an ETA" test "$(grep -cE "${LOG}progress: [0-9]+/6 cases \([0-9.]+%\), [0-9.]+ cases/s, ETA ([0-9]+ s|unknown)$" "$ERR_FILE")" -eq "$(wc -l <"$TMP/counts")"
check "the summary line: 6 gave up at the time limit (false negatives 0: instances)" grep -qE \
  "${LOG}summary: 6 cases run by this launch \(0 solved, 0 infeasible, 6 gave up; 0 false negatives\) in [0-9.]+ s on 1 rank\(s\), [0-9.]+ cases/s; 1 of 1 shards on disk; results in $TMP/one/results.h5$" "$ERR_FILE"

# On 2 ranks the one shard goes to one of them; rank 0 reports either way, also while waiting.
run mpirun -np 2 "$NQC" run "$TMP/slow.json" -o "$TMP/two" --progress 0.2
expect_exit 0 "one shard on two ranks"
check "rank 0 reports progress while the shard runs ($(grep -c "progress: " "$ERR_FILE") lines)" \
  test "$(grep -cE "${LOG}progress: [1-5]/6 cases" "$ERR_FILE")" -ge 1
check "... and only rank 0" test "$(grep -c "\[rank 1\] \[info\] progress" "$ERR_FILE")" -eq 0

# Counts of finished cases from every rank: three shards of two slow cases on 2 ranks; the
# counts never fall, and the last progress line (logged once every rank has reported its
# last case) reaches the total.
cat >"$TMP/slow3.json" <<'JSON'
{"name": "slow3", "engine": "auto", "time_limit_s": 0.5, "shard_cases": 2, "instances": {"files": ["inst"]}}
JSON
run mpirun -np 2 "$NQC" run "$TMP/slow3.json" -o "$TMP/three" --progress 0.2
expect_exit 0 "three shards on two ranks, --progress 0.2"
grep -E "${LOG}progress: " "$ERR_FILE" | sed -E 's/.*progress: ([0-9]+)\/6 cases.*/\1/' >"$TMP/counts3"
check "progress lines on 2 ranks ($(tr '\n' ' ' <"$TMP/counts3"))" test "$(wc -l <"$TMP/counts3")" -ge 2
check "... never falling" test "$(sort -n "$TMP/counts3" | tr '\n' ' ')" = "$(tr '\n' ' ' <"$TMP/counts3")"
check "... the last one at the total, 6/6 (both ranks' cases)" test "$(tail -n 1 "$TMP/counts3")" = 6
check "... then the summary of the 6 cases" grep -qE "${LOG}summary: 6 cases run by this launch" "$ERR_FILE"
check "... which is the last line" bash -c "tail -n 1 '$ERR_FILE' | grep -q '\] summary: '"

# One long case: lines come while it runs (rank 0's progress thread reads the counter without
# waiting for the case), 0 of 1 done, then the last line 1/1.
mkdir -p "$TMP/one-file"
cp "$TMP/inst/slow-0000.param" "$TMP/one-file/"
cat >"$TMP/long.json" <<'JSON'
{"name": "long", "engine": "auto", "time_limit_s": 2, "instances": {"files": ["one-file"]}}
JSON
run "$NQC" run "$TMP/long.json" -o "$TMP/long" --progress 0.2
expect_exit 0 "one case of 2 s, --progress 0.2"
check "progress lines during the one case: 0/1 cases ($(grep -c "progress: 0/1 cases" "$ERR_FILE") lines)" \
  test "$(grep -cE "${LOG}progress: 0/1 cases \(0\.0%\), 0\.0 cases/s, ETA unknown$" "$ERR_FILE")" -ge 1
check "... and the last one 1/1" bash -c "grep -E 'progress: ' '$ERR_FILE' | tail -n 1 | grep -qE 'progress: 1/1 cases \(100\.0%\)'"

# -q: warnings, errors and the summary.
run "$NQC" run "$TMP/slow.json" -o "$TMP/quiet" --progress 0.2 -q
expect_exit 0 "-q"
check "-q: the summary is the one line" test "$(wc -l <"$ERR_FILE")" -eq 1 -a "$(grep -c "\] summary: 6 cases run by this launch" "$ERR_FILE")" -eq 1
run "$NQC" run "$TMP/slow.json" -o "$TMP/quiet" -q
expect_exit 0 "-q, the run finished before"
check "-q: says the run is finished (one line)" \
  test "$(wc -l <"$ERR_FILE")" -eq 1 -a "$(grep -c "the run of this config is finished" "$ERR_FILE")" -eq 1

run "$NQC" run "$TMP/slow.json" -o "$TMP/none" --progress 0
expect_exit 0 "--progress 0"
check "no progress lines" test "$(grep -c "progress: " "$ERR_FILE")" -eq 0
check "the summary still ends the run" test "$(grep -c "\] summary: 6 cases run by this launch" "$ERR_FILE")" -eq 1
check "no write-share line at info level (it is a debug line)" test "$(grep -c "writing shard files" "$ERR_FILE")" -eq 0

# Stopped inside its one shard: nqc info shows the partial file's cases and the launch.
"$NQC" run "$TMP/slow.json" -o "$TMP/stopped" --progress 0.1 2>"$TMP/stopped.err" &
pid=$!
for _ in $(seq 1 300); do
  grep -qE "progress: [1-5]/6 cases" "$TMP/stopped.err" && break
  sleep 0.1
done
kill -TERM "$pid"
wait "$pid"
run "$NQC" info "$TMP/stopped"
expect_exit 0 "nqc info on a run stopped inside its only shard"
expect_stdout_contains "not merged: 0 shard files and 1 partial file read" "the partial file is read"
check "the launch is listed with exit status 4" grep -qE '^ +1 .* 4 +0 +[1-5] +no$' "$OUT_FILE"

run "$NQC" run "$CONFIG" -o "$TMP/ci"
expect_exit 0 "configs/ci.json, stderr not a terminal: the default interval is 60 s"
check "no progress line in a run shorter than that" test "$(grep -c "progress: " "$ERR_FILE")" -eq 0
check "the summary: 230 solved, 15 of 15 shards, results.h5" grep -qE \
  "${LOG}summary: 230 cases run by this launch \(230 solved, 0 infeasible, 0 gave up; 0 false negatives\) in [0-9.]+ s on 1 rank\(s\), [0-9.]+ cases/s; 15 of 15 shards on disk; results in $TMP/ci/results.h5$" "$ERR_FILE"
run "$NQC" run "$CONFIG" -o "$TMP/ci-part" --part 0/2
check "a part's summary points at the shard files" grep -qE \
  "${LOG}summary: [0-9]+ cases run by this launch .*; [0-9]+ of 15 shards on disk; results in $TMP/ci-part/shards$" "$ERR_FILE"
run "$NQC" run "$CONFIG" -o "$TMP/ci-part" --part 0/2 --progress -1
expect_exit 1 "--progress -1 is refused"
summary
