#!/usr/bin/env bash
# Fuzzes the readers for a bounded time: each target of tests/fuzz in turn
# for SECONDS (default 60), one process, from the committed inputs (seeds/ and failed/) and
# the corpus that earlier runs grew (build-fuzz/corpus/TARGET, not committed). Builds the fuzz
# build first if needed (build-fuzz: clang, libFuzzer, ASan + UBSan). Every input that makes a
# target fail is copied to tests/fuzz/failed/TARGET/ (commit it with the fix: the ctest
# fuzz_replay_TARGET replays it from then on). Prints one Markdown row per target:
# executions, seconds, executions per second, corpus size, findings.
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]     (targets: composition param config result_file)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(composition param config result_file)
build=${NQC_FUZZ_BUILD_DIR:-build-fuzz}
scripts/fuzz-build.sh "$build" >&2
# shellcheck source=options.sh
source tests/fuzz/options.sh
echo "| target | seconds | executions | executions/s | corpus (files) | new findings |"
echo "|---|---:|---:|---:|---:|---:|"
status=0
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  findings=$build/findings/$t
  mkdir -p "$corpus" "$findings" "tests/fuzz/failed/$t"
  log=$build/fuzz-$t.log
  start=$(date +%s.%N)
  # libFuzzer stops at the first finding (exit non-zero); the row below says so.
  "$build/tests/fuzz/fuzz_$t" "${FUZZ_FLAGS[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$findings/" "$corpus" "tests/fuzz/seeds/$t" "tests/fuzz/failed/$t" >"$log" 2>&1 || true
  end=$(date +%s.%N)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  new=0
  for f in "$findings"/*; do
    [ -e "$f" ] || continue
    cp "$f" "tests/fuzz/failed/$t/"
    rm "$f"
    new=$((new + 1))
    status=1
    echo "fuzz: $t: $(basename "$f") -> tests/fuzz/failed/$t/ (log: $log)" >&2
  done
  awk -v t="$t" -v s="$start" -v e="$end" -v r="${runs:-0}" -v c="$(find "$corpus" -type f | wc -l)" -v n="$new" \
    'BEGIN { printf "| %s | %.0f | %d | %.0f | %d | %d |\n", t, e - s, r, r / (e - s), c, n }'
done
exit $status
