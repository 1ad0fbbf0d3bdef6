#!/usr/bin/env bash
# The runner at study scale. Runs a config on 2 ranks (default
# bench/configs/runner-1e7.json: 10^7 cases of n = 8..100) and prints its wall time, cases per
# second and each rank's write share (the time it waited for shard writes, and the background
# writer thread's CPU time, as shares of its run); then merges the same shard files again in a
# launch of its own under /usr/bin/time, for the merge's wall time and peak RSS, beside the
# merge of a tenth of the config (its first 10% of solutions) in the same run: a merge that
# streams has the same peak RSS for both.
# Usage: bench/runner_scale.sh [CONFIG] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CONFIG=${1:-bench/configs/runner-1e7.json}
NQC=$(realpath "${2:-build}/src/cli/nqc")
source scripts/env.sh
out=${NQC_BENCH_DIR:-$(mktemp -d)}
[ -n "${NQC_BENCH_DIR:-}" ] || trap 'rm -rf "$out"' EXIT
/usr/bin/python3 - "$CONFIG" "$out/tenth.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for g in c["sizes"]:
    g["solutions"] = max(1, g["solutions"] // 10)
c["name"] += "-tenth"
json.dump(c, open(sys.argv[2], "w"))
PY
merge_alone() {  # CONFIG DIR LABEL: results.h5 rebuilt from DIR's shard files by one process
  rm -f "$2/results.h5"
  /usr/bin/time -f "%e %M" -o "$out/time" "$NQC" run "$1" -o "$2" --resume -q
  read -r secs kb <"$out/time"
  printf '%s: merge of %s cases: %.1f s, peak RSS %.0f MB; results.h5 %.1f bytes per case\n' "$3" \
    "$(cases "$1")" "$secs" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" \
    "$(awk -v b="$(stat -c %s "$2/results.h5")" -v c="$(cases "$1")" 'BEGIN { print b / c }')"
}
cases() { "$NQC" run "$1" --dry-run | sed -n 's/.* shards, \([0-9]*\) cases,.*/\1/p'; }
for config in "$out/tenth.json" "$CONFIG"; do
  label=$(basename "$config" .json)
  start=$(date +%s.%N)
  mpirun -np 2 "$NQC" run "$config" -o "$out/$label" --log-level debug 2>"$out/$label.log"
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
  n=$(cases "$config")
  printf '%s: %s cases on 2 ranks in %.1f s (launch to exit, merge included): %.0f cases/s\n' "$label" "$n" "$wall" \
    "$(awk -v c="$n" -v w="$wall" 'BEGIN { print c / w }')"
  grep -h "writing shard files: waited" "$out/$label.log" | sed 's/^.*\[rank \([0-9]*\)\].*waited/  rank \1: waited/'
  grep -h "merged .* in" "$out/$label.log" | sed 's/^.*\] /  /' || true
  printf '  shard files: %.1f bytes per case\n' \
    "$(awk -v b="$(du -cb "$out/$label"/shards/*.h5 | tail -n 1 | cut -f1)" -v c="$n" 'BEGIN { print b / c }')"
  merge_alone "$config" "$out/$label" "$label"
done
